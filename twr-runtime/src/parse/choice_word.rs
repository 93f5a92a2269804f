//! Reading a [`Choice`] value: one of a fixed set of words.

use super::value_error::{Expected, ValueError};
use crate::choice::Choice;
use crate::phrases::Phrases;

/// Whether `text` names `variant`, ignoring case, surrounding punctuation and
/// markdown, and the spacing of multi-word names (`very high`, `very-high`
/// and `VeryHigh` are one value).
///
/// ```
/// use twr_runtime::parse::choice_matches;
///
/// assert!(choice_matches("**High.**", "High"));
/// assert!(choice_matches("very high", "VeryHigh"));
/// assert!(!choice_matches("Higher", "High"));
/// ```
pub fn choice_matches(text: &str, variant: &str) -> bool {
    let letters = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<Vec<_>>()
    };
    let text = letters(text);
    !text.is_empty() && text == letters(variant)
}

/// Reads one value of `C`: the whole content, else its first line, else the
/// one value named in it (`High, because ...`). Naming several values, or
/// none, is an error listing the allowed values; so is a value negated in
/// its clause (`not high`, `I wouldn't say low`), which would otherwise
/// read as the value it denies, and a value right after a word of degree
/// (`very high`, `slightly low`), which would read as a plainer value than
/// the one written: the model is asked again for one of the values. A
/// phrase that is itself a value is read as that value (`very high` is
/// `VeryHigh` when `C` has it). The words of the built-in tables
/// ([`Phrases::ENGLISH`]); [`choice_in`] reads a table's own.
///
/// ```
/// use twr_runtime::parse::choice;
/// use twr_runtime::Choice;
///
/// #[derive(Debug, PartialEq, Choice)]
/// enum Priority { Low, Medium, High }
///
/// assert_eq!(choice::<Priority>("High, because it blocks the release"), Ok(Priority::High));
/// assert!(choice::<Priority>("very high").is_err());
/// ```
pub fn choice<C: Choice>(content: &str) -> Result<C, ValueError> {
    choice_in(content, &Phrases::ENGLISH)
}

/// [`choice`] with the words of `phrases`: its `degree_words` (`sehr` in a
/// German table makes `sehr hoch` no plain `Hoch`). The derive's reader
/// calls this one with the type's table.
pub fn choice_in<C: Choice>(content: &str, phrases: &Phrases) -> Result<C, ValueError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(ValueError::Empty);
    }
    let first_line = content.lines().next().unwrap_or(content);
    if let Some(value) = C::from_choice(content).or_else(|| C::from_choice(first_line)) {
        return Ok(value);
    }
    let invalid = || ValueError::invalid(Expected::OneOf(C::VARIANTS), content);
    // The values named as words of the text: exactly one must be, and not
    // after a negation in the same clause.
    let mut named: Option<&'static str> = None;
    let mut negated = false;
    // Whether the word before, in the same clause, was a word of degree.
    let mut after_degree = false;
    let mut clause_start = 0;
    for (start, word) in words(content) {
        if content[clause_start..start].contains(CLAUSE_END) {
            negated = false;
            after_degree = false;
        }
        clause_start = start;
        if let Some(variant) = C::VARIANTS.iter().find(|v| choice_matches(word, v)) {
            match named {
                _ if negated || after_degree => return Err(invalid()),
                Some(seen) if seen != *variant => return Err(invalid()),
                _ => named = Some(variant),
            }
            after_degree = false;
        } else if is_negation(word, &content[..start]) {
            negated = true;
            after_degree = false;
        } else {
            after_degree = phrases
                .degree_words
                .iter()
                .any(|degree| degree.to_lowercase() == word.to_lowercase());
        }
    }
    named.and_then(C::from_choice).ok_or_else(invalid)
}

/// Where a negation's reach ends: `No, high` names High.
const CLAUSE_END: &[char] = &[
    ',', '.', ';', ':', '!', '?', '\n', '，', '。', '；', '：', '！', '？', '、',
];

/// Words that deny what follows them in a clause.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "neither", "nor", "cannot", "without", "hardly", "不", "不是", "非",
    "并非", "没", "没有", "未", "别",
];

/// Whether `word` (preceded by `before`) is a negation: `not`, `不是`, or
/// the `t` of a contraction split at its apostrophe (`isn't`, `don’t`).
pub(crate) fn is_negation(word: &str, before: &str) -> bool {
    NEGATIONS.iter().any(|n| word.eq_ignore_ascii_case(n))
        || (word.eq_ignore_ascii_case("t")
            && ["n'", "n’", "N'", "N’"].iter().any(|c| before.ends_with(c)))
}

