//! Replies without any header: a bare answer to a request for one section,
//! and a reply that only acknowledges the request.
//!
//! Small models often answer "Reply with only the corrected [Days] section"
//! with `3` or with "Sure! The trip takes 3 days.", and a request to be
//! shorter with "Sure, I'll keep it short." These helpers tell the two
//! apart: a leading acknowledgement is dropped, and what is left (if
//! anything) is the answer.

use crate::parse::{split_sections, without_reasoning};
use crate::sections::SectionSpec;

/// Openings of a sentence that only acknowledges a request, in lower case.
/// A sentence starting with one of these (as whole words) says nothing about
/// the answer itself.
const ACKNOWLEDGEMENTS: &[&str] = &[
    "sure",
    "ok",
    "okay",
    "of course",
    "certainly",
    "absolutely",
    "alright",
    "all right",
    "got it",
    "understood",
    "i understand",
    "noted",
    "no problem",
    "thank you",
    "thanks",
    "yes",
    "great",
    "i apologize",
    "i apologise",
    "apologies",
    "my apologies",
    "sorry",
    "here is",
    "here it is",
    "here you go",
    "here's",
    "here are",
    "below is",
    "i'll",
    "i will",
    "i have",
    "i've",
    "i can",
    "let me",
    "好的",
    "当然",
    "明白",
    "谢谢",
    "以下是",
];

/// Openings that introduce the answer itself, in lower case: dropped, and
/// what follows them is the answer ("The answer is yes." is `yes.`).
const INTRODUCTIONS: &[&str] = &[
    "the answer is",
    "my answer is",
    "the final answer is",
    "final answer:",
    "answer:",
    "答案是",
    "答案：",
];

/// The reply's answer: reasoning removed, leading acknowledgement sentences
/// ("Sure!", "Here is the corrected section:") and an introduction ("The
/// answer is") dropped, trimmed. Empty when the reply only acknowledges.
pub(crate) fn answer_part(raw: &str) -> String {
    answer_to(raw, false)
}

/// [`answer_part`] for a yes/no question when `yes_no` is set: there a
/// leading "Yes." is the answer, not an acknowledgement.
pub(crate) fn answer_to(raw: &str, yes_no: bool) -> String {
    let text = without_reasoning(raw);
    let mut rest = text.trim();
    if yes_no && yes_or_no_first(rest) {
        return rest.trim_end().to_string();
    }
    // A few sentences at most: "Sure! Here is the corrected section:".
    for _ in 0..4 {
        match leading_acknowledgement(rest) {
            Some(len) => rest = rest[len..].trim_start(),
            None => break,
        }
    }
    let lower = rest.to_lowercase();
    if let Some(intro) = INTRODUCTIONS.iter().find(|intro| {
        lower.starts_with(*intro)
            && lower[intro.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    }) {
        // Lower-casing keeps these openings' byte lengths (ASCII and CJK).
        rest = rest.get(intro.len()..).unwrap_or(rest).trim_start();
    }
    rest.trim_end().to_string()
}

/// The text before the first header of `raw`, when the section at `index`
/// is absent or empty in it and that text is not: the answer a small model
/// wrote before a header it then left empty ("Yes\n[Recommend]").
pub(crate) fn before_empty_section<'r>(
    raw: &'r str,
    specs: &[SectionSpec],
    index: usize,
) -> Option<&'r str> {
    let map = split_sections(raw, specs);
    if map
        .content(index)
        .is_some_and(|content| !content.trim().is_empty())
    {
        return None;
    }
    // Line by line up to the first header: each line is read once.
    let mut end = 0;
    for line in raw.split_inclusive('\n') {
        if !split_sections(line, specs).is_empty() {
            break;
        }
        end += line.len();
    }
    let before = &raw[..end];
    (end < raw.len() && !before.trim().is_empty()).then_some(before)
}

/// True when `text` opens with the word yes or no.
fn yes_or_no_first(text: &str) -> bool {
    let end = text
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(text.len());
    matches!(text[..end].to_lowercase().as_str(), "yes" | "no")
}

/// True when the reply has text but no answer: it only acknowledges
/// ("Sure, I'll do that.", "Okay, here it is.").
pub(crate) fn is_acknowledgement(raw: &str) -> bool {
    !without_reasoning(raw).trim().is_empty() && answer_part(raw).is_empty()
}

