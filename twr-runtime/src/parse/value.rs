//! [`SectionValue`]: how the content of one section becomes a typed value.

pub(crate) use crate::vocab::excerpt;
use crate::vocab::ValueKind;
pub use crate::vocab::{Expected, ValueError};

/// A type that can be the value of a section.
///
/// Implemented for `String`, every integer and float type, `bool`, `char`,
/// `Vec<T>` of those, and `#[derive(Choice)]` enums. Implement it for your
/// own type to use it as a section directly.
///
/// ```
/// use twr_runtime::parse::SectionValue;
///
/// assert_eq!(u32::parse_section("about $1,200 in total"), Ok(1200));
/// assert_eq!(bool::parse_section("Yes, it fits."), Ok(true));
/// assert_eq!(Vec::<String>::parse_section("- Kyoto\n- Nara"), Ok(vec!["Kyoto".to_string(), "Nara".to_string()]));
/// assert!(u32::parse_section("6 to 8 weeks").is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the value of a section",
    label = "this field's type is not a section value",
    note = "section values are String, numbers, bool, char, Vec of those, and #[derive(Choice)] enums",
    note = "for a serde type add #[section(json)]; for a FromStr type add #[section(from_str)]; to keep the field out of the reply add #[section(skip)]"
)]
pub trait SectionValue: Sized {
    /// The kind of value, for the guide and the feedback.
    const KIND: ValueKind;

    /// Reads the (already trimmed) content of a section.
    fn parse_section(content: &str) -> Result<Self, ValueError>;
}

/// The trimmed content, which must not be empty. Line breaks are `\n`.
impl SectionValue for String {
    const KIND: ValueKind = ValueKind::Text;

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        let content = content.trim();
        if content.is_empty() {
            return Err(ValueError::Empty);
        }
        Ok(if memchr::memchr(b'\r', content.as_bytes()).is_some() {
            content.replace("\r\n", "\n")
        } else {
            content.to_owned()
        })
    }
}

/// Exactly one character, optionally quoted: `B`, `'B'`, `` `B` ``.
impl SectionValue for char {
    const KIND: ValueKind = ValueKind::Char;

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        let content = content.trim();
        if content.is_empty() {
            return Err(ValueError::Empty);
        }
        let unquoted = [('\'', '\''), ('"', '"'), ('`', '`'), ('‘', '’'), ('“', '”')]
            .iter()
            .find_map(|(open, close)| content.strip_prefix(*open)?.strip_suffix(*close))
            .filter(|inner| !inner.is_empty())
            .unwrap_or(content);
        let mut chars = unquoted.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(ValueError::invalid(Expected::OneCharacter, content)),
        }
    }
}

const YES: &[&str] = &["yes", "true", "是", "是的", "对", "对的"];
const NO: &[&str] = &["no", "false", "否", "不是", "不对"];

/// yes/no, true/false, 是/否 (any case); the answer may be followed by a
/// reason: `Yes, because ...`.
impl SectionValue for bool {
    const KIND: ValueKind = ValueKind::Bool;

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        let content = content.trim();
        if content.is_empty() {
            return Err(ValueError::Empty);
        }
        let bare = strip_decoration(content);
        // The first word: up to the first character that is not a letter.
        let word_end = bare
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(bare.len());
        let word = bare[..word_end].to_lowercase();
        let answer = |word: &str| {
            if YES.contains(&word) {
                Some(true)
            } else if NO.contains(&word) {
                Some(false)
            } else {
                None
            }
        };
        // `是因为` has no separator after its first word: look at the first
        // character alone for Chinese answers.
        let first_char = bare.chars().next().map(String::from).unwrap_or_default();
        answer(&word)
            .or_else(|| {
                (first_char != word && matches!(first_char.as_str(), "是" | "否"))
                    .then(|| answer(&first_char))
                    .flatten()
            })
            .ok_or_else(|| ValueError::invalid(Expected::YesNo, content))
    }
}

/// `content` without surrounding markdown emphasis, quotes and punctuation:
/// `**Yes.**` → `Yes`.
pub(crate) fn strip_decoration(content: &str) -> &str {
    content.trim_matches(|c: char| !c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_trimmed_and_not_empty() {
        assert_eq!(
            String::parse_section("  Go east \n"),
            Ok("Go east".to_owned())
        );
        assert_eq!(String::parse_section("a\r\nb"), Ok("a\nb".to_owned()));
        assert_eq!(String::parse_section(" \n "), Err(ValueError::Empty));
    }

    #[test]
    fn chars() {
        assert_eq!(char::parse_section("B"), Ok('B'));
        assert_eq!(char::parse_section("'B'"), Ok('B'));
        assert_eq!(char::parse_section("`字`"), Ok('字'));
        assert_eq!(
            char::parse_section("''"),
            Err(ValueError::invalid(Expected::OneCharacter, "''"))
        );
        assert_eq!(
            char::parse_section("AB"),
            Err(ValueError::invalid(Expected::OneCharacter, "AB"))
        );
    }

    #[test]
    fn bools() {
        for yes in [
            "yes",
            "Yes.",
            "**YES**",
            "true",
            "Yes, it fits the budget.",
            "是",
            "是的",
            "是，因为便宜",
        ] {
            assert_eq!(bool::parse_section(yes), Ok(true), "{yes}");
        }
        for no in ["no", "No!", "FALSE", "No - too far", "否", "不是"] {
            assert_eq!(bool::parse_section(no), Ok(false), "{no}");
        }
        assert_eq!(
            bool::parse_section("maybe"),
            Err(ValueError::invalid(Expected::YesNo, "maybe"))
        );
        assert_eq!(
            bool::parse_section("Nothing"),
            Err(ValueError::invalid(Expected::YesNo, "Nothing"))
        );
    }
}
