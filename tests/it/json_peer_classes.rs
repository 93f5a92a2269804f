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

#[test]
fn a_word_that_starts_with_digits_is_the_text_written() {
    // Refused before as a stray glued to the number: a version, a range,
    // a fraction, an ID, a timestamp, read as the text written.
    let got = extract_value_with_report(
        r#"{"build": 4.12.7, "pages": 31-44, "share": 2/5, "order": 9f3a-17c2, "at": 2025-03-09T07:15:00Z}"#,
    )
    .unwrap();
    assert_eq!(
        got.value,
        json!({"build": "4.12.7", "pages": "31-44", "share": "2/5", "order": "9f3a-17c2", "at": "2025-03-09T07:15:00Z"})
    );
    assert_eq!(got.report.repairs, [Repair::UnquotedString]);
    assert_eq!(extract_value("[7kg, 3]").unwrap(), json!(["7kg", 3]));
    assert_eq!(extract_value("1.0.4").unwrap(), json!("1.0.4"));
    // Leading zeros: no JSON number has them, and the digits are a code.
    assert_eq!(
        extract_value(r#"{"zip": 02139, "lot": -007, "ref": 0042.5}"#).unwrap(),
        json!({"zip": "02139", "lot": "-007", "ref": "0042.5"})
    );
    assert_eq!(extract_value("00451").unwrap(), json!("00451"));
    // An integer field never takes the text.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Zip {
        zip: u32,
    }
    assert!(twr_runtime::json::extract::<Zip>(r#"{"zip": 02139}"#).is_err());
    // After a comma the pass put in, a word is one guess on another.
    assert!(refused("[4 1.2.3 5]").contains("no `,` between them"));
    // A number cut inside its exponent is still unknown.
    assert!(refused(r#"{"e": 3e"#).contains("cut off where the reply ends"));
}

#[test]
fn digits_grouped_by_underscores_are_the_number() {
    let got = extract_value_with_report(r#"{"n": 7_500_000, "x": 12_345.678_9}"#).unwrap();
    assert_eq!(got.value, json!({"n": 7_500_000, "x": 12345.6789}));
    assert_eq!(got.report.repairs, [Repair::NumberSpelling]);
    // An underscore not between two digits makes it a word.
    assert_eq!(
        extract_value(r#"{"n": 7__5, "m": 8_}"#).unwrap(),
        json!({"n": "7__5", "m": "8_"})
    );
}

#[test]
fn a_value_in_parentheses_is_that_value_and_a_tuple_reply_a_list() {
    // Refused before: Python reads `(4)` as 4.
    assert_eq!(
        extract_value(r#"{"n": (4), "s": ('kiwi'), "t": (4, 5)}"#).unwrap(),
        json!({"n": 4, "s": "kiwi", "t": [4, 5]})
    );
    // A whole reply that is a tuple, or a fence holding one.
    assert_eq!(
        extract_value(r#"("red", ("green", 2))"#).unwrap(),
        json!(["red", ["green", 2]])
    );
    assert_eq!(extract_value("  (12.5)\n").unwrap(), json!(12.5));
    let got = extract_value_with_report("Here:\n```python\n(3, 'x')\n```\n").unwrap();
    assert_eq!(got.value, json!([3, "x"]));
    assert_eq!(
        got.report.repairs,
        [Repair::SingleQuotes, Repair::PythonTuple]
    );
    // Prose in parentheses is no tuple.
    assert!(extract_value("(see the table)").is_err());
    assert!(extract_value("(1) First, mix.").is_err());
}

#[test]
fn a_jsonp_reply_is_its_one_argument() {
    let got = extract_value_with_report("handle_7(\"done\");").unwrap();
    assert_eq!(got.value, json!("done"));
    assert_eq!(got.report.repairs, [Repair::Wrapper]);
    assert_eq!(extract_value("jQuery.cb(-4.5)").unwrap(), json!(-4.5));
    assert_eq!(extract_value("cb(False);").unwrap(), json!(false));
    // Two arguments are no one value.
    assert!(extract_value("cb(1, 2);").is_err());
}

#[test]
fn words_listed_in_a_list_are_strings() {
    // Refused before outside an object: a comma or a line break between
    // them makes them items, not a bracket of prose.
    assert_eq!(
        extract_value("[north, south west, 3]").unwrap(),
        json!(["north", "south west", 3])
    );
    assert_eq!(
        extract_value("[\n  apple\n  pear\n]").unwrap(),
        json!(["apple", "pear"])
    );
    assert_eq!(
        extract_value(r#"{"tags": [alpha, beta gamma,]}"#).unwrap(),
        json!({"tags": ["alpha", "beta gamma"]})
    );
    // A URL is one word.
    assert_eq!(
        extract_value(r#"{home: http://example.org/a?b=1#top, "n": 1}"#).unwrap(),
        json!({"home": "http://example.org/a?b=1#top", "n": 1})
    );
    assert_eq!(
        extract_value("[ftp://files.example.net/x.zip, 2]").unwrap(),
        json!(["ftp://files.example.net/x.zip", 2])
    );
    // One bracket of words is prose; words after a comma put in are not
    // two items.
    assert!(extract_value("[see the appendix]").is_err());
    assert!(extract_value("[see the appendix").is_err());
    assert_eq!(
        extract_value("[north, south").unwrap(),
        json!(["north", "south"])
    );
    assert!(extract_value("[1 apples, 2]").is_err());
}

#[test]
fn closers_one_too_many_at_the_end_are_strays() {
    // Refused before as a value closed early and continued.
    assert_eq!(
        extract_value(r#"{"ok": true}}"#).unwrap(),
        json!({"ok": true})
    );
    assert_eq!(extract_value("[[1, 2]]] \n ]").unwrap(), json!([[1, 2]]));
    // More of the value after the stray is still refused; so are closers
    // after a value that needed repair (what is left of a stray inside it).
    assert!(extract_value("[[1, 2]], 3]").is_err());
    assert!(extract_value(r#"{"a": {"b": 1,}"c": 2}}"#).is_err());
}

#[test]
fn a_quote_glued_after_words_without_quotes_closes_them() {
    // Refused before: the opening quote left out, the closing one kept.
    let got = extract_value_with_report(r#"{"city": Lyon", "zip": "69001"}"#).unwrap();
    assert_eq!(got.value, json!({"city": "Lyon", "zip": "69001"}));
    assert_eq!(
        got.report.repairs,
        [Repair::MissingQuote, Repair::UnquotedString]
    );
    assert_eq!(
        extract_value(r#"{name":"Ada", age": 36}"#).unwrap(),
        json!({"name": "Ada", "age": 36})
    );
    assert_eq!(
        extract_value(r#"[oak", elm"]"#).unwrap(),
        json!(["oak", "elm"])
    );
    // A quote with more text after it is no closing quote.
    assert!(extract_value(r#"{"a": say"hi", "b": 1}"#).is_err());
    // Nor one before a closer with text after it: the quote may open a
    // string holding the closer (`"}x"`), and the members after it would
    // be lost.
    assert_eq!(
        refused("{\"a\": O\"}x\", \"b\": 1}"),
        breaks_at(
            8,
            "\"}x\", \"b\": 1}",
            "expected a JSON value; text must be in double quotes"
        )
    );
    // Between a quoted key and its colon a quote is still refused.
    assert!(refused(r#"{"a"": 1}"#).contains("a quote stands between the key and its `:`"));
}

#[test]
fn a_brace_that_closes_the_object_before_more_members_is_a_stray() {
    // Refused before as a value closed and continued.
    let got = extract_value_with_report(r#"{"id": 4}, "name": "x", "ok": true}"#).unwrap();
    assert_eq!(got.value, json!({"id": 4, "name": "x", "ok": true}));
    assert_eq!(got.report.repairs, [Repair::MismatchedBracket]);
    // After a closer either `}` may be the stray: refused; so after an
    // inner object closed and followed by members (its `}` may be the
    // stray, the members its own).
    assert!(extract_value(r#"{"a": {"x": 1}}, "b": 2}"#).is_err());
    assert!(extract_value(r#"{"a": {"x": [1]}, "y": 2}, "b": 3}"#).is_err());
    // With no `}` of the object's own later, it is no stray.
    assert!(extract_value(r#"{"a": 1}, "b": 2"#).is_err());
}

#[test]
fn a_bare_value_with_a_trailing_comma_is_that_value() {
    let got = extract_value_with_report(" 17 ,\n").unwrap();
    assert_eq!(got.value, json!(17));
    assert_eq!(got.report.repairs, [Repair::TrailingComma]);
    assert_eq!(extract_value("\"done\",").unwrap(), json!("done"));
    // More values after the comma are a tuple (below).
    assert_eq!(extract_value("17, 18").unwrap(), json!([17, 18]));
}

#[test]
fn the_mongolian_vowel_separator_and_undefined_alone() {
    let got = extract_value_with_report("{\"a\":\u{180E}[1,\u{180E}2]}").unwrap();
    assert_eq!(got.value, json!({"a": [1, 2]}));
    assert_eq!(got.report.repairs, [Repair::UnicodeSpace]);
    assert_eq!(extract_value(" undefined ").unwrap(), json!(null));
    assert!(extract_value("undefinedness").is_err());
}

#[test]
fn words_then_a_member_end_before_it() {
    // Refused before: the comma left out between words without quotes
    // and the next member on the same line.
    let got = extract_value_with_report(r#"{"size": large "qty": 3}"#).unwrap();
    assert_eq!(got.value, json!({"size": "large", "qty": 3}));
    assert_eq!(
        got.report.repairs,
        [Repair::MissingComma, Repair::UnquotedString]
    );
    assert_eq!(
        extract_value(r#"{"a":red blue "b":"x" }"#).unwrap(),
        json!({"a": "red blue", "b": "x"})
    );
    // A quoted word with no colon after it is no member: refused.
    assert!(extract_value(r#"{"a": the "best" one}"#).is_err());
}

#[test]
fn a_quote_before_a_closer_of_a_bracket_its_text_opened_is_text() {
    // Refused before: the closer after the quote closes no container, but
    // a bracket the text opened.
    let got = extract_value_with_report(r#""a 12" (30 cm") screen""#).unwrap();
    assert_eq!(got.value, json!("a 12\" (30 cm\") screen"));
    assert_eq!(got.report.repairs, [Repair::UnescapedQuote]);
    assert_eq!(
        extract_value(r#"{"size": "[30 cm"] wide", "n": 2}"#).unwrap(),
        json!({"size": "[30 cm\"] wide", "n": 2})
    );
    assert_eq!(
        extract_value(r#"["f(x"), g"]"#).unwrap(),
        json!(["f(x\"), g"])
    );
    // A closer of the container open there ends the string: what follows
    // is then a value closed early, refused as before.
    assert_eq!(
        refused(r#"{"a": "x {y"}, "b": 1}"#),
        breaks_at(
            13,
            "}, \"b\": 1}",
            "the value is closed here, but more of it follows; remove the extra closing \
             bracket or quote, or close each container with its own bracket"
        )
    );
    // With the text's braces closed the `}` after the string is a stray,
    // as before.
    assert_eq!(
        extract_value(r#"{"a": "x {y} z"}, "b": 1}"#).unwrap(),
        json!({"a": "x {y} z", "b": 1})
    );
    // With no bracket open in the text the quote is no text: refused.
    assert!(extract_value(r#"["x"), y"]"#).is_err());
}

#[test]
fn a_quote_glued_between_letters_of_a_key_is_text() {
    // Refused before: ended at the quote, the letters after it are
    // neither a `:` nor a value.
    let got = extract_value_with_report(r#"{"ma"x"_len": 3, "b": 1}"#).unwrap();
    assert_eq!(got.value, json!({"ma\"x\"_len": 3, "b": 1}));
    assert_eq!(got.report.repairs, [Repair::UnescapedQuote]);
    // A quote followed by a space, or a key whose line holds a comma
    // before its `:`, is refused as before.
    assert_eq!(
        refused(r#"{"ma" x": 3}"#),
        breaks_at(7, "x\": 3}", "expected `:` after the key")
    );
    assert_eq!(
        refused(r#"{"ma"x, "y": 3}"#),
        breaks_at(6, "x, \"y\": 3}", "expected `:` after the key")
    );
}

const ONE_VALUE_IN_BRACES: &str = "one value stands in braces with no `:` after it, so it may be \
    a key left without its value or a set of one value; write an object with a value for each \
    key, or a list in [ ]";

const VALUES_ONLY: &str = "this stands among values with commas between and no keys (a set or a \
    tuple), read only when each is a number, a quoted string, true, false or null; write text in \
    double quotes, or the values as a list in [ ]";

#[test]
fn a_python_set_is_a_list_of_its_values() {
    // Refused before (`expected : after the key`): values with commas
    // between in braces and no key anywhere, as Python writes a set.
    let got = extract_value_with_report("{'red', 'green', 'blue'}").unwrap();
    assert_eq!(got.value, json!(["red", "green", "blue"]));
    assert_eq!(
        got.report.repairs,
        [Repair::SingleQuotes, Repair::PythonSet]
    );
    assert_eq!(
        extract_value("{3, -1.5, True, None,}").unwrap(),
        json!([3, -1.5, true, null])
    );
    // Inside a value too.
    assert_eq!(
        extract_value(r#"{"tags": {"new", "sale"}, "n": 2}"#).unwrap(),
        json!({"tags": ["new", "sale"], "n": 2})
    );
    let tags: Vec<String> = twr_runtime::json::extract(r#"{"x", "y"}"#).unwrap();
    assert_eq!(tags, ["x", "y"]);
    // A key then its value with the colon left out is still a member.
    assert_eq!(extract_value("{'a' 'b'}").unwrap(), json!({"a": "b"}));
}

#[test]
fn braces_of_values_that_are_no_set_have_two_readings() {
    // One value: a key left without its value, or a set of one.
    assert_eq!(
        refused(r#"{"size"}"#),
        breaks_at(8, "}", ONE_VALUE_IN_BRACES)
    );
    // A colon after a later value: a key may be missing its value.
    assert_eq!(
        refused("{'x', 'y': 2}"),
        breaks_at(
            10,
            ": 2}",
            "a `:` follows a value in braces that hold values with commas between and no keys \
             (a set), so a key may be missing its value; write an object with a value for each \
             key, or a list in [ ]"
        )
    );
    // Cut off inside: a key and its colon may have come next.
    assert_eq!(
        refused("{'x', 'y'"),
        "The reply should be JSON of the expected shape: the JSON breaks at its end (line 1, \
         column 10): the text is cut off inside braces that hold values with commas between \
         and no keys (a set), so a key and its `:` may have come next; write the whole set, or \
         the values as a list in [ ]."
    );
    // Words without quotes are names, not values; Python's sets hold no
    // lists.
    assert_eq!(
        refused("{red, green}"),
        breaks_at(2, "red, green}", VALUES_ONLY)
    );
    assert_eq!(refused(r#"{"a", [1]}"#), breaks_at(7, "[1]}", VALUES_ONLY));
    // A comma left out between two values.
    assert_eq!(
        refused("{'x', 'y' 'z'}"),
        breaks_at(
            11,
            "'z'}",
            "values with commas between and no brackets or keys (a tuple or a set) need a comma \
             between each two; write the comma, or the values as a list in [ ]"
        )
    );
}

const MAY_BE_ONE_NUMBER: &str = "digits with commas between and no spaces may be one number \
    (1,234 grouped in thousands, or 12,5 with a decimal comma) or a list of numbers; write a \
    number without commas, or a list in [ ]";

#[test]
fn a_reply_of_values_with_commas_between_is_a_tuple() {
    // Refused before: Python reads `7, 8, 9` as the tuple (7, 8, 9).
    let got = extract_value_with_report("7, 8, 9").unwrap();
    assert_eq!(got.value, json!([7, 8, 9]));
    assert_eq!(got.report.repairs, [Repair::PythonTuple]);
    let got = extract_value_with_report("7,8,9,\n").unwrap();
    assert_eq!(got.value, json!([7, 8, 9]));
    assert_eq!(
        got.report.repairs,
        [Repair::TrailingComma, Repair::PythonTuple]
    );
    assert_eq!(
        extract_value("'ok', \"done\", False, None").unwrap(),
        json!(["ok", "done", false, null])
    );
    assert_eq!(extract_value("3,\n4").unwrap(), json!([3, 4]));
    // With a space after the comma no number is written so.
    assert_eq!(extract_value("1, 234").unwrap(), json!([1, 234]));
    let numbers: Vec<u32> = twr_runtime::json::extract(" 4, 5 ").unwrap();
    assert_eq!(numbers, [4, 5]);
    // One value and its comma is that value.
    assert_eq!(extract_value("5,").unwrap(), json!(5));
}

#[test]
fn values_with_commas_between_that_are_no_tuple_are_refused() {
    // One number written with commas, as well as a tuple.
    for raw in ["1,234", "2,500,000", "12,5", "1.049,95"] {
        assert_eq!(
            refused(raw),
            breaks_at(1, raw, MAY_BE_ONE_NUMBER),
            "{raw:?}"
        );
    }
    // Words: prose as often as values.
    assert_eq!(
        refused("red, green"),
        "The reply should be JSON of the expected shape: there is no JSON in it; write the \
         value as JSON, such as an object in { } or an array in [ ]."
    );
    assert_eq!(
        refused("\"yes\", she said"),
        breaks_at(6, ", she said", "unexpected text after the value")
    );
    // A comma left out, or a string cut off, among the values.
    assert_eq!(
        refused("1, 2 3"),
        breaks_at(2, ", 2 3", "unexpected text after the value")
    );
    assert_eq!(
        refused("1, \"ab"),
        breaks_at(2, ", \"ab", "unexpected text after the value")
    );
    // A JSONP call's commas separate its arguments.
    assert_eq!(
        refused("cb(1, 2);"),
        "The reply should be JSON of the expected shape: there is no JSON in it; write the \
         value as JSON, such as an object in { } or an array in [ ]."
    );
}

#[test]
fn a_string_written_as_the_inside_of_a_string_is_that_string() {
    // Refused before as no JSON: the reply's quotes all escaped.
    let got = extract_value_with_report(r#"\"good morning\""#).unwrap();
    assert_eq!(got.value, json!("good morning"));
    assert_eq!(got.report.repairs, [Repair::StringifiedJson]);
    // Cut off at its closing escape.
    assert_eq!(
        extract_value(r#"\"good morning\"#).unwrap(),
        json!("good morning")
    );
    // A quote inside escaped once more, or its backslash escaped and the
    // quote not (read either way, `\\"` is `\"`).
    assert_eq!(
        extract_value(r#"\"say \\\"hi\\\" twice\""#).unwrap(),
        json!("say \"hi\" twice")
    );
    assert_eq!(
        extract_value(r#"\"say \\"hi\\" twice\""#).unwrap(),
        json!("say \"hi\" twice")
    );
    assert_eq!(
        extract_value(r#"[\"a \\"b\\"\", \"c\"]"#).unwrap(),
        json!(["a \"b\"", "c"])
    );
    assert_eq!(
        extract_value(r#"{\"q\": \"a \\"b\\"\"}"#).unwrap(),
        json!({"q": "a \"b\""})
    );
    // The closing quote not escaped: a stray backslash before a string,
    // or the last escape left out; the same string.
    assert_eq!(extract_value(r#"\"done""#).unwrap(), json!("done"));
    // Brackets in its text are text.
    assert_eq!(extract_value(r#"\"see [1]\""#).unwrap(), json!("see [1]"));
    // Cut off, brackets in it may as well be a value after a stray `\"`:
    // no string is read.
    assert_eq!(extract_value(r#"\"[1, 2]"#).unwrap(), json!([1, 2]));
}

#[test]
fn a_string_inside_a_string_with_a_quote_not_escaped_has_two_readings() {
    const WHY: &str = "this string is written as the inside of a string, its quotes escaped, \
        but a quote in it is not, so where it ends is not known; write the value as plain JSON, \
        with a quote inside a string as \\\"";
    assert_eq!(refused(r#"\"a"b\""#), breaks_at(1, r#"\"a"b\""#, WHY));
    assert_eq!(
        refused(r#"\"done" more"#),
        breaks_at(1, r#"\"done" more"#, WHY)
    );
    // `\\"` where the text, so read, needs repair (here a string never
    // closed): refused as before.
    assert_eq!(
        refused(r#"{\"a\": \"x\\"}"#),
        breaks_at(2, r#"\"a\": \"x\\"}"#, "expected a key in double quotes")
    );
}

#[test]
fn a_whole_reply_of_a_number_and_its_point_is_that_number() {
    // Refused before as cut off: nothing open says the text was cut.
    let got = extract_value_with_report("2.").unwrap();
    assert_eq!(got.value, json!(2));
    assert_eq!(got.report.repairs, [Repair::NumberSpelling]);
    assert_eq!(extract_value(" -7.\n").unwrap(), json!(-7));
    let n: u32 = twr_runtime::json::extract("12.").unwrap();
    assert_eq!(n, 12);
    // Inside a container never closed the fraction may be what was cut.
    const CUT: &str = "this number is cut off where the reply ends, so its value is not known; \
        write the whole number";
    assert_eq!(refused("[2."), breaks_at(2, "2.", CUT));
    assert_eq!(refused(r#"{"a": 2."#), breaks_at(7, "2.", CUT));
    // A word after it is prose.
    assert_eq!(
        refused("2. Done"),
        breaks_at(3, " Done", "unexpected text after the value")
    );
}
