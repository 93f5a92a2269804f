//! [`SectionValue`]: how the content of one section becomes a typed value.

use crate::sections::ValueKind;

/// Why a section's content is not a value of the expected type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// Nothing but white space.
    Empty,
    /// Not a value of the expected kind.
    Invalid {
        /// What was expected, for the model: "a single whole number such as 6".
        expected: String,
        /// What the content says (shortened when long).
        found: String,
    },
    /// One list item is not a value of the element type.
    BadItem {
        /// 1-based position.
        index: usize,
        /// The item's text.
        item: String,
        /// What each item should be.
        expected: String,
    },
    /// A JSON value of the wrong shape.
    Json {
        /// Field path inside the value; empty for the root.
        path: String,
        /// What is wrong, in words.
        message: String,
    },
    /// A message from a `FromStr` implementation or a custom parser.
    Message(String),
}

/// A type that can be the value of a section.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the value of a section",
    label = "this field's type is not a section value",
    note = "section values are String, numbers, bool, char, Vec of those, and #[derive(Choice)] enums",
    note = "for a serde type add #[section(json)]; for a FromStr type add #[section(from_str)]; to keep the field out of the reply add #[section(skip)]"
)]
pub trait SectionValue: Sized {
    /// The kind of value, for the guide and the feedback.
    const KIND: ValueKind;

    /// Reads the (already trimmed) content of a section.
    fn parse_section(content: &str) -> Result<Self, ValueError>;
}
