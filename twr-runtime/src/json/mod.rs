//! Layered JSON extraction and repair.
//!
//! Models wrap JSON in prose, code fences and think blocks, and break it in
//! predictable ways. [`extract`] finds and reads the value in layers, each
//! tried only when every earlier one failed:
//!
//! 1. the reply as is ([`Layer::AsIs`]): one `serde_json` parse, no copy;
//! 2. the content of a code fence: ```` ```json ````, ```` ``` ````, `~~~`,
//!    or a fence never closed ([`Layer::Fence`]); a fence inside a balanced
//!    `{...}` or `[...]`, or inside a string of the value the reply starts
//!    with, is part of that value, not the reply's wrapper (a fence between
//!    a value's brackets, `[```json {"a": 1}```]`, is refused);
//! 3. the reply with `<think>…</think>` and `<thinking>…</thinking>` blocks
//!    removed ([`Layer::ThinkRemoved`]);
//! 4. a string-aware scan for balanced `{...}` and `[...]`: the first that
//!    deserializes into the target wins, so an example object earlier in the
//!    prose is passed over ([`Layer::Scan`]);
//! 5. a repair pass ([`Layer::Repair`]) in one linear pass: trailing commas,
//!    `//`, `/* */` and `#` comments, unquoted keys, single and typographic
//!    quotes, Python `True`/`False`/`None`, missing commas and colons, raw
//!    newlines and tabs in strings, a trailing `;`, a byte-order mark,
//!    Unicode spaces, values of plain words without quotes, `...`
//!    placeholders, `.25`/`1.`/`+1`, `undefined`/`NaN`, wrappers such as
//!    `ObjectId("…")`, strings joined with `+`, Python tuples and sets, JSON
//!    written inside a string (`{\"a\": 1}`), and a reply cut off anywhere
//!    (the open string, arrays and objects are closed, a key left without a
//!    value is dropped; a number cut inside its fraction or exponent, `[1.`
//!    or `2e`, and a literal cut where a word without quotes could stand,
//!    `{"a": tr`, are feedback, as their values are not known). Each
//!    [`Repair`] is named in the [`Report`].
//!
//! Whole digits at the very end of the text (`[1, 2`) are read as written:
//! the end of the text is where the value ended, since a section's text
//! ends at the next header or where the model stopped. Whether the model
//! was cut off mid-number (`2` of `25`) only the reply's
//! [`FinishReason`](crate::FinishReason) tells, so the loop, which has it,
//! never reads the section a length limit cut through: it asks for that
//! section again. A caller of [`extract`] on a reply cut by the length
//! limit should do the same.
//!
//! The repair never invents data and never guesses: a repair is taken only
//! where the input has one reading, never two guesses stacked on one value
//! (a quote left out after a comma that was left out too); prose without
//! JSON is not turned into a string. All else is reported as [`Feedback`]
//! telling the model what to write.
//! When JSON is found but has the wrong shape, the feedback names the field
//! path and the expected type.
//!
//! A quote left out or one too many is read by these rules (the guide's
//! JSON page shows each with what was read before):
//!
//! - a quote glued between letters is text: `{"key": "v"alue"}` is
//!   `v"alue`; so is a quote followed by a space in an object, where the
//!   words after it cannot be a member (`"the 3" pipe fits"`);
//! - in a list, one quote followed by a space inside an item may end the
//!   item (its comma and the next item's opening quote left out) or be
//!   text: `["value1" value2", "value3"]` is refused;
//! - a string opened with two quotes in an object (`{"key": ""value"}`) is
//!   refused: the second is a stray one or the text's;
//! - a string whose closing quote is missing before the next member is
//!   read up to the comma, with the key quoted or bare: `{"a": "first, b:
//!   "second"}` is `{"a": "first", "b": "second"}`; quotes in pairs after
//!   `b:` are text;
//! - a key whose closing quote is missing before its colon, the value's
//!   quote right after (`{"key: "value"}`), is `{"key": "value"}`; a key
//!   never closed that holds a colon (`{"key:value}`) and a key over lines
//!   are refused;
//! - a string never closed before the object's `}` that holds a comma,
//!   a bare key and its colon (`{"a": "first, b: 1}`) is refused: the
//!   quote may be missing before the comma or before the brace;
//! - a quote inside a string right after a `+` or a comment's `*/`
//!   (`["abc,/*c*/"def"]`, `"hello +` then `" world"`) is refused: it may
//!   open a string of its own, the one before never closed;
//! - a quote glued to a key's closing quote (`{"a": 1, """" "b": 2}`) is
//!   refused: a colon left out, or a doubled quote as CSV writes one;
//! - a number ending in its point (`{"key": 1. }`, a whole reply `2.`) is
//!   that whole number, so an integer field takes it; cut off after the
//!   point inside a value never closed (`{"a": 2.`) it is refused;
//! - a string opened with `“` and closed by a plain quote is refused when
//!   quotes or brackets follow the value it ends (`{"a":“["}!",null]}`):
//!   the plain quote may have opened a string holding that closer.
//! - a quote glued to the closers that end the reply, after an earlier
//!   quote (`[["a,","]]`), is refused: it may close a string an earlier
//!   quote opened rather than open an empty one;
//! - a string whose end is a guess (its text ends in a comma, it runs over
//!   lines, or it is in single quotes holding a lone double quote), then a
//!   quote left out later in the value, is refused; so is, in an object, a
//!   string ending in a comma and another string after white space;
//! - a key holding a closer, then a value with no `:` (`{"},"{"]`), is
//!   refused: its opening quote may be a stray before the closer.
//!
//! Values other repair libraries read, read where the text has one
//! reading:
//!
//! - a word that starts with digits is the text written (`1.2.3`, `10-20`,
//!   `1/3`, a UUID, a timestamp, `0789` and `-05`, whose leading zeros no
//!   number keeps), never the number it starts with; digits grouped by
//!   `_` (`1_000.5`) are the number; after a comma the pass put in such a
//!   word is refused (`[2 0.0.1 2]`), as plain words are;
//! - `(x)` is `x`, as in Python, and a reply that is one tuple, `(1, 2)`,
//!   whole or in a fence, is a list; a JSONP reply, `cb("x");`, is its one
//!   argument;
//! - words without quotes in a list outside any object are items when a
//!   `,` or a line break stands next to them (`[red, blue]`, one item a
//!   line); one bracket of words, `[see the table]`, is prose; a URL is
//!   one word;
//! - closing brackets one too many at the end of the text, after JSON
//!   valid as written (`{"a": 1}}`), are strays; after a repaired value
//!   they may be what is left of a stray inside it, and are refused;
//! - a closer of the wrong kind where the next closer fits either
//!   container (`{"o": {"x": {"a": [1}}, "y": 3}`) is read as the closers
//!   after it say: the reading under which they close exactly what is left
//!   open; a reply cut off there is refused;
//! - a piece of one value is never the answer: after a first value that
//!   no repair reads, no later one is read (`{"a": 1, "b"} [2]`); braces
//!   with a key's closer and a `:` and a container after them (`{"a"}:
//!   [1]}`), a first value followed by a quote with no pair and a closer
//!   (`[""]",0]`), and valid JSON with a key twice before a `}` too many
//!   (`{"a": {"x": 1}, "a": 2}}`) are refused;
//! - a `}` that closes the whole object while a `,`, more members and the
//!   object's own `}` follow (`{"a": 1}, "b": 2}`) is one too many; after
//!   a closer (`{"a": {"x": 1}}, "b": 2}`) either `}` may be, and it is
//!   refused;
//! - a quote glued to words without quotes and then the end of the value
//!   closes them, the opening quote left out (`{"a": foo", "b": 1}`,
//!   `{a": 1}`); before a closer with more text after it
//!   (`{"a": O"}x", "b": 1}`) the quote may open a string, and it is
//!   refused;
//! - a quote right before a closer that closes no container open there but
//!   a bracket the string's text opened, on one line, is text
//!   (`"a 12" (30 cm") screen"`); a `}` after a string whose text leaves a
//!   `{` open is no stray (`{"a": "x {y"}, "b": 1}` is refused);
//! - a quote glued between letters of a key whose own quote stands before
//!   its `:` is text (`{"k"e"y": 1}`);
//! - a string ending in a comma with a string, a list or an object glued
//!   after it (`["a,"[1]]`), and a value in single quotes holding a lone
//!   double quote with no comma or closer after it, are refused: a stray
//!   quote may have made them;
//! - words without quotes and then a member on their line (`{"a": big
//!   "b": 2}`) end before it, its comma left out;
//! - a bare value and a comma after it, nothing else (`4,`), is the value;
//!   `undefined` alone is null; U+180E is white space;
//! - values with commas between in braces and no key (`{'a', 'b'}`), a
//!   Python set, are a list of the values; one value in braces (`{"a"}`: a
//!   key left without its value, or a set of one), a `:` after a later
//!   value, and a set cut off are refused;
//! - a reply of values with commas between (`1, 2, 3`), a Python tuple, is
//!   a list; digits with commas and no spaces (`1,234`, `12,5`) may be one
//!   number and are refused; in a set or a tuple each value is a number, a
//!   quoted string or a literal (a word is a name);
//! - a reply that is one JSON string written as the inside of a string
//!   (`\"hello\"`, cut off or with its closing quote not escaped) is that
//!   string; a `\\"` in JSON so written is `\"` where the text needs no
//!   other repair.
//!
//! ```
//! use serde_json::json;
//! use twr_runtime::json::extract_value;
//!
//! assert_eq!(extract_value(r#"{"key": "v"alue"}"#).unwrap(), json!({"key": "v\"alue"}));
//! assert!(extract_value(r#"["value1" value2", "value3"]"#).is_err());
//! assert!(extract_value(r#"{"key": ""value"}"#).is_err());
//! assert_eq!(
//!     extract_value(r#"{"a": "first, b: "second"}"#).unwrap(),
//!     json!({"a": "first", "b": "second"})
//! );
//! assert_eq!(extract_value(r#"{"key: "value"}"#).unwrap(), json!({"key": "value"}));
//! assert!(extract_value(r#"{"key:value}"#).is_err());
//! assert!(extract_value("{\"ke\ny\": 1}").is_err());
//! assert_eq!(extract_value(r#"{"key": 1. }"#).unwrap(), json!({"key": 1}));
//! assert!(extract_value("{\"a\":\u{201C}[\"}!\",null]}").is_err());
//! assert_eq!(
//!     extract_value("{\"code\": \"```[1]```\", \"n\": 2,}").unwrap(),
//!     json!({"code": "```[1]```", "n": 2})
//! );
//! assert!(extract_value("[\n```json\n{\"id\": 7}\n```\n]").is_err());
//! assert!(extract_value(r#"{"a": "first, b: 1}"#).is_err());
//! assert!(extract_value(r#"["abc,/*c*/"def"]"#).is_err());
//! assert!(extract_value(r#"{"a": 1, """" "b": 2}"#).is_err());
//! assert_eq!(
//!     extract_value(r#"{"v": 1.2.3, "zip": 0789}"#).unwrap(),
//!     json!({"v": "1.2.3", "zip": "0789"})
//! );
//! assert_eq!(extract_value("(1, (2))").unwrap(), json!([1, 2]));
//! assert_eq!(extract_value(r#"cb("x");"#).unwrap(), json!("x"));
//! assert_eq!(extract_value("[red, dark blue]").unwrap(), json!(["red", "dark blue"]));
//! assert!(extract_value("[see the table]").is_err());
//! assert_eq!(extract_value(r#"{"a": 1}}"#).unwrap(), json!({"a": 1}));
//! assert_eq!(extract_value(r#"{"a": 1}, "b": 2}"#).unwrap(), json!({"a": 1, "b": 2}));
//! assert_eq!(extract_value(r#"{a": foo", "b": 1}"#).unwrap(), json!({"a": "foo", "b": 1}));
//! assert_eq!(extract_value("4,").unwrap(), json!(4));
//! assert_eq!(extract_value("{'a', 'b'}").unwrap(), json!(["a", "b"]));
//! assert!(extract_value(r#"{"a"}"#).is_err());
//! assert_eq!(extract_value("1, 2, 3").unwrap(), json!([1, 2, 3]));
//! assert!(extract_value("1,234").is_err());
//! assert_eq!(extract_value(r#"\"hello\""#).unwrap(), json!("hello"));
//! assert_eq!(extract_value("2.").unwrap(), json!(2));
//! ```
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize, PartialEq)]
//! struct Meta {
//!     weeks: u32,
//! }
//!
//! let reply = "Sure! Here it is:\n```json\n{\"weeks\": 6}\n```";
//! let meta: Meta = twr_runtime::json::extract(reply).unwrap();
//! assert_eq!(meta, Meta { weeks: 6 });
//!
//! let broken = "{'weeks': 6, /* six */}";
//! let got = twr_runtime::json::extract_with_report::<Meta>(broken).unwrap();
//! assert_eq!(got.value, Meta { weeks: 6 });
//! assert_eq!(got.report.layer, twr_runtime::json::Layer::Repair);
//! ```

