//! A section is typed once per run: a patch merge takes the sections kept
//! from earlier replies as they were typed, and a streamed reply's sections,
//! checked as they completed, are not read again for the value. Each test
//! counts the readings of one section with a `FromStr` type of its own.

use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Deserialize;
use twr_runtime::json::{JsonProvenance, Layer, Repair, Report};
use twr_runtime::run::Ending;
use twr_runtime::{ScriptedModel, Sections, Think};

/// A section type that counts how often it is read, in `$count`.
macro_rules! counted {
    ($name:ident, $count:ident) => {
        static $count: AtomicUsize = AtomicUsize::new(0);

        #[derive(Debug, PartialEq)]
        struct $name(String);

        impl FromStr for $name {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                $count.fetch_add(1, Ordering::SeqCst);
                Ok($name(text.to_owned()))
            }
        }
    };
}

counted!(PatchedSummary, PATCHED_READS);

#[derive(Debug, Sections)]
struct Patched {
    #[section(from_str)]
    summary: PatchedSummary,
    weeks: u32,
}

#[tokio::test]
async fn a_section_kept_by_a_patch_is_not_read_again() {
    let model = ScriptedModel::new([
        "[Summary]\nShip the beta\n[Weeks]\nmany",
        "[Weeks]\nstill a few",
        "[Weeks]\n3",
    ]);
    let outcome = Think::new(&model)
        .max_attempts(4)
        .focused_questions(false)
        .run::<Patched>("Plan the release")
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Repaired(2));
    assert_eq!(
        outcome.value.summary,
        PatchedSummary("Ship the beta".into())
    );
    assert_eq!(outcome.value.weeks, 3);
    // Read with the first reply; the two merges took it as it was.
    assert_eq!(PATCHED_READS.load(Ordering::SeqCst), 1);
}

counted!(AnsweredSummary, ANSWERED_READS);

#[derive(Debug, Sections)]
struct Answered {
    #[section(from_str)]
    summary: AnsweredSummary,
    weeks: u32,
    owner: String,
}

/// A second whole answer is read alone first (it may stand on its own),
/// then merged with what was kept: its sections are read by the first of
/// the two readings only.
#[tokio::test]
async fn a_whole_second_answer_read_alone_then_merged_is_read_once() {
    let model = ScriptedModel::new([
        "[Summary]\nShip the beta\n[Weeks]\nmany\n[Owner]\nAda",
        "[Summary]\nShip the beta soon\n[Weeks]\nseveral",
        "[Weeks]\n3",
    ]);
    let outcome = Think::new(&model)
        .max_attempts(4)
        .focused_questions(false)
        .run::<Answered>("Plan the release")
        .await
        .unwrap();
    assert_eq!(
        outcome.value.summary,
        AnsweredSummary("Ship the beta soon".into())
    );
    assert_eq!(outcome.value.owner, "Ada");
    assert_eq!(outcome.value.weeks, 3);
    // "Ship the beta" once, "Ship the beta soon" once.
    assert_eq!(ANSWERED_READS.load(Ordering::SeqCst), 2);
}

counted!(StreamedSummary, STREAMED_READS);

#[derive(Debug, Sections)]
struct Streamed {
    #[section(from_str)]
    summary: StreamedSummary,
    weeks: u32,
}

#[tokio::test]
async fn a_streamed_section_checked_as_it_completed_is_not_read_again() {
    let model = ScriptedModel::new(["[Summary]\nShip the beta\n[Weeks]\n3"]).chunk_size(4);
    let outcome = Think::new(&model)
        .on_section(|_| {})
        .run::<Streamed>("Plan the release")
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::FirstTry);
    assert_eq!(
        outcome.value.summary,
        StreamedSummary("Ship the beta".into())
    );
    assert_eq!(outcome.value.weeks, 3);
    assert_eq!(STREAMED_READS.load(Ordering::SeqCst), 1);
}

counted!(GenericSummary, GENERIC_READS);

#[derive(Debug, Sections)]
struct Generic<W: twr_runtime::parse::SectionValue> {
    #[section(from_str)]
    summary: GenericSummary,
    weeks: W,
}

/// A type with parameters keeps nothing (its values cannot be stored as
/// `'static`): it is read again, as before, and reads the same.
#[tokio::test]
async fn a_generic_type_is_read_again_and_gives_the_same_value() {
    let model = ScriptedModel::new(["[Summary]\nShip the beta\n[Weeks]\nmany", "[Weeks]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Generic<u32>>("Plan the release")
        .await
        .unwrap();
    assert_eq!(
        outcome.value.summary,
        GenericSummary("Ship the beta".into())
    );
    assert_eq!(outcome.value.weeks, 3);
    assert_eq!(GENERIC_READS.load(Ordering::SeqCst), 2);
}

#[derive(Debug, PartialEq, Deserialize)]
struct Budget {
    total: u32,
}

#[derive(Debug, Sections)]
struct Costed {
    #[section(json)]
    budget: Budget,
    weeks: u32,
}

/// A JSON section kept from an earlier reply keeps the record of how its
/// JSON was read: the merged value's ledger entry still says so.
#[tokio::test]
async fn a_kept_json_section_keeps_its_repairs_in_the_ledger() {
    let model = ScriptedModel::new(["[Budget]\n{'total': 500,}\n[Weeks]\nmany", "[Weeks]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Costed>("Cost the release")
        .await
        .unwrap();
    assert_eq!(outcome.value.budget, Budget { total: 500 });
    assert_eq!(outcome.value.weeks, 3);
    assert_eq!(
        outcome.attempts[1].json,
        [JsonProvenance::new(
            "[Budget]",
            Report::new(
                Layer::Repair,
                vec![Repair::TrailingComma, Repair::SingleQuotes]
            )
        )]
    );
}
