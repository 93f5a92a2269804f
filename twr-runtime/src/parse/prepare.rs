//! Preparing a raw reply for the header scan: reasoning blocks removed, a
//! code fence around the whole reply noticed.

use std::borrow::Cow;
use std::ops::Range;

use crate::reasoning::{outside_blocks, Policy};

/// The reply without its `<think>`/`<thinking>` blocks
/// ([`Policy::SECTIONS`]).
///
/// Borrowed when what is left is one contiguous stretch of `raw` (no
/// reasoning, or reasoning only at the start or the end, the usual case);
/// owned only when reasoning sits between two parts of the text.
pub(crate) fn without_reasoning(raw: &str) -> Cow<'_, str> {
    visible(raw).0
}

/// [`without_reasoning`], with where each stretch of the text lies in `raw`.
///
/// The text is exactly what the [`SectionStream`](super::SectionStream)
/// keeps of the same reply, so both find the same sections at the same
/// places.
pub(crate) fn visible(raw: &str) -> (Cow<'_, str>, Offsets) {
    let Some(kept) = outside_blocks(raw, Policy::SECTIONS) else {
        return (Cow::Borrowed(raw), Offsets::default());
    };
    let mut offsets = Offsets::default();
    match kept.as_slice() {
        [] => (Cow::Borrowed(""), offsets),
        [only] => {
            offsets.push(0, only.start);
            (Cow::Borrowed(&raw[only.clone()]), offsets)
        }
        _ => {
            let mut text = String::with_capacity(raw.len());
            for range in kept {
                offsets.push(text.len(), range.start);
                text.push_str(&raw[range]);
            }
            (Cow::Owned(text), offsets)
        }
    }
}

/// Where the stretches of a text with its reasoning blocks removed lie in
/// the reply: byte offsets in the text translated to byte offsets in the
/// reply, so that sections found in the text are located in the reply as
/// data, not by comparing pointers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Offsets {
    /// `(text offset, reply offset)` where each stretch starts, in order;
    /// stretches that follow each other in the reply too are one. Empty:
    /// the text is the reply.
    starts: Vec<(usize, usize)>,
}

impl Offsets {
    /// The text from `text_at` on was taken from the reply at `raw_at`.
    pub(crate) fn push(&mut self, text_at: usize, raw_at: usize) {
        if let Some(&(text_last, raw_last)) = self.starts.last() {
            let step = raw_at.checked_sub(raw_last);
            if step.is_some() && step == text_at.checked_sub(text_last) {
                return; // continues the last stretch
            }
        }
        self.starts.push((text_at, raw_at));
    }

    /// Forgets every stretch: the text starts again empty.
    pub(crate) fn clear(&mut self) {
        self.starts.clear();
    }

    /// The byte range in the reply of `text[range]`: from where its first
    /// byte was to where its last byte was, so reasoning blocks inside the
    /// range are spanned, and none before or after it. An empty range is
    /// placed right after the byte before it (not after a block that
    /// follows).
    pub(crate) fn to_reply(&self, range: Range<usize>) -> Range<usize> {
        let end = self.locate(range.end, |text_at| text_at < range.end);
        if range.is_empty() {
            return end..end;
        }
        let start = self.locate(range.start, |text_at| text_at <= range.start);
        start..end.max(start)
    }

    /// `at` in the reply, in the last stretch whose start satisfies `within`
    /// (or the first stretch).
    fn locate(&self, at: usize, within: impl Fn(usize) -> bool) -> usize {
        let found = self.starts.partition_point(|&(text_at, _)| within(text_at));
        match self.starts.get(found.saturating_sub(1)) {
            Some(&(text_at, raw_at)) => raw_at + at.saturating_sub(text_at),
            None => at,
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
