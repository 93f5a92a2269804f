//! Classes of input other JSON repair libraries are tested on: where the
//! text has one reading the repair reads it; where it has two, it refuses
//! with feedback, never returning a value the text does not say.

use serde_json::json;
use twr_runtime::json::{extract_value, extract_value_with_report, Repair};

fn refused(raw: &str) -> String {
    match extract_value(raw) {
        Ok(value) => panic!("{raw:?} read as {value}"),
        Err(feedback) => feedback.to_string(),
    }
}

#[test]
fn a_quote_glued_between_letters_is_text() {
    let got = extract_value_with_report(r#"{"key": "v"alue"}"#).unwrap();
    assert_eq!(got.value, json!({"key": "v\"alue"}));
    assert_eq!(got.report.repairs, [Repair::UnescapedQuote]);
}

#[test]
fn a_string_opened_with_two_quotes_has_two_readings() {
    // Read as "\"value" before: the second quote a stray or the text's.
    assert!(
        refused(r#"{"key": ""value"}"#).contains("this string opens with two quotes"),
        "{}",
        refused(r#"{"key": ""value"}"#)
    );
    // An empty string before structure is one.
    assert_eq!(
        extract_value(r#"{"key": "", "b": 1}"#).unwrap(),
        json!({"key": "", "b": 1})
    );
}

#[test]
fn a_key_never_closed_that_holds_a_colon_is_feedback_not_an_empty_object() {
    // Read as {} before: the key dropped as cut off.
    assert!(refused(r#"{"key:value}"#).contains("this key is never closed and holds a colon"));
    assert!(refused(r#"{"a": 1, "key: 2}"#).contains("holds a colon"));
    // A key cut off with plain text is still dropped as cut off.
    assert_eq!(extract_value(r#"{"a": 1, "b"#).unwrap(), json!({"a": 1}));
}

#[test]
fn a_key_over_lines_is_feedback() {
    // Read as the key "ke\ny" before.
    for raw in [
        "{\"ke\ny\": 1}",
        "{\"key\n\": 1}",
        "{\"a\": \"x\", \"ke\ny\": 1}",
    ] {
        assert!(refused(raw).contains("this key runs over lines"), "{raw:?}");
    }
    // A value over lines is still read, its line break kept.
    assert_eq!(
        extract_value("{\"a\": \"x\ny\"}").unwrap(),
        json!({"a": "x\ny"})
    );
}

#[test]
fn a_number_ending_in_its_point_is_that_number() {
    // `1.` is 1, written so that an integer field takes it.
    assert_eq!(extract_value(r#"{"key": 1. }"#).unwrap(), json!({"key": 1}));
}

#[test]
fn a_string_over_lines_joined_with_plus_is_feedback() {
    // Found by the property test: a stray quote opened a string over lines,
    // closed by the quote of the item "+", whose + joined the rest of the
    // list into one string: items were lost.
    let raw = "[1, 2,\"\n 3,\n 4\n ],\n \"+\",\n 5\n]";
    assert!(
        refused(raw).contains("joined with + to the next one"),
        "{}",
        refused(raw)
    );
    // Strings on their lines joined over lines are one string.
    assert_eq!(
        extract_value("[\"ab\" +\n \"cd\"]").unwrap(),
        json!(["abcd"])
    );
}
