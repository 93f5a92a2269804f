//! The loop's last resorts for a model that does not follow the format: a
//! focused question about one section, and restating a request that was
//! only acknowledged.

use crate::feedback::{Feedback, ProblemKind};
use crate::parse::SectionMap;
use crate::phrases::{fill, phrases, without_stop, Phrases};
use crate::prompt::{example_answer, first_example, placeholder};
use crate::sections::{ChoiceSpec, Lang, Presence, SectionSpec, ValueKind};

/// What the last message asked the model for, to read the next reply and
/// to restate the request if the reply only acknowledges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Asked {
    /// The whole answer (the prompt itself, or a full retry).
    Whole,
    /// These sections, by index (a patch retry).
    Sections(Vec<usize>),
    /// One section, as a plain question (see [`question`]).
    Focused(usize),
}

impl Asked {
    /// The one section asked for, if exactly one was.
    pub(crate) fn one(&self) -> Option<usize> {
        match self {
            Asked::Sections(indices) if indices.len() == 1 => Some(indices[0]),
            Asked::Focused(index) => Some(*index),
            _ => None,
        }
    }
}

/// The plain question that asks for one section without any format:
/// its description and what to reply with ("The total cost in dollars.
/// Reply with only the number, for example: $600.").
pub(crate) fn question(spec: &SectionSpec, lang: Lang) -> String {
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

/// True when a section of a reply (its sections `map`, of `specs`) is a
/// copy of the guide rather than an answer: its first line repeats the
/// section's description, or its lines are the guide's slot for it (`<a
/// single whole number>`, `- <item>`).
///
/// A capable model never does this; a small one that does will fumble a
/// patch retry as well, so the loop goes straight to focused questions.
pub(crate) fn copies_the_guide(map: &SectionMap<'_>, specs: &[SectionSpec], lang: Lang) -> bool {
    specs.iter().enumerate().any(|(index, spec)| {
        let Some(content) = map.content(index) else {
            return false;
        };
        let mut lines = content.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next() else {
            return false;
        };
        let description = without_stop(spec.description.trim());
        let echoes = description.chars().count() >= 12
            && first.len() >= description.len()
            && first.is_char_boundary(description.len())
            && first[..description.len()].eq_ignore_ascii_case(description);
        let slot = placeholder(&spec.kind, lang);
        let slot_lines: Vec<&str> = slot.lines().map(str::trim).collect();
        let is_slot = std::iter::once(first)
            .chain(lines)
            .all(|line| slot_lines.contains(&line));
        echoes || is_slot
    })
}

/// The focused question for `spec` after the reply that had `problems`:
/// a validator's reason goes first, since the description need not say it
/// ("The [Weeks] section needs a change: a study of 60 weeks does not fit
/// in a year."). The failed value itself is not repeated.
pub(crate) fn question_after(spec: &SectionSpec, problems: &Feedback, lang: Lang) -> String {
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

/// The request again, for a reply that only acknowledged it ("Sure, I'll
/// do that."): what to write, with its example, and nothing about problems.
/// For a type with choices, the whole answer's example is its first way's.
pub(crate) fn restate(
    asked: &Asked,
    specs: &[SectionSpec],
    choices: &[ChoiceSpec],
    lang: Lang,
) -> String {
    let words = phrases(lang);
    match asked {
        Asked::Focused(index) => match specs.get(*index) {
            Some(spec) => question(spec, lang),
            None => restate(&Asked::Whole, specs, choices, lang),
        },
        Asked::Sections(indices) => {
            let chosen: Vec<SectionSpec> = indices
                .iter()
                .filter_map(|&i| specs.get(i))
                .copied()
                .collect();
            if chosen.is_empty() {
                return restate(&Asked::Whole, specs, choices, lang);
            }
            format!(
                "{}\n\n{}",
                words.write_now,
                example_answer(&chosen, lang, &[])
            )
        }
        Asked::Whole => format!(
            "{}\n\n{}",
            words.write_now,
            first_example(specs, choices, lang)
        ),
    }
}
