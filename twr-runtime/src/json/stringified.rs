//! JSON written as the inside of a string: every quote escaped
//! (`{\"a\": 1}`), or the whole reply one JSON string holding a value
//! (`"{\"a\": 1}"`). Read once unescaped: one extra pass over the text.

/// True when the value at `start` is stringified JSON: an opener, then
/// (after white space) an escaped quote.
pub(crate) fn looks_stringified(text: &str, start: usize) -> bool {
    let bytes = text.as_bytes();
    if !matches!(bytes.get(start), Some(b'{' | b'[')) {
        return false;
    }
    let rest = text[start + 1..].trim_start();
    rest.starts_with("\\\"")
}

/// A text unescaped as the inside of a JSON string, with what the caller
/// needs to know of the quotes it held.
pub(crate) struct Unescaped {
    /// The text unescaped (`\"` is `"`, `\\` is `\`, `\n` a line break,
    /// `\u00e9` an `é`; escapes JSON does not know are kept as written).
    pub(crate) text: String,
    /// Where the first quote that was not escaped lands in `text`: inside
    /// a string every quote is escaped, so a value that reaches past that
    /// quote was never stringified JSON (in `{\"""}` the backslash is a
    /// stray one, not an escape).
    pub(crate) bare_quote: Option<usize>,
    /// Whether a quote stood right after an escaped backslash (`\\"`, from
    /// a text whose quotes were escaped but not its backslashes). Such a
    /// quote is not counted in `bare_quote`: read either way, `\\"` is
    /// `\"`, so the caller takes the text only where, so read, it needs no
    /// repair.
    pub(crate) loose: bool,
}

/// `text` unescaped as the inside of a JSON string, in one pass, marking
/// its quotes (see [`Unescaped`]).
pub(crate) fn unescape_marking(text: &str) -> Unescaped {
    let mut out = String::with_capacity(text.len());
    let mut bare_quote = None;
    let mut chars = text.chars();
    let mut after_backslash = false;
    let mut loose = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == '"' && after_backslash {
                loose = true;
            } else if c == '"' && bare_quote.is_none() {
                bare_quote = Some(out.len());
            }
            after_backslash = false;
            out.push(c);
            continue;
        }
        let rest = chars.as_str();
        after_backslash = rest.starts_with('\\');
        match rest.chars().next() {
            Some(e @ ('"' | '\\' | '/')) => {
                out.push(e);
                chars.next();
            }
            Some('n') => {
                out.push('\n');
                chars.next();
            }
            Some('t') => {
                out.push('\t');
                chars.next();
            }
            Some('r') => {
                out.push('\r');
                chars.next();
            }
            Some('u') => {
                let unit = rest
                    .get(1..5)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32);
                match unit {
                    Some(u) => {
                        out.push(u);
                        chars = rest[5..].chars();
                    }
                    None => out.push('\\'),
                }
            }
            _ => out.push('\\'),
        }
    }
    Unescaped {
        text: out,
        bare_quote,
        loose,
    }
}

/// The JSON a reply that is one JSON string holds, when its text is an
/// object or an array.
pub(crate) fn string_holding_json(raw: &str) -> Option<String> {
    let text: String = serde_json::from_str(raw).ok()?;
    let inner = text.trim_start();
    (inner.starts_with('{') || inner.starts_with('[')).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unescaped text alone.
    fn unescape(text: &str) -> String {
        unescape_marking(text).text
    }

    #[test]
    fn unescapes_once() {
        assert_eq!(
            unescape(r#"{\"a\": \"x\\\"y\", \"b\": \"\u00e9\\n\"}"#),
            r#"{"a": "x\"y", "b": "é\n"}"#
        );
        assert_eq!(unescape(r"\q \u12"), r"\q \u12");
        assert!(looks_stringified(r#"x {  \"a\": 1}"#, 2));
        assert!(!looks_stringified(r#"{"a": "\"x\""}"#, 0));
    }

    #[test]
    fn a_quote_after_an_escaped_backslash_is_not_counted() {
        let read = unescape_marking(r#"[\"a \\"b\\"\"]"#);
        assert_eq!(read.text, r#"["a \"b\""]"#);
        assert_eq!((read.bare_quote, read.loose), (None, true));
        assert_eq!(unescape_marking(r#"{\"""}"#).bare_quote, Some(2));
        assert!(!unescape_marking(r#"{\"a\": 1}"#).loose);
    }

    #[test]
    fn a_string_holding_an_object() {
        assert_eq!(
            string_holding_json(r#" "{\"a\": 1}" "#).as_deref(),
            Some(r#"{"a": 1}"#)
        );
        assert_eq!(string_holding_json(r#""plain text""#), None);
        assert_eq!(string_holding_json(r#"{"a": 1}"#), None);
    }
}
