//! Reading a [`Choice`] value: one of a fixed set of words.

use super::value_error::{Expected, ValueError};
use crate::choice::Choice;

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
/// read as the value it denies.
pub fn choice<C: Choice>(content: &str) -> Result<C, ValueError> {
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
    let mut clause_start = 0;
    for (start, word) in words(content) {
        if content[clause_start..start].contains(CLAUSE_END) {
            negated = false;
        }
        clause_start = start;
        if let Some(variant) = C::VARIANTS.iter().find(|v| choice_matches(word, v)) {
            match named {
                _ if negated => return Err(invalid()),
                Some(seen) if seen != *variant => return Err(invalid()),
                _ => named = Some(variant),
            }
        } else if is_negation(word, &content[..start]) {
            negated = true;
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
}