mod brackets;
mod duplicate_keys;
mod error;
mod fence;
mod pipeline;
mod provenance;
mod repair;
mod report;
mod stringified;
mod think_blocks;

use serde::de::DeserializeOwned;

use crate::feedback::{Feedback, Problem, ProblemKind};

use crate::phrases::Lang;

pub use provenance::JsonProvenance;
pub use report::{Extracted, Layer, Repair, Report};

/// Extracts a `T` from a model's reply.
///
/// # Errors
///
/// A [`Feedback`] for the model: the field path and expected type when JSON
/// was found with the wrong shape, where the JSON breaks when it could not be
/// repaired, or that there is no JSON at all.
pub fn extract<T: DeserializeOwned>(raw: &str) -> Result<T, Feedback> {
    extract_with_report(raw).map(|extracted| extracted.value)
}

/// Extracts a JSON value of any shape from a model's reply.
///
/// ```
/// let value = twr_runtime::json::extract_value("{a: 1, b: [True, None,]}").unwrap();
/// assert_eq!(value, serde_json::json!({"a": 1, "b": [true, null]}));
/// ```
///
/// # Errors
///
/// A [`Feedback`] when the reply holds no JSON that could be read or repaired.
pub fn extract_value(raw: &str) -> Result<serde_json::Value, Feedback> {
    extract(raw)
}

