//! One thing to fix in a reply: a [`Problem`] with a section, what is
//! wrong ([`ProblemKind`]) and where inside the section ([`Place`]).

use std::fmt;

use super::render;
use crate::phrases::Lang;
use crate::vocab::Expected;
use crate::vocab::ValueKind;

/// Where inside a table, record or map section a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// A cell of a table.
    Cell {
        /// The 1-based data row, the header not counted.
        row: usize,
        /// The column's name as written.
        column: String,
    },
    /// A whole row of a table.
    Row(usize),
    /// The value of a `Label: value` line, by its label as written (or the
    /// field's name when no line gives it).
    Label(String),
}

/// What is wrong with one section.
///
/// A value that could not be read arrives here from its reader's
/// [`ValueError`](crate::parse::ValueError), which knows only the content;
/// the rest (missing, misnamed, mixed ways) only the whole reply shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The section is not in the reply.
    Missing,
    /// The header is there but nothing follows it.
    Empty,
    /// The content is not a value of the expected kind.
    BadValue {
        /// What was expected.
        expected: Expected,
        /// What the section says (shortened when long).
        found: String,
    },
    /// One item of a list section is not a value of the expected kind.
    BadItem {
        /// 1-based position of the item.
        index: usize,
        /// The item's text (shortened when long).
        item: String,
        /// What was expected of each item.
        expected: Expected,
    },
    /// A JSON section did not fit the expected shape.
    BadJson {
        /// The field path inside the JSON value (`budget.total`), empty for the root.
        path: String,
        /// What is wrong there, in words.
        message: String,
    },
    /// The value's own parser (`FromStr`, `#[section(from_str)]`) rejected it.
    Unreadable {
        /// The parser's message.
        message: String,
        /// What the section says (shortened when long).
        found: String,
    },
    /// A `validate` function rejected the value; its message.
    Invalid {
        /// The validator's message.
        message: String,
    },
    /// The section is missing, but a header line that names no section looks
    /// like it was meant to be this one.
    NearMiss {
        /// The header line as the model wrote it: `[Schedule]`.
        wrote: String,
    },
    /// The section is missing as a header line, but a line names it in a
    /// way that is not read as a header: a list item (`- **Budget:** $5`, or
    /// `2. Budget` inside a list section), a quote (`> Budget`), a label
    /// (`Section: Budget`), braces (`{budget}`), a rule (`=== Budget ===`).
    UnreadHeader {
        /// The line as the model wrote it (shortened when long).
        wrote: String,
    },
    /// The section is missing as a header line, but its header appears
    /// inside a line of text (`Day 2: [Budget]`).
    NotOnOwnLine {
        /// The line where it appears (shortened when long).
        line: String,
    },
    /// None of these sections is in the reply, and at least one is needed.
    NoneOf {
        /// The headers, with brackets.
        headers: Vec<String>,
    },
    /// The reply has none of the sections of an enum's ways to answer (an
    /// enum deriving `Sections`), so it took no way.
    NoWay {
        /// The enum's name.
        enum_name: String,
        /// Every way, with its headers.
        ways: Vec<Way>,
    },
    /// The reply has sections of several ways of an enum.
    MixedWays {
        /// The enum's name.
        enum_name: String,
        /// The ways the reply wrote, each with the headers it wrote.
        found: Vec<Way>,
        /// Every way, with its headers.
        ways: Vec<Way>,
    },
    /// The reply has no `=====` divider line before its answer.
    MissingDivider,
    /// A table section holds no table.
    NoTable {
        /// The columns the table should have.
        columns: Vec<String>,
    },
    /// A record section holds no `Label: value` line.
    NoRecord {
        /// The labels it should have.
        labels: Vec<String>,
    },
    /// The table has no column for a field the rows need.
    NoColumn {
        /// The missing column.
        column: String,
        /// The columns the table has, as written.
        columns: Vec<String>,
    },
    /// A record line whose label names none of the fields.
    UnknownLabel {
        /// The label as written.
        label: String,
        /// The labels there are.
        labels: Vec<String>,
    },
    /// A table row with more cells than the table has columns
    /// ([`Problem::place`] is the row).
    ExtraCells {
        /// The cells beyond the last column (shortened when long).
        extra: String,
        /// How many columns the header has.
        columns: usize,
    },
    /// More problems of the same section, left out to keep the message short.
    Omitted {
        /// How many.
        count: usize,
    },
    /// A rule across sections (`#[sections(validate = path)]`) failed on
    /// a value whose every section parsed. The message is the rule's own
    /// text, sent to the model as written.
    Rule {
        /// The rule's error, as its `Display` wrote it.
        message: String,
        /// The headers of the sections the rule concerns
        /// (`#[sections(validate = path, concerns = [field, ...])]`), which a
        /// patch retry asks for; empty when it names none, and the whole
        /// answer is asked for.
        headers: Vec<String>,
    },
    /// The loop's asynchronous check ([`Think::check`](crate::Think::check))
    /// refused a value that parsed. The message is the check's own text,
    /// sent to the model as written.
    Check {
        /// The check's error, as its `Display` wrote it.
        message: String,
    },
    /// Any other problem, in words (used by hand-written parsers).
    Other {
        /// The message.
        message: String,
    },
}

