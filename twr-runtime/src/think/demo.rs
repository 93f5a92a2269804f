//! Demonstrations: a question and its answer in the format, sent as a
//! user/assistant pair before the real prompt.
//!
//! A worked example in the conversation itself is the strongest hint a
//! small model gets: it copies the shape of its own earlier turn far more
//! reliably than it follows a description of the format. Capable models
//! read it as an ordinary few-shot example.

use crate::model::Message;
use crate::phrases::{fill, phrases};
use crate::vocab::{Lang, SectionSpec};

/// The opening messages of a run: the demonstrations, then the prompt.
pub(crate) struct Opening {
    /// User/assistant pairs, in order.
    pub(crate) demonstrations: Vec<Message>,
    /// The last user message: the prompt, with the guide when no
    /// demonstration carries it.
    pub(crate) prompt: String,
}

/// Lays out the opening: with no demonstration, the prompt with the guide
/// appended; with some, the guide goes with the first demonstration's
/// question (so the demonstrated answer follows it, as the real one will)
/// and the prompt gets a one-line reminder naming the headers.
pub(crate) fn opening(
    prompt: &str,
    guide: Option<&str>,
    demonstrations: &[(String, String)],
    specs: Option<&[SectionSpec]>,
    lang: Lang,
) -> Opening {
    let guide = guide.map(str::trim).filter(|guide| !guide.is_empty());
    let Some(guide) = guide.filter(|_| !demonstrations.is_empty()) else {
        return Opening {
            demonstrations: pairs(demonstrations),
            prompt: with_guide(prompt, guide),
        };
    };
    let mut messages = pairs(demonstrations);
    if let Some(first) = messages.first_mut() {
        first.content = with_guide(&first.content, Some(guide)).into();
    }
    let prompt = match specs {
        Some(specs) if !specs.is_empty() => {
            let words = phrases(lang);
            let headers: Vec<&str> = specs.iter().map(|spec| spec.header).collect();
            format!(
                "{prompt}\n\n{}",
                fill(words.same_format, &[("headers", &words.join(&headers))])
            )
        }
        _ => prompt.to_string(),
    };
    Opening {
        demonstrations: messages,
        prompt,
    }
}

/// The demonstration built from the sections' own examples: a request for
/// an example answer, and the guide's example answer.
pub(crate) fn from_examples(specs: &[SectionSpec], lang: Lang) -> (String, String) {
    (
        phrases(lang).demo_question.to_string(),
        crate::prompt::example_answer(specs, lang, &[]),
    )
}

fn with_guide(text: &str, guide: Option<&str>) -> String {
    match guide {
        Some(guide) => format!("{text}\n\n{guide}"),
        None => text.to_string(),
    }
}

fn pairs(demonstrations: &[(String, String)]) -> Vec<Message> {
    demonstrations
        .iter()
        .flat_map(|(question, answer)| [Message::user(question), Message::assistant(answer)])
        .collect()
}
