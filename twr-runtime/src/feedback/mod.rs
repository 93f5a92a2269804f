//! Structured problems found in a reply, and the message that tells the
//! model what to fix.
//!
//! The parser never says "parse failed": it returns a [`Feedback`] holding
//! one [`Problem`] per thing to fix; its `Display` is the exact text sent to
//! the model.

mod en;
mod render;
mod zh;

use std::fmt;

pub use crate::parse::Expected;
use crate::sections::ValueKind;

/// The language of the format guide and the feedback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// Chinese.
    Zh,
}

/// What is wrong with one section.
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
    /// The reply has no `=====` divider line before its answer.
    MissingDivider,
    /// Any other problem, in words (used by hand-written parsers).
    Other {
        /// The message.
        message: String,
    },
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
        }
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

/// Everything wrong with one reply; `Display` is the message for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    problems: Vec<Problem>,
    lang: Lang,
}

impl Feedback {
    /// An empty feedback in `lang`.
    pub fn new(lang: Lang) -> Self {
        Feedback {
            problems: Vec::new(),
            lang,
        }
    }

    /// A feedback with a single free-form problem, for hand-written parsers.
    pub fn message(text: impl Into<String>) -> Self {
        let mut feedback = Feedback::new(Lang::En);
        feedback.push(Problem::new(
            String::new(),
            ProblemKind::Other {
                message: text.into(),
            },
        ));
        feedback
    }

    /// Adds a problem.
    pub fn push(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    /// The problems, in the order they were found.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Consumes the feedback, returning its problems.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }

    /// True when there is nothing to fix.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// The language of the message.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The same problems, rendered in `lang`.
    pub fn with_lang(mut self, lang: Lang) -> Self {
        self.lang = lang;
        self
    }

    /// Adds the problems of `other` after these.
    pub fn extend(&mut self, other: Feedback) {
        self.problems.extend(other.problems);
    }

    /// The headers with problems, deduplicated, in order.
    pub fn headers(&self) -> Vec<&str> {
        let mut headers: Vec<&str> = Vec::new();
        for problem in &self.problems {
            if !problem.header.is_empty() && !headers.contains(&problem.header.as_str()) {
                headers.push(&problem.header);
            }
        }
        headers
    }
}

impl Feedback {
    /// The problems as they appear in the message, without its closing
    /// request ("Please write those sections again: ..."), for a caller that
    /// writes its own: the retry loop asks for exactly the sections it wants.
    pub fn problem_list(&self) -> ProblemList<'_> {
        ProblemList(self)
    }
}

/// [`Feedback::problem_list`]: the message without its closing request.
#[derive(Debug, Clone, Copy)]
pub struct ProblemList<'a>(&'a Feedback);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render::render(self.0, f, false)
    }
}

impl fmt::Display for Feedback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render::render(self, f, true)
    }
}

impl std::error::Error for Feedback {}

impl From<String> for Feedback {
    fn from(text: String) -> Self {
        Feedback::message(text)
    }
}

impl From<&str> for Feedback {
    fn from(text: &str) -> Self {
        Feedback::message(text)
    }
}
