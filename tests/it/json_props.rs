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

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Target {
    name: String,
    items: Vec<u32>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

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
