//! Feedback that worked: a run with a journal job records, for every
//! problem its feedback named, how the message was worded and whether the
//! next reply fixed the section; `Job::feedback_rates` sums them per model,
//! problem, wording and constraint; `Think::feedback_wording` chooses the
//! wording of the first feedback. Against real SQLite files, with scripted
//! replies, so every count is exact.

use std::path::PathBuf;

use twr_runtime::feedback::Wording;
use twr_runtime::journal::{FeedbackRate, Job, Journal};
use twr_runtime::{AttemptKind, ScriptedModel, Sections, Think};

#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// The city.
    city: String,
    /// How many days.
    #[section(example = "3")]
    days: u32,
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twr-it-wording-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `prompt` for a `Trip` in `job` with `think`'s options, the model
/// (named `model`) answering `replies`; returns each attempt's kind and the
/// messages sent back.
async fn run(
    job: &Job,
    model: &str,
    prompt: &str,
    replies: &[&str],
    options: impl for<'m> FnOnce(Think<'m, &'m ScriptedModel>) -> Think<'m, &'m ScriptedModel>,
) -> (Vec<AttemptKind>, Vec<Option<String>>, ScriptedModel) {
    let mut scripted = ScriptedModel::new(replies.iter().map(|r| r.to_string())).with_name(model);
    // The large model takes grammars, so that its constrained attempt is
    // one (the ledger marks an attempt constrained only when the model
    // sends the grammar); the small one takes none, and by default none of
    // its attempts is constrained.
    if model == "large" {
        scripted = scripted.with_grammar_format(twr_runtime::grammar::Format::Gbnf);
    }
    let think = options(
        Think::new(&scripted)
            .journal(job.clone())
            .max_attempts(replies.len()),
    );
    let outcome = think.run::<Trip>(prompt).await.unwrap();
    let kinds = outcome.attempts.iter().map(|a| a.kind).collect();
    let sent = outcome
        .attempts
        .iter()
        .map(|a| a.sent_back.clone())
        .collect();
    drop(think);
    (kinds, sent, scripted)
}

async fn rates(job: &Job) -> Vec<(String, String, Wording, bool, u64, u64)> {
    job.feedback_rates()
        .await
        .unwrap()
        .into_iter()
        .map(
            |FeedbackRate {
                 model,
                 problem,
                 wording,
                 constrained,
                 sent,
                 fixed,
                 ..
             }| (model, problem, wording, constrained, sent, fixed),
        )
        .collect()
}

fn row(
    model: &str,
    problem: &str,
    wording: Wording,
    constrained: bool,
    sent: u64,
    fixed: u64,
) -> (String, String, Wording, bool, u64, u64) {
    (
        model.to_string(),
        problem.to_string(),
        wording,
        constrained,
        sent,
        fixed,
    )
}

#[tokio::test]
async fn every_feedback_is_counted_with_its_wording_and_whether_it_was_followed() {
    let dir = temp_dir("counted");
    let journal = Journal::open(dir.join("journal.twr")).unwrap();
    let job = journal.job("trips");

    // [Days] missing: a patch, in the listed wording, answered with a
    // number in words (not fixed); then a focused question, answered
    // (fixed).
    let (kinds, _, _) = run(
        &job,
        "small",
        "Three days in Kyoto",
        &["[City]\nKyoto", "[Days]\nabout three", "3"],
        |think| think,
    )
    .await;
    assert_eq!(
        kinds,
        [
            AttemptKind::Rejected,
            AttemptKind::Rejected,
            AttemptKind::Focused
        ]
    );
    // Both sections wrong, both fixed by the patch; a first try records
    // nothing.
    run(
        &job,
        "small",
        "Two days in Nara",
        &["[City]\n\n[Days]\ntwo-ish", "[City]\nNara\n[Days]\n2"],
        |think| think,
    )
    .await;
    // Both wrong (none valid: the whole answer is asked for); the answer
    // fixes [City] only, then a patch of [Days] fixes it.
    run(
        &job,
        "small",
        "Soon in Lisbon",
        &[
            "[City]\n\n[Days]\nsoon",
            "[City]\nLisbon\n[Days]\nsoon",
            "5",
        ],
        |think| think,
    )
    .await;
    run(&job, "small", "Osaka", &["[City]\nOsaka\n[Days]\n1"], |t| t).await;
    // Another model, its second attempt constrained.
    run(
        &job,
        "large",
        "Four days in Rome",
        &["[City]\nRome", "[Days]\n4"],
        |think| think.constrain_after(1),
    )
    .await;

    assert_eq!(
        rates(&job).await,
        [
            row("large", "missing", Wording::Listed, true, 1, 1),
            row("small", "bad_value", Wording::Focused, false, 1, 1),
            row("small", "bad_value", Wording::Listed, false, 3, 2),
            row("small", "empty", Wording::Listed, false, 2, 2),
            row("small", "missing", Wording::Listed, false, 1, 0),
        ]
    );
    // Jobs are counted apart.
    assert!(journal
        .job("other")
        .feedback_rates()
        .await
        .unwrap()
        .is_empty());

    // A resumption replays the first run from the journal: nothing is
    // counted twice.
    let resumed = journal.job("trips");
    let (kinds, _, scripted) = run(
        &resumed,
        "small",
        "Three days in Kyoto",
        &["never", "asked", "now"],
        |think| think,
    )
    .await;
    assert_eq!(kinds.len(), 3);
    assert!(scripted.requests().is_empty());
    assert_eq!(rates(&resumed).await, rates(&job).await);
    assert_eq!(
        rates(&resumed).await[4],
        row("small", "missing", Wording::Listed, false, 1, 0)
    );
}

