//! What a section (or list item) should hold: [`Expected`].

use std::fmt;

use super::{Bounds, ValueKind};

/// What a section (or list item) should hold; rendered in the feedback's
/// language.
///
/// Not [`ValueKind`](crate::sections::ValueKind), the shape of a section:
/// this is what one value should have been, as the feedback words it
/// ([`Expected::of_kind`] gives it for a kind).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// Some text.
    Text,
    /// A single whole number.
    WholeNumber,
    /// A single whole number within bounds (the type's range).
    WholeNumberBetween {
        /// The smallest allowed value.
        min: String,
        /// The largest allowed value.
        max: String,
    },
    /// A single number, possibly with a fraction.
    Number,
    /// A single number within the bounds its section sets
    /// (`#[section(min = 0, max = 1)]`), either side open. (A whole number
    /// bounded on both sides is [`Expected::WholeNumberBetween`].)
    Within {
        /// A whole number (else one that may have a fraction).
        whole: bool,
        /// The smallest allowed value, as written; `None`: no lower bound.
        min: Option<String>,
        /// The largest allowed value, as written; `None`: no upper bound.
        max: Option<String>,
    },
    /// yes or no.
    YesNo,
    /// A single character.
    OneCharacter,
    /// One of these values.
    OneOf(&'static [&'static str]),
    /// Anything else, in words (English).
    Described(String),
}

impl Expected {
    /// What a value of `kind` should be.
    #[deny(clippy::wildcard_enum_match_arm)]
    pub fn of_kind(kind: &ValueKind) -> Expected {
        match kind {
            ValueKind::Text
            | ValueKind::Json
            | ValueKind::Custom
            | ValueKind::List(_)
            | ValueKind::Table
            | ValueKind::Record
            | ValueKind::Map(_) => Expected::Text,
            ValueKind::Integer => Expected::WholeNumber,
            ValueKind::Float => Expected::Number,
            ValueKind::Bool => Expected::YesNo,
            ValueKind::Char => Expected::OneCharacter,
            ValueKind::Choice(values) => Expected::OneOf(values),
        }
    }
}

impl Expected {
    /// What a value within `bounds` should be: a whole number (`whole`) or
    /// one that may have a fraction, from `min` to `max`.
    pub fn within(whole: bool, bounds: &Bounds) -> Expected {
        let text = |bound: Option<&str>| bound.map(|text| text.trim().to_owned());
        match (whole, text(bounds.min), text(bounds.max)) {
            (true, Some(min), Some(max)) => Expected::WholeNumberBetween { min, max },
            (true, None, None) => Expected::WholeNumber,
            (false, None, None) => Expected::Number,
            (whole, min, max) => Expected::Within { whole, min, max },
        }
    }
}

impl From<String> for Expected {
    fn from(text: String) -> Self {
        Expected::Described(text)
    }
}

impl From<&str> for Expected {
    fn from(text: &str) -> Self {
        Expected::Described(text.to_owned())
    }
}

/// The English words of [`Expected`]: its `Display` writes them, as the
/// English phrase table words them (a test in `phrases` holds the two to
/// each other). (The two templates,
/// `{whole_number} from {min} to {max}` and `one of: {values}`, are the
/// table's, as are `{number} from {min} to {max}`, `{number} of at least
/// {min}` and `{number} of at most {max}`; a test holds the `Display` to
/// them.)
mod english {
    /// [`Expected::Text`](super::Expected::Text).
    pub(crate) const SOME_TEXT: &str = "some text";
    /// [`Expected::WholeNumber`](super::Expected::WholeNumber).
    pub(crate) const WHOLE_NUMBER: &str = "a single whole number";
    /// [`Expected::Number`](super::Expected::Number).
    pub(crate) const NUMBER: &str = "a single number";
    /// [`Expected::YesNo`](super::Expected::YesNo).
    pub(crate) const YES_NO: &str = "yes or no";
    /// [`Expected::OneCharacter`](super::Expected::OneCharacter).
    pub(crate) const ONE_CHARACTER: &str = "a single character";
}

/// English wording, as in the feedback: "a single whole number".
impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use english::*;
        match self {
            Expected::Text => f.write_str(SOME_TEXT),
            Expected::WholeNumber => f.write_str(WHOLE_NUMBER),
            Expected::WholeNumberBetween { min, max } => {
                write!(f, "{WHOLE_NUMBER} from {min} to {max}")
            }
            Expected::Number => f.write_str(NUMBER),
            Expected::Within { whole, min, max } => {
                let number = if *whole { WHOLE_NUMBER } else { NUMBER };
                match (min, max) {
                    (Some(min), Some(max)) => write!(f, "{number} from {min} to {max}"),
                    (Some(min), None) => write!(f, "{number} of at least {min}"),
                    (None, Some(max)) => write!(f, "{number} of at most {max}"),
                    (None, None) => f.write_str(number),
                }
            }
            Expected::YesNo => f.write_str(YES_NO),
            Expected::OneCharacter => f.write_str(ONE_CHARACTER),
            Expected::OneOf(values) => write!(f, "one of: {}", values.join(", ")),
            // A phrase set inside a sentence: without its own full stop.
            Expected::Described(text) => f.write_str(text.trim().trim_end_matches(['.', '。'])),
        }
    }
}
