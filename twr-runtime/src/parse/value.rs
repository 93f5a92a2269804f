//! [`SectionValue`]: how the content of one section becomes a typed value.

use super::value_error::{Expected, ValueError};
use crate::phrases::Phrases;
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

    /// Reads the (already trimmed) content of a section, with the words of
    /// the built-in tables (English and Chinese).
    fn parse_section(content: &str) -> Result<Self, ValueError>;

    /// Reads the (already trimmed) content of a section whose type words
    /// its guide with `phrases`: a `bool` reads its `yes_words` and
    /// `no_words`, a list its `none_words`, and so on. The derive calls
    /// this one. By default it is [`SectionValue::parse_section`], for a
    /// value that reads no words by meaning.
    fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
        let _ = phrases;
        Self::parse_section(content)
    }
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

/// The first word answers: one of the table's `yes_words` or `no_words`
/// (built in: yes/no, true/false, 是/否, any case); the answer may be
/// followed by a reason: `Yes, because ...`. Two contradicting answers
/// (`Yes and no`, `Yes/No`, `是不是`) are an error, as is anything before the
/// answer (`not true`, `I think yes`).
impl SectionValue for bool {
    const KIND: ValueKind = ValueKind::Bool;

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        Self::parse_section_with(content, &Phrases::ENGLISH)
    }

    fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
        let content = content.trim();
        if content.is_empty() {
            return Err(ValueError::Empty);
        }
        let bare = strip_decoration(content);
        let Some((answer, end)) = answer_at(bare, phrases) else {
            return Err(ValueError::invalid(Expected::YesNo, content));
        };
        if contradicted(answer, &bare[end..], phrases) {
            return Err(ValueError::invalid(Expected::YesNo, content));
        }
        Ok(answer)
    }
}

/// The answer `text` starts with and where it ends: the longest of the
/// table's yes and no words that is a whole word there, else a
/// one-character word of a script written without spaces running into what
/// follows (`是因为便宜`).
fn answer_at(text: &str, phrases: &Phrases) -> Option<(bool, usize)> {
    answer_at_word(text, phrases).or_else(|| {
        let first = text.chars().next().filter(|c| unspaced(*c))?;
        let end = first.len_utf8();
        let yes = phrases.yes_words.iter().map(|word| (true, *word));
        let no = phrases.no_words.iter().map(|word| (false, *word));
        yes.chain(no)
            .find(|(_, word)| starts_ignoring_case(word, &text[..end]) == Some(word.len()))
            .map(|(answer, _)| (answer, end))
    })
}

/// The answer `text` starts with when a whole word of the table gives it.
fn answer_at_word(text: &str, phrases: &Phrases) -> Option<(bool, usize)> {
    let yes = phrases.yes_words.iter().map(|word| (true, *word));
    let no = phrases.no_words.iter().map(|word| (false, *word));
    yes.chain(no)
        .filter_map(|(answer, word)| Some((answer, word_at(text, word, false)?)))
        .max_by_key(|(_, end)| *end)
}

/// Where `word` ends when `text` starts with it (ignoring case) and it ends
/// a word there: the text ends or a character that is no letter or digit
/// follows; with `run_in`, also when the word ends in a script written
/// without spaces.
fn word_at(text: &str, word: &str, run_in: bool) -> Option<usize> {
    let end = starts_ignoring_case(text, word)?;
    let ends_word = match text[end..].chars().next() {
        None => true,
        Some(next) => {
            !next.is_alphanumeric() || (run_in && word.chars().next_back().is_some_and(unspaced))
        }
    };
    // An empty word matches nothing.
    (end > 0 && ends_word).then_some(end)
}

/// The length in `text` of `prefix` when `text` starts with it, ignoring
/// case.
fn starts_ignoring_case(text: &str, prefix: &str) -> Option<usize> {
    let mut rest = text.char_indices();
    let mut end = 0;
    for p in prefix.chars() {
        let (at, t) = rest.next()?;
        if t != p && !t.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
        end = at + t.len_utf8();
    }
    Some(end)
}

/// Whether `c` belongs to a script written without spaces between words
/// (Chinese, Japanese, Thai), whose words run into each other.
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'      // Thai, Lao
        | '\u{2E80}'..='\u{9FFF}'    // CJK radicals, kana, ideographs
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{20000}'..='\u{3FFFF}') // CJK extensions
}

/// Whether `tail`, the text right after an answer, starts with the opposite
/// answer, maybe after a joining word or `/`: `Yes and no`, `True/False`,
/// `是也不是`, `是否`. A reason after a comma (`Yes, no problem`) is no
/// second answer.
fn contradicted(answer: bool, tail: &str, phrases: &Phrases) -> bool {
    let joining = [phrases.and.trim(), phrases.or.trim()];
    let mut rest = tail;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || "/／|&+、".contains(c));
        let joined = joining
            .iter()
            .chain(phrases.joining_words)
            .filter_map(|word| word_at(rest, word, true))
            .max();
        match joined {
            Some(end) => rest = &rest[end..],
            None => break,
        }
    }
    if let Some((other, _)) = answer_at_word(rest, phrases) {
        return other != answer;
    }
    // Scripts without spaces run words together: `是不是`, `对不起`. The
    // opposite answer is known by its first character.
    let opposite = if answer {
        phrases.no_words
    } else {
        phrases.yes_words
    };
    rest.chars().next().is_some_and(|first| {
        unspaced(first)
            && opposite.iter().any(|word| {
                word.chars()
                    .next()
                    .is_some_and(|c| c == first || c.to_lowercase().eq(first.to_lowercase()))
            })
    })
}

/// Whether `content` is only a word saying the section does not apply,
/// one of the table's `none_words`: `N/A`, `None.`, `**n/a**`, `无`.
/// Decoration alone (`-`) is no such word.
pub(crate) fn none_word(content: &str, phrases: &Phrases) -> bool {
    let bare = strip_decoration(content);
    !bare.is_empty()
        && phrases.none_words.iter().any(|word| {
            let word = strip_decoration(word);
            starts_ignoring_case(bare, word) == Some(bare.len()) && !word.is_empty()
        })
}

/// Whether `content` is a sentence that starts with one of the table's
/// `none_words` or `no_words` and goes on: `No items in the list.`, `None
/// of the above`, `没有任何项目`. Such a sentence says there is nothing, or
/// is an item that starts with "no" (`No smoking`): a list does not take
/// it for either.
pub(crate) fn none_sentence(content: &str, phrases: &Phrases) -> bool {
    let bare = strip_decoration(content);
    phrases
        .none_words
        .iter()
        .chain(phrases.no_words)
        .filter_map(|word| word_at(bare, strip_decoration(word), true))
        .any(|end| bare[end..].contains(char::is_alphanumeric))
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

    #[test]
    fn a_none_phrase_of_the_table_is_none_and_a_sentence_is_not() {
        for text in [
            "None given",
            "**Not given.**",
            "not stated",
            "Not specified",
            "N/A",
        ] {
            assert!(none_word(text, &Phrases::ENGLISH), "{text}");
            assert!(none_word(text, &Phrases::CHINESE), "{text}");
        }
        for text in ["None of these hotels had rooms", "given", "Gion"] {
            assert!(!none_word(text, &Phrases::ENGLISH), "{text}");
        }
    }
}
