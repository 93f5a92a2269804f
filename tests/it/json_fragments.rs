//! No fragment passed off as the value: a repair is taken only when it
//! accounts for the whole value the reply holds, and every repair it
//! stacked is one the input calls for; otherwise the reply gets feedback.
//!
//! Each test names what the extraction returned before this rule, for the
//! same input.

use serde_json::{json, Value};
use twr_runtime::json::{extract, extract_value, extract_value_with_report, Layer, Repair, Report};

fn repaired(raw: &str, want: Value, repairs: &[Repair]) {
    let got = extract_value_with_report(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    assert_eq!(got.value, want, "{raw:?}");
    assert_eq!(got.report.layer, Layer::Repair, "{raw:?}");
    assert_eq!(got.report.repairs, repairs, "{raw:?}");
}

/// The feedback for `raw` read as any JSON value.
fn refused(raw: &str) -> String {
    match extract_value(raw) {
        Ok(value) => panic!("{raw:?} read as {value}"),
        Err(feedback) => feedback.to_string(),
    }
}

#[test]
fn a_closer_of_the_wrong_kind_closes_the_container_it_was_meant_for() {
    // Before: {"items": ["a", "b"]}, `n` dropped.
    repaired(
        r#"{"items": ["a","b"}, "n": 2}"#,
        json!({"items": ["a", "b"], "n": 2}),
        &[Repair::MismatchedBracket],
    );
    // Before: ["v3"], the inner list of the second member.
    repaired(
        "{\"key1\": [\"v1\", \"v2\"},\n \"key2\": [\"v3\"]}",
        json!({"key1": ["v1", "v2"], "key2": ["v3"]}),
        &[Repair::MismatchedBracket],
    );
    // Before: {"b": 2}, the second item alone.
    repaired(
        r#"[{"a": 1], {"b": 2}]"#,
        json!([{"a": 1}, {"b": 2}]),
        &[Repair::MismatchedBracket],
    );
    repaired(
        r#"{"topics": ["x", "y" }}"#,
        json!({"topics": ["x", "y"]}),
        &[Repair::MismatchedBracket],
    );
    // Followed by an item of the outer list: it closes its own kind.
    repaired(
        r#"[{"a": [1}, 2]"#,
        json!([{"a": [1]}, 2]),
        &[Repair::MismatchedBracket],
    );
    // At the end both readings are the same value.
    repaired(
        r#"{"a": [1, 2}"#,
        json!({"a": [1, 2]}),
        &[Repair::MismatchedBracket],
    );
}

#[test]
fn a_closer_of_the_wrong_kind_that_could_close_either_container_is_feedback() {
    // `n` belongs to the inner object if `}` was meant for `]`, to the
    // outer one if `]` was left out.
    assert_eq!(
        refused(r#"{"x": {"a": [1}, "n": 2}}"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 15 \
         (near `}, \"n\": 2}}`): this closing bracket is of the wrong kind, and it could close \
         either of two containers; close each with its own bracket."
    );
}

#[test]
fn a_value_closed_early_and_continued_is_feedback_not_its_first_part() {
    let early = |near: &str, column: usize| {
        format!(
            "The reply should be JSON of the expected shape: the JSON breaks at line 1, column \
             {column} (near `{near}`): the value is closed here, but more of it follows; remove \
             the extra closing bracket or quote, or close each container with its own bracket."
        )
    };
    // Before: {"a": 1} each time, the rest dropped.
    assert_eq!(refused("{\"a\": 1}\n\"b\": 2}"), early("}", 8));
    // With a comma and the object's own `}` after, the first `}` is the
    // one stray (refused before; now the text's one reading).
    assert_eq!(
        extract_value(r#"{"a": 1}, "b": 2}"#).unwrap(),
        json!({"a": 1, "b": 2})
    );
    assert_eq!(
        refused(r#"{"a":{"b":1}}},"c":2}"#),
        early(r#"}},"c":2}"#, 13)
    );
    // Before: [1, 2].
    assert_eq!(refused("[1, 2], 3]"), early("], 3]", 6));
    // Prose after a value is no part of it.
    let got = extract_value_with_report(r#"Here: {"a": 1}, which is all."#).unwrap();
    assert_eq!(got.value, json!({"a": 1}));
    assert_eq!(got.report.layer, Layer::Scan);
}

#[test]
fn the_inner_list_of_a_broken_object_is_not_the_answer() {
    // Before: [1, 2, 3], the list inside the object that does not parse.
    assert_eq!(
        refused(r#"{"items": [1, 2, 3], "x": ???"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 27 \
         (near `???`): expected a value after the `:`."
    );
    // Before: [1, 2, 3] for a list target, from inside a cut-off object.
    assert_eq!(
        extract::<Vec<u32>>(r#"{"items": [1, 2, 3], "n": 2"#)
            .unwrap_err()
            .to_string(),
        "The reply should be JSON of the expected shape: it should be an array, not an object."
    );
    // A bracket of prose never closed still leaves the JSON after it.
    let got = extract_value_with_report(r#"See [1 for details: {"a": 1}"#).unwrap();
    assert_eq!(got.value, json!({"a": 1}));
    assert_eq!(got.report.layer, Layer::Scan);
}

#[test]
fn a_code_block_inside_a_json_string_is_text_not_the_end_of_the_fence() {
    let value = json!({"answer": "Use this:\n```python\nprint(1)\n```\nDone.", "ok": true});
    // Before: {"answer": "Use this:"} each time, `ok` dropped as if the
    // reply had been cut off at the inner fence.
    for raw in [
        "{\"answer\": \"Use this:\n```python\nprint(1)\n```\nDone.\", \"ok\": true}",
        "```json\n{\"answer\": \"Use this:\n```python\nprint(1)\n```\nDone.\", \"ok\": true}\n```",
    ] {
        repaired(raw, value.clone(), &[Repair::ControlCharacter]);
    }
    // A block opened by a bare fence, inside fenced JSON.
    repaired(
        "Here:\n```json\n{\"answer\": \"Run:\n```\nmake\n```\nthen test.\", \"ok\": true}\n```\nBye.",
        json!({"answer": "Run:\n```\nmake\n```\nthen test.", "ok": true}),
        &[Repair::ControlCharacter],
    );
    // A reply cut off inside a string, its fence then closed, is still read
    // as cut off.
    repaired(
        "```json\n{\"a\": \"cut off here\n```\nSorry, I ran out of room.",
        json!({"a": "cut off here"}),
        &[Repair::Truncated],
    );
}

#[test]
fn a_string_missing_its_closing_quote_ends_where_the_structure_says() {
    // Before: {"a": "b}"}, the closing brace swallowed into the text.
    repaired(r#"{"a":"b}"#, json!({"a": "b"}), &[Repair::MissingQuote]);
    // Before: {"a": ["x", "y]}"]}.
    repaired(
        r#"{"a": ["x", "y]}"#,
        json!({"a": ["x", "y"]}),
        &[Repair::MissingQuote],
    );
    // Before: {"key": "a}```"}, the fence as well.
    repaired(
        "```json{\"key\": \"a}```",
        json!({"key": "a"}),
        &[Repair::MissingQuote],
    );
    // Before: no value (`expected : after the key`); the comma and the key
    // after it place the quote.
    repaired(
        r#"{"a": "hello, "b": "x"}"#,
        json!({"a": "hello", "b": "x"}),
        &[Repair::MissingQuote],
    );
    // Closers that do not close everything open say nothing: a reply cut
    // off inside the string keeps its text.
    repaired(
        r#"{"a": ["x", "y]"#,
        json!({"a": ["x", "y]"]}),
        &[Repair::Truncated],
    );
}

#[test]
fn a_quote_inside_a_string_is_text_not_the_end_of_the_value() {
    // Before: {"text": "see "}, with `https` a key and the rest a comment:
    // five repairs stacked on one value (comment, missing_comma,
    // unquoted_key, truncated, dangling_key), `n` lost.
    repaired(
        r#"{"text": "see "https://x.com/a" for more", "n": 1}"#,
        json!({"text": "see \"https://x.com/a\" for more", "n": 1}),
        &[Repair::UnescapedQuote],
    );
    // Before: no value each time.
    repaired(
        r#"{"a": "He said "hi" to me", "b": 2}"#,
        json!({"a": "He said \"hi\" to me", "b": 2}),
        &[Repair::UnescapedQuote],
    );
    // In a list, a quote followed by a space may as well end the item, the
    // next item's comma and opening quote left out (`["a 32", "screen"]`):
    // two readings since issue 39. Before: ["a 32\" screen"].
    assert!(refused(r#"{"key": ["a 32" screen"]}"#)
        .contains("a quote inside this item is followed by a space"));
    // In an object the words after it cannot be a member: text.
    repaired(
        r#"{"key": "a 32" screen"}"#,
        json!({"key": "a 32\" screen"}),
        &[Repair::UnescapedQuote],
    );
    // A comma left out before a bare key is still that.
    repaired(
        r#"{"a": "x" b: 2}"#,
        json!({"a": "x", "b": 2}),
        &[Repair::MissingComma, Repair::UnquotedKey],
    );
    // In a list, a quote after a comma could end the item or be its text.
    assert_eq!(
        refused(r#"["a, "b"]"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 4 \
         (near `, \"b\"]`): a quote inside this string could end it here or be part of its text; \
         write a quote inside a string as \\\"."
    );
}

#[test]
fn a_single_quoted_string_ends_before_a_comment() {
    // Before: {"a": "b' // comment\n}"}, the rest of the input its text.
    repaired(
        "{'a': 'b' // comment\n}",
        json!({"a": "b"}),
        &[Repair::Comment, Repair::SingleQuotes],
    );
    // Before: no value each time.
    repaired(
        "{'a': 'b' /* c */, 'c': 'd'}",
        json!({"a": "b", "c": "d"}),
        &[Repair::Comment, Repair::SingleQuotes],
    );
    repaired(
        "{'a': 'b' # note\n, 'c': 1}",
        json!({"a": "b", "c": 1}),
        &[Repair::Comment, Repair::SingleQuotes],
    );
    // Single quotes never hold a line break: one never closed is feedback,
    // not the rest of the input. Before: {"a": "cut off\nhere"}.
    assert_eq!(
        refused("{'a': 'cut off\nhere"),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 7 \
         (near `'cut off`): this string in single quotes does not end on its line; close it \
         with '."
    );
    // Closed on a later line, it is read as before.
    repaired(
        "{'a': 'line1\nline2'}",
        json!({"a": "line1\nline2"}),
        &[Repair::SingleQuotes, Repair::ControlCharacter],
    );
}

#[test]
fn the_report_says_what_was_dropped() {
    // Before: only that a comment was removed and a key dropped, not which.
    let got = extract_value_with_report(
        "{\n  \"total\": 5, // before the 2 refunds, 3\n  \"items\": [1, /* two */ 3],\n  \"notes\":",
    )
    .unwrap();
    assert_eq!(got.value, json!({"total": 5, "items": [1, 3]}));
    assert_eq!(
        got.report,
        Report::new(
            Layer::Repair,
            vec![Repair::Comment, Repair::Truncated, Repair::DanglingKey]
        )
        .with_dropped(vec![
            "// before the 2 refunds, 3".into(),
            "/* two */".into(),
            "\"notes\"".into()
        ])
    );
    // Nothing inside the value dropped: nothing said, even with a comment
    // after it.
    let got = extract_value_with_report("{'a': 1} // done").unwrap();
    assert_eq!(
        got.report,
        Report::new(Layer::Repair, vec![Repair::Comment, Repair::SingleQuotes])
    );
}

#[test]
fn a_quote_inside_a_string_then_a_comment_is_feedback_not_a_cut_off_value() {
    // Before: {"text": "see \"https://x.com/a"}, with the rest of the line a
    // comment and the value closed as cut off: three repairs stacked
    // (comment, truncated, unescaped_quote), `n` lost.
    assert_eq!(
        refused(r#"{"text": "see "https://x.com/a" // not a comment", "n": 1}"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 31 \
         (near `\" // not a comment\",`): a quote inside this string is followed by what could \
         be a comment or more of its text; write a quote inside a string as \\\"."
    );
    // A string without a quote inside, then a comment, reads as before.
    repaired(
        "{\"text\": \"see https://x.com/a\" // the link\n, \"n\": 1}",
        json!({"text": "see https://x.com/a", "n": 1}),
        &[Repair::Comment],
    );
}

#[test]
fn a_quoted_word_at_the_end_of_a_string_keeps_its_quotes() {
    // Before: no value (`expected : after the key`), the first of the two
    // quotes taken for the end.
    repaired(
        r#"{"a": "He said "hi"", "b": 2}"#,
        json!({"a": "He said \"hi\"", "b": 2}),
        &[Repair::UnescapedQuote],
    );
    repaired(
        r#"["a "b"", "c"]"#,
        json!(["a \"b\"", "c"]),
        &[Repair::UnescapedQuote],
    );
}

#[test]
fn a_missing_quote_that_could_go_before_a_bracket_is_feedback() {
    // Before: {"a": "b}", "c": 1}, the quote put before the comma, though
    // the brace before it may be the object closed early.
    assert_eq!(
        refused(r#"{"a":"b},"c":1}"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 10 \
         (near `\"c\":1}`): a quote inside this string does not end it; close the string, or \
         write a quote inside it as \\\"."
    );
}

#[test]
fn a_closer_too_many_that_would_end_the_value_is_feedback() {
    // Before: [{"a": 1}], the array closed by the `}` too many and
    // {"b": 2} dropped.
    assert_eq!(
        refused(r#"[{"a": 1}}, {"b": 2}]"#),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 10 \
         (near `}, {\"b\": 2}]`): this closing bracket is of the wrong kind and would close the \
         whole value, but more of it follows; close each container with its own bracket."
    );
    assert!(refused(r#"{"a": [1}], "b": 2}"#).contains("would close the whole value"));
}

#[test]
fn more_of_the_value_after_it_closed_is_never_dropped() {
    let early = "the value is closed here, but more of it follows";
    // Before: [1, 2], the items after the extra bracket dropped.
    assert!(refused("[1, 2] 3, 4]").contains(early));
    // Before: [], the list closed right after it opened.
    assert!(refused(r#"[]{"a": 1}]"#).contains(early));
    assert!(refused("[null,]null,null]").contains(early));
    assert!(refused(r#"{"a": n}ull, "b": 1}"#).contains(early));
    // Before: [[null]], the brace too many closing the inner list and the
    // bracket after it the whole value. It stands right before the
    // bracket the list wants: one too many.
    repaired(
        r#"[[null}],[],{"":false}]"#,
        json!([[null], [], {"": false}]),
        &[Repair::MismatchedBracket],
    );
    // Prose after a value still is not more of it.
    let got = extract_value_with_report("True story, I was there.");
    assert!(got.is_err());
}

#[test]
fn a_string_never_closed_swallows_no_structure() {
    // Before: [null, "[1, 2]"], a stray quote taken for a string whose
    // quote was left out.
    assert!(refused(r#"[null,"[1, 2]]"#).contains("this string is never closed"));
    // Before: {"a": "x\", \"b\": \"y\""}, `b` swallowed into the text.
    assert!(refused(r#"{'a': 'x", "b": "y"}"#).contains("this string is never closed"));
    // Plain text before the closers is still a quote left out.
    repaired(
        r#"{"a": "x [1]", "b": "y}"#,
        json!({"a": "x [1]", "b": "y"}),
        &[Repair::MissingQuote],
    );
}
