//! A patch retry ([`RetryMode::Patch`], the default): only the sections
//! that failed, by name; the reply is merged with the valid sections kept
//! from earlier replies, never read alone.
//!
//! [`RetryMode::Patch`]: crate::RetryMode::Patch

use super::super::messages::{format_feedback, sections};
use super::{full, Asking, Kind, Strategy};
use crate::grammar::Grammar;
use crate::phrases::{fill, phrases};
use crate::prompt::example_answer;
use crate::sections::{Lang, SectionSpec, WaysSpec};

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

    /// The problems, then the failing sections by name; after a reply
    /// stopped as it streamed, from the section it was stopped at on.
    fn ask(&self, asking: Asking<'_>) -> String {
        let words = phrases(asking.lang);
        let template = match asking.stopped {
            true => words.ask_after_stop,
            false => words.ask_sections,
        };
        let request = fill(template, &[("sections", &sections(words, asking.headers))]);
        format_feedback(asking.lang, asking.feedback, &request, asking.then)
    }

    /// The sections asked for, with their example.
    fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
        let chosen: Vec<SectionSpec> = self
            .indices
            .iter()
            .filter_map(|&i| specs.get(i))
            .copied()
            .collect();
        if chosen.is_empty() {
            return full::restate_whole(specs, ways, lang);
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

impl Patch {
    /// The message sent back after a reply cut off by the token limit: the
    /// complete sections `kept` are kept and only `remaining` are asked for.
    pub(crate) fn after_cut(lang: Lang, kept: &[&str], remaining: &[&str]) -> String {
        let words = phrases(lang);
        let mut text = String::from(words.cut_off);
        if !kept.is_empty() {
            let template = if kept.len() == 1 {
                words.kept_one
            } else {
                words.kept_many
            };
            text.push_str(words.sentence_gap);
            text.push_str(&fill(template, &[("headers", &words.join(kept))]));
        }
        text.push_str(words.sentence_gap);
        text.push_str(&fill(
            words.write_only,
            &[("sections", &sections(words, remaining))],
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_for_one_or_several_sections_by_name() {
        assert_eq!(
            Patch::after_cut(Lang::En, &["[A]"], &["[B]", "[C]"]),
            "Your answer was cut off by the length limit before it was finished. I have kept the complete [A] section. Please write only the [B] and [C] sections, each under its header on a line of its own, and keep it short so that it fits."
        );
        assert_eq!(
            Patch::after_cut(Lang::Zh, &["[A]", "[B]"], &["[C]"]),
            "你的回答因长度限制被截断，没有写完。我已保留完整的[A]和[B]部分。请只写[C]部分，每部分写在其标题下，并尽量简短，以免再次被截断。"
        );
    }
}
