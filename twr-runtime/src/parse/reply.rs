//! Preparing a raw reply for the header scan: reasoning blocks removed, a
//! code fence around the whole reply noticed.

use std::borrow::Cow;
use std::ops::Range;

/// The reply without its `<think>`/`<thinking>` blocks.
///
/// Borrowed when what is left is one contiguous stretch of `raw` (no
/// reasoning, or reasoning only before or after the answer, the usual case);
/// owned only when reasoning sits between two parts of the answer.
pub(crate) fn without_reasoning(raw: &str) -> Cow<'_, str> {
    // Fast path: no tag at all, nothing to cut.
    if find_tag(raw.as_bytes(), 0, false).is_none() && find_tag(raw.as_bytes(), 0, true).is_none() {
        return Cow::Borrowed(raw);
    }
    let kept = kept_ranges(raw);
    let mut non_blank = kept.iter().filter(|r| !raw[(*r).clone()].trim().is_empty());
    match (non_blank.next(), non_blank.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(only), None) => Cow::Borrowed(&raw[only.clone()]),
        _ => {
            let mut text = String::with_capacity(raw.len());
            for range in kept {
                text.push_str(&raw[range]);
            }
            Cow::Owned(text)
        }
    }
}

/// The byte ranges of `raw` outside reasoning blocks, in order.
fn kept_ranges(raw: &str) -> Vec<Range<usize>> {
    let bytes = raw.as_bytes();
    let mut kept = Vec::new();
    let mut cursor = 0;
    // A closing tag before any opening one: the template put the opening tag
    // in the prompt (DeepSeek-R1 style), so everything before it is reasoning.
    let first_open = find_tag(bytes, 0, false).map(|(start, _)| start);
    if let Some((start, end)) = find_tag(bytes, 0, true) {
        if first_open.is_none_or(|open| start < open) {
            cursor = end;
        }
    }
    while let Some((open_start, open_end)) = find_tag(bytes, cursor, false) {
        kept.push(cursor..open_start);
        match find_tag(bytes, open_end, true) {
            Some((_, close_end)) => cursor = close_end,
            // An unclosed block runs to the end: the reply was cut off while
            // the model was still thinking.
            None => {
                cursor = bytes.len();
                break;
            }
        }
    }
    if cursor < bytes.len() {
        kept.push(cursor..bytes.len());
    }
    kept
}

/// The next `<think>`/`<thinking>` (or, with `closing`, `</think>`/
/// `</thinking>`) tag at or after `from`, ignoring ASCII case: its byte range.
fn find_tag(bytes: &[u8], from: usize, closing: bool) -> Option<(usize, usize)> {
    let name_at = if closing { 2 } else { 1 };
    memchr::memchr_iter(b'<', &bytes[from..])
        .map(|i| from + i)
        .find_map(|start| {
            let tag = &bytes[start..];
            if closing && tag.get(1) != Some(&b'/') {
                return None;
            }
            let name = tag.get(name_at..)?;
            [&b"think>"[..], b"thinking>"]
                .into_iter()
                .find(|t| name.len() >= t.len() && name[..t.len()].eq_ignore_ascii_case(t))
                .map(|t| (start, start + name_at + t.len()))
        })
}

/// Whether `line` (already trimmed) opens or closes a code fence: three or
/// more backticks or tildes.
pub(crate) fn is_fence(line: &str) -> bool {
    let bytes = line.as_bytes();
    match bytes.first() {
        Some(&c @ (b'`' | b'~')) => bytes.len() >= 3 && bytes[1] == c && bytes[2] == c,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_reasoning_borrows_the_reply() {
        let raw = "[Plan]\nGo";
        assert!(matches!(
            without_reasoning(raw),
            Cow::Borrowed("[Plan]\nGo")
        ));
    }

    #[test]
    fn leading_think_block_is_cut_and_the_rest_borrowed() {
        let raw = "<think>[Plan]\nmaybe</think>\n[Plan]\nGo";
        let text = without_reasoning(raw);
        assert!(matches!(text, Cow::Borrowed(_)));
        assert_eq!(text, "\n[Plan]\nGo");
    }

    #[test]
    fn thinking_blocks_in_the_middle_are_cut() {
        let raw = "[Plan]\nGo<thinking>no, stay</thinking> now\n<THINK>x</Think>[Budget]\n5";
        assert_eq!(without_reasoning(raw), "[Plan]\nGo now\n[Budget]\n5");
    }

    #[test]
    fn orphan_closing_tag_cuts_everything_before_it() {
        let raw = "reasoning [Plan] draft\n</think>\n[Plan]\nfinal";
        assert_eq!(without_reasoning(raw), "\n[Plan]\nfinal");
    }

    #[test]
    fn unclosed_block_runs_to_the_end() {
        assert_eq!(
            without_reasoning("[Plan]\nGo\n<think>hmm [Plan] x"),
            "[Plan]\nGo\n"
        );
    }

    #[test]
    fn words_containing_think_are_text() {
        let raw = "I think <thinker> is fine </thinks>";
        assert_eq!(without_reasoning(raw), raw);
    }

    #[test]
    fn fences() {
        assert!(is_fence("```"));
        assert!(is_fence("```json"));
        assert!(is_fence("~~~~"));
        assert!(!is_fence("``"));
        assert!(!is_fence("`~~"));
    }
}
