//! A focused question: one section still missing or wrong, asked for as
//! a plain question without any format ("The total cost in dollars. Reply
//! with only the number, for example: $600."), after a patch retry asked
//! for it or once the model shows it does not follow the format. Its reply
//! may be the bare value, read as that section and merged with those kept.

use super::super::messages::Then;
use super::super::outcome::AttemptKind;
use super::{full, Asking, Kind, Strategy};
use crate::feedback::{Feedback, ProblemKind, Wording};
use crate::grammar::Grammar;
use crate::phrases::{fill, phrases, without_stop, Phrases};
use crate::sections::{Lang, Presence, SectionSpec, ValueKind, WaysSpec};

/// One section, as a plain question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Focused {
    /// The section asked about, by index in the specs.
    pub(crate) index: usize,
}

impl Kind for Focused {
    const NAME: &'static str = "focused";

    fn one(&self) -> Option<usize> {
        Some(self.index)
    }

    fn focus(&self) -> Option<usize> {
        Some(self.index)
    }

    fn asks_part(&self) -> bool {
        true
    }

    /// The ledger marks the reply to a focused question as such, whether
    /// it gave a value or not.
    fn outcome(&self, _read: AttemptKind) -> AttemptKind {
        AttemptKind::Focused
    }

    /// The section's value alone, without header or reasoning.
    fn grammar(&self, whole: Grammar) -> Grammar {
        whole.value_at(self.index)
    }

    /// The question, after a validator's reason when one failed the
    /// section (see [`question_after`]).
    fn ask(&self, asking: Asking<'_>) -> String {
        match asking.specs.and_then(|specs| specs.get(self.index)) {
            Some(spec) => question_after(spec, asking.feedback, asking.lang),
            None => full::ask_whole(asking),
        }
    }

    fn wording(&self, _then: &Then<'_>) -> Wording {
        Wording::Focused
    }

    /// The question again.
    fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
        match specs.get(self.index) {
            Some(spec) => question(spec, lang),
            None => full::restate_whole(specs, ways, lang),
        }
    }

    fn again(self) -> Strategy {
        Strategy::Focused(self)
    }
}

/// The plain question that asks for one section without any format:
/// its description and what to reply with ("The total cost in dollars.
/// Reply with only the number, for example: $600.").
fn question(spec: &SectionSpec, lang: Lang) -> String {
    let words = phrases(lang);
    let description = spec.description.trim();
    let mut text = if description.is_empty() {
        fill(words.focused_nameless, &[("name", spec.name)])
    } else {
        words.sentence_end(description)
    };
    let example = spec.example.trim();
    let template = if !example.is_empty() && !example.contains('\n') {
        words.focused_reply_example
    } else {
        words.focused_reply
    };
    text.push_str(words.sentence_gap);
    text.push_str(&fill(
        template,
        &[
            ("what", &reply_with(words, spec)),
            ("example", without_stop(example)),
        ],
    ));
    // An optional section may have no answer; saying how to write that
    // keeps "the text gives no age" from being asked for again.
    if spec.presence == Presence::Optional {
        text.push_str(words.sentence_gap);
        text.push_str(words.focused_optional);
    }
    text
}

/// The focused question for `spec` after the reply that had `problems`:
/// a validator's reason goes first, since the description need not say it
/// ("The [Weeks] section needs a change: a study of 60 weeks does not fit
/// in a year."). The failed value itself is not repeated.
fn question_after(spec: &SectionSpec, problems: &Feedback, lang: Lang) -> String {
    let words = phrases(lang);
    let question = question(spec, lang);
    let reason = problems
        .problems()
        .iter()
        .find_map(|problem| match &problem.kind {
            ProblemKind::Invalid { message } if problem.header == spec.header => Some(fill(
                words.invalid,
                &[
                    ("h", spec.header),
                    ("message", &words.sentence_end(message)),
                ],
            )),
            _ => None,
        });
    match reason {
        Some(reason) => format!("{reason}\n\n{question}"),
        None => question,
    }
}

/// What a focused question asks the model to reply with.
#[deny(clippy::wildcard_enum_match_arm)]
fn reply_with(words: &Phrases, spec: &SectionSpec) -> String {
    let kind = &spec.kind;
    match kind {
        // A bounded number says its bounds, as the guide does: "the number
        // from 0 to 1".
        ValueKind::Integer | ValueKind::Float => {
            let number = words.the_number;
            match (spec.bounds.min, spec.bounds.max) {
                (Some(min), Some(max)) => fill(
                    words.number_between,
                    &[("number", number), ("min", min), ("max", max)],
                ),
                (Some(min), None) => fill(words.at_least, &[("number", number), ("min", min)]),
                (None, Some(max)) => fill(words.at_most, &[("number", number), ("max", max)]),
                (None, None) => number.to_owned(),
            }
        }
        ValueKind::Bool => words.yes_no.to_owned(),
        ValueKind::Char => words.one_character.to_owned(),
        ValueKind::Choice(values) => fill(words.one_of, &[("values", &values.join(words.comma))]),
        ValueKind::List(_) => words.the_list.to_owned(),
        ValueKind::Text | ValueKind::Json | ValueKind::Custom => words.the_answer.to_owned(),
        ValueKind::Table | ValueKind::Record | ValueKind::Map(_) => words.to_write(Some(kind)),
    }
}
