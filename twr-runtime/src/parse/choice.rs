//! Reading a [`Choice`] value: one of a fixed set of words.

use super::value::{excerpt, Expected, ValueError};
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
/// none, is an error listing the allowed values.
pub fn choice<C: Choice>(content: &str) -> Result<C, ValueError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(ValueError::Empty);
    }
    let first_line = content.lines().next().unwrap_or(content);
    if let Some(value) = C::from_choice(content).or_else(|| C::from_choice(first_line)) {
        return Ok(value);
    }
    // The values named as words of the text: exactly one must be.
    let mut named: Option<&'static str> = None;
    for word in words(content) {
        if let Some(variant) = C::VARIANTS.iter().find(|v| choice_matches(word, v)) {
            match named {
                Some(seen) if seen != *variant => {
                    return Err(ValueError::invalid(Expected::OneOf(C::VARIANTS), content))
                }
                _ => named = Some(variant),
            }
        }
    }
    named
        .and_then(C::from_choice)
        .ok_or_else(|| ValueError::Invalid {
            expected: Expected::OneOf(C::VARIANTS),
            found: excerpt(content),
        })
}

/// The words of `text`: runs of letters, digits, `-` and `_`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
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
}
