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

/// The feedback for a reply whose JSON breaks at `column` of line 1,
/// `near` the text there, with `why`.
fn breaks_at(column: usize, near: &str, why: &str) -> String {
    format!(
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column \
         {column} (near `{near}`): {why}."
    )
}

const ITEM_QUOTE_THEN_SPACE: &str = "a quote inside this item is followed by a space, so it may \
    end the item (a comma and a quote left out after it) or be its text; write a quote inside a \
    string as \\\", or a comma between items";

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

#[test]
fn a_quote_then_a_space_inside_a_list_item_has_two_readings() {
    // Read as ["value1\" value2", "value3"] before: the quote may as well
    // end the item, the next one written without its comma and opening
    // quote (["value1", "value2", "value3"]).
    assert_eq!(
        refused(r#"["value1" value2", "value3"]"#),
        breaks_at(2, "\"value1\" value2\", \"v", ITEM_QUOTE_THEN_SPACE)
    );
    assert_eq!(
        refused(r#"{"sizes": ["size 10" shoes", "socks"]}"#),
        breaks_at(12, "\"size 10\" shoes\", \"s", ITEM_QUOTE_THEN_SPACE)
    );
    // In an object the rest cannot be a member: one reading, the text's.
    let got = extract_value_with_report(r#"{"pipe": "the 3" pipe fits"}"#).unwrap();
    assert_eq!(got.value, json!({"pipe": "the 3\" pipe fits"}));
    assert_eq!(got.report.repairs, [Repair::UnescapedQuote]);
    // Quotes in pairs inside an item, or a quote glued to the next word,
    // are the item's text.
    assert_eq!(
        extract_value(r#"["a "quoted" word", "b"]"#).unwrap(),
        json!(["a \"quoted\" word", "b"])
    );
    assert_eq!(
        extract_value(r#"["inches 5"x7", "b"]"#).unwrap(),
        json!(["inches 5\"x7", "b"])
    );
}

#[test]
fn a_title_opened_with_two_quotes_has_two_readings() {
    assert_eq!(
        refused(r#"{"title": ""Dune" by Frank Herbert"}"#),
        breaks_at(
            11,
            "\"\"Dune\" by Frank Her",
            "this string opens with two quotes, so the second may be a stray one or its \
             text; write a quote inside a string as \\\""
        )
    );
}

#[test]
fn a_string_missing_its_closing_quote_before_a_bare_key_ends_there() {
    // Read as {"a": "first, b: \"second"} before: a lone quote in the
    // text; the member `b:` after a comma is the one reading.
    let got = extract_value_with_report(r#"{"a": "first, b: "second"}"#).unwrap();
    assert_eq!(got.value, json!({"a": "first", "b": "second"}));
    assert_eq!(
        got.report.repairs,
        [Repair::UnquotedKey, Repair::MissingQuote]
    );
    assert_eq!(
        extract_value(r#"{"city": "Kyoto, country: "Japan", "days": 3}"#).unwrap(),
        json!({"city": "Kyoto", "country": "Japan", "days": 3})
    );
    // With the key in quotes, and over lines, as before.
    assert_eq!(
        extract_value(r#"{"city": "Kyoto, "country": "Japan"}"#).unwrap(),
        json!({"city": "Kyoto", "country": "Japan"})
    );
    assert_eq!(
        extract_value("{\"city\": \"Kyoto,\n  \"country\": \"Japan\"}").unwrap(),
        json!({"city": "Kyoto", "country": "Japan"})
    );
    // Quotes in pairs after `word:` are text; in a list no member can
    // follow, so the quote is text.
    assert_eq!(
        extract_value(r#"{"a": "say, b: "hi" now"}"#).unwrap(),
        json!({"a": "say, b: \"hi\" now"})
    );
    assert_eq!(
        extract_value(r#"["first, b: "second"]"#).unwrap(),
        json!(["first, b: \"second"])
    );
}

#[test]
fn a_key_missing_its_closing_quote_before_its_colon_ends_there() {
    // Refused before (`expected : after the key`).
    let got = extract_value_with_report(r#"{"name: "Ada", "age": 36}"#).unwrap();
    assert_eq!(got.value, json!({"name": "Ada", "age": 36}));
    assert_eq!(got.report.repairs, [Repair::MissingQuote]);
    assert_eq!(
        extract_value(r#"{"key: "value"}"#).unwrap(),
        json!({"key": "value"})
    );
    assert_eq!(
        extract_value(r#"{"a": 1, "key:"value"}"#).unwrap(),
        json!({"a": 1, "key": "value"})
    );
    // A key that ends with a colon, its own quote after it, stays so.
    assert_eq!(
        extract_value(r#"{"key:" "value"}"#).unwrap(),
        json!({"key:": "value"})
    );
    assert_eq!(
        extract_value(r#"{"ratio a:b": 2}"#).unwrap(),
        json!({"ratio a:b": 2})
    );
    // Never closed at all: refused, as above.
    assert!(refused(r#"{"name:Ada}"#).contains("holds a colon"));
}

#[test]
fn numbers_ending_in_their_point_are_whole() {
    assert_eq!(
        extract_value(r#"{"price": 12., "qty": 3}"#).unwrap(),
        json!({"price": 12, "qty": 3})
    );
    assert_eq!(extract_value("[5., -6.]").unwrap(), json!([5, -6]));
    // Cut off after the point: the fraction is not known.
    assert!(extract_value(r#"{"price": 12."#).is_err());
}

#[test]
fn a_first_name_key_over_lines_is_feedback() {
    assert_eq!(
        refused("{\"first\nname\": \"Ada\"}"),
        breaks_at(
            2,
            "\"first",
            "this key runs over lines, so where it ends is not known; close it with its \
             quote on its line"
        )
    );
}

#[test]
fn a_code_fence_inside_a_json_string_is_the_strings_text() {
    // Read as [1] before: the fence's content was taken for the reply's.
    assert_eq!(
        extract_value("{\"code\": \"```[1]```\", \"n\": 2,}").unwrap(),
        json!({"code": "```[1]```", "n": 2})
    );
    // The same value cut off: never closed, the fence still inside a string.
    assert_eq!(
        extract_value("{\"code\": \"```[1]```\", \"n\": 2").unwrap(),
        json!({"code": "```[1]```", "n": 2})
    );
    // A fence after a value never closed, outside its strings, is the
    // reply's own.
    assert_eq!(
        extract_value("[1, 2\n```json\n{\"b\": 1}\n```").unwrap(),
        json!({"b": 1})
    );
}

#[test]
fn a_code_fence_inside_brackets_is_feedback_not_an_empty_container() {
    // Read as [] before: the fence was taken for the end of a reply cut off.
    assert_eq!(
        refused("[\n```json\n{\"id\": 7}\n```\n]"),
        "The reply should be JSON of the expected shape: the JSON breaks at line 2, column 1 \
         (near ````json`): a code fence stands inside the value; write the JSON whole inside one \
         fence, or without one."
    );
    assert!(refused("{```\n{\"id\": 7}\n```}").contains("a code fence stands inside the value"));
}

#[test]
fn a_string_never_closed_before_a_bare_member_has_two_readings() {
    // Read as "Paris, zip: 75001" before: the quote may be missing before
    // the comma (a member `zip` after) or before the brace.
    assert_eq!(
        refused(r#"{"city": "Paris, zip: 75001}"#),
        breaks_at(
            10,
            r#""Paris, zip: 75001}"#,
            "this string is never closed; close it with its quote"
        )
    );
    // A comma with no member after it, or a URL's `://`, is text.
    assert_eq!(
        extract_value(r#"{"city": "Paris, France}"#).unwrap(),
        json!({"city": "Paris, France"})
    );
    assert_eq!(
        extract_value(r#"{"site": "see, http://x.org}"#).unwrap(),
        json!({"site": "see, http://x.org"})
    );
}

#[test]
fn a_quote_glued_to_a_keys_closing_quote_has_two_readings() {
    // Read as a member "": "" before: a colon left out, or doubled quotes.
    assert_eq!(
        refused(r#"{"a": 1, """" "b": 2}"#),
        breaks_at(
            12,
            r#""" "b": 2}"#,
            "another quote follows the key's closing quote at once, so it may open the value (a \
             `:` left out) or be a doubled quote; write \"key\": \"value\""
        )
    );
    // With a space between, the colon left out is the one reading.
    assert_eq!(extract_value(r#"{"a" "b"}"#).unwrap(), json!({"a": "b"}));
}

#[test]
fn a_quote_after_a_plus_or_a_comment_in_a_string_has_two_readings() {
    const WHY: &str = "a quote inside this string follows a `+` or a comment, so it may open a \
        string of its own (the one before never closed) or be text; close each string with its \
        quote, or write a quote inside a string as \\\"";
    // Read as one string "red,/*note*/\"blue" before.
    assert_eq!(
        refused(r#"["red,/*note*/"blue"]"#),
        breaks_at(15, r#""blue"]"#, WHY)
    );
    // Read as one string "one +\n \"two" before.
    assert!(refused("{\"msg\": \"one +\n \"two\"}").ends_with(&format!("{WHY}.")));
    // A `+` inside a string with no quote after it is text.
    assert_eq!(
        extract_value(r#"{"q": "x + y",}"#).unwrap(),
        json!({"q": "x + y"})
    );
}
