//! [`Feedback`]: every problem of one reply, and the message that tells
//! the model what to fix.

use std::fmt;

use super::render;
use super::Problem;
use super::ProblemKind;
use crate::phrases::Lang;

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

    /// The headers with problems, deduplicated, in order; a rule across
    /// sections counts every section it concerns.
    pub fn headers(&self) -> Vec<&str> {
        let mut headers: Vec<&str> = Vec::new();
        for problem in &self.problems {
            let concerned = match &problem.kind {
                ProblemKind::Rule { headers, .. } => headers.as_slice(),
                _ => &[],
            };
            let named = std::iter::once(&problem.header).chain(concerned);
            for header in named {
                if !header.is_empty() && !headers.contains(&header.as_str()) {
                    headers.push(header);
                }
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
