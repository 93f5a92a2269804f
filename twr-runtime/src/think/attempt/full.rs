//! The whole answer asked for again (a full retry, [`RetryMode::Full`],
//! or a patch with nothing valid to keep), merged with nothing earlier
//! unless the run keeps sections.
//!
//! [`RetryMode::Full`]: crate::RetryMode::Full

use super::{Kind, Strategy};
use crate::phrases::phrases;
use crate::prompt::first_example;
use crate::sections::{ChoiceSpec, Lang, SectionSpec};

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

    fn restate(&self, specs: &[SectionSpec], choices: &[ChoiceSpec], lang: Lang) -> String {
        restate_whole(specs, choices, lang)
    }

    fn again(self) -> Strategy {
        Strategy::Full(self)
    }
}

/// The request for the whole answer again, for a reply that only
/// acknowledged it: for a type with choices, the whole answer's example is
/// its first way's.
pub(super) fn restate_whole(specs: &[SectionSpec], choices: &[ChoiceSpec], lang: Lang) -> String {
    format!(
        "{}\n\n{}",
        phrases(lang).write_now,
        first_example(specs, choices, lang)
    )
}