/// The words of `text` with their byte offsets: runs of letters, digits,
/// `-` and `_`.
pub(crate) fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut rest = 0;
    std::iter::from_fn(move || {
        let start = rest + text[rest..].find(is_word)?;
        let end = text[start..]
            .find(|c| !is_word(c))
            .map_or(text.len(), |n| start + n);
        rest = end;
        Some((start, &text[start..end]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Priority {
        Low,
        Medium,
        High,
    }

    impl Choice for Priority {
        const VARIANTS: &'static [&'static str] = &["Low", "Medium", "High"];

        fn from_choice(text: &str) -> Option<Self> {
            [Priority::Low, Priority::Medium, Priority::High]
                .into_iter()
                .find(|p| choice_matches(text, p.as_choice()))
        }

        fn as_choice(&self) -> &'static str {
            match self {
                Priority::Low => "Low",
                Priority::Medium => "Medium",
                Priority::High => "High",
            }
        }
    }

    #[test]
    fn matches_ignoring_case_and_decoration() {
        for text in [
            "High", "high", "HIGH", "**High**", "`high`.", "\"High\"", "- High",
        ] {
            assert_eq!(choice::<Priority>(text), Ok(Priority::High), "{text}");
        }
    }

    #[test]
    fn one_value_named_in_a_sentence() {
        assert_eq!(
            choice::<Priority>("Medium\nbecause the budget is tight"),
            Ok(Priority::Medium)
        );
        assert_eq!(
            choice::<Priority>("I would say low, given the time."),
            Ok(Priority::Low)
        );
        assert_eq!(choice::<Priority>("High (high impact)"), Ok(Priority::High));
    }

    #[test]
    fn none_or_several_values_list_the_allowed_ones() {
        let expected = Expected::OneOf(&["Low", "Medium", "High"]);
        assert_eq!(
            choice::<Priority>("urgent"),
            Err(ValueError::invalid(expected.clone(), "urgent"))
        );
        assert_eq!(
            choice::<Priority>("Low | Medium | High"),
            Err(ValueError::invalid(expected, "Low | Medium | High"))
        );
        assert_eq!(choice::<Priority>(" "), Err(ValueError::Empty));
    }

    #[test]
    fn a_negated_value_is_feedback() {
        let expected = Expected::OneOf(&["Low", "Medium", "High"]);
        for text in [
            "not high",
            "Not High.",
            "**Not** high",
            "I wouldn't say low",
            "It isn’t medium",
            "Never low",
            "neither low nor high",
            "不是 High",
            "Priority: not high, as discussed",
        ] {
            assert_eq!(
                choice::<Priority>(text),
                Err(ValueError::invalid(expected.clone(), text)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_negation_in_another_clause_or_after_the_value_is_fine() {
        assert_eq!(choice::<Priority>("No, high."), Ok(Priority::High));
        assert_eq!(
            choice::<Priority>("Not urgent. Medium overall."),
            Ok(Priority::Medium)
        );
        assert_eq!(
            choice::<Priority>("High - no doubt about it"),
            Ok(Priority::High)
        );
        assert_eq!(choice::<Priority>("Low, it cannot wait"), Ok(Priority::Low));
        // A word that only contains a negation is none.
        assert_eq!(choice::<Priority>("Nothing urgent: low"), Ok(Priority::Low));
    }

    #[test]
    fn words_with_offsets() {
        assert_eq!(
            words("isn't very-high, 不是").collect::<Vec<_>>(),
            vec![(0, "isn"), (4, "t"), (6, "very-high"), (17, "不是")]
        );
    }

    #[test]
    fn a_value_after_a_word_of_degree_is_no_plainer_value() {
        for text in [
            "very high",
            "Very High.",
            "It is very high",
            "slightly low",
            "非常 high",
        ] {
            assert!(choice::<Priority>(text).is_err(), "{text}");
        }
        // A degree word elsewhere, or in another clause, changes nothing.
        assert_eq!(choice::<Priority>("I'd say high"), Ok(Priority::High));
        assert_eq!(choice::<Priority>("Very much so, high"), Ok(Priority::High));
        assert_eq!(choice::<Priority>("High (very)"), Ok(Priority::High));
        // A table's own words: `sehr hoch` is no plain `High` in German.
        static GERMAN: Phrases = Phrases {
            degree_words: &["sehr"],
            ..Phrases::ENGLISH
        };
        assert!(choice_in::<Priority>("sehr high", &GERMAN).is_err());
        assert_eq!(choice::<Priority>("sehr high"), Ok(Priority::High));
    }

    #[derive(Debug, PartialEq)]
    enum Level {
        High,
        VeryHigh,
    }

    impl Choice for Level {
        const VARIANTS: &'static [&'static str] = &["High", "VeryHigh"];

        fn from_choice(text: &str) -> Option<Self> {
            [Level::High, Level::VeryHigh]
                .into_iter()
                .find(|p| choice_matches(text, p.as_choice()))
        }

        fn as_choice(&self) -> &'static str {
            match self {
                Level::High => "High",
                Level::VeryHigh => "VeryHigh",
            }
        }
    }

    #[test]
    fn a_phrase_that_is_a_value_is_read_as_it() {
        assert_eq!(choice::<Level>("very high"), Ok(Level::VeryHigh));
        assert_eq!(choice::<Level>("**Very High.**"), Ok(Level::VeryHigh));
        assert_eq!(choice::<Level>("high"), Ok(Level::High));
    }
}