/// The byte length of the first sentence of `text` when it is an
/// acknowledgement: it opens with one of [`ACKNOWLEDGEMENTS`], ends on its
/// first line (with `.`, `!`, `:` or the line's end) and holds no digit (a
/// sentence with a number in it is likely the answer: "Sure, it is 3").
fn leading_acknowledgement(text: &str) -> Option<usize> {
    let line_end = text.find('\n').unwrap_or(text.len());
    let line = &text[..line_end];
    let lower = line.to_lowercase();
    let opens = ACKNOWLEDGEMENTS.iter().any(|ack| {
        lower.starts_with(ack)
            && lower[ack.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    });
    if !opens {
        return None;
    }
    // The sentence ends at the first `.`, `!`, `:` (or their full-width
    // forms) followed by a space or the line's end; otherwise the line is
    // one sentence.
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if matches!(c, '.' | '!' | ':' | '。' | '！' | '：') {
            let next = chars.peek().map(|&(_, c)| c);
            if next.is_none_or(char::is_whitespace) || !c.is_ascii() {
                return without_digits(&line[..at + c.len_utf8()]);
            }
        }
    }
    without_digits(line)
}

/// The length of `sentence` when it holds no digit.
fn without_digits(sentence: &str) -> Option<usize> {
    (!sentence.chars().any(|c| c.is_ascii_digit())).then_some(sentence.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_value_is_the_answer() {
        assert_eq!(answer_part("3"), "3");
        assert_eq!(answer_part("  $650 per person \n"), "$650 per person");
        assert!(!is_acknowledgement("3"));
    }

    #[test]
    fn an_introduction_of_the_answer_is_dropped() {
        assert_eq!(answer_part("The answer is yes."), "yes.");
        assert_eq!(answer_part("Sure. The answer is 3 people."), "3 people.");
        assert_eq!(answer_part("Answer: Lena Berg"), "Lena Berg");
        // Only as an opening of its own.
        assert_eq!(
            answer_part("The answers are many."),
            "The answers are many."
        );
    }

    #[test]
    fn yes_is_the_answer_to_a_yes_no_question() {
        assert_eq!(answer_to("Yes.", true), "Yes.");
        assert_eq!(answer_to("No, not now.", true), "No, not now.");
        // Anywhere else "Yes." only acknowledges.
        assert_eq!(answer_to("Yes. 3 days.", false), "3 days.");
        assert!(is_acknowledgement("Yes."));
    }

    #[test]
    fn leading_acknowledgements_are_dropped() {
        assert_eq!(
            answer_part("Sure! The trip takes 3 days."),
            "The trip takes 3 days."
        );
        assert_eq!(answer_part("Sure! Here is the corrected section:\n3"), "3");
        assert_eq!(
            answer_part("Okay, here it is:\n- eggs\n- milk"),
            "- eggs\n- milk"
        );
        assert_eq!(answer_part("好的。三天"), "三天");
        assert_eq!(
            answer_part("<think>They want days.</think>\nOf course. 3"),
            "3"
        );
    }

    #[test]
    fn a_sentence_that_only_starts_like_one_is_kept() {
        // "Surely" is not "Sure"; "Yesterday" is not "Yes".
        assert_eq!(answer_part("Surely three days."), "Surely three days.");
        assert_eq!(answer_part("Yesterday was fine."), "Yesterday was fine.");
        // A sentence with a number is an answer, and a decimal point does
        // not end it.
        assert_eq!(
            answer_part("Ok 2.5 is it. Thanks!"),
            "Ok 2.5 is it. Thanks!"
        );
        assert_eq!(
            answer_part("Sure, it takes 3 days."),
            "Sure, it takes 3 days."
        );
    }

    #[test]
    fn acknowledgements_alone_are_recognised() {
        assert!(is_acknowledgement("Sure, I'll do that."));
        assert!(is_acknowledgement(
            "Okay! I will keep it short. Thank you for the feedback."
        ));
        assert!(is_acknowledgement("I apologize for the confusion."));
        assert!(!is_acknowledgement("The [Budget] section has been added."));
        assert!(!is_acknowledgement(""));
        assert!(!is_acknowledgement("<think>hmm</think>"));
    }
}
