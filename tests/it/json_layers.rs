//! The layers of `twr_runtime::json`, their provenance and their feedback.

use serde::Deserialize;
use serde_json::json;
use twr_runtime::feedback::ProblemKind;
use twr_runtime::json::{
    extract, extract_value, extract_value_with_report, extract_with_report, Layer, Repair, Report,
};

#[derive(Debug, Deserialize, PartialEq)]
struct Meta {
    weeks: u32,
    city: String,
}

fn meta(weeks: u32, city: &str) -> Meta {
    Meta {
        weeks,
        city: city.to_owned(),
    }
}

fn report(layer: Layer, repairs: &[Repair]) -> Report {
    Report::new(layer, repairs.to_vec())
}

/// The (path, message) of the single problem of a failed extraction.
fn problem<T: for<'de> Deserialize<'de> + std::fmt::Debug>(raw: &str) -> (String, String) {
    let feedback = extract::<T>(raw).unwrap_err();
    assert_eq!(feedback.problems().len(), 1, "{feedback:?}");
    match &feedback.problems()[0].kind {
        ProblemKind::BadJson { path, message } => (path.clone(), message.clone()),
        other => panic!("not BadJson: {other:?}"),
    }
}

#[test]
fn valid_json_is_taken_as_is() {
    let got = extract_with_report::<Meta>(r#" {"weeks": 6, "city": "Kyoto"} "#).unwrap();
    assert_eq!(got.value, meta(6, "Kyoto"));
    assert_eq!(got.report, report(Layer::AsIs, &[]));
    assert!(got.report.is_clean());
}

#[test]
fn fence_content_in_every_spelling() {
    for raw in [
        "Here you go:\n```json\n{\"weeks\": 6, \"city\": \"Kyoto\"}\n```\nEnjoy!",
        "```JSON\n{\"weeks\": 6, \"city\": \"Kyoto\"}\n```",
        "```\n{\"weeks\": 6, \"city\": \"Kyoto\"}\n```",
        "~~~\n{\"weeks\": 6, \"city\": \"Kyoto\"}\n~~~",
        "Sure:\n```json\n{\"weeks\": 6, \"city\": \"Kyoto\"}\n",
    ] {
        let got = extract_with_report::<Meta>(raw).unwrap();
        assert_eq!(got.value, meta(6, "Kyoto"), "{raw:?}");
        assert_eq!(got.report, report(Layer::Fence, &[]), "{raw:?}");
    }
}

#[test]
fn first_fence_that_fits_wins() {
    let raw = "Format:\n```json\n{\"example\": true}\n```\nAnswer:\n```json\n{\"weeks\": 2, \"city\": \"Nara\"}\n```";
    assert_eq!(extract::<Meta>(raw).unwrap(), meta(2, "Nara"));
    // Any JSON fits a Value: the first fence.
    assert_eq!(extract_value(raw).unwrap(), json!({"example": true}));
}

#[test]
fn think_blocks_are_removed() {
    let raw = "<think>Maybe {\"weeks\": 1, \"city\": \"Osaka\"}?</think>\n{\"weeks\": 3, \"city\": \"Kyoto\"}";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(3, "Kyoto"));
    assert_eq!(got.report.layer, Layer::ThinkRemoved);

    // A fenced draft inside the thinking is not the answer.
    let raw = "<thinking>```json\n{\"weeks\": 1, \"city\": \"Osaka\"}\n```</thinking>\n```json\n{\"weeks\": 3, \"city\": \"Kyoto\"}\n```";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(3, "Kyoto"));
    assert_eq!(got.report.layer, Layer::Fence);
}

#[test]
fn scan_takes_the_first_candidate_that_fits() {
    let raw = "An object looks like {\"name\": \"x\"} and lists like [1, 2]. \
               My answer: {\"weeks\": 4, \"city\": \"Kyoto {old town}\"} - hope it helps.";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(4, "Kyoto {old town}"));
    assert_eq!(got.report, report(Layer::Scan, &[]));

    let got = extract_value_with_report("Result: [1, {\"a\": \"]\"}] done").unwrap();
    assert_eq!(got.value, json!([1, {"a": "]"}]));
    assert_eq!(got.report.layer, Layer::Scan);
}

