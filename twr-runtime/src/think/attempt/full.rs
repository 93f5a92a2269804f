//! The whole answer asked for again (a full retry, [`RetryMode::Full`],
//! or a patch with nothing valid to keep), merged with nothing earlier
//! unless the run keeps sections.
//!
//! [`RetryMode::Full`]: crate::RetryMode::Full

use super::super::messages::format_feedback;
use super::{Asking, Kind, Strategy};
use crate::phrases::phrases;
use crate::prompt::first_example;
use crate::sections::{Lang, SectionSpec, WaysSpec};

/// The whole answer again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Full;

impl Kind for Full {
    const NAME: &'static str = "full";

    /// Asked for the whole answer again after feedback, a model that
    /// writes no header at all does not follow the format.
    fn headerless_is_struggle(&self) -> bool {
        true
    }

    fn ask(&self, asking: Asking<'_>) -> String {
        ask_whole(asking)
    }

    fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
        restate_whole(specs, ways, lang)
    }

    fn again(self) -> Strategy {
        Strategy::Full(self)
    }
}

impl Full {
    /// The message sent back after a reply cut off by the token limit,
    /// when the whole answer is asked for again.
    pub(crate) fn after_cut(lang: Lang) -> String {
        let words = phrases(lang);
        format!(
            "{}{}{}",
            words.cut_off, words.sentence_gap, words.rewrite_shorter
        )
    }
}

/// The problems, then the request for the whole answer again: a new
/// answer for a free-form parser, in one way for a type with ways.
pub(super) fn ask_whole(asking: Asking<'_>) -> String {
    let words = phrases(asking.lang);
    let request = match (asking.specs, asking.ways) {
        (None, _) => words.ask_free,
        (Some(_), []) => words.ask_whole,
        (Some(_), _) => words.ask_whole_way,
    };
    format_feedback(asking.lang, asking.feedback, request, asking.then)
}

/// The request for the whole answer again, for a reply that only
/// acknowledged it: for a type with ways, the whole answer's example is
/// its first way's.
pub(super) fn restate_whole(specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
    format!(
        "{}\n\n{}",
        phrases(lang).write_now,
        first_example(specs, ways, lang)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_for_the_whole_answer_shorter_after_a_cut() {
        assert_eq!(
            Full::after_cut(Lang::En),
            "Your answer was cut off by the length limit before it was finished. Please write the whole answer again, shorter, so that it fits: keep each part brief."
        );
    }
}
