//! Preparing a raw reply for the header scan: reasoning blocks removed, a
//! code fence around the whole reply noticed.

use std::borrow::Cow;

use crate::reasoning::{outside_blocks, Policy};

/// The reply without its `<think>`/`<thinking>` blocks
/// ([`Policy::SECTIONS`]).
///
/// Borrowed when what is left is one contiguous stretch of `raw` (no
/// reasoning, or reasoning only before or after the answer, the usual case);
/// owned only when reasoning sits between two parts of the answer.
pub(crate) fn without_reasoning(raw: &str) -> Cow<'_, str> {
    let Some(kept) = outside_blocks(raw, Policy::SECTIONS) else {
        return Cow::Borrowed(raw);
    };
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
