//! The repair pass on its own, input by input.

use super::*;

/// `json` without white space outside strings: expected values are
/// written readably, the pass writes them compactly.
fn compact(json: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
        } else if c.is_whitespace() {
            continue;
        }
        out.push(c);
    }
    out
}

/// Repairs `input` as a whole; the text and the repairs.
fn fix(input: &str) -> (String, Vec<Repair>) {
    let r = repair(input, 0, false).unwrap_or_else(|e| panic!("{input:?}: {e:?}"));
    assert!(r.whole, "{input:?} left text after the value");
    serde_json::from_str::<serde_json::Value>(&r.text)
        .unwrap_or_else(|e| panic!("{input:?} gave invalid {:?}: {e}", r.text));
    (r.text, r.repairs.to_vec())
}

fn fails(input: &str) -> RepairError {
    match repair(input, 0, false) {
        Err(e) => e,
        Ok(r) => panic!("{input:?} repaired to {:?}", r.text),
    }
}

#[test]
fn valid_json_is_copied_without_white_space() {
    let input = r#"{"a": [1, -2.5e3, true, false, null, "x\"\\\u00e9"], "b": {}}"#;
    assert_eq!(fix(input), (compact(input), vec![]));
}

#[test]
fn trailing_commas() {
    assert_eq!(
        fix(r#"{"a": [1, 2,], "b": 3,}"#),
        (
            compact(r#"{"a": [1, 2], "b": 3}"#),
            vec![Repair::TrailingComma]
        )
    );
    assert_eq!(
        fix("[1,,2]"),
        (compact("[1,2]"), vec![Repair::TrailingComma])
    );
}

#[test]
fn comments() {
    assert_eq!(
        fix("{\n  // the total\n  \"a\": 1, /* more */ \"b\": 2 # py\n}"),
        (compact("{\"a\": 1, \"b\": 2}"), vec![Repair::Comment])
    );
    // Comment markers inside strings are text.
    assert_eq!(
        fix(r#"{"url": "http://x/#y"}"#),
        (compact(r#"{"url": "http://x/#y"}"#), vec![])
    );
}

#[test]
fn unquoted_keys() {
    assert_eq!(
        fix("{name: \"Kyoto\", days_2: 3, $ref: 1}"),
        (
            compact(r#"{"name": "Kyoto", "days_2": 3, "$ref": 1}"#),
            vec![Repair::UnquotedKey]
        )
    );
}

#[test]
fn single_quotes_with_apostrophes_and_double_quotes_inside() {
    assert_eq!(
        fix(r#"{'a': 'it's "fine"', 'b': 'x'}"#),
        (
            compact(r#"{"a": "it's \"fine\"", "b": "x"}"#),
            vec![Repair::SingleQuotes]
        )
    );
    assert_eq!(
        fix(r"['don\'t']"),
        (compact(r#"["don't"]"#), vec![Repair::SingleQuotes])
    );
}

#[test]
fn python_literals() {
    assert_eq!(
        fix("[True, False, None, true]"),
        (
            compact("[true, false, null, true]"),
            vec![Repair::PythonLiteral]
        )
    );
}

#[test]
fn smart_quotes() {
    assert_eq!(
        fix("{“city”: “Kyoto”, ‘note’: ‘it’s “old”’}"),
        (
            compact(r#"{"city": "Kyoto", "note": "it’s “old”"}"#),
            vec![Repair::SmartQuotes]
        )
    );
}

#[test]
fn missing_commas_between_items_and_members() {
    assert_eq!(
        fix("{\"a\": 1\n \"b\": [1 2 \"x\" {}]\n c: 'd' 'e': 2}"),
        (
            compact("{\"a\": 1,\n \"b\": [1, 2, \"x\", {}],\n \"c\": \"d\", \"e\": 2}"),
            vec![
                Repair::MissingComma,
                Repair::UnquotedKey,
                Repair::SingleQuotes
            ]
        )
    );
}

#[test]
fn raw_control_characters_in_strings() {
    assert_eq!(
        fix("{\"a\": \"line 1\nline 2\tend\u{1}\"}"),
        (
            compact(r#"{"a": "line 1\nline 2\tend\u0001"}"#),
            vec![Repair::ControlCharacter]
        )
    );
}

#[test]
fn invalid_escapes() {
    assert_eq!(
        fix(r#"["C:\path", "\u12"]"#),
        (
            compact(r#"["C:\\path", "\\u12"]"#),
            vec![Repair::InvalidEscape]
        )
    );
}

#[test]
fn trailing_semicolon_and_bom() {
    assert_eq!(
        fix("\u{FEFF}{\"a\": 1};\n"),
        (
            compact("{\"a\": 1}"),
            vec![Repair::Bom, Repair::TrailingSemicolon]
        )
    );
}

#[test]
fn mismatched_brackets() {
    assert_eq!(
        fix(r#"{"a": [1, 2}"#),
        (compact(r#"{"a": [1, 2]}"#), vec![Repair::MismatchedBracket])
    );
    assert_eq!(
        fix("[1, 2}"),
        (compact("[1, 2]"), vec![Repair::MismatchedBracket])
    );
    // What follows decides which container the closer was meant for.
    assert_eq!(
        fix(r#"{"a": [1, 2}, "n": 2}"#),
        (
            compact(r#"{"a": [1, 2], "n": 2}"#),
            vec![Repair::MismatchedBracket]
        )
    );
    assert_eq!(
        fix(r#"{"a": [1, 2}}"#),
        (compact(r#"{"a": [1, 2]}"#), vec![Repair::MismatchedBracket])
    );
    assert_eq!(
        fix(r#"[{"a": [1}]"#),
        (compact(r#"[{"a": [1]}]"#), vec![Repair::MismatchedBracket])
    );
    assert_eq!(
        fix(r#"[{"a": 1], {"b": 2}]"#),
        (
            compact(r#"[{"a": 1}, {"b": 2}]"#),
            vec![Repair::MismatchedBracket]
        )
    );
    assert_eq!(
        fails(r#"[{"x": {"a": [1}, "n": 2}}]"#).at,
        15,
        "either object could hold `n`"
    );
    // The next closer fits either reading: the closers after it decide,
    // closing exactly what the reading leaves open.
    assert_eq!(
        fix(r#"{"o": {"x": {"a": [1}}}}"#),
        (
            compact(r#"{"o": {"x": {"a": [1]}}}"#),
            vec![Repair::MismatchedBracket]
        )
    );
    assert_eq!(
        fix(r#"{"o": {"x": {"a": [1}}, "y": 3}"#),
        (
            compact(r#"{"o": {"x": {"a": [1]}}, "y": 3}"#),
            vec![Repair::MismatchedBracket]
        )
    );
    assert_eq!(
        fails(r#"{"o": {"x": {"a": [1}}, "y": 3"#).at,
        20,
        "cut off: either reading leaves containers open"
    );
}

#[test]
fn truncated_anywhere() {
    let cases: &[(&str, &str, &[Repair])] = &[
        (r#"{"a": "hel"#, r#"{"a": "hel"}"#, &[Repair::Truncated]),
        (r#"{"a": [1, 2"#, r#"{"a": [1, 2]}"#, &[Repair::Truncated]),
        (r#"{"a": [1, 2,"#, r#"{"a": [1, 2]}"#, &[Repair::Truncated]),
        (
            r#"{"a": 1, "b"#,
            r#"{"a": 1}"#,
            &[Repair::Truncated, Repair::DanglingKey],
        ),
        (
            r#"{"a": 1, "b":"#,
            r#"{"a": 1}"#,
            &[Repair::Truncated, Repair::DanglingKey],
        ),
        (
            r#"{"a": 1, "b": "#,
            r#"{"a": 1}"#,
            &[Repair::Truncated, Repair::DanglingKey],
        ),
        (
            r#"{"a": 1, b"#,
            r#"{"a": 1}"#,
            &[Repair::Truncated, Repair::DanglingKey],
        ),
        (
            r#"{"a": -"#,
            r#"{}"#,
            &[Repair::Truncated, Repair::DanglingKey],
        ),
        // A cut-off word in a list with no object open can only be a
        // literal (words without quotes stand only in objects).
        (r#"[true, fal"#, r#"[true, false]"#, &[Repair::Truncated]),
        (r#"[1, N"#, r#"[1, null]"#, &[Repair::Truncated]),
        (
            r#"[{"a": 1}, tr"#,
            r#"[{"a": 1}, true]"#,
            &[Repair::Truncated],
        ),
        // A number cut off after whole digits is the number written.
        (r#"{"a": 12"#, r#"{"a": 12}"#, &[Repair::Truncated]),
        (
            r#"[{"a": {"b": ["#,
            r#"[{"a": {"b": []}}]"#,
            &[Repair::Truncated],
        ),
        (r#"["a\"#, r#"["a"]"#, &[Repair::Truncated]),
        (r#"["\u00e"#, r#"[""]"#, &[Repair::Truncated]),
        (r#"{"#, r#"{}"#, &[Repair::Truncated]),
        (
            "{\"a\": 1 // cut",
            "{\"a\": 1}",
            &[Repair::Comment, Repair::Truncated],
        ),
    ];
    for &(input, want, repairs) in cases {
        assert_eq!(fix(input), (compact(want), repairs.to_vec()), "{input:?}");
    }
}

#[test]
fn a_cut_off_value_with_two_readings_is_refused() {
    let cases: &[(&str, usize, &str)] = &[
        // `1.` is 1 in Python, and as likely the start of 1.5.
        ("[1, 2.", 4, "this number is cut off"),
        (r#"{"a": 1."#, 6, "this number is cut off"),
        ("[0.", 1, "this number is cut off"),
        // An exponent cut off: the value is not 1.5.
        (r#"{"a": 1.5e"#, 6, "this number is cut off"),
        ("[1e", 1, "this number is cut off"),
        ("[-2E+", 1, "this number is cut off"),
        // The same before a closing fence or a comment.
        ("[1.\n```", 1, "this number is cut off"),
        ("[1. // more", 1, "this number is cut off"),
        // In an object a word may be text without quotes: `tr` may begin
        // `true` or `trip`.
        (r#"{"a": tr"#, 6, "it may begin true, false or null"),
        (r#"{"a": nu"#, 6, "it may begin true, false or null"),
        (r#"{"a": F"#, 6, "it may begin true, false or null"),
        (r#"{"a": [1, No"#, 10, "it may begin true, false or null"),
        ("{\"a\": t\n```", 6, "it may begin true, false or null"),
    ];
    for &(input, at, message) in cases {
        let e = fails(input);
        assert_eq!(e.at, at, "{input:?}: {e:?}");
        assert!(e.message.contains(message), "{input:?}: {e:?}");
    }
}

#[test]
fn closing_fence_ends_a_truncated_value() {
    let r = repair("{\"a\": [1, 2\n```\nDone.", 0, true).unwrap();
    assert_eq!(r.text, r#"{"a":[1,2]}"#);
    // The fence counts as the end of the input.
    assert_eq!((r.end, r.whole), (12, true));
}

#[test]
fn a_code_block_inside_a_string_is_text() {
    let input = "{\"a\": \"Use:\n```python\nx = 1\n```\nDone.\", \"ok\": true}";
    for fenced in [false, true] {
        let r = repair(input, 0, fenced).unwrap();
        assert_eq!(
            r.text,
            r#"{"a":"Use:\n```python\nx = 1\n```\nDone.","ok":true}"#
        );
        assert_eq!(r.repairs.to_vec(), [Repair::ControlCharacter]);
    }
    // A bare fence opens a block when the string goes on after it...
    let input = "{\"a\": \"x\n```\ny\n```\n\", \"ok\": true}";
    for fenced in [false, true] {
        let r = repair(input, 0, fenced).unwrap();
        assert_eq!(r.text, r#"{"a":"x\n```\ny\n```\n","ok":true}"#);
    }
    // ...and in fenced JSON, where it does not, it is the reply's own fence
    // closing a reply cut off inside the string.
    let r = repair("{\"a\": \"x\n```\nThat is all.", 0, true).unwrap();
    assert_eq!(r.text, r#"{"a":"x"}"#);
    assert_eq!(r.repairs.to_vec(), [Repair::Truncated]);
}

#[test]
fn a_missing_closing_quote_goes_where_the_structure_puts_it() {
    assert_eq!(
        fix("{\"a\": [\"x\", \"y\n]}\n"),
        (compact(r#"{"a": ["x", "y"]}"#), vec![Repair::MissingQuote])
    );
    assert_eq!(
        fix("{\"a\": \"b,\n  \"c\": 1}"),
        (compact(r#"{"a": "b", "c": 1}"#), vec![Repair::MissingQuote])
    );
    // Only a value: a key cut off is dropped as before.
    assert_eq!(
        fix("{\"a\": 1, \"b}"),
        (
            compact(r#"{"a": 1}"#),
            vec![Repair::Truncated, Repair::DanglingKey]
        )
    );
}

#[test]
fn a_quote_followed_by_text_is_part_of_the_text() {
    assert_eq!(
        fix("{\"a\": \"x \"y\" z\",\n \"b\": \"w\"\n \"c\": 1}"),
        (
            compact(r#"{"a": "x \"y\" z", "b": "w", "c": 1}"#),
            vec![Repair::MissingComma, Repair::UnescapedQuote]
        )
    );
    // What a list holds next, its comma left out, ends the string.
    assert_eq!(
        fix(r#"["x" 1 "y" {} "z" true]"#),
        (
            compact(r#"["x", 1, "y", {}, "z", true]"#),
            vec![Repair::MissingComma]
        )
    );
    assert_eq!(fails(r#"["a, "b"]"#).at, 3);
}

#[test]
fn prose_is_not_turned_into_strings() {
    assert_eq!(
        fails("[see the table]").message,
        "expected a JSON value; text must be in double quotes"
    );
    assert_eq!(fails("{Budget}").at, 7);
    assert_eq!(fails("{\"a\": }").message, "expected a value after the `:`");
    assert_eq!(fails("   ").message, "expected a JSON value");
    // A bare word after a key: more of the key, or its value?
    assert_eq!(fails("{a b}").message, "expected `:` after the key");
    // Words where the pass put in the comma: not an item of their own.
    assert_eq!(
        fails("{\"a\": [1 apples]}").message,
        "expected a JSON value; text must be in double quotes"
    );
    // Words that do not end where a value ends.
    assert_eq!(fails("{\"a\": item #3}").at, 11);
    // A URL is one word (refused before at its `:`).
    assert_eq!(
        fix("{\"url\": https://x.com}"),
        (
            r#"{"url":"https://x.com"}"#.to_owned(),
            vec![Repair::UnquotedString]
        )
    );
}

#[test]
fn prose_after_the_value_is_left_alone() {
    let r = repair("{'a': 1} and that's all # really", 0, false).unwrap();
    assert_eq!((r.text.as_str(), r.end, r.whole), (r#"{"a":1}"#, 8, false));
    assert_eq!(r.repairs.to_vec(), [Repair::SingleQuotes]);
}

#[test]
fn deep_nesting_uses_no_call_stack() {
    let input = "[".repeat(1_000_000);
    let r = repair(&input, 0, false).unwrap();
    assert_eq!(r.text.len(), 2_000_000);
    // serde_json refuses the depth: an error, not a stack overflow.
    assert!(serde_json::from_str::<serde_json::Value>(&r.text).is_err());
}

#[test]
fn a_bare_key_cut_off_is_named_in_what_was_dropped() {
    let r = repair("{\"a\": 1, oops", 0, false).unwrap();
    assert_eq!(r.text, r#"{"a":1}"#);
    assert_eq!(r.dropped, ["\"oops\""]);
}

#[test]
fn plain_words_as_values() {
    assert_eq!(
        fix("{\"city\": New York, \"tags\": [red, dark-blue], \"x\": 東京,\n \"y\": a/b // c\n}"),
        (
            compact(
                r#"{"city": "New York", "tags": ["red", "dark-blue"], "x": "東京", "y": "a/b"}"#
            ),
            vec![Repair::Comment, Repair::UnquotedString]
        )
    );
    // A literal is a literal; a word that begins like one is a word.
    assert_eq!(
        fix("{\"a\": nullable, \"b\": true_value, \"c\": None}"),
        (
            compact(r#"{"a": "nullable", "b": "true_value", "c": null}"#),
            vec![Repair::PythonLiteral, Repair::UnquotedString]
        )
    );
}

#[test]
fn placeholders_for_items_left_out() {
    let r = repair("{\"a\": [1, 2, ...], \"b\": [\u{2026}], ...}", 0, false).unwrap();
    assert_eq!(r.text, r#"{"a":[1,2],"b":[]}"#);
    assert_eq!(r.repairs.to_vec(), [Repair::Placeholder]);
    assert_eq!(r.dropped, ["...", "\u{2026}", "..."]);
    // A member's value left out: the key would be lost.
    assert_eq!(fails("{\"a\": ...}").at, 6);
    assert_eq!(fails("[... 5]").at, 1);
}

#[test]
fn missing_colons() {
    assert_eq!(
        fix("{\"a\" 1, \"b\" 'x', c [true], \"d\" {}}"),
        (
            compact(r#"{"a": 1, "b": "x", "c": [true], "d": {}}"#),
            vec![
                Repair::UnquotedKey,
                Repair::SingleQuotes,
                Repair::MissingColon
            ]
        )
    );
}

#[test]
fn unicode_spaces_between_tokens() {
    assert_eq!(
        fix("{\"a\":\u{a0}1,\u{3000}b\u{2003}:\u{200b}[2\u{202f}]}"),
        (
            compact(r#"{"a": 1, "b": [2]}"#),
            vec![Repair::UnquotedKey, Repair::UnicodeSpace]
        )
    );
}

#[test]
fn numbers_spelled_loosely() {
    assert_eq!(
        fix("[.25, 1., +1, -.5, +.5, 1.e3]"),
        (
            "[0.25,1,1,-0.5,0.5,1e3]".to_owned(),
            vec![Repair::NumberSpelling]
        )
    );
    // A word that starts with digits is the text written, never the
    // number it starts with cut from it.
    assert_eq!(
        fix("[1O, 1.2.3, 1-2, 0789, -05, 1/3, 10:30]"),
        (
            r#"["1O","1.2.3","1-2","0789","-05","1/3","10:30"]"#.to_owned(),
            vec![Repair::UnquotedString]
        )
    );
    assert_eq!(
        fix("[82_461_110, 1_234.5_6]"),
        (
            "[82461110,1234.56]".to_owned(),
            vec![Repair::NumberSpelling]
        )
    );
    // A `+` or `$` glued to a number is no part of a word: a stray.
    for (input, at) in [("[1+2]", 2), ("{\"a\": 1$}", 7)] {
        assert_eq!(fails(input).at, at, "{input}");
    }
    // After a comma the pass put in, a word is refused as words are.
    assert_eq!(fails("[2 0.0.1 2]").at, 3);
}

#[test]
fn javascript_literals() {
    assert_eq!(
        fix("[undefined, NaN, null]"),
        ("[null,null,null]".to_owned(), vec![Repair::JsLiteral])
    );
    for input in ["[Infinity]", "[-Infinity]", "{\"a\": +Infinity}"] {
        assert!(
            fails(input)
                .message
                .starts_with("Infinity is no JSON number"),
            "{input}"
        );
    }
}

#[test]
fn wrappers_around_one_value() {
    assert_eq!(
        fix("{\"_id\": ObjectId(\"5f1\"), \"n\": NumberLong(\"2\"), \"d\": Decimal('1.5'), \"i\": NumberInt( 3 )}"),
        (
            compact(r#"{"_id": "5f1", "n": 2, "d": 1.5, "i": 3}"#),
            vec![Repair::SingleQuotes, Repair::Wrapper]
        )
    );
    // A call that computes something, a wrapper of two values, a number
    // wrapper around no number: no one reading.
    assert_eq!(fails("{\"a\": len(\"abc\")}").at, 6);
    assert_eq!(fails("{\"a\": ISODate(2020, 1)}").at, 18);
    assert_eq!(fails("{\"a\": NumberLong(\"x\")}").at, 17);
}

#[test]
fn strings_joined_with_plus() {
    assert_eq!(
        fix("{\"a\": \"abc\" + \"def\" +\n \"g\", \"b\": 'x' + 'y'}"),
        (
            compact(r#"{"a": "abcdefg", "b": "xy"}"#),
            vec![Repair::SingleQuotes, Repair::StringConcatenation]
        )
    );
    // A variable is no string.
    assert_eq!(fails("{\"a\": \"abc\" + def}").at, 12);
}

#[test]
fn python_tuples() {
    assert_eq!(
        fix("{\"p\": (1, 2), \"q\": (), \"r\": ('x',), \"s\": [(1, (2, 3))]}"),
        (
            compact(r#"{"p": [1, 2], "q": [], "r": ["x"], "s": [[1, [2, 3]]]}"#),
            vec![Repair::SingleQuotes, Repair::PythonTuple]
        )
    );
    // `(1)` is 1 in Python, not a tuple; a tuple closes with its own
    // bracket.
    assert_eq!(
        fix("{\"p\": (1), \"q\": ((\"x\"))}"),
        (
            r#"{"p": 1 ,"q":  "x"  }"#.to_owned(),
            vec![Repair::PythonTuple]
        )
    );
    assert_eq!(fails("{\"p\": (1, 2]}").at, 11);
    assert_eq!(fails("{\"p\": [1, 2)}").at, 11);
}

#[test]
fn a_string_cut_off_after_an_escaped_quote_keeps_its_text() {
    // An escaped quote is text: the bracket after it closes the list.
    assert_eq!(
        fix(r#"["\"]"#),
        (r#"["\""]"#.to_owned(), vec![Repair::MissingQuote])
    );
    // A string running over a closer and a comma to the reply's last
    // bracket holds structure: where it ends is not said.
    assert_eq!(
        fails("[{\"a\": 1, \"b\": \u{201C}null}, -4.5]").message,
        "this string is never closed; close it with its quote"
    );
}

#[test]
fn a_list_closed_early_before_a_string_with_a_bracket_is_refused() {
    // The `{` of the last item is text: the final `]` is the stray closer
    // of the list closed early, so neither `[[1, null], 2]` nor `[]` is
    // the answer.
    for text in ["[[1, null], 2], [3], \"{\"]", "[[1, null], 2,] [3], \"{\"]"] {
        assert!(crate::json::extract_value(text).is_err(), "{text}");
    }
    // A string after a value in prose still hides nothing.
    assert_eq!(
        crate::json::extract_value("[1, 2], \"so {it} goes\"").unwrap(),
        serde_json::json!([1, 2])
    );
}

#[test]
fn a_comment_that_swallows_the_rest_of_the_value_is_refused() {
    // `#` after a single-quoted string ending `'`: all the rest would be a
    // comment, and the value cut off at it: `{}`, losing every member.
    let text = r#"{'"":[10000000,1000000,null,null,"'#"],"A":null}"#;
    assert!(crate::json::extract_value(text).is_err());
    assert!(fails(r#"{"a": [1, 2 // ], "b": 3}"#)
        .message
        .contains("comment"));
    // A comment of words at the end of a reply cut off is still a comment.
    assert_eq!(fix("{\"a\": 1 // cut").0, compact("{\"a\": 1}"));
}

#[test]
fn a_single_quoted_string_with_brackets_and_a_lone_double_quote_has_two_readings() {
    // The `'` may open a string holding `[null,2],3,"`, or be a stray
    // quote before a list, with `"'] "` the last item: refused.
    let e = fails(r#"[1,'[null,2],3,"'] "]"#);
    assert_eq!(e.at, 3);
    assert_eq!(
        e.message,
        "this string in single quotes holds brackets and a lone double quote, so it may not be \
         one string; write it in double quotes, with a quote inside it as \\\""
    );
    // Paired double quotes, text that is no structure, or no closer after
    // the quote leave one reading.
    assert_eq!(
        fix(r#"['[a] "b"', 'c']"#),
        (compact(r#"["[a] \"b\"", "c"]"#), vec![Repair::SingleQuotes])
    );
    assert_eq!(
        fix(r#"['[a"', "b"]"#),
        (compact(r#"["[a\"", "b"]"#), vec![Repair::SingleQuotes])
    );
    assert_eq!(
        fix(r#"['5" screen', 'x']"#),
        (
            compact(r#"["5\" screen", "x"]"#),
            vec![Repair::SingleQuotes]
        )
    );
}

#[test]
fn a_bare_key_with_its_colon_left_out_is_refused() {
    // `{4549.75}`: `4549` a key without quotes, then `.75` its value with
    // the colon left out and no space between; two guesses about one
    // member; or a Python set of one number, a third reading.
    let e = fails(r#"{"a": {4549.75}}"#);
    assert_eq!(e.at, 11, "{e:?}");
    assert_eq!(
        e.message,
        "one value stands in braces with no `:` after it, so it may be a key left without its \
         value or a set of one value; write an object with a value for each key, or a list in [ ]"
    );
    // Each guess alone is still taken.
    assert_eq!(fix(r#"{a: 1}"#).0, compact(r#"{"a": 1}"#));
    assert_eq!(fix(r#"{"a" 1}"#).0, compact(r#"{"a": 1}"#));
    assert_eq!(fix(r#"{c [true]}"#).0, compact(r#"{"c": [true]}"#));
}

#[test]
fn a_string_ending_in_a_comma_with_no_comma_after_it_is_not_given_one() {
    // A stray quote before `[` took in the array and its separator:
    // `{"k": [null],"": ":"}` read as `{"k": "[null],", ":": ""}` lost both.
    for input in [
        "{\"k\":\"[null],\"\":\":\"}",
        "{\"a\": \"x,\"\"b\": 1}",
        "[\"one,\"\"two\"]",
        "{'a': 'x,''b': 1}",
        // In an object, white space between as well: a key may start with it.
        "{\"\":{\"\":\"-1,\" \":\":\",\"A\":null},\"a\":[]}",
        "{\"a\": \"x,\" \"b\": 1}",
    ] {
        assert!(
            fails(input)
                .message
                .starts_with("the string before this ends in a comma and no comma follows it"),
            "{input:?}: {:?}",
            fails(input)
        );
    }
    // A comma after it, none inside, or white space between (the commas
    // left out, items apart): one reading, read.
    for input in ["[\"a,\"\n\"b\"]", "[\"a,\" \"b\"]"] {
        assert_eq!(
            fix(input),
            (compact("[\"a,\", \"b\"]"), vec![Repair::MissingComma])
        );
    }
    assert_eq!(
        fix("{\"a\": \"x,\", \"b\": 1}").0,
        compact("{\"a\": \"x,\", \"b\": 1}")
    );
    assert_eq!(
        fix("{\"a\": \"x\" \"b\": 1}"),
        (
            compact("{\"a\": \"x\", \"b\": 1}"),
            vec![Repair::MissingComma]
        )
    );
}