/// Like [`extract`], with the [`Report`] of which layer found the value and
/// what was repaired.
///
/// ```
/// use twr_runtime::json::{extract_with_report, Layer, Repair};
///
/// let got = extract_with_report::<Vec<u32>>("[1, 2, 3").unwrap();
/// assert_eq!(got.value, [1, 2, 3]);
/// assert_eq!(got.report.layer, Layer::Repair);
/// assert_eq!(got.report.repairs, [Repair::Truncated]);
/// ```
///
/// # Errors
///
/// As [`extract`].
pub fn extract_with_report<T: DeserializeOwned>(raw: &str) -> Result<Extracted<T>, Feedback> {
    extract_parts(raw).map_err(|(path, message)| {
        let mut feedback = Feedback::new(Lang::En);
        feedback.push(Problem::new(
            String::new(),
            ProblemKind::BadJson { path, message },
        ));
        feedback
    })
}

/// Like [`extract_value`], with the [`Report`].
///
/// # Errors
///
/// As [`extract_value`].
pub fn extract_value_with_report(raw: &str) -> Result<Extracted<serde_json::Value>, Feedback> {
    extract_with_report(raw)
}

/// The layers alone: the value with its report, or where the JSON is
/// wrong (the field path, empty for the root) and the message for the
/// model. The section reader's `#[section(json)]` codec reads a section
/// through it.
pub(crate) fn extract_parts<T: DeserializeOwned>(
    raw: &str,
) -> Result<Extracted<T>, (String, String)> {
    pipeline::extract(raw).map_err(pipeline::Failure::into_parts)
}
