//! Feedback in the user's own words: a phrase table of one's own, or
//! single phrases changed, used with `#[sections(phrases = PATH)]`; the
//! ledger records exactly what was sent.

use twr_runtime::phrases::Phrases;
use twr_runtime::sections::Lang;
use twr_runtime::{ScriptedModel, Sections, Think};

static TERSE: Phrases = Phrases {
    missing: "{h} is missing; write {kind} under it.",
    ask_sections: "Send only {sections}.",
    slot: "[[{what}]]",
    ..Phrases::ENGLISH
};

#[derive(Debug, PartialEq, Sections)]
#[sections(phrases = TERSE)]
struct Trip {
    /// Where to go.
    city: String,
    days: u32,
}

#[test]
fn single_phrases_change_and_the_rest_stay_english() {
    assert_eq!(Trip::lang(), Lang::Custom(&TERSE));
    assert_eq!(TERSE.check(), Ok(()));
    let feedback = Trip::parse_sections("[City]\nKyoto").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "[Days] is missing; write a single whole number under it.\n\
         For example:\n[Days]\n[[a single whole number]]\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
    // The guide is the table's too: its slot, the English around it.
    let guide = Trip::format_guide();
    assert!(
        guide.contains("[Days]\n[[a single whole number]]"),
        "{guide}"
    );
    assert!(
        guide.starts_with("Think it through freely first."),
        "{guide}"
    );
}

#[test]
fn a_slot_of_the_users_table_is_not_shown_as_an_example() {
    let feedback = Trip::parse_sections("[City]\nKyoto\n[Days]\nthree").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The [Days] section should be a single whole number; it says 'three'.\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[test]
fn a_misspelt_blank_is_found_before_a_model_sees_it() {
    let broken = Phrases {
        missing: "The {hh} section is missing.",
        cut_off: "Cut at {where}.",
        ..Phrases::CHINESE
    };
    assert_eq!(
        broken.check(),
        Err(vec![
            "missing: {hh}".to_owned(),
            "cut_off: {where}".to_owned()
        ])
    );
}

#[tokio::test]
async fn the_ledger_records_exactly_what_was_sent() {
    let model = ScriptedModel::new(["[City]\nKyoto", "[Days]\n3"]);
    let outcome = Think::new(&model)
        .run::<Trip>("Plan a trip.")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    let sent = outcome.attempts[0].sent_back.clone().unwrap();
    assert_eq!(
        sent,
        "[Days] is missing; write a single whole number under it.\n\
         For example:\n[Days]\n[[a single whole number]]\n\n\
         Send only [Days] section, under its header on a line of its own."
    );
    assert_eq!(model.requests()[1].last().unwrap().content, sent);
}
