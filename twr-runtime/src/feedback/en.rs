//! English feedback.

use super::render::{sentence_end, Words};
use super::{Expected, Problem, ProblemKind};
use crate::sections::ValueKind;

pub(super) static WORDS: Words = Words {
    intro: "Thank you. A few parts of your answer need fixing:",
    for_example: "For example:",
    closing_one: "Please write that section again: the header on a line of its own, followed by its content.",
    closing_many: "Please write those sections again: each header on a line of its own, followed by its content.",
    sentence,
};

fn sentence(problem: &Problem, such_as: Option<&str>) -> String {
    let h = &problem.header;
    match &problem.kind {
        ProblemKind::Missing => format!(
            "The {h} section is missing. Please add it: the header {h} on a line of its own, then {}.",
            kind(problem.value_kind.as_ref())
        ),
        ProblemKind::Empty => format!(
            "The {h} section is empty. Please write {} under its header.",
            kind(problem.value_kind.as_ref())
        ),
        ProblemKind::BadValue { expected, found } => format!(
            "The {h} section should be {}; it says '{found}'.",
            self::expected(expected, such_as)
        ),
        ProblemKind::BadItem {
            index,
            item,
            expected,
        } => format!(
            "Item {index} of the {h} list should be {}; it says '{item}'.",
            self::expected(expected, None)
        ),
        // From json::extract: about the whole reply, not a section.
        ProblemKind::BadJson { path, message } if h.is_empty() && path.is_empty() => {
            format!("The reply should be JSON of the expected shape: {}", sentence_end(message, '.'))
        }
        ProblemKind::BadJson { path, message } if h.is_empty() => {
            format!("The JSON in the reply is wrong at `{path}`: {}", sentence_end(message, '.'))
        }
        ProblemKind::BadJson { path, message } if path.is_empty() => format!(
            "The {h} section should be JSON of the expected shape: {}",
            sentence_end(message, '.')
        ),
        ProblemKind::BadJson { path, message } => format!(
            "The JSON in the {h} section is wrong at `{path}`: {}",
            sentence_end(message, '.')
        ),
        ProblemKind::Unreadable { message, found } => format!(
            "The {h} section could not be read ({}); it says '{found}'.",
            message.trim().trim_end_matches('.')
        ),
        ProblemKind::Invalid { message } => format!(
            "The {h} section needs a change: {}",
            sentence_end(message, '.')
        ),
        ProblemKind::NearMiss { wrote } => format!(
            "You wrote {wrote}; name it {h}, on a line of its own."
        ),
        ProblemKind::NotOnOwnLine { line } => format!(
            "The {h} header must stand on a line of its own; it appears inside the line '{line}'."
        ),
        ProblemKind::NoneOf { headers } => format!(
            "None of the sections {} is in your answer. Please give at least one of them, each header on a line of its own.",
            headers.join(", ")
        ),
        ProblemKind::MissingDivider => "Please put your final answer after a line of five or more equals signs (=====), or between two such lines.".to_owned(),
        ProblemKind::Other { message } => message.clone(),
    }
}

/// "a single whole number such as 6".
pub(crate) fn expected(expected: &Expected, such_as: Option<&str>) -> String {
    let such_as = such_as.map(|e| format!(" such as {e}")).unwrap_or_default();
    match expected {
        Expected::Text => "some text".to_owned(),
        Expected::WholeNumber => format!("a single whole number{such_as}"),
        Expected::WholeNumberBetween { min, max } => {
            format!("a single whole number from {min} to {max}")
        }
        Expected::Number => format!("a single number{such_as}"),
        Expected::YesNo => "yes or no".to_owned(),
        Expected::OneCharacter => format!("a single character{such_as}"),
        Expected::OneOf(values) => format!("one of: {}", values.join(", ")),
        Expected::Described(text) => text.trim().trim_end_matches('.').to_owned(),
    }
}

/// What to write for a section of `kind`: "a single whole number".
pub(crate) fn kind(kind: Option<&ValueKind>) -> String {
    match kind {
        None | Some(ValueKind::Text) => "its content".to_owned(),
        Some(ValueKind::Integer) => "a single whole number".to_owned(),
        Some(ValueKind::Float) => "a single number".to_owned(),
        Some(ValueKind::Bool) => "yes or no".to_owned(),
        Some(ValueKind::Char) => "a single character".to_owned(),
        Some(ValueKind::Choice(values)) => format!("one of: {}", values.join(", ")),
        Some(ValueKind::List(_)) => "a list, one item per line".to_owned(),
        Some(ValueKind::Json) => "the JSON value".to_owned(),
        Some(ValueKind::Custom) => "its value".to_owned(),
    }
}
