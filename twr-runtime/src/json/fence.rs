//! Markdown code fences: ```` ```json ````, ```` ``` ````, `~~~`, and a fence
//! that was never closed (a reply cut off inside it).
//!
//! A fence closes with a run of its marker at least as long as the opening
//! one and nothing after it on its line: ```` ```python ```` inside the
//! content (a JSON string holding a code block) opens a block, it closes
//! nothing.

use std::ops::Range;

use memchr::{memchr, memchr2_iter, memmem};

/// One code fence of a text, as byte offsets into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence {
    /// Where its opening marker starts. A fence opened inside a value (in
    /// a string of it, or between its brackets) is part of that value,
    /// wherever its content starts: a one-line fence's content may begin
    /// only after the string that holds the marker has closed.
    pub(crate) open: usize,
    /// Its content.
    pub(crate) content: Range<usize>,
}

/// The code fences in `text`, in order.
pub(crate) fn fences(text: &str) -> Fences<'_> {
    Fences { text, pos: 0 }
}

/// True when only spaces and tabs stand between `at` and the end of its line.
fn rest_of_line_blank(bytes: &[u8], at: usize) -> bool {
    bytes[at..]
        .iter()
        .take_while(|&&b| b != b'\n')
        .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Iterator over fence contents; see [`fences`].
pub(crate) struct Fences<'a> {
    text: &'a str,
    pos: usize,
}

/// Length of the run of `byte` starting at `at`.
fn run_len(bytes: &[u8], at: usize, byte: u8) -> usize {
    bytes[at..].iter().take_while(|&&b| b == byte).count()
}

impl Iterator for Fences<'_> {
    type Item = Fence;

    fn next(&mut self) -> Option<Fence> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        if start >= bytes.len() {
            return None;
        }
        // Find an opening run of three or more backticks or tildes.
        let mut found = None;
        let mut skip_to = start;
        for at in memchr2_iter(b'`', b'~', &bytes[start..]) {
            let at = start + at;
            if at < skip_to {
                continue;
            }
            let len = run_len(bytes, at, bytes[at]);
            if len >= 3 {
                found = Some((at, len));
                break;
            }
            skip_to = at + len;
        }
        let Some((open, len)) = found else {
            self.pos = bytes.len();
            return None;
        };
        let marker = bytes[open];
        let info_start = open + len;
        let line_end = memchr(b'\n', &bytes[info_start..]).map_or(bytes.len(), |i| info_start + i);
        // A one-line fence (```json {"a": 1}```) has its content on the
        // opening line, after the language tag.
        let info = &bytes[info_start..line_end];
        let content_start = match info.iter().position(|&b| b == b'{' || b == b'[') {
            Some(i) => info_start + i,
            None => (line_end + 1).min(bytes.len()),
        };
        let needle: &[u8] = if marker == b'`' { b"```" } else { b"~~~" };
        let mut search = content_start;
        loop {
            match memmem::find(&bytes[search..], needle) {
                Some(i) => {
                    let close = search + i;
                    let close_len = run_len(bytes, close, marker);
                    if close_len >= len && rest_of_line_blank(bytes, close + close_len) {
                        self.pos = close + close_len;
                        return Some(Fence {
                            open,
                            content: content_start..close,
                        });
                    }
                    search = close + close_len;
                }
                None => {
                    // Never closed: the content runs to the end.
                    self.pos = bytes.len();
                    return Some(Fence {
                        open,
                        content: content_start..bytes.len(),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fences;

    fn all(text: &str) -> Vec<&str> {
        fences(text).map(|fence| &text[fence.content]).collect()
    }

    #[test]
    fn finds_tagged_bare_and_tilde_fences() {
        assert_eq!(
            all("a\n```json\n{\"a\":1}\n```\nb\n```JSON\n[1]\n```\n~~~\n2\n~~~\n```\n3\n```"),
            ["{\"a\":1}\n", "[1]\n", "2\n", "3\n"]
        );
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        assert_eq!(all("Here:\n```json\n{\"a\": [1, 2"), ["{\"a\": [1, 2"]);
    }

    #[test]
    fn one_line_fence_and_longer_markers() {
        assert_eq!(all("```json {\"a\":1}```"), ["{\"a\":1}"]);
        assert_eq!(all("````\n```\n[1]\n````"), ["```\n[1]\n"]);
    }

    #[test]
    fn a_fence_with_a_language_tag_closes_nothing() {
        // A code block inside a JSON string, its lines raw.
        let text = "```json\n{\"a\": \"Use:\n```python\nx = 1\n```\n\", \"ok\": true}\n```\nDone.";
        assert_eq!(all(text), ["{\"a\": \"Use:\n```python\nx = 1\n", "Done."]);
        // A closing fence may carry trailing spaces.
        assert_eq!(all("```\n[1]\n```  \nok"), ["[1]\n"]);
    }

    #[test]
    fn a_fence_knows_where_it_opens() {
        // The content of a one-line fence starts at its first bracket,
        // which may stand after the string holding the marker.
        let text = r#"[["x ```a"],[1]"#;
        let fence = fences(text).next().unwrap();
        assert_eq!((fence.open, &text[fence.content]), (5, "[1]"));
    }

    #[test]
    fn inline_code_is_not_a_fence() {
        assert!(all("use `x` and ``y``").is_empty());
    }
}
