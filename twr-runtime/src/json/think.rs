//! Removal of `<think>…</think>` and `<thinking>…</thinking>` blocks.
//!
//! Reasoning models put their scratch work (often with draft or example
//! JSON) in such blocks; the answer is what is left.
//!
//! This is stricter than the section parser's `parse::without_reasoning`,
//! on purpose: an opening tag counts only at the start of a line, because
//! in JSON the same characters are often data (`"tag": "<think>"`), while
//! in section text a tag anywhere is reasoning.

use std::borrow::Cow;

use memchr::memchr_iter;

/// Which tag starts at a `<`.
enum Tag {
    Open(usize),
    Close(usize),
}

/// The tag starting at `at` (a `<`), with its length, ignoring ASCII case.
fn tag_at(bytes: &[u8], at: usize) -> Option<Tag> {
    let rest = &bytes[at + 1..];
    let (close, rest) = match rest.first() {
        Some(b'/') => (true, &rest[1..]),
        _ => (false, rest),
    };
    let name_len = if starts_with_ignore_case(rest, b"thinking>") {
        9
    } else if starts_with_ignore_case(rest, b"think>") {
        6
    } else {
        return None;
    };
    let len = 1 + usize::from(close) + name_len;
    Some(if close {
        Tag::Close(len)
    } else {
        Tag::Open(len)
    })
}

/// True when only spaces or tabs stand between the line start and `at`: a
/// block opens on its own line, while `"<think>"` inside a JSON string is text.
fn starts_line(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_none_or(|&b| b == b'\n')
}

/// True when only spaces or tabs stand between `at` and the line end.
fn ends_line(bytes: &[u8], at: usize) -> bool {
    bytes[at..]
        .iter()
        .find(|&&b| b != b' ' && b != b'\t' && b != b'\r')
        .is_none_or(|&b| b == b'\n')
}

fn starts_with_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

/// `text` without its think blocks; borrowed when it has none.
///
/// A block never closed runs to the end (the reply was cut off while
/// thinking). A closing tag with no opening one drops everything before it:
/// some chat templates put the opening tag in the prompt.
pub(crate) fn strip_think(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut kept = String::new();
    let mut changed = false;
    // Start of the text not yet copied, and the start of an open block.
    let mut copy_from = 0;
    let mut open: Option<usize> = None;
    let mut seen_tag = false;
    for at in memchr_iter(b'<', bytes) {
        if at < copy_from {
            continue; // inside a tag already consumed
        }
        let Some(tag) = tag_at(bytes, at) else {
            continue;
        };
        match (tag, open) {
            (Tag::Open(len), None) if starts_line(bytes, at) => {
                kept.push_str(&text[copy_from..at]);
                open = Some(at);
                copy_from = at + len;
            }
            (Tag::Close(len), Some(_)) => {
                open = None;
                copy_from = at + len;
            }
            (Tag::Close(len), None) if !seen_tag && ends_line(bytes, at + len) => {
                // Everything before a lone closing tag was reasoning.
                copy_from = at + len;
            }
            // A nested or mid-line opening tag, a stray closing tag: text.
            _ => continue,
        }
        seen_tag = true;
        changed = true;
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    if open.is_none() {
        kept.push_str(&text[copy_from..]);
    }
    Cow::Owned(kept)
}

#[cfg(test)]
mod tests {
    use super::strip_think;

    #[test]
    fn removes_blocks_of_both_spellings_in_any_case() {
        assert_eq!(
            strip_think("<think>{\"a\":1}</think>{\"b\":2}\n<THINKING>x</Thinking>!"),
            "{\"b\":2}\n!"
        );
    }

    #[test]
    fn unclosed_block_runs_to_the_end() {
        assert_eq!(strip_think("[1]\n<think> draft [2]"), "[1]\n");
    }

    #[test]
    fn lone_closing_tag_drops_what_came_before() {
        assert_eq!(strip_think("draft {\"a\":1}</think>\n[3]"), "\n[3]");
    }

    #[test]
    fn tags_inside_json_strings_are_text() {
        let text = "```json\n{\"a\": \"<think>\", \"b\": \"</think>\"}\n```";
        assert!(matches!(strip_think(text), std::borrow::Cow::Borrowed(_)));
        assert_eq!(strip_think("  <think>x</think> [1]"), "   [1]");
    }

    #[test]
    fn text_without_blocks_is_borrowed() {
        assert!(matches!(
            strip_think("a < b <thin"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
