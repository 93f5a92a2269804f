//! What the repair reads because only one reading exists, each named in
//! the report; and its neighbours that have two readings, refused.
//!
//! Before these repairs every input below was refused with feedback
//! (except the JSONP reply, which the scan layer already read).

use serde::Deserialize;
use serde_json::{json, Value};
use twr_runtime::json::{
    extract_value, extract_value_with_report, extract_with_report, Layer, Repair,
};

fn repaired(raw: &str, want: Value, repairs: &[Repair]) {
    let got = extract_value_with_report(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    assert_eq!(got.value, want, "{raw:?}");
    assert_eq!(got.report.layer, Layer::Repair, "{raw:?}");
    assert_eq!(got.report.repairs, repairs, "{raw:?}");
}

fn refused(raw: &str) -> String {
    match extract_value(raw) {
        Ok(value) => panic!("{raw:?} read as {value}"),
        Err(feedback) => feedback.to_string(),
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct Trip {
    city: String,
    days: u32,
    tags: Vec<String>,
}

#[test]
fn plain_words_without_quotes_are_strings() {
    let got =
        extract_with_report::<Trip>("{city: Kyoto, days: 3, tags: [temples, green tea]}").unwrap();
    assert_eq!(
        got.value,
        Trip {
            city: "Kyoto".into(),
            days: 3,
            tags: vec!["temples".into(), "green tea".into()]
        }
    );
    assert_eq!(
        got.report.repairs,
        [Repair::UnquotedKey, Repair::UnquotedString]
    );
    // Prose in brackets stays prose; a word where the comma was left out
    // is no item.
    assert!(refused("I cannot say [citation needed].").contains("text must be in double quotes"));
    assert!(refused(r#"{"n": [1 apples]}"#).contains("text must be in double quotes"));
}

#[test]
fn placeholders_are_left_out_and_named() {
    let got = extract_value_with_report(r#"{"items": [1, 2, ...], "more": ["a", …]}"#).unwrap();
    assert_eq!(got.value, json!({"items": [1, 2], "more": ["a"]}));
    assert_eq!(got.report.repairs, [Repair::Placeholder]);
    assert_eq!(got.report.dropped, ["...", "…"]);
    // The value of a member left out: the key would be lost.
    assert!(refused(r#"{"a": 1, "b": ...}"#).contains("stands for a value left out"));
}

#[test]
fn a_missing_colon_is_put_back() {
    repaired(
        r#"{"city" "Kyoto", "days" 3}"#,
        json!({"city": "Kyoto", "days": 3}),
        &[Repair::MissingColon],
    );
}

#[test]
fn unicode_spaces_are_white_space() {
    repaired(
        "{\u{3000}\"a\":\u{a0}1,\u{2009}\"b\":\u{200b}2\u{3000}}",
        json!({"a": 1, "b": 2}),
        &[Repair::UnicodeSpace],
    );
}

#[test]
fn json_written_inside_a_string_is_read_unescaped() {
    repaired(
        r#"Result: {\"city\": \"Kyoto\", \"note\": \"a \\\"quiet\\\" town\"}"#,
        json!({"city": "Kyoto", "note": "a \"quiet\" town"}),
        &[Repair::StringifiedJson],
    );
    // A reply that is one JSON string holding the value, for a typed target.
    let got = extract_with_report::<Trip>(r#""{\"city\": \"Nara\", \"days\": 1, \"tags\": []}""#)
        .unwrap();
    assert_eq!(got.value.city, "Nara");
    assert_eq!(got.report.layer, Layer::Repair);
    assert_eq!(got.report.repairs, [Repair::StringifiedJson]);
}

/// Stringified JSON has every quote escaped: one escaped quote among plain
/// ones is a stray backslash, and reading the text unescaped would make a
/// different object of it (found by the property test: `{"": ":"}`, the
/// second key lost).
#[test]
fn one_escaped_quote_among_plain_ones_is_not_stringified_json() {
    let raw = r#"{\""":"]","\"":null}"#;
    match twr_runtime::json::extract_value(raw) {
        Ok(value) => panic!("{raw:?} read as {value}"),
        Err(feedback) => assert_eq!(
            feedback.to_string(),
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 2 \
             (near `\\\"\"\":\"]\",\"\\\"\":null}`): expected a key in double quotes."
        ),
    }
    // Escaped throughout, the same object is read unescaped.
    repaired(
        r#"{\"\":\"]\",\"k\":null}"#,
        json!({"": "]", "k": null}),
        &[Repair::StringifiedJson],
    );
}

#[test]
fn numbers_spelled_loosely_and_javascript_literals() {
    repaired(
        r#"{"a": .25, "b": 1., "c": +1, "d": undefined, "e": NaN}"#,
        json!({"a": 0.25, "b": 1, "c": 1, "d": null, "e": null}),
        &[Repair::NumberSpelling, Repair::JsLiteral],
    );
    // No number JSON holds; null would turn a value into none.
    assert!(refused(r#"{"a": Infinity}"#).contains("Infinity is no JSON number"));
    // A word that starts with digits is the text written: a letter glued
    // to a number is never dropped, nor the number cut from the word.
    repaired(
        r#"{"n": 1O, "v": [1.2.3], "r": 1-2, "m": 7.7O}"#,
        json!({"n": "1O", "v": ["1.2.3"], "r": "1-2", "m": "7.7O"}),
        &[Repair::UnquotedString],
    );
    // A stray `+` glued to a number is no part of a word.
    assert!(refused("[1+2]").contains("glued to the value before it"));
}

#[test]
fn wrappers_are_the_value_they_wrap() {
    repaired(
        r#"{"_id": ObjectId("507f1f77bcf86cd799439011"), "n": NumberLong("42"), "at": ISODate("2024-01-02T00:00:00Z")}"#,
        json!({"_id": "507f1f77bcf86cd799439011", "n": 42, "at": "2024-01-02T00:00:00Z"}),
        &[Repair::Wrapper],
    );
    // A call that computes something is no wrapper.
    assert!(refused(r#"{"n": len("abc")}"#).contains("a call is no value"));
    // JSONP: the object inside the callback.
    let got = extract_value_with_report(r#"callback({"a": 1, "b": [2,]});"#).unwrap();
    assert_eq!(got.value, json!({"a": 1, "b": [2]}));
}

#[test]
fn strings_joined_with_plus_are_one_string() {
    repaired(
        "{\"text\": \"a long line \" +\n  \"and its end\", \"n\": 1}",
        json!({"text": "a long line and its end", "n": 1}),
        &[Repair::StringConcatenation],
    );
}

/// A comment between a string and the `+` or the string that continues it
/// is no part of the text: the strings are joined, the comment named in
/// what was dropped.
#[test]
fn a_comment_beside_a_plus_is_not_text() {
    let cases: &[(&str, Value, &[Repair])] = &[
        (
            r#"["abc"/*c*/+"def"]"#,
            json!(["abcdef"]),
            &[Repair::Comment, Repair::StringConcatenation],
        ),
        (
            r#"["abc" + /* c */ "def"]"#,
            json!(["abcdef"]),
            &[Repair::Comment, Repair::StringConcatenation],
        ),
        (
            "{\"a\": \"abc\" // c\n + \"def\"}",
            json!({"a": "abcdef"}),
            &[Repair::Comment, Repair::StringConcatenation],
        ),
        (
            "['abc' + # c\n 'def', 'g' /* d */ + 'h']",
            json!(["abcdef", "gh"]),
            &[
                Repair::Comment,
                Repair::SingleQuotes,
                Repair::StringConcatenation,
            ],
        ),
        (
            r#""abc" /*c*/ + "def""#,
            json!("abcdef"),
            &[Repair::Comment, Repair::StringConcatenation],
        ),
    ];
    for (raw, want, repairs) in cases {
        repaired(raw, want.clone(), repairs);
    }
    let got = extract_value_with_report(r#"{"a": "x" /* one */ + "y"}"#).unwrap();
    assert_eq!(got.report.dropped, ["/* one */"]);
    // A comment with no `+` after it stays a comment, given back whole.
    repaired(
        r#"["abc" /* c */, "d"]"#,
        json!(["abc", "d"]),
        &[Repair::Comment],
    );
}

/// A quote followed by a comment that could as well be the string's text,
/// each reading giving a value: feedback, never one of the two.
#[test]
fn a_comment_that_may_be_text_after_a_quote_is_feedback() {
    const TWO: &str = "a quote inside this string is followed by what could be a comment";
    for raw in [
        // `see "//" here`, or `see ` and a member with its comma left out.
        "{\"a\": \"see \"//\" here\",\n\"b\": 1}",
        "{\"a\": \"see \"/*\" here*/\",\n\"b\": 1}",
        // `x"/*"y"*/"z` or two items.
        r#"["x"/*"y"*/"z"]"#,
        // One string over two lines, or `abc` joined to `def`.
        "{\"a\": \"abc\"#c\n+\"def\"}",
    ] {
        assert!(refused(raw).contains(TWO), "{raw:?}: {}", refused(raw));
    }
    // One reading each: a `#` in text before more of it on the line, and a
    // comment without quotes (it cannot end the string).
    repaired(
        r##"{"a": "C# "#1" lang"}"##,
        json!({"a": "C# \"#1\" lang"}),
        &[Repair::UnescapedQuote],
    );
    repaired(
        "{\"a\": \"Use \"#\" here\",\n\"b\": 1}",
        json!({"a": "Use \"#\" here", "b": 1}),
        &[Repair::UnescapedQuote],
    );
    repaired(
        r#"["x" /* y */ "z"]"#,
        json!(["x", "z"]),
        &[Repair::Comment, Repair::MissingComma],
    );
}

#[test]
fn python_tuples_are_lists() {
    repaired(
        "{'points': [(1, 2), (3, 4)], 'one': ('x',)}",
        json!({"points": [[1, 2], [3, 4]], "one": ["x"]}),
        &[Repair::SingleQuotes, Repair::PythonTuple],
    );
    // `(1)` is 1 in Python: no comma, no tuple.
    repaired(
        "{'p': (1), 'q': ('x')}",
        json!({"p": 1, "q": "x"}),
        &[Repair::SingleQuotes, Repair::PythonTuple],
    );
}

/// One stray character in valid JSON never makes the repair drop a member
/// or an item: where the stray shifts which quote or bracket ends what,
/// the reading that loses part of the value is refused (cases the
/// property test `a_reading_never_loses_a_key_or_item` found).
#[test]
fn a_stray_that_would_cost_a_member_or_item_is_refused() {
    let cases: &[(&str, &str)] = &[
        // A quote too many in a key: the list inside the string after it
        // is not the answer.
        (
            r#"[{""":-1000000000000000},"]["]"#,
            "the JSON breaks at line 1, column 5 (near `\":-1000000000000000}`): a quote stands \
             between the key and its `:`; take it out.",
        ),
        // A string opened with “ over lines to a plain quote, then `//`.
        (
            "[\n  {\n    \"\": [\n      null,“\n      1,\n      \"//\"\n    ]\n  },\n  []\n]",
            "the JSON breaks at line 4, column 12 (near `“`): this string opened with “ runs over lines to a plain \
             quote, so where it ends is not known; close it with ” on its line.",
        ),
        // A quote taken for text, then a closer of the wrong kind.
        (
            r#"["",""O,"}x",-1,null]"#,
            "the JSON breaks at line 1, column 10 (near `}x\",-1,null]`): this bracket does not close what is open, \
             and a quote before it was read as text, so where the strings end is not known; close \
             each string and bracket with its own kind.",
        ),
        // A stray quote before a pretty-printed list: its items taken into
        // one string over lines, a comma put in after it.
        (
            "{\n  \" \": [\n\"    null,\n    1\n  ],\n  \"\": \"{\"\n}",
            "a string runs over lines and no comma follows it, so where it ends is not known; \
             close each string on its line, or write a line break inside it as \\n.",
        ),
        // A stray “ right before a plain string: read as an empty string
        // ended by that string's opening quote, the items after it would
        // be lost.
        (
            "[\u{201C}\"]\t\",0.0]",
            "the JSON breaks at line 1, column 2 (near `\u{201C}\"]\t\",0.0]`): a plain quote follows this \u{201C} \
             at once, so it may be a stray one before a string; write \u{201C}\u{201D} for an empty string, or \
             take the \u{201C} out.",
        ),
        // A stray letter after an empty string: its closing quote read as
        // text, the value would end before the items after it.
        (
            r#"[null,""O,"]"]"#,
            "the JSON breaks at line 1, column 13 (near `\"]`): the value was repaired and ends \
             here, yet a quote follows, so where it ends is not known; write the value whole, \
             with a quote inside a string as \\\" and a comma between items.",
        ),
        // A stray quote after a number: a comma put in, the next items
        // taken into a string, the value would end before the last item.
        (
            r#"[-1"0000000000000,"]",-10000000]"#,
            "the JSON breaks at line 1, column 21 (near `\",-10000000]`): the value was repaired \
             and ends here, yet a quote follows, so where it ends is not known; write the value \
             whole, with a quote inside a string as \\\" and a comma between items.",
        ),
        // A stray quote before a pretty-printed list: its items read as
        // one string over lines, up to a quote; the next item's quote
        // after the value.
        (
            "[\"\n  -100000000,\n  \"]!\"\n]",
            "the JSON breaks at line 3, column 5 (near `!\"`): the value was repaired and ends \
             here, yet a quote follows, so where it ends is not known; write the value whole, \
             with a quote inside a string as \\\" and a comma between items.",
        ),
        // A stray quote making the rest one string that is never closed:
        // the string it opens ends in a comma, an object glued after it.
        (
            r#"["null,"{'",-75.25]"#,
            "the JSON breaks at line 1, column 9 (near `{'\",-75.25]`): the string before this \
             ends in a comma and no comma follows it, so its comma may be the separator and its \
             quotes misplaced (`\"a,\"` for `\"a\",`); write the comma after the closing \
             quote, or a comma between the values.",
        ),
        // A closer of the wrong kind ending the object before its members.
        (
            "{\n  \"_\": \"\"]\\\\\",\n  \"a\": \"\"\n}",
            "the JSON breaks at line 2, column 10 (near `]\\\\\",`): this closing bracket is of the wrong kind and \
             would end the value, yet the value's own closing bracket comes later; close each \
             container with its own bracket.",
        ),
    ];
    for &(raw, want) in cases {
        match twr_runtime::json::extract_value(raw) {
            Ok(value) => panic!("{raw:?} read as {value}"),
            Err(feedback) => assert_eq!(
                feedback.to_string(),
                format!("The reply should be JSON of the expected shape: {want}"),
                "{raw:?}"
            ),
        }
    }
}

/// Prose after a repaired value is prose: a comma or words after it leave
/// the value as read. Only a quote right after it is a
/// second reading (see the cases refused above).
#[test]
fn prose_after_a_repaired_value_leaves_it_as_read() {
    for raw in [
        "{'name': 'Kyoto'}, which is what you asked for.",
        "{'name': 'Kyoto'}\n\nAnd nothing else.",
    ] {
        repaired(raw, json!({"name": "Kyoto"}), &[Repair::SingleQuotes]);
    }
}