#[test]
fn broken_json_in_prose_is_repaired() {
    let raw = "Sure! {weeks: 5, 'city': 'Kyoto',} // final";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(5, "Kyoto"));
    assert_eq!(
        got.report,
        report(
            Layer::Repair,
            &[
                Repair::Comment,
                Repair::TrailingComma,
                Repair::UnquotedKey,
                Repair::SingleQuotes
            ]
        )
    );
}

#[test]
fn broken_fence_content_is_repaired() {
    let raw = "```json\n{\n  \"weeks\": 5, # five\n  \"city\": \"Kyo\n```";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(5, "Kyo"));
    assert_eq!(
        got.report,
        report(Layer::Repair, &[Repair::Comment, Repair::Truncated])
            .with_dropped(vec!["# five".into()])
    );
}

#[test]
fn every_repair_kind_through_extract_value() {
    let cases: &[(&str, serde_json::Value, &[Repair])] = &[
        ("[1, 2,]", json!([1, 2]), &[Repair::TrailingComma]),
        ("{\"a\": 1 /* c */}", json!({"a": 1}), &[Repair::Comment]),
        ("{a: 1}", json!({"a": 1}), &[Repair::UnquotedKey]),
        ("{'a': 'b'}", json!({"a": "b"}), &[Repair::SingleQuotes]),
        (
            "[True, False, None]",
            json!([true, false, null]),
            &[Repair::PythonLiteral],
        ),
        ("{“a”: “b”}", json!({"a": "b"}), &[Repair::SmartQuotes]),
        ("[1 2]", json!([1, 2]), &[Repair::MissingComma]),
        (
            "{\"a\": 1 \"b\": 2}",
            json!({"a": 1, "b": 2}),
            &[Repair::MissingComma],
        ),
        ("[\"a\nb\"]", json!(["a\nb"]), &[Repair::ControlCharacter]),
        ("[\"a\\qb\"]", json!(["a\\qb"]), &[Repair::InvalidEscape]),
        (
            "'x';",
            json!("x"),
            &[Repair::SingleQuotes, Repair::TrailingSemicolon],
        ),
        (
            "\u{FEFF}'x'",
            json!("x"),
            &[Repair::Bom, Repair::SingleQuotes],
        ),
        (
            "{\"a\": [1}",
            json!({"a": [1]}),
            &[Repair::MismatchedBracket],
        ),
        (
            "{\"a\": [1, {\"b\": \"c",
            json!({"a": [1, {"b": "c"}]}),
            &[Repair::Truncated],
        ),
        (
            "{\"a\": 1, \"b\":",
            json!({"a": 1}),
            &[Repair::Truncated, Repair::DanglingKey],
        ),
    ];
    for (raw, want, repairs) in cases {
        let got = extract_value_with_report(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        assert_eq!(&got.value, want, "{raw:?}");
        assert_eq!(got.report.layer, Layer::Repair, "{raw:?}");
        assert_eq!(got.report.repairs, *repairs, "{raw:?}");
    }
}

#[test]
fn bare_values_repair_only_when_they_are_the_whole_reply() {
    assert_eq!(extract::<u32>("42").unwrap(), 42);
    assert_eq!(extract::<String>("'done'").unwrap(), "done");
    assert!(extract::<bool>("True").unwrap());
    assert_eq!(
        extract::<bool>("True story, I was there.")
            .unwrap_err()
            .to_string(),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 5 \
         (near ` story, I was there.`): unexpected text after the value."
    );
    assert_eq!(
        extract_value("None of the above").unwrap_err().to_string(),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 5 \
         (near ` of the above`): unexpected text after the value."
    );
}

#[test]
fn wrong_shape_names_path_and_expected_type() {
    assert_eq!(
        problem::<Meta>(r#"{"weeks": "many", "city": "Kyoto"}"#),
        (
            "weeks".to_owned(),
            r#"it should be a whole number (0 or more), not "many""#.to_owned()
        )
    );
    assert_eq!(
        problem::<Meta>("Here: ```json\n{\"weeks\": 2}\n```"),
        (
            "city".to_owned(),
            "this required field is missing".to_owned()
        )
    );
    // Repaired JSON of the wrong shape is reported the same way.
    assert_eq!(
        problem::<Meta>("{weeks: -2, city: 'Kyoto'}"),
        (
            "weeks".to_owned(),
            "it should be a whole number (0 or more), not -2".to_owned()
        )
    );
}

#[test]
fn the_answer_beats_an_example_when_neither_fits() {
    // An example of another shape first, then the answer with a bad field:
    // the feedback is about the answer.
    let raw = "Like [1, 2]. Answer: {\"weeks\": \"many\", \"city\": \"Kyoto\"}";
    assert_eq!(problem::<Meta>(raw).0, "weeks");
}

#[test]
fn prose_without_json_is_feedback() {
    let (path, message) = problem::<Meta>("I could not decide, sorry.");
    assert_eq!(path, "");
    assert_eq!(
        message,
        "there is no JSON in it; write the value as JSON, such as an object in { } or an array in [ ]"
    );
    let feedback = extract_value("The [Budget] section follows.").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The reply should be JSON of the expected shape: the JSON breaks at line 1, column 6 \
         (near `Budget] section foll`): expected a JSON value; text must be in double quotes."
    );
}

#[test]
fn unrepairable_json_says_where() {
    let (path, message) = problem::<Meta>("{\"weeks\": 3,\n \"city\": @Kyoto}");
    assert_eq!(path, "");
    assert_eq!(
        message,
        "the JSON breaks at line 2, column 10 (near `@Kyoto}`): expected a value after the `:`"
    );
}

#[test]
fn nesting_beyond_serde_json_limit_is_an_error_not_a_crash() {
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    assert_eq!(
        extract_value(&deep).unwrap_err().to_string(),
        "The reply should be JSON of the expected shape: the JSON is not valid: recursion limit exceeded."
    );
    let open = "{\"a\":".repeat(100_000);
    assert_eq!(
        extract_value(&open).unwrap_err().to_string(),
        "The reply should be JSON of the expected shape: the JSON is not valid: recursion limit exceeded."
    );
    let fine = "[".repeat(100) + &"]".repeat(100);
    let expected: serde_json::Value = serde_json::from_str(&fine).unwrap();
    assert_eq!(extract_value(&fine).unwrap(), expected);
}

#[test]
fn a_cut_off_list_is_repaired_whole_not_read_as_its_first_item() {
    let got = extract_value_with_report("Items: [{\"a\": 1}, {\"b\": 2}, {\"c\"").unwrap();
    assert_eq!(got.value, json!([{"a": 1}, {"b": 2}, {}]));
    assert_eq!(
        got.report,
        report(Layer::Repair, &[Repair::Truncated, Repair::DanglingKey])
            .with_dropped(vec!["\"c\"".into()])
    );
    // A prose bracket never closed does not hide the JSON after it.
    let got = extract_value_with_report("See [1 for details: {\"a\": 1}").unwrap();
    assert_eq!(got.value, json!({"a": 1}));
    assert_eq!(got.report, report(Layer::Scan, &[]));
}

#[test]
fn feedback_reads_as_sentences_for_the_model() {
    let text = |raw: &str| extract::<Meta>(raw).unwrap_err().to_string();
    assert_eq!(
        text(r#"{"weeks": "many", "city": "Kyoto"}"#),
        r#"The JSON in the reply is wrong at `weeks`: it should be a whole number (0 or more), not "many"."#
    );
    assert_eq!(
        text("I could not decide."),
        "The reply should be JSON of the expected shape: there is no JSON in it; \
         write the value as JSON, such as an object in { } or an array in [ ]."
    );
}

#[test]
fn think_tags_inside_json_strings_are_kept() {
    let raw = "```json\n{\"weeks\": 1, \"city\": \"<think> and </think>\"}\n```";
    let got = extract_with_report::<Meta>(raw).unwrap();
    assert_eq!(got.value, meta(1, "<think> and </think>"));
    assert_eq!(got.report.layer, Layer::Fence);
}
