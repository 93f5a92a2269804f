//! A patch retry ([`RetryMode::Patch`], the default): only the sections
//! that failed, by name; the reply is merged with the valid sections kept
//! from earlier replies, never read alone.
//!
//! [`RetryMode::Patch`]: crate::RetryMode::Patch

use super::{full, Kind, Strategy};
use crate::grammar::Grammar;
use crate::phrases::phrases;
use crate::prompt::example_answer;
use crate::sections::{ChoiceSpec, Lang, SectionSpec};

/// Only the sections that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Patch {
    /// The sections asked for, by index in the specs.
    pub(crate) indices: Vec<usize>,
}

impl Kind for Patch {
    const NAME: &'static str = "patch";

    /// Asked for one section, the model may answer with its bare content.
    fn one(&self) -> Option<usize> {
        match self.indices.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    fn asks_part(&self) -> bool {
        true
    }

    fn grammar(&self, whole: Grammar) -> Grammar {
        whole.only_at(&self.indices)
    }

    /// The sections asked for, with their example.
    fn restate(&self, specs: &[SectionSpec], choices: &[ChoiceSpec], lang: Lang) -> String {
        let chosen: Vec<SectionSpec> = self
            .indices
            .iter()
            .filter_map(|&i| specs.get(i))
            .copied()
            .collect();
        if chosen.is_empty() {
            return full::restate_whole(specs, choices, lang);
        }
        format!(
            "{}\n\n{}",
            phrases(lang).write_now,
            example_answer(&chosen, lang, &[])
        )
    }

    fn again(self) -> Strategy {
        Strategy::Patch(self)
    }
}