/// One way of answering of an enum, in a [`ProblemKind::NoWay`] or
/// [`ProblemKind::MixedWays`]: the variant's name and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Way {
    /// The variant's name (`Search`).
    pub name: String,
    /// Its headers, with brackets.
    pub headers: Vec<String>,
}

impl Way {
    /// The way `name` with `headers`.
    pub fn new(name: impl Into<String>, headers: Vec<String>) -> Self {
        Way {
            name: name.into(),
            headers,
        }
    }
}

/// One thing to fix, tied to a section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The section's header with brackets (`[Weeks]`); empty when the problem
    /// is about the reply as a whole.
    pub header: String,
    /// The Rust field name, when the problem comes from a derived struct.
    pub field: Option<String>,
    /// What is wrong.
    pub kind: ProblemKind,
    /// The section's example content, shown so the model sees what to write.
    pub example: Option<String>,
    /// The kind of value the section holds, so the message can say what to
    /// write when the section is missing or empty.
    pub value_kind: Option<ValueKind>,
    /// Where inside a table, record or map section the problem is; `None`
    /// for the section as a whole.
    pub place: Option<Place>,
}

impl Problem {
    /// A problem with the section `header`.
    pub fn new(header: impl Into<String>, kind: ProblemKind) -> Self {
        Problem {
            header: header.into(),
            field: None,
            kind,
            example: None,
            value_kind: None,
            place: None,
        }
    }

    /// Sets where inside the section the problem is.
    pub fn with_place(mut self, place: Place) -> Self {
        self.place = Some(place);
        self
    }

    /// Sets the Rust field name.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Sets the example shown with the problem.
    pub fn with_example(mut self, example: impl Into<String>) -> Self {
        self.example = Some(example.into());
        self
    }

    /// Sets the kind of value the section holds.
    pub fn with_value_kind(mut self, kind: ValueKind) -> Self {
        self.value_kind = Some(kind);
        self
    }
}

/// English: the sentence the feedback says of this problem, without the
/// example it shows below it (a [`Feedback`](super::Feedback) renders in its own language).
///
/// ```
/// use twr_runtime::{Feedback, Sections};
///
/// #[derive(Debug, Sections)]
/// struct Trip {
///     weeks: u32,
/// }
///
/// let feedback: Feedback = Trip::parse_sections("[Weeks]\nabout six").unwrap_err();
/// assert_eq!(
///     feedback.problems()[0].to_string(),
///     "The [Weeks] section should be a single whole number; it says 'about six'."
/// );
/// ```
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render::problem(self, Lang::En, f)
    }
}
