//! Renders a [`Feedback`] as the message sent to the model: every problem of
//! the reply in one message, each with what to write and the section's
//! example. The wording lives in `en.rs` and `zh.rs`.

use std::fmt::{self, Write as _};

use super::{en, zh, Expected, Feedback, Lang, Problem, ProblemKind};

/// The phrases of one language.
pub(super) struct Words {
    /// Opens a message with several problems.
    pub intro: &'static str,
    /// Introduces an example block.
    pub for_example: &'static str,
    /// Ends a message about one section.
    pub closing_one: &'static str,
    /// Ends a message about several sections.
    pub closing_many: &'static str,
    /// The sentence naming one problem. `such_as` is the example when it is
    /// short enough to be said inline.
    pub sentence: fn(&Problem, Option<&str>) -> String,
}

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &en::WORDS,
        Lang::Zh => &zh::WORDS,
    }
}

pub(super) fn render(feedback: &Feedback, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let words = words(feedback.lang());
    let problems = feedback.problems();
    let numbered = problems.len() > 1;
    let mut out = String::new();
    if numbered {
        out.push_str(words.intro);
        out.push_str("\n\n");
    }
    for (i, problem) in problems.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        let indent = if numbered {
            let _ = write!(out, "{}. ", i + 1);
            "   "
        } else {
            ""
        };
        let such_as = inline_example(problem);
        out.push_str(&(words.sentence)(problem, such_as));
        if such_as.is_none() {
            if let Some(example) = example_block(problem) {
                let _ = write!(out, "\n{indent}{}", words.for_example);
                for line in example.lines() {
                    let _ = write!(out, "\n{indent}{line}");
                }
            }
        }
    }
    let sections = problems.iter().filter(|p| !p.header.is_empty()).count();
    if sections > 0 {
        out.push_str("\n\n");
        out.push_str(if sections > 1 {
            words.closing_many
        } else {
            words.closing_one
        });
    }
    f.write_str(&out)
}

/// The example, when it is a short single line and the problem is about a
/// scalar: "a single whole number such as 6".
fn inline_example(problem: &Problem) -> Option<&str> {
    let example = problem.example.as_deref()?.trim();
    let scalar = matches!(
        problem.kind,
        ProblemKind::BadValue {
            expected: Expected::WholeNumber | Expected::Number | Expected::OneCharacter,
            ..
        }
    );
    (scalar && !example.is_empty() && !example.contains('\n') && example.chars().count() <= 30)
        .then_some(example)
}

/// The header and example content shown after a problem, when there is one.
fn example_block(problem: &Problem) -> Option<String> {
    let example = problem.example.as_deref()?.trim();
    let shows_example = matches!(
        problem.kind,
        ProblemKind::Missing
            | ProblemKind::Empty
            | ProblemKind::BadValue { .. }
            | ProblemKind::BadItem { .. }
            | ProblemKind::BadJson { .. }
            | ProblemKind::Unreadable { .. }
            | ProblemKind::Invalid { .. }
            | ProblemKind::NearMiss { .. }
            | ProblemKind::NotOnOwnLine { .. }
    );
    // A choice lists its values in the sentence already.
    let choice = matches!(
        problem.kind,
        ProblemKind::BadValue {
            expected: Expected::OneOf(_),
            ..
        }
    );
    (shows_example && !choice && !example.is_empty() && !problem.header.is_empty())
        .then(|| format!("{}\n{example}", problem.header))
}

/// `text` as the end of a sentence: its own final punctuation is kept, a
/// full stop is added otherwise.
pub(super) fn sentence_end(text: &str, stop: char) -> String {
    let text = text.trim();
    match text.chars().next_back() {
        Some('.' | '!' | '?' | '。' | '！' | '？') | None => text.to_owned(),
        Some(_) => format!("{text}{stop}"),
    }
}
