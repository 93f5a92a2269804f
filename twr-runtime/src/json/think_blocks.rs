//! Removal of `<think>…</think>` and `<thinking>…</thinking>` blocks.
//!
//! Reasoning models put their scratch work (often with draft or example
//! JSON) in such blocks; the answer is what is left.
//!
//! The tags are read by the shared lexer under [`Policy::JSON`], stricter
//! than the section parser's [`Policy::SECTIONS`] on purpose: an opening tag
//! counts only at the start of a line, because in JSON the same characters
//! are often data (`"tag": "<think>"`), while in section text a tag anywhere
//! is reasoning.

use std::borrow::Cow;

use crate::reasoning::{outside_blocks, Policy};

/// `text` without its think blocks ([`Policy::JSON`]); borrowed when it has
/// none.
///
/// A block never closed runs to the end (the reply was cut off while
/// thinking). A closing tag with no opening one drops everything before it:
/// some chat templates put the opening tag in the prompt.
pub(crate) fn strip_think(text: &str) -> Cow<'_, str> {
    match outside_blocks(text, Policy::JSON) {
        None => Cow::Borrowed(text),
        Some(kept) => Cow::Owned(kept.into_iter().map(|range| &text[range]).collect()),
    }
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
