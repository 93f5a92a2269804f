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

/// `text` unescaped as the inside of a JSON string (`\"` is `"`, `\\` is
/// `\`, `\n` a line break, `\u00e9` an `é`; escapes JSON does not know are
/// kept as written), with where the first quote that was not escaped lands
/// in the output: inside a string every quote is escaped, so a value that
/// reaches past that quote was never stringified JSON (in `{\"""}` the
/// backslash is a stray one, not an escape). A quote right after an
/// escaped backslash (`\\"`, from a text whose quotes were escaped but not
/// its backslashes) is not counted: read either way, `\\"` is `\"`; the
/// third part says whether one stood in the text, so that the caller takes
/// it only where the text, so read, needs no repair.
pub(crate) fn unescape_marking(text: &str) -> (String, Option<usize>, bool) {
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
    (out, bare_quote, loose)
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
        unescape_marking(text).0
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
        let (text, bare_quote, loose) = unescape_marking(r#"[\"a \\"b\\"\"]"#);
        assert_eq!(text, r#"["a \"b\""]"#);
        assert_eq!((bare_quote, loose), (None, true));
        assert_eq!(unescape_marking(r#"{\"""}"#).1, Some(2));
        assert!(!unescape_marking(r#"{\"a\": 1}"#).2);
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
