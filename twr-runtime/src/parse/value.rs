//! [`SectionValue`]: how the content of one section becomes a typed value.

use super::value_error::{Expected, ValueError};
use crate::vocab::ValueKind;

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
    note = "section values are String, numbers, bool, char, Vec of those, HashMap<String, _> or BTreeMap<String, _> of those, and #[derive(Choice)] enums",
    note = "for a serde type add #[section(json)] (or #[section(record)] for `Label: value` lines, #[section(table)] on a Vec of rows); for a FromStr type add #[section(from_str)]; to keep the field out of the reply add #[section(skip)]",
    note = "for a type that derives Sections add #[section(flatten)]: its sections become this struct's",
    note = "a streamed table or record section is read with SectionEvent::table::<Row>() or SectionEvent::record::<T>()"
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
/// reason: `Yes, because ...`. Two contradicting answers (`Yes and no`,
/// `Yes/No`, `是不是`) are an error, as is anything before the answer
/// (`not true`, `I think yes`).
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
        // `是因为` has no separator after its first word: look at the first
        // character alone for Chinese answers.
        let first_char = bare.chars().next().map_or(0, char::len_utf8);
        let (answer, end) = match yes_or_no(&word) {
            Some(answer) => (answer, word_end),
            None if first_char < word_end && bare.starts_with(['是', '否']) => {
                (bare.starts_with('是'), first_char)
            }
            None => return Err(ValueError::invalid(Expected::YesNo, content)),
        };
        if contradicted(answer, &bare[end..]) {
            return Err(ValueError::invalid(Expected::YesNo, content));
        }
        Ok(answer)
    }
}

/// The answer a word gives, lowercase.
fn yes_or_no(word: &str) -> Option<bool> {
    if YES.contains(&word) {
        Some(true)
    } else if NO.contains(&word) {
        Some(false)
    } else {
        None
    }
}

/// Whether `tail`, the text right after an answer, starts with the opposite
/// answer, maybe after `and`/`or`/`/`: `Yes and no`, `True/False`, `是也不是`,
/// `是否`. A reason after a comma (`Yes, no problem`) is no second answer.
fn contradicted(answer: bool, tail: &str) -> bool {
    let mut rest = tail;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || "/／|&+、".contains(c));
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let word = &rest[..end];
        if ["and", "or"].iter().any(|c| word.eq_ignore_ascii_case(c)) {
            rest = &rest[end..];
        } else if let Some(after) = ["或者", "还是", "也", "或", "和", "与"]
            .iter()
            .find_map(|c| rest.strip_prefix(c))
        {
            rest = after;
        } else {
            break;
        }
    }
    let end = rest
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(rest.len());
    match yes_or_no(&rest[..end].to_lowercase()) {
        Some(other) => other != answer,
        // Chinese runs words together: `是不是`.
        None if answer => rest.starts_with(['否', '不']),
        None => rest.starts_with(['是', '对']),
    }
}

/// Whether `content` is only a marker saying the section does not apply:
/// `N/A`, `None.`, `**n/a**`, `无`. Decoration alone (`-`) is no marker.
pub(crate) fn not_applicable_marker(content: &str) -> bool {
    let bare = strip_decoration(content);
    // Every marker is short: a long section is never lowercased whole.
    bare.len() <= 16
        && matches!(
            bare.to_lowercase().as_str(),
            "n/a"
                | "na"
                | "n.a"
                | "none"
                | "null"
                | "nil"
                | "not applicable"
                | "无"
                | "没有"
                | "暂无"
                | "不适用"
        )
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

    #[test]
    fn contradicting_or_negated_answers_are_feedback() {
        for text in [
            "Yes and no.",
            "yes or no",
            "Yes/No",
            "**True / False**",
            "No and yes, it depends",
            "是也不是",
            "是不是",
            "是否",
            "是或否",
            "否/是",
            "not true",
            "Not yes",
            "I think yes",
        ] {
            assert_eq!(
                bool::parse_section(text),
                Err(ValueError::invalid(Expected::YesNo, text)),
                "{text}"
            );
        }
        // A reason after the answer may say no in other words.
        for (text, answer) in [
            ("Yes, no problem.", true),
            ("Yes - there is no risk", true),
            ("No, not at all", false),
            ("No no no", false),
            ("Yes and yes", true),
            ("是，不过要早点出发", true),
            ("是因为便宜", true),
            ("不是，太远了", false),
        ] {
            assert_eq!(bool::parse_section(text), Ok(answer), "{text}");
        }
    }
}
