//! Turning deserialization and repair failures into words for the model.

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

/// A JSON value that does not have the expected shape, located by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShapeError {
    /// `budget.total`, `items[2]`; empty for the root.
    pub(crate) path: String,
    /// What is wrong there: "should be a whole number; it is \"many\"".
    pub(crate) message: String,
}

impl ShapeError {
    /// True when the value's top-level kind was right and the problem is
    /// inside it (a better guess at the intended value than a root mismatch).
    pub(crate) fn is_inside(&self) -> bool {
        !self.path.is_empty()
    }
}

/// Re-reads `text` as `T` tracking the path, to say where it went wrong.
/// Only called after a plain read failed, so the fast path pays nothing.
pub(crate) fn shape_error<T: DeserializeOwned>(
    text: &str,
    fallback: &serde_json::Error,
) -> ShapeError {
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => ShapeError {
            path: String::new(),
            message: humanize(&strip_position(&fallback.to_string())).1,
        },
        Err(err) => {
            let mut path = String::new();
            for segment in err.path() {
                match segment {
                    Segment::Seq { index } => path.push_str(&format!("[{index}]")),
                    Segment::Map { key } | Segment::Enum { variant: key } => {
                        push_key(&mut path, key)
                    }
                    Segment::Unknown => push_key(&mut path, "?"),
                }
            }
            let (field, message) = humanize(&strip_position(&err.into_inner().to_string()));
            if let Some(field) = field {
                push_key(&mut path, &field);
            }
            ShapeError { path, message }
        }
    }
}

fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// serde_json appends " at line L column C"; the path says where instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// The text between the first pair of backticks.
fn backticked(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let end = start + text[start..].find('`')?;
    Some(&text[start..end])
}

/// Rewrites one of serde's messages for the model. Returns a field name to
/// append to the path (for a missing or unknown field) and the message.
pub(crate) fn humanize(message: &str) -> (Option<String>, String) {
    if let Some(rest) = message.strip_prefix("missing field ") {
        let field = backticked(rest).unwrap_or(rest).to_owned();
        return (Some(field), "this required field is missing".to_owned());
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let field = backticked(rest).unwrap_or(rest).to_owned();
        let allowed = rest.split_once(", expected ").map(|(_, e)| e);
        let text = match allowed {
            Some(allowed) => format!("this field is not allowed; use {allowed}"),
            None => "this field is not allowed; remove it".to_owned(),
        };
        return (Some(field), text);
    }
    if let Some(rest) = message.strip_prefix("duplicate field ") {
        let field = backticked(rest).unwrap_or(rest).to_owned();
        return (
            Some(field),
            "this field appears more than once; keep one".to_owned(),
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        if let Some((found, expected)) = rest.split_once(", expected ") {
            let found = backticked(found).unwrap_or(found);
            return (None, format!("it should be {expected}, not \"{found}\""));
        }
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                return (
                    None,
                    format!(
                        "it should be {}, not {}",
                        expected_words(expected),
                        found_words(found)
                    ),
                );
            }
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if let Some((found, expected)) = rest.split_once(", expected ") {
            return (
                None,
                format!(
                    "it should be {}, not {found} items",
                    expected_words(expected)
                ),
            );
        }
    }
    (None, message.to_owned())
}

/// serde's name of the expected type, in words.
fn expected_words(expected: &str) -> String {
    let words = match expected {
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" | "u64" | "u128" | "usize" => "a whole number (0 or more)",
        "i8" => "a whole number from -128 to 127",
        "i16" => "a whole number from -32768 to 32767",
        "i32" | "i64" | "i128" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a boolean" => "true or false",
        "a string" | "a borrowed string" => "a string in double quotes",
        "a character" => "a single character in double quotes",
        "a sequence" => "an array",
        "a map" => "an object",
        "unit" => "null",
        _ => {
            if expected.starts_with("struct ") {
                "an object"
            } else if let Some(n) = expected
                .strip_prefix("a tuple of size ")
                .or_else(|| expected.strip_prefix("an array of length "))
            {
                return format!("an array of {n} items");
            } else if let Some(name) = expected.strip_prefix("enum ") {
                return format!("one of the values of {name}");
            } else {
                return expected.to_owned();
            }
        }
    };
    words.to_owned()
}

/// serde's description of the value found, in words.
fn found_words(found: &str) -> String {
    if let Some(s) = found.strip_prefix("string ") {
        return s.to_owned(); // already quoted: "many"
    }
    for prefix in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = found.strip_prefix(prefix) {
            return v.trim_matches('`').to_owned();
        }
    }
    match found {
        "map" => "an object".to_owned(),
        "sequence" => "an array".to_owned(),
        "unit value" | "null" => "null".to_owned(),
        _ => found.to_owned(),
    }
}

/// Line and column (1-based, in characters) of byte `at` in `text`, and a
/// short excerpt starting there.
pub(crate) fn locate(text: &str, at: usize) -> (usize, usize, String) {
    let at = floor_char_boundary(text, at.min(text.len()));
    let before = &text[..at];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..at].chars().count() + 1;
    let excerpt: String = text[at..]
        .chars()
        .take_while(|&c| c != '\n')
        .take(20)
        .collect();
    (line, column, excerpt)
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Meta {
        weeks: u32,
        budget: Budget,
        tags: Vec<String>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Budget {
        total: f64,
    }

    fn shape(text: &str) -> ShapeError {
        let err = serde_json::from_str::<Meta>(text).unwrap_err();
        shape_error::<Meta>(text, &err)
    }

    #[test]
    fn names_the_path_and_the_expected_type() {
        assert_eq!(
            shape(r#"{"weeks": "many", "budget": {"total": 1}, "tags": []}"#),
            ShapeError {
                path: "weeks".into(),
                message: r#"it should be a whole number (0 or more), not "many""#.into()
            }
        );
        assert_eq!(
            shape(r#"{"weeks": 2, "budget": {"total": true}, "tags": []}"#),
            ShapeError {
                path: "budget.total".into(),
                message: "it should be a number, not true".into()
            }
        );
        assert_eq!(
            shape(r#"{"weeks": 2, "budget": {"total": 1}, "tags": ["a", 3]}"#),
            ShapeError {
                path: "tags[1]".into(),
                message: "it should be a string in double quotes, not 3".into()
            }
        );
    }

    #[test]
    fn missing_field_is_named_in_the_path() {
        assert_eq!(
            shape(r#"{"weeks": 2, "budget": {}, "tags": []}"#),
            ShapeError {
                path: "budget.total".into(),
                message: "this required field is missing".into()
            }
        );
    }

    #[test]
    fn root_mismatch_has_an_empty_path() {
        assert_eq!(
            shape("\"six\""),
            ShapeError {
                path: String::new(),
                message: "it should be an object, not \"six\"".into()
            }
        );
    }

    #[test]
    fn locate_counts_lines_and_characters() {
        assert_eq!(locate("{\n  «x»: 1}", 7), (2, 5, "»: 1}".into()));
        assert_eq!(locate("{\n  «x»: 1}", 8), (2, 5, "»: 1}".into()));
    }
}
