//! The frame of the messages the loop sends back to the model, in the
//! run's language.
//!
//! The problem list itself is the [`Feedback`]'s own rendering; what to
//! send next is the next attempt's request, written by its kind (see
//! `think/attempt/`); these messages only put the two together with what
//! follows. Their words are in the language tables of `phrases/`.

use crate::feedback::{Feedback, Wording};

use crate::phrases::{fill, phrases, Phrases};
use crate::sections::Lang;

/// What follows the request in a message about problems.
pub(crate) enum Then<'g> {
    /// Nothing.
    Nothing,
    /// The same problems came twice in a row: say so, with the format
    /// guide (its complete example answer included) when there is one.
    Repeated(Option<&'g str>),
    /// The format guide, shown with the first feedback
    /// ([`Wording::WithExample`](crate::feedback::Wording::WithExample)).
    Guide(&'g str),
}

impl Then<'_> {
    /// How a list of problems followed by this is worded: with the example
    /// when it shows the guide.
    pub(crate) fn wording(&self) -> Wording {
        match self {
            Then::Repeated(Some(_)) | Then::Guide(_) => Wording::WithExample,
            Then::Repeated(None) | Then::Nothing => Wording::Listed,
        }
    }
}

/// The message sent back after a reply with format problems: the
/// problems, the next attempt's `request`, and `then`.
pub(crate) fn format_feedback(
    lang: Lang,
    feedback: &Feedback,
    request: &str,
    then: Then<'_>,
) -> String {
    let words = phrases(lang);
    // The loop's own request below replaces the feedback's generic closing.
    let mut text = format!("{}\n\n", feedback.problem_list());
    text.push_str(request);
    let same = [("same", words.same_problems)];
    match then {
        Then::Nothing => {}
        Then::Repeated(Some(guide)) => {
            text.push_str("\n\n");
            text.push_str(&fill(words.escalate_with_guide, &same));
            text.push_str("\n\n");
            text.push_str(guide);
        }
        Then::Repeated(None) => {
            text.push_str("\n\n");
            text.push_str(&fill(words.escalate, &same));
        }
        Then::Guide(guide) => {
            text.push_str("\n\n");
            text.push_str(words.show_guide);
            text.push_str("\n\n");
            text.push_str(guide);
        }
    }
    text
}

/// The note that marks `bytes` bytes left out of a huge failed reply sent
/// back in its bounded form.
pub(crate) fn left_out(lang: Lang, bytes: usize) -> String {
    fill(phrases(lang).left_out, &[("bytes", &bytes.to_string())])
}

/// "[A] section, under its header on a line of its own" or "[A] and [B]
/// sections, each under its header on a line of its own".
pub(crate) fn sections(words: &Phrases, headers: &[&str]) -> String {
    let template = if headers.len() == 1 {
        words.sections_one
    } else {
        words.sections_many
    };
    fill(template, &[("headers", &words.join(headers))])
}