#[tokio::test]
async fn a_program_chooses_the_wording_of_the_first_feedback() {
    let dir = temp_dir("chosen");
    let journal = Journal::open(dir.join("journal.twr")).unwrap();
    let replies = ["[City]\nKyoto", "[Days]\n3"];
    let prompt = "Three days in Kyoto";

    let listed = journal.job("listed");
    let (_, sent, _) = run(&listed, "m", prompt, &replies, |think| think).await;
    let listed_message = sent[0].clone().unwrap();
    assert_eq!(
        listed_message,
        "The [Days] section is missing. Please add it: the header [Days] on a line of its own, then a single whole number.\n\
         For example:\n[Days]\n3\n\n\
         Reply with only the corrected [Days] section, under its header on a line of its own; I have kept the rest of your answer."
    );

    // The same message, then the guide with its complete example.
    let example = journal.job("example");
    let (_, sent, scripted) = run(&example, "m", prompt, &replies, |think| {
        think.feedback_wording(Wording::WithExample)
    })
    .await;
    let first = scripted.requests()[0].last().unwrap().content.to_string();
    let guide = first.strip_prefix(&format!("{prompt}\n\n")).unwrap();
    assert_eq!(
        sent[0].as_deref().unwrap(),
        format!(
            "{listed_message}\n\nPlease follow the format exactly; here it is, with a complete example answer:\n\n{guide}"
        )
    );

    // A plain question about the one failing section.
    let focused = journal.job("focused");
    let (kinds, sent, _) = run(&focused, "m", prompt, &["[City]\nKyoto", "3"], |think| {
        think.feedback_wording(Wording::Focused)
    })
    .await;
    assert_eq!(kinds, [AttemptKind::Rejected, AttemptKind::Focused]);
    assert_eq!(
        sent[0].as_deref().unwrap(),
        "How many days. Reply with only the number, for example: 3."
    );

    assert_eq!(
        rates(&listed).await,
        [row("m", "missing", Wording::Listed, false, 1, 1)]
    );
    assert_eq!(
        rates(&example).await,
        [row("m", "missing", Wording::WithExample, false, 1, 1)]
    );
    assert_eq!(
        rates(&focused).await,
        [row("m", "missing", Wording::Focused, false, 1, 1)]
    );
    assert_eq!(focused.feedback_rates().await.unwrap()[0].rate(), 1.0);
}

/// The schema version SQLite keeps in the file's header (`PRAGMA
/// user_version`: four bytes, big-endian, at offset 60).
fn user_version(path: &std::path::Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    u32::from_be_bytes(bytes[60..64].try_into().unwrap())
}

/// The struct of the fixture's typed run.
#[derive(Debug, Sections)]
#[allow(dead_code)]
struct KyotoTrip {
    /// What to do.
    plan: String,
    /// When to do it.
    timeline: String,
    /// The total cost.
    budget: u32,
}

#[tokio::test]
async fn a_version_2_journal_opens_and_keeps_its_records() {
    // Written by twr before feedback was recorded: job "offline/baseline",
    // six runs of recorded replies (ten replies), one typed run kept.
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/it/fixtures/journal-v2.twr");
    let dir = temp_dir("v2");
    let path = dir.join("journal.twr");
    std::fs::copy(fixture, &path).unwrap();
    assert_eq!(user_version(&path), 2);
    let typed = "[Plan]\nMorning: Kiyomizu-dera\nEvening: Shirokura\n\n[Timeline]\nMorning: Nara\nEvening: Todosai-bozu\n\n[Budget]\n$210";

    // Read-only, it is read as it is and left as it is.
    let read_only = Journal::open_read_only(&path).unwrap();
    let job = read_only.job("offline/baseline");
    assert_eq!(job.replies().await.unwrap(), 10);
    assert!(job.feedback_rates().await.unwrap().is_empty());
    let runs = job.typed_runs::<KyotoTrip>().await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].answer, typed);
    drop((job, read_only));
    assert_eq!(user_version(&path), 2);

    // Opened for writing, it gains the table of feedback and keeps every
    // record.
    let journal = Journal::open(&path).unwrap();
    let job = journal.job("offline/baseline");
    assert_eq!(job.replies().await.unwrap(), 10);
    let runs = job.typed_runs::<KyotoTrip>().await.unwrap();
    assert_eq!(
        (runs[0].prompt.as_str(), runs[0].answer.as_str()),
        ("Plan a 3-day trip to Kyoto.", typed)
    );
    run(&job, "m", "Kyoto", &["[City]\nKyoto", "[Days]\n3"], |t| t).await;
    assert_eq!(
        rates(&job).await,
        [row("m", "missing", Wording::Listed, false, 1, 1)]
    );
    drop((job, journal));
    assert_eq!(user_version(&path), 6);
}
