//! The loop records how each JSON section was read (layer and repairs) in
//! its ledger.

use serde::Deserialize;
use twr_runtime::json::{JsonProvenance, Layer, Repair, Report};
use twr_runtime::{Feedback, ScriptedModel, Sections, Think};

#[derive(Debug, PartialEq, Deserialize)]
struct Budget {
    total: u32,
    currency: String,
}

#[derive(Debug, Sections)]
struct Costed {
    plan: String,
    #[section(json)]
    budget: Budget,
}

#[tokio::test]
async fn a_repaired_json_section_is_in_the_ledger() {
    let model = ScriptedModel::new([
        "[Plan]\nTemples\n[Budget]\n```json\n{'total': 500, 'currency': 'USD',}\n```",
    ]);
    let outcome = Think::new(&model).run::<Costed>("Plan it").await.unwrap();
    assert_eq!(outcome.value.plan, "Temples");
    assert_eq!(
        outcome.value.budget,
        Budget {
            total: 500,
            currency: "USD".to_string()
        }
    );
    assert_eq!(
        outcome.attempts[0].json,
        [JsonProvenance::new(
            "[Budget]",
            Report::new(
                Layer::Repair,
                vec![Repair::TrailingComma, Repair::SingleQuotes]
            )
        )]
    );
}

#[tokio::test]
async fn a_merged_answer_records_the_json_of_the_merge() {
    let model = ScriptedModel::new([
        "[Plan]\nTemples\n[Budget]\nabout five hundred",
        "[Budget]\n{\"total\": 500, \"currency\": \"USD\"}",
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Costed>("Plan it")
        .await
        .unwrap();
    assert!(outcome.attempts[0].json.is_empty());
    assert_eq!(
        outcome.attempts[1].json,
        [JsonProvenance::new(
            "[Budget]",
            Report::new(Layer::AsIs, vec![])
        )]
    );
}

#[tokio::test]
async fn json_read_from_the_whole_reply_is_recorded_without_a_header() {
    let model = ScriptedModel::new(["Here you go: {\"total\": 7, \"currency\": \"EUR\"} done"]);
    let outcome = Think::new(&model)
        .run_json::<Budget>("Cost?")
        .await
        .unwrap();
    assert_eq!(outcome.value.total, 7);
    assert_eq!(
        outcome.attempts[0].json,
        [JsonProvenance::new("", Report::new(Layer::Scan, vec![]))]
    );
}

/// A parser of your own returns only its value: nothing it did travels
/// beside it, so the ledger has no JSON record (use `run_json`, or keep
/// `json::extract_with_report`'s report in your value).
#[tokio::test]
async fn a_custom_parser_reports_no_json() {
    let model = ScriptedModel::new(["{\"total\": 7, \"currency\": \"EUR\"}"]);
    let outcome = Think::new(&model)
        .run_with("Cost?", |raw: &str| -> Result<Budget, Feedback> {
            twr_runtime::json::extract(raw)
        })
        .await
        .unwrap();
    assert_eq!(outcome.value.total, 7);
    assert!(outcome.attempts[0].json.is_empty());
}

#[derive(Debug, Sections)]
struct Scored {
    plan: String,
    #[section(json)]
    scores: Vec<u32>,
}

/// A reply cut off by the length limit inside a JSON list: `[4, 2` may have
/// been `[4, 25, ...]`. The repair reads a section's text, where the end of
/// the text is the end of the value (the next header or the reply's end);
/// only the loop knows the reply was cut, and it never reads the section
/// the cut went through: it asks for that section again.
#[tokio::test]
async fn a_json_list_cut_off_by_the_length_limit_is_asked_for_again_not_read_as_written() {
    let model = ScriptedModel::from_results([
        Ok(crate::support::think::truncated(
            "[Plan]\nTemples\n[Scores]\n[4, 2",
        )),
        Ok(crate::support::think::reply_with_usage(
            "[Scores]\n[4, 25, 7]",
            1,
            1,
        )),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Scored>("Score it")
        .await
        .unwrap();
    assert_eq!(outcome.value.plan, "Temples");
    assert_eq!(outcome.value.scores, [4, 25, 7]);
    assert_eq!(
        outcome.attempts[0].kind,
        twr_runtime::AttemptKind::Truncated
    );
    assert!(outcome.attempts[0].json.is_empty());
    // The same text in a reply that ended normally is the list written.
    let model = ScriptedModel::new(["[Plan]\nTemples\n[Scores]\n[4, 2"]);
    let outcome = Think::new(&model).run::<Scored>("Score it").await.unwrap();
    assert_eq!(outcome.value.scores, [4, 2]);
}
