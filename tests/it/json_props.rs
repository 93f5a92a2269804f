//! Properties of `twr_runtime::json`: valid JSON round-trips unchanged,
//! broken renderings of a value repair to that value, cut-off input always
//! repairs, and no input panics.

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use twr_runtime::json::{extract, extract_value, extract_value_with_report, Layer};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // Quarters print exactly, so the value survives any number of
        // print/parse trips.
        (-1_000_000i32..1_000_000).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        "\\PC{0,12}".prop_map(Value::String),
        "[ -~\n\t\"'\\\\]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_ '\"]{0,6}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// `value` the way a sloppy model writes it: Python literals, single
/// quotes, trailing commas, comments.
fn pythonish(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => single_quoted(s, out),
        Value::Array(items) => {
            out.push('[');
            for item in items {
                pythonish(item, out);
                out.push_str(", ");
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push_str("{ // members\n");
            for (key, item) in members {
                single_quoted(key, out);
                out.push_str(": ");
                pythonish(item, out);
                out.push_str(",\n");
            }
            out.push('}');
        }
    }
}

fn single_quoted(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// Whether `s` in single quotes has two readings, which the repair
/// refuses (see `json/repair`): it starts with a bracket and holds an
/// unpaired double quote, so it may be JSON quoted by prose as well as one
/// string. A sloppy model writing it so writes no value; such a string is
/// rendered in double quotes.
fn two_readings_in_single_quotes(s: &str) -> bool {
    s.trim_start().starts_with(['{', '[']) && s.matches('"').count() % 2 == 1
}

/// An object or an array: a bare scalar is wrapped in an array. (A bare
/// single-quoted string holding `{}` is ambiguous: prose quoting an object.)
fn container() -> impl Strategy<Value = Value> {
    json_value().prop_map(|v| match v {
        Value::Array(_) | Value::Object(_) => v,
        scalar => Value::Array(vec![scalar]),
    })
}

/// Whether `repaired` is what is left of `original` when its JSON text is
/// cut off: the same kind of value; for a container, the first items (or
/// members, in order) unchanged and the last one itself cut; a string's
/// beginning; a number written by a beginning of the original's digits; a
/// literal whole.
fn is_cut_of(repaired: &Value, original: &Value) -> bool {
    match (repaired, original) {
        (Value::Array(r), Value::Array(o)) => match r.split_last() {
            None => true,
            Some((last, init)) => {
                r.len() <= o.len() && init == &o[..init.len()] && is_cut_of(last, &o[init.len()])
            }
        },
        (Value::Object(r), Value::Object(o)) => {
            r.len() <= o.len()
                && r.iter()
                    .zip(o.iter())
                    .enumerate()
                    .all(|(i, ((rk, rv), (ok, ov)))| {
                        rk == ok
                            && if i + 1 == r.len() {
                                is_cut_of(rv, ov)
                            } else {
                                rv == ov
                            }
                    })
        }
        (Value::String(r), Value::String(o)) => o.starts_with(r.as_str()),
        (Value::Number(_), Value::Number(o)) => {
            let text = o.to_string();
            (1..=text.len()).any(|end| {
                serde_json::from_str::<Value>(&text[..end]).is_ok_and(|v| &v == repaired)
            })
        }
        (r, o) => r == o,
    }
}

/// True when `prefix` (of valid JSON) ends inside a string whose text so
/// far holds a `}` or a `]`.
fn cut_in_a_string_holding_a_closer(prefix: &str) -> bool {
    let (mut in_string, mut escaped, mut holds) = (false, false, false);
    for ch in prefix.chars() {
        if !in_string {
            in_string = ch == '"';
            holds = false;
        } else if escaped {
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == '"' {
            in_string = false;
        } else {
            holds |= matches!(ch, '}' | ']');
        }
    }
    in_string && holds
}

/// The last token of `prefix` (of compact valid JSON) when it ends outside
/// a string, and whether an object is open there.
fn last_token(prefix: &str) -> Option<(&str, bool)> {
    let (mut in_string, mut escaped) = (false, false);
    let mut stack = Vec::new();
    for ch in prefix.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '{' | '[' => stack.push(ch),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let token = prefix.rsplit([',', '[', ':', '{']).next().unwrap_or("");
    (!in_string).then_some((token, stack.contains(&'{')))
}

/// True when `prefix` (of compact valid JSON) ends in a number whose
/// last character is a `.`, an `e` or an exponent's sign.
fn cut_number_tail(prefix: &str) -> bool {
    last_token(prefix).is_some_and(|(token, _)| {
        token.len() > 1
            && token.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            && token.ends_with(['.', 'e', 'E', '+', '-'])
    })
}

/// True when `prefix` (of compact valid JSON) ends inside `true`, `false`
/// or `null` while an object is open.
fn cut_literal_in_object(prefix: &str) -> bool {
    last_token(prefix).is_some_and(|(word, in_object)| {
        in_object
            && !word.is_empty()
            && ["true", "false", "null"]
                .iter()
                .any(|full| full.len() > word.len() && full.starts_with(word))
    })
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Target {
    name: String,
    items: Vec<u32>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    #[test]
    fn valid_json_round_trips_unchanged(value in json_value()) {
        for text in [serde_json::to_string(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap()] {
            let got = extract_value_with_report(&text).unwrap();
            prop_assert_eq!(&got.value, &value);
            prop_assert_eq!(got.report.layer, Layer::AsIs);
        }
    }

    #[test]
    fn fenced_and_prose_wrapped_json_is_found_unchanged(value in json_value()) {
        let text = serde_json::to_string_pretty(&value).unwrap();
        let fenced = format!("Here is the result:\n```json\n{text}\n```\nAnything else?");
        prop_assert_eq!(extract_value(&fenced).unwrap(), value.clone());
        if value.is_object() || value.is_array() {
            let wrapped = format!("Sure, the result is {text} as requested.");
            prop_assert_eq!(extract_value(&wrapped).unwrap(), value);
        }
    }

    #[test]
    fn pythonish_rendering_repairs_to_the_value(value in container()) {
        let mut text = String::new();
        pythonish(&value, &mut text);
        prop_assert_eq!(extract_value(&text).unwrap(), value);
    }

    #[test]
    fn cut_off_json_always_repairs(value in container(), cut in any::<prop::sample::Index>()) {
        let text = serde_json::to_string(&value).unwrap();
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
        prop_assume!(!boundaries.is_empty());
        let prefix = &text[..boundaries[cut.index(boundaries.len())]];
        let repaired = extract_value(prefix);
        // Cut inside a string whose text ends with closers (`{"a": "x}`),
        // the reply may also be whole with the string's quote left out:
        // two readings, so feedback, never a guess.
        if repaired.is_err() && cut_in_a_string_holding_a_closer(prefix) {
            return Ok(());
        }
        // Cut inside a number's fraction or exponent before a digit of it
        // (`1.`, `2e-`), or inside a literal in an object (`{"a": tr`,
        // `tr` as likely the start of a word without quotes): two
        // readings or none, so always feedback.
        if cut_number_tail(prefix) || cut_literal_in_object(prefix) {
            prop_assert!(repaired.is_err(), "{:?} read as {:?}", prefix, repaired);
            return Ok(());
        }
        prop_assert!(repaired.is_ok(), "{:?}: {:?}", prefix, repaired);
        let repaired = repaired.unwrap();
        prop_assert_eq!(repaired.is_array(), value.is_array(), "{:?} gave {}", prefix, repaired);
        prop_assert!(
            is_cut_of(&repaired, &value),
            "{:?} gave {}, not a cut of {}",
            prefix,
            repaired,
            value
        );
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = extract_value(&text);
        let _ = extract::<Target>(&text);
    }

    #[test]
    fn json_ish_noise_never_panics(text in "[\\[\\]{}\"':,;/*#\\\\ \n\tTrueNonefalsnul0-9.eE+\\-`~<>think/a-z\u{201C}\u{201D}\u{2018}\u{2019}\u{FEFF}]{0,300}") {
        let _ = extract_value(&text);
        let _ = extract::<Target>(&text);
        let _ = extract::<Vec<Value>>(&text);
    }
}

/// A small deterministic stream of choices, from a seed proptest shrinks.
struct Choices(u64);

impl Choices {
    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D).is_multiple_of(n)
    }
}

/// Plain words a model might leave unquoted: no literal, no wrapper.
fn plain_words(s: &str) -> bool {
    let first_word = s.split(' ').next().unwrap_or("");
    !s.is_empty()
        && s.split(' ').all(|w| {
            !w.is_empty()
                && w.bytes().all(|b| b.is_ascii_alphanumeric())
                && w.as_bytes()[0].is_ascii_alphabetic()
        })
        && ![
            "true",
            "false",
            "null",
            "True",
            "False",
            "None",
            "undefined",
            "NaN",
        ]
        .contains(&first_word)
        && !first_word.starts_with("Infinity")
}

fn identifier(s: &str) -> bool {
    s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// True unless `rendered` is a string holding brackets or quotes: after a
/// comma or colon left out, such a string has a second reading (its quote
/// a stray one), and the repair refuses it.
fn no_second_reading(rendered: &str) -> bool {
    !rendered.starts_with(['"', '\'', '\u{201C}'])
        || !rendered[1..rendered.len() - 1].contains(['[', ']', '{', '}', '"', '\'', '\n', '\\'])
}

/// White space between tokens: plain, a line break, a Unicode space or a
/// comment.
fn gap(c: &mut Choices, out: &mut String) {
    if c.one_in(6) {
        out.push('\u{3000}');
    } else if c.one_in(8) {
        out.push_str(" /* c */ ");
    } else if c.one_in(4) {
        out.push('\n');
    } else {
        out.push(' ');
    }
}

/// `value` written the way a sloppy model writes it, every liberty one
/// that has a single reading: bare keys and words, single quotes, Python
/// and JavaScript literals, `+1` and `.25`, missing commas and colons
/// before a value that cannot be a word, trailing commas, `...`, tuples,
/// strings joined with `+`, Unicode spaces and comments.
fn sloppy(value: &Value, in_object: bool, c: &mut Choices, out: &mut String) {
    match value {
        Value::Null if c.one_in(3) => out.push_str("None"),
        Value::Null if c.one_in(3) => out.push_str("undefined"),
        Value::Bool(true) if c.one_in(2) => out.push_str("True"),
        Value::Bool(false) if c.one_in(2) => out.push_str("False"),
        Value::Number(n) => {
            let text = n.to_string();
            if let Some(fraction) = text.strip_prefix("0.").filter(|_| c.one_in(2)) {
                out.push('.');
                out.push_str(fraction);
            } else if !text.starts_with('-') && c.one_in(3) {
                out.push('+');
                out.push_str(&text);
            } else {
                out.push_str(&text);
            }
        }
        Value::String(s) if in_object && plain_words(s) && c.one_in(2) => out.push_str(s),
        Value::String(s) if s.chars().count() >= 2 && c.one_in(3) => {
            let cut = s.char_indices().nth(1).map_or(1, |(i, _)| i);
            let (a, b) = s.split_at(cut);
            out.push_str(&serde_json::to_string(a).unwrap());
            out.push_str(if c.one_in(2) { " +\n" } else { " +\u{3000}" });
            if two_readings_in_single_quotes(b) {
                out.push_str(&serde_json::to_string(b).unwrap());
            } else {
                single_quoted(b, out);
            }
        }
        Value::String(s) if !two_readings_in_single_quotes(s) && c.one_in(2) => {
            single_quoted(s, out)
        }
        Value::Array(items) => {
            let tuple = in_object && items.len() >= 2 && c.one_in(4);
            out.push(if tuple { '(' } else { '[' });
            // A comma left out between a closing `"` or bracket and an
            // opening one: a word or a single quote might run on.
            let mut closed = false;
            for (i, item) in items.iter().enumerate() {
                let mut rendered = String::new();
                sloppy(item, in_object, c, &mut rendered);
                if i > 0 {
                    let opens = rendered.starts_with(['"', '[', '{']);
                    if !(closed && opens && no_second_reading(&rendered) && c.one_in(3)) {
                        out.push(',');
                    }
                    gap(c, out);
                }
                closed = rendered.ends_with(['"', ']', '}', ')']);
                out.push_str(&rendered);
            }
            if !tuple && c.one_in(4) {
                out.push_str(", ...");
            }
            if !items.is_empty() && c.one_in(3) {
                out.push(',');
            }
            out.push(if tuple { ')' } else { ']' });
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gap(c, out);
                if identifier(key) && c.one_in(2) {
                    out.push_str(key);
                } else {
                    out.push_str(&serde_json::to_string(key).unwrap());
                }
                let mut rendered = String::new();
                sloppy(item, true, c, &mut rendered);
                let plain =
                    rendered.starts_with(|ch: char| "\"'[{-+.".contains(ch) || ch.is_ascii_digit());
                if !(plain && no_second_reading(&rendered) && c.one_in(3)) {
                    out.push(':');
                }
                gap(c, out);
                out.push_str(&rendered);
            }
            if c.one_in(4) {
                out.push_str(", …");
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

/// Every key of `value`, sorted, and how many scalars it holds.
fn keys_and_leaves(value: &Value, keys: &mut Vec<String>) -> usize {
    match value {
        Value::Array(items) => items.iter().map(|v| keys_and_leaves(v, keys)).sum(),
        Value::Object(members) => members
            .iter()
            .map(|(k, v)| {
                keys.push(k.clone());
                keys_and_leaves(v, keys)
            })
            .sum(),
        _ => 1,
    }
}

/// True when every item of the sorted `small` is in the sorted `big`, as
/// many times.
fn sub_multiset(small: &[String], big: &[String]) -> bool {
    let mut big = big.iter().peekable();
    small.iter().all(|s| loop {
        match big.next() {
            Some(b) if b == s => break true,
            Some(b) if b < s => continue,
            _ => break false,
        }
    })
}

/// A character or token a model might put in the wrong place.
const NOISE: &[&str] = &[
    "\"", "'", ",", ":", "}", "]", "{", "[", "...", "(", ")", "+", "\u{3000}", "O", ".", "\\\"",
    "\u{201C}",
];

/// The number of cases: `default` in CI, or `PROPTEST_CASES` when set
/// (`PROPTEST_CASES=1000000` for a long run outside CI; an explicit
/// `with_cases` would otherwise ignore the variable).
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1024)))]

    #[test]
    fn sloppy_rendering_repairs_to_the_value(value in container(), seed in any::<u64>()) {
        let mut text = String::new();
        sloppy(&value, false, &mut Choices(seed | 1), &mut text);
        let got = extract_value(&text);
        prop_assert!(got.is_ok(), "{:?}: {:?}", text, got);
        prop_assert_eq!(got.unwrap(), value, "{:?}", text);
    }

    /// One stray token anywhere in valid JSON: whatever reads it (the repair
    /// pass, or a balanced span of it read as written), no key and no item
    /// of the input is missing from what it returns. A piece is as lossy as
    /// a repair that drops items: `[]` read out of `{"a": 1, "b"}: []}`.
    #[test]
    fn a_reading_never_loses_a_key_or_item(
        value in container(),
        pretty in any::<bool>(),
        at in any::<prop::sample::Index>(),
        noise in prop::sample::select(NOISE),
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        // Between tokens, outside strings: noise inside a string is text.
        let mut boundaries = Vec::new();
        let (mut in_string, mut escaped) = (false, false);
        for (i, ch) in text.char_indices() {
            if !in_string {
                boundaries.push(i);
                in_string = ch == '"';
            } else {
                in_string = escaped || ch != '"';
                escaped = !escaped && ch == '\\';
            }
        }
        boundaries.push(text.len());
        let at = boundaries[at.index(boundaries.len())];
        let noisy = format!("{}{noise}{}", &text[..at], &text[at..]);
        if let Ok(got) = extract_value_with_report(&noisy) {
            let (mut want_keys, mut got_keys) = (Vec::new(), Vec::new());
            let want_leaves = keys_and_leaves(&value, &mut want_keys);
            let got_leaves = keys_and_leaves(&got.value, &mut got_keys);
            want_keys.sort();
            got_keys.sort();
            prop_assert!(
                sub_multiset(&want_keys, &got_keys) && got_leaves >= want_leaves,
                "{:?} read as {} ({}), from {}",
                noisy,
                got.value,
                got.report,
                value
            );
        }
    }
}

/// Readings found by `a_reading_never_loses_a_key_or_item` run with
/// 1,000,000 cases (`PROPTEST_CASES=1000000`), shrunk: each returned a
/// value with a key or an item of the input lost. Each has two readings
/// (the stray character's, and the reading the repair took), so each is
/// feedback naming the place.
#[test]
fn readings_that_lost_items_are_feedback() {
    let cases: &[(&str, &str)] = &[
        // a stray quote after `null`, a comma put in: the string it opens holds brackets.
        (
            "[[null\",-100000,100000000,null],[-10000,null,\",/*\"]]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 7 (near `\",-100000,100000000,`): this string holds brackets and no comma stands before it; close the value before it, or write a comma.",
        ),
        // a `“` closed by a plain quote, a comment after the value holding the rest.
        (
            "[“[\"]#\",null,null],false]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 (near `“[\"]#\",null,null],fa`): this string opened with “ is closed by a plain quote, and quotes or brackets follow the value it ends, so where it ends is not known; close it with ”, or write its quote as \\\".",
        ),
        // a `“` closed by a plain quote, the object closed by a `}` that was text.
        (
            "{\"a\":“[\"}!\",null]}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 6 (near `“[\"}!\",null]}`): this string opened with “ is closed by a plain quote, and quotes or brackets follow the value it ends, so where it ends is not known; close it with ”, or write its quote as \\\".",
        ),
        // a quote taken for text, the string read over lines to a quote past brackets.
        (
            "[\n  [\n    null,\n    0.0,\n    \"\"O\n  ],\n  null,\n  \"]#\"\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 5, column 5 (near `\"\"O`): this string runs over lines and holds brackets and a quote that does not end it, so where it ends is not known; write a quote inside a string as \\\", and close it on its line.",
        ),
        // a stray `}` closed an object early, its members read into the outer one.
        (
            "[{\"\": null, \"_\": {}\n \"a\": null, \"\": 0.0}}]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 21 (near `}]`): this bracket does not close what is open, and an earlier bracket of its kind may be the one too many, so which container the values after it belong to is not known; close each container with its own bracket.",
        ),
        // the same with the comma written.
        (
            "[{\"\": false, \"_\": {\"x\": 1}, \"a\": null, \"\": \"\"}}]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 47 (near `}]`): this bracket does not close what is open, and an earlier bracket of its kind may be the one too many, so which container the values after it belong to is not known; close each container with its own bracket.",
        ),
        // a quote between a key and its colon.
        (
            "{\"\":\"\",\"_\"\":[-1,-12172.25,\"}\\t\"],\"\\\"\":null}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 11 (near `\":[-1,-12172.25,\"}\\t`): a quote stands between the key and its `:`; take it out.",
        ),
        // a quote taken for text, and a quote and a closer on the line after the value.
        (
            "[\"\",\"\",\"\"O,\"]!\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 14 (near `!\"]`): the value was repaired and ends here, yet a quote follows, so where it ends is not known; write the value whole, with a quote inside a string as \\\" and a comma between items.",
        ),
        // a stray single quote before a key holding `"…":`.
        (
            "{\"A\": null,\n'    \"\": \"':\",\n    \"B\": null\n}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 1 (near `'    \"\": \"':\",`): this key in single quotes holds a double quote and a colon, so it may be a stray quote before a key; write the key in double quotes.",
        ),
        // a string holding a quote taken for text, joined with `+`.
        (
            "[[],[\"\"',null],null,\"+\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 23 (near `\"]`): a string holding a quote that does not end it is joined with + to the next one, so where it ends is not known; write a quote inside a string as \\\".",
        ),
        // a stray single quote, its text holding a key and its colon.
        (
            "[['null,-10000000000],{\"\":\"',\"}]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 3 (near `'null,-10000000000],`): this string in single quotes holds a lone double quote, and the value is cut off after it, so the double quote may open a string of its own; write the string in double quotes, with a quote inside it as \\\".",
        ),
        // a stray single quote, a string read over lines.
        (
            "[\n  -1000,\n  100000000,'\n  [\n    -1000000\n  ],\n  \"'#\"\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 3, column 13 (near `'`): this string in single quotes does not end on its line; close it with ' on its line, or write a line break inside it as \\n.",
        ),
        // a stray quote after a number, a comma put in, a comment after the value.
        (
            "[1\"000,[-10000,\"]#\"]]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 3 (near `\"000,[-10000,\"]#\"]]`): this string holds brackets and no comma stands before it; close the value before it, or write a comma.",
        ),
        // a `“` closed by a plain quote, the string ending in a comma, a
        // list glued after it.
        (
            "[-5544.25,“[null,100000000000000],\"[\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 36 (near `[\"]`): the string before this ends in a comma and no comma follows it, so its comma may be the separator and its quotes misplaced (`\"a,\"` for `\"a\",`); write the comma after the closing quote, or a comma between the values.",
        ),
        // a stray quote, a string read over lines to a quote before `//"`.
        (
            "[\n  [\"\n    null,\n    \"//\"\n  ]\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 4 (near `\"`): this string runs over lines to a quote with a comment after it that holds a quote, so where it ends is not known; close it on its line, or write a line break inside it as \\n.",
        ),
        // a stray quote after a number, a comma put in: the string it
        // opens ends in a comma, a list glued after it.
        (
            "[-1\"00000,\"['\",null,null]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 12 (near `['\",null,null]`): the string before this ends in a comma and no comma follows it, so its comma may be the separator and its quotes misplaced (`\"a,\"` for `\"a\",`); write the comma after the closing quote, or a comma between the values.",
        ),
        // single quotes inside a string taken for a string's, then cut off.
        (
            "[{\"},null,null,\":'\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 18 (near `'\"]`): this string in single quotes holds a lone double quote and is never closed, so the single quote may be text inside a string that the double quote ends; write the string in double quotes, with a quote inside it as \\\".",
        ),
        // a `]` after an object's `{` inside a list: read as the list's
        // closer, the object's members went to the outer object, which then
        // closed early, and a later piece (`{"": -1}, " ": "["}`) was read
        // alone with the last `}` taken for a stray.
        (
            "{\n  \"A\": [\n    {]\n      \"\": null,\n      \"a\": \"\"\n    },\n    null\n  ],\n  \"\": {\n    \"\": -1\n  },\n  \" \": \"[\"\n}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 6, column 5 (near `},`): the value is closed here, but more of it follows; remove the extra closing bracket or quote, or close each container with its own bracket.",
        ),
        // a stray quote before a key's indentation: the key's own opening
        // quote is glued to its letters, but spaces stand before it.
        (
            "{\n\"  \"A\": \"\"\n}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 5 (near `A\": \"\"`): expected `:` after the key.",
        ),
        // a stray quote before an item: the string it opens ends in a
        // comma, a list glued after it.
        (
            "{\"\":[\"null,null,40.25,\"[A\"]}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 24 (near `[A\"]}`): the string before this ends in a comma and no comma follows it, so its comma may be the separator and its quotes misplaced (`\"a,\"` for `\"a\",`); write the comma after the closing quote, or a comma between the values.",
        ),
        // a stray quote before a key in single quotes: an empty key glued
        // to it.
        (
            "{\"a\":1,\"\"''\":\":\"}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 10 (near `''\":\":\"}`): another quote follows the key's closing quote at once, so it may open the value (a `:` left out) or be a doubled quote; write \"key\": \"value\".",
        ),
        // a stray quote before a pretty-printed key: a colon put in, and
        // the `}` inside the value's text ends the object.
        (
            "{\n\"  \" \": \"}<\",\n  \"b\": {\n    \"c\": null\n  }\n}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 11 (near `<\",`): the value was repaired and ends here, yet a quote follows, so where it ends is not known; write the value whole, with a quote inside a string as \\\" and a comma between items.",
        ),
        // a stray quote before a list's first object: `{}` after it was
        // read as the answer.
        (
            "[\"{\"\":1,\"A\":\"]\"},{},[]]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 9 (near `\"A\":\"]\"},{},[]]`): a quote inside this string does not end it; close the string, or write a quote inside it as \\\".",
        ),
        // a quote taken for text after an empty string, the string read
        // over lines to a quote before a `)` its text opened.
        (
            "[\n  [\n    \"\",\n    \"\"(\n  ],\n  [\n    \")\",\n    -1\n  ]\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 4, column 5 (near `\"\"(`): this string runs over lines and holds brackets and a quote that does not end it, so where it ends is not known; write a quote inside a string as \\\", and close it on its line.",
        ),
        // a stray single quote before an empty string: the single-quoted
        // string it opens holds a lone double quote, a `:` after it.
        (
            "{\"\":[],\"_\":'\"\",\"':\":\",\"A\":false}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 12 (near `'\"\",\"':\":\",\"A\":false`): this string in single quotes holds a lone double quote and no comma or closing bracket follows it, so it may not be one string; write it in double quotes, with a quote inside it as \\\".",
        ),
        // a block comment never closed, holding the rest of the value.
        (
            "[1, 2, /*\"]]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 8 (near `/*\"]]`): this comment runs to the end and holds more of the value; close the value before it, or end the comment on its line.",
        ),
        // a stray quote before an item: the string it opens ends in a
        // comma, and the quote glued to the closers was read as an empty
        // string missing its close.
        (
            "[[\"false,null,\",\"]]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 17 (near `\"]]`): this quote stands right before the closing brackets, so it may close a string opened by an earlier quote rather than open an empty one; write \"\" for an empty string, and a quote inside a string as \\\".",
        ),
        // a quote taken for text after an empty string, the string read
        // over lines to a quote whose comma has a comment after it that
        // holds a quote.
        (
            "[\n  null,\n  [\n    false,\n    \"\"...,\n    \",#\",\n    9811.75\n  ]\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 5, column 5 (near `\"\"...,`): this string runs over lines to a quote with a comment after it that holds a quote, so where it ends is not known; close it on its line, or write a line break inside it as \\n.",
        ),
    ];
    for (raw, want) in cases {
        let got = extract_value(raw).map_err(|e| e.to_string());
        assert_eq!(got, Err((*want).to_owned()), "{raw:?}");
    }
}

/// Found by `cut_off_json_always_repairs` with 1,000,000 cases: a one-line
/// code fence opened inside a string of a list cut off (its "content" starts
/// at the `[` after that string closes) was read as the reply's fence, and
/// gave only the list's second item. A fence opened inside the value is part
/// of it, wherever its content starts.
#[test]
fn a_fence_opened_inside_a_string_is_text_of_the_value() {
    let got = extract_value_with_report(r#"[["A 0a  ```a"],[false,9972.25]"#).unwrap();
    assert_eq!(
        got.value,
        serde_json::json!([["A 0a  ```a"], [false, 9972.25]])
    );
    assert_eq!(got.report.to_string(), "repair: truncated");
    // Inside a balanced value the same: the fence's content is a fragment.
    let got = extract_value(r#"{"a": "x ```b", "c": [1]}"#).unwrap();
    assert_eq!(got, serde_json::json!({"a": "x ```b", "c": [1]}));
    // A fence of the reply itself is still read as one.
    let got = extract_value("Here: ```json [1, 2]```").unwrap();
    assert_eq!(got, serde_json::json!([1, 2]));
}

/// Found by `a_reading_never_loses_a_key_or_item` with 1,000,000 cases: a
/// stray `[` before a number in an object inside two objects, closed by the
/// object's `}`. Read as a `}` written for `]`, the value ended one closer
/// short (closed as cut off), and the members after it went into the inner
/// object, where a key of the same name took the place of one written:
/// `{"": {…}}` lost to `"": null`. The closers after it close exactly what
/// the other reading leaves open, so that reading is taken.
#[test]
fn a_wrong_closer_is_read_as_the_closers_after_it_say() {
    let raw = r#"{"\"":{"a":-1,"":{"":2671.75,"a":[-1}},"":null,"A":[""]}"#;
    let got = extract_value_with_report(raw).unwrap();
    assert_eq!(
        got.value,
        serde_json::json!({"\"": {"a": -1, "": {"": 2671.75, "a": [-1]}}, "": null, "A": [""]})
    );
    assert_eq!(got.report.to_string(), "repair: mismatched_bracket");
}

/// Found by `a_reading_never_loses_a_key_or_item` (a stray `}` after the key
/// of `{"":"["}`): the repair read a list out of the string `"["` and lost
/// the key. The `}` may close the object (the key left without a value,
/// prose after it) or be a stray one (the key's value after it): two
/// readings, so feedback naming the place, never a list from inside a
/// string.
#[test]
fn a_stray_closer_after_a_key_does_not_turn_a_string_into_a_list() {
    let got = extract_value(r#"{""}:"["}"#).map_err(|e| e.to_string());
    assert_eq!(
        got,
        Err(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, \
             column 4 (near `}:\"[\"}`): one value stands in braces with no `:` after it, \
             so it may be a key left without its value or a set of one value; write an object \
             with a value for each key, or a list in [ ]."
                .to_owned()
        )
    );
    // The same with a key that has a name, and a number for its value.
    let got = extract_value(r#"{"a"}: 1}"#).map_err(|e| e.to_string());
    assert_eq!(
        got,
        Err(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, \
             column 5 (near `}: 1}`): one value stands in braces with no `:` after it, \
             so it may be a key left without its value or a set of one value; write an object \
             with a value for each key, or a list in [ ]."
                .to_owned()
        )
    );
}

/// Found by `a_reading_never_loses_a_key_or_item` once it checked every layer:
/// a balanced span of a broken reply, read as written, was returned while
/// the reply around it was one value. A closer between a key and its `:`
/// with an object or a list after it, and quotes and closers alone after
/// a list, say the span is a piece: feedback, never the piece.
#[test]
fn a_piece_of_a_broken_value_is_not_read_alone() {
    let got = extract_value(r#"{"A":{"":-9319.75},"":1,"a"}:[]}"#).map_err(|e| e.to_string());
    assert_eq!(
        got,
        Err(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, \
             column 28 (near `}:[]}`): expected `:` after the key."
                .to_owned()
        )
    );
    let got = extract_value("[\"null,null,\"]\t\"]").map_err(|e| e.to_string());
    assert_eq!(
        got,
        Err(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, \
             column 14 (near `]\t\"]`): the value is closed here, but more of it follows; \
             remove the extra closing bracket or quote, or close each container with its own bracket."
                .to_owned()
        )
    );
    // Prose after a valid object is still prose.
    let got = extract_value(r#"{"a": 1}: [1, 2] are the items"#).unwrap();
    assert_eq!(got, serde_json::json!({"a": 1}));
    let got = extract_value(r#"{"a": "x"} ""#).unwrap();
    assert_eq!(got, serde_json::json!({"a": "x"}));
}

/// More pieces the widened property found, each a value of its own in the
/// text, none the reply's one reading: a later span after a first value
/// that no repair reads; the first value when the text after it holds a
/// quote with no pair and ends with a closer; valid JSON holding a key
/// twice before a `}` too many; a string ending in a comma, then a quote
/// left out.
#[test]
fn pieces_of_a_value_a_stray_quote_or_closer_moved_are_feedback() {
    let closed_here = |near: &str, column: usize| {
        format!(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, \
             column {column} (near `{near}`): the value is closed here, but more of it follows; \
             remove the extra closing bracket or quote, or close each container with its own bracket."
        )
    };
    let cases: Vec<(&str, String)> = vec![
        // `{}` was read out of a list no repair reads.
        (
            "[\"null,\"0{}\t\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 7 \
             (near `,\"0{}\t\"]`): a quote inside this string could end it here or be part of \
             its text; write a quote inside a string as \\\"."
                .to_owned(),
        ),
        // `[2]` was read after an object no repair reads: its value.
        (
            "{\"a\": 1, \"b\"} [2]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 13 \
             (near `} [2]`): expected `:` after the key."
                .to_owned(),
        ),
        // `[]` was read out of an object no repair reads.
        (
            "{\\\"\":[null],\"A\":[1,\"}\"],\"B\":[]}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 \
             (near `\\\"\":[null],\"A\":[1,\"}`): expected a key in double quotes."
                .to_owned(),
        ),
        (
            "[\\\"\n  [\n    \"{}[\"\n  ]\n]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 \
             (near `\\\"`): expected a value or `]`."
                .to_owned(),
        ),
        // `[""]` was read, or `[..., "null,"]`, the rest after a lone quote.
        ("[\"\"]\",0.0]", closed_here("]\",0.0]", 4)),
        (
            "[{\"\":{\"\":-1}},\"null,\"]\",[null,\"\"],5838.25]",
            closed_here("]\",[null,\"\"],5838.25", 22),
        ),
        // The same with an escaped quote after it, which is no quote.
        ("[\"\"]\\\"\",[null]]", closed_here("]\\\"\",[null]]", 4)),
        // `{"},": {}}` read out of a stray quote before `}`: a key holding
        // a closer, no `:` after it.
        (
            "[{\"\":null},{\"},\"{\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 17 \
             (near `{\"]`): this key holds a closing bracket and no `:` follows it, so its \
             opening quote may be a stray one; write \"key\": value."
                .to_owned(),
        ),
        // A string whose end is a guess, then a quote left out after it:
        // in single quotes holding a lone double quote, or over lines.
        (
            "['{\"\":\"',x\"}]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 \
             (near `'{\"\":\"',x\"}]`): this string in single quotes holds a lone double quote, \
             and a quote is missing after it, so the double quote may open a string of its own; \
             write each string in double quotes, with a quote inside it as \\\"."
                .to_owned(),
        ),
        (
            "{\"a\": [\"\n    0.0,\n    null,\n    \",a\"\n  ]\n}",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 8 \
             (near `\"`): this string runs over lines, and a quote is missing after it, so its \
             closing quote may be another string's; close each string on its line, with a line \
             break inside it as \\n."
                .to_owned(),
        ),
        // `{"": 1, " ": {"a": null}}`: the inner object's `""` went out.
        (
            "{\"\":false,\" \":{\"a\":null},\"\":1}}",
            closed_here("}}", 30),
        ),
        // `["null,false,", "x"]`, the quote before `x` taken as left out.
        (
            "[\"null,false,\",x\"]",
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 \
             (near `\"null,false,\",x\"]`): this string ends in a comma, and a quote is missing \
             after it, so its comma may be the separator and its quotes misplaced (`\"a,\"` for \
             `\"a\",`); write each string with its two quotes and the comma after it."
                .to_owned(),
        ),
    ];
    for (raw, want) in cases {
        let got = extract_value(raw).map_err(|e| e.to_string());
        assert_eq!(got, Err(want), "{raw:?}");
    }
    // Valid JSON and a `}` too many, no key twice: the stray is dropped.
    let got = extract_value(r#"{"a": {"x": 1}}}"#).unwrap();
    assert_eq!(got, serde_json::json!({"a": {"x": 1}}));
}
