//! The messages the loop sends back to the model, in the run's language.
//!
//! The problem list itself is the [`Feedback`]'s own rendering; these
//! messages only frame it and say what to send next. Their words are in the
//! language tables of `phrases/`.

use crate::feedback::Feedback;

use crate::phrases::{fill, phrases, Phrases};
use crate::sections::Lang;

/// What the model is asked to send after a rejected reply. (Not a
/// [`model::Request`](crate::model::Request), the call a model answers.)
pub(crate) enum AskFor<'h> {
    /// Only these sections (patch retry).
    Sections(&'h [&'h str]),
    /// These sections, from the one a streamed reply was stopped at on.
    AfterStop(&'h [&'h str]),
    /// Every section again.
    Whole,
    /// The whole answer again, in one way (a type with a choice of ways).
    WholeOneWay,
    /// A new answer, for a free-form parser.
    Free,
}

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

/// The message sent back after a reply with format problems.
pub(crate) fn format_feedback(
    lang: Lang,
    feedback: &Feedback,
    ask: AskFor<'_>,
    then: Then<'_>,
) -> String {
    let words = phrases(lang);
    // The loop's own request below replaces the feedback's generic closing.
    let mut text = format!("{}\n\n", feedback.problem_list());
    match ask {
        AskFor::Sections(headers) => text.push_str(&fill(
            words.ask_sections,
            &[("sections", &sections(words, headers))],
        )),
        AskFor::AfterStop(headers) => text.push_str(&fill(
            words.ask_after_stop,
            &[("sections", &sections(words, headers))],
        )),
        AskFor::Whole => text.push_str(words.ask_whole),
        AskFor::WholeOneWay => text.push_str(words.ask_whole_way),
        AskFor::Free => text.push_str(words.ask_free),
    }
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

/// The message sent back after a reply cut off by the token limit: the
/// complete sections `kept` are kept and only `remaining` are asked for.
pub(crate) fn truncated_patch(lang: Lang, kept: &[&str], remaining: &[&str]) -> String {
    let words = phrases(lang);
    let mut text = String::from(words.cut_off);
    if !kept.is_empty() {
        let template = if kept.len() == 1 {
            words.kept_one
        } else {
            words.kept_many
        };
        text.push_str(words.sentence_gap);
        text.push_str(&fill(template, &[("headers", &words.join(kept))]));
    }
    text.push_str(words.sentence_gap);
    text.push_str(&fill(
        words.write_only,
        &[("sections", &sections(words, remaining))],
    ));
    text
}

/// The message sent back after a reply cut off by the token limit, when the
/// whole answer is asked for again.
pub(crate) fn truncated_whole(lang: Lang) -> String {
    let words = phrases(lang);
    format!(
        "{}{}{}",
        words.cut_off, words.sentence_gap, words.rewrite_shorter
    )
}

/// The note that marks `bytes` bytes left out of a huge failed reply sent
/// back in its bounded form.
pub(crate) fn left_out(lang: Lang, bytes: usize) -> String {
    fill(phrases(lang).left_out, &[("bytes", &bytes.to_string())])
}

/// "[A] section, under its header on a line of its own" or "[A] and [B]
/// sections, each under its header on a line of its own".
fn sections(words: &Phrases, headers: &[&str]) -> String {
    let template = if headers.len() == 1 {
        words.sections_one
    } else {
        words.sections_many
    };
    fill(template, &[("headers", &words.join(headers))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_for_one_or_several_sections_by_name() {
        assert_eq!(
            truncated_patch(Lang::En, &["[A]"], &["[B]", "[C]"]),
            "Your answer was cut off by the length limit before it was finished. I have kept the complete [A] section. Please write only the [B] and [C] sections, each under its header on a line of its own, and keep it short so that it fits."
        );
        assert_eq!(
            truncated_patch(Lang::Zh, &["[A]", "[B]"], &["[C]"]),
            "你的回答因长度限制被截断，没有写完。我已保留完整的[A]和[B]部分。请只写[C]部分，每部分写在其标题下，并尽量简短，以免再次被截断。"
        );
        assert_eq!(
            truncated_whole(Lang::En),
            "Your answer was cut off by the length limit before it was finished. Please write the whole answer again, shorter, so that it fits: keep each part brief."
        );
    }
}
