//! Why a section's content is not a value of its type ([`ValueError`]),
//! with what it should have been ([`Expected`], from the vocabulary), and
//! the short quote of the content it carries.

use std::fmt;

use crate::feedback::{Problem, ProblemKind};
pub use crate::vocab::Expected;

/// Why a section's content is not a value of the expected type: what a
/// [`SectionValue`](crate::parse::SectionValue) reader returns. The section
/// reader turns it into the [`ProblemKind`] of the section: `Invalid` into
/// `BadValue`, `Json` into `BadJson`, `Message` into `Unreadable`.
///
/// Not a [`ProblemKind`]: a `ValueError` is what a reader finds in one
/// content, knowing neither its header nor the reply (so a reader written
/// outside twr can return it); a `ProblemKind` is what is wrong with a
/// section of a reply, which also covers what only the whole reply shows (a
/// missing or misnamed header, mixed ways of an enum).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// Nothing but white space.
    Empty,
    /// Not a value of the expected kind.
    Invalid {
        /// What was expected.
        expected: Expected,
        /// What the content says (shortened when long).
        found: String,
    },
    /// One list item is not a value of the expected kind.
    BadItem {
        /// 1-based position.
        index: usize,
        /// The item's text (shortened when long).
        item: String,
        /// What each item should be.
        expected: Expected,
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
    /// Problems inside a table, record or map section, each with its
    /// [`Problem::place`] (row and column, or label); their header is the
    /// section's, filled in by the section reader.
    Rows(Vec<Problem>),
}

impl ValueError {
    /// An [`ValueError::Invalid`] error quoting `found` (shortened when long).
    pub fn invalid(expected: Expected, found: &str) -> Self {
        ValueError::Invalid {
            expected,
            found: excerpt(found),
        }
    }

    /// The problem of a section whose `content` gave this error. A
    /// [`ValueError::Message`] quotes the content, since the message alone
    /// does not say what was written.
    pub(crate) fn into_problem(self, content: &str) -> ProblemKind {
        match self {
            ValueError::Empty => ProblemKind::Empty,
            ValueError::Invalid { expected, found } => ProblemKind::BadValue { expected, found },
            ValueError::BadItem {
                index,
                item,
                expected,
            } => ProblemKind::BadItem {
                index,
                item,
                expected,
            },
            ValueError::Json { path, message } => ProblemKind::BadJson { path, message },
            ValueError::Message(message) => ProblemKind::Unreadable {
                message,
                found: excerpt(content),
            },
            // The section reader pushes each of these problems itself; alone,
            // the first one stands for them.
            ValueError::Rows(problems) => problems
                .into_iter()
                .next()
                .map_or(ProblemKind::Empty, |problem| problem.kind),
        }
    }
}

/// English, for developers: "expected a single whole number, found 'about
/// six'".
impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Empty => f.write_str("the section is empty"),
            ValueError::Invalid { expected, found } => {
                write!(f, "expected {expected}, found '{found}'")
            }
            ValueError::BadItem {
                index,
                item,
                expected,
            } => write!(f, "item {index} should be {expected}, found '{item}'"),
            ValueError::Json { path, message } if path.is_empty() => f.write_str(message),
            ValueError::Json { path, message } => write!(f, "at `{path}`: {message}"),
            ValueError::Message(message) => f.write_str(message),
            ValueError::Rows(problems) => write!(f, "{} problems in the rows", problems.len()),
        }
    }
}

impl std::error::Error for ValueError {}

/// `text` shortened for quoting in feedback: one line, at most 80 characters.
/// The crate's one `excerpt`: a huge failed reply sent back to the model
/// is the loop's `bounded_reply`, server text quoted in an error the
/// client's `Secrets::scrubbed_quote`.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    let mut count = 0;
    for (i, line) in text
        .trim()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if i > 0 {
            out.push_str(" / ");
            count += 3;
        }
        for c in line.chars() {
            if count == MAX {
                out.truncate(out.trim_end().len());
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_one_short_line() {
        assert_eq!(excerpt("  a\n\n b "), "a / b");
        let long = "x".repeat(100);
        assert_eq!(excerpt(&long), format!("{}…", "x".repeat(80)));
    }

    #[test]
    fn value_errors_become_the_problems_of_their_section() {
        let cases = [
            (ValueError::Empty, ProblemKind::Empty),
            (
                ValueError::invalid(Expected::WholeNumber, "about six"),
                ProblemKind::BadValue {
                    expected: Expected::WholeNumber,
                    found: "about six".into(),
                },
            ),
            (
                ValueError::BadItem {
                    index: 2,
                    item: "a few".into(),
                    expected: Expected::WholeNumber,
                },
                ProblemKind::BadItem {
                    index: 2,
                    item: "a few".into(),
                    expected: Expected::WholeNumber,
                },
            ),
            (
                ValueError::Json {
                    path: "total".into(),
                    message: "expected a number".into(),
                },
                ProblemKind::BadJson {
                    path: "total".into(),
                    message: "expected a number".into(),
                },
            ),
            (
                ValueError::Message("invalid date".into()),
                ProblemKind::Unreadable {
                    message: "invalid date".into(),
                    found: "next / week".into(),
                },
            ),
        ];
        for (error, problem) in cases {
            assert_eq!(error.into_problem("next\nweek"), problem);
        }
    }
}
