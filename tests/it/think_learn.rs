//! Learning from what worked: a run with a journal job records the value it
//! ends with (the prompt as written, the answer in the soft format, never a
//! refused one), and a `Think` given jobs by name shows the earlier prompts
//! most like a new one, with their answers, as earlier turns; picked
//! deterministically, only of the same type, only from the jobs passed.
//! Against real SQLite files in a temporary directory.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::json;
use twr_runtime::grammar::Format;
use twr_runtime::journal::{Job, Journal, TypedRun};
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::{ChatModel, Message, ModelError, Reply, ScriptedModel, Sections, Think};

#[derive(Debug, PartialEq, serde::Serialize, Sections)]
struct Trip {
    /// The city.
    city: String,
    /// How many days.
    #[section(validate = at_most_a_fortnight)]
    days: u32,
}

fn at_most_a_fortnight(days: &u32) -> Result<(), String> {
    if *days > 14 {
        return Err(format!("{days} days is too long; plan 14 or fewer"));
    }
    Ok(())
}

/// Another type: the same first header, another second one.
#[derive(Debug, Sections)]
struct Stay {
    /// The city.
    city: String,
    /// How many nights.
    nights: u32,
}

/// The same headers as `Trip`, but its days are text: another shape.
#[derive(Debug, Sections)]
struct TripNotes {
    /// The city.
    city: String,
    /// The days, in words.
    days: String,
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twr-it-learn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn journal(name: &str) -> Journal {
    Journal::open(temp_dir(name).join("journal.twr")).unwrap()
}

/// Runs `prompt` for a `T` in `job`, the model answering `replies`.
async fn record<T: Sections>(job: &Job, prompt: &str, replies: &[&str]) -> T {
    let model = ScriptedModel::new(replies.iter().map(|r| r.to_string()));
    Think::new(&model)
        .journal(job.clone())
        .max_attempts(replies.len())
        .run::<T>(prompt)
        .await
        .unwrap()
        .value
}

async fn runs(job: &Job) -> Vec<(String, String, bool, usize)> {
    job.typed_runs::<Trip>()
        .await
        .unwrap()
        .into_iter()
        .map(
            |TypedRun {
                 prompt,
                 answer,
                 constrained,
                 attempts,
                 ..
             }| { (prompt, answer, constrained, attempts) },
        )
        .collect()
}

fn owned(runs: &[(&str, &str, bool, usize)]) -> Vec<(String, String, bool, usize)> {
    runs.iter()
        .map(|(p, a, c, n)| (p.to_string(), a.to_string(), *c, *n))
        .collect()
}

#[tokio::test]
async fn a_typed_run_is_recorded_with_its_prompt_and_the_answer_in_sections() {
    let journal = journal("recorded");
    let job = journal.job("trips");
    // Words around the sections, and the sections out of order.
    record::<Trip>(
        &job,
        "A weekend in Kyoto, please.",
        &["Sure! Here it is.\n[Days]\n2\n[City]\nKyoto"],
    )
    .await;
    // A patch retry: the answer kept is the merged one.
    record::<Trip>(
        &job,
        "Nara, briefly.",
        &["[City]\nNara\n[Days]\none", "[Days]\n1"],
    )
    .await;
    assert_eq!(
        runs(&job).await,
        owned(&[
            (
                "A weekend in Kyoto, please.",
                "[City]\nKyoto\n\n[Days]\n2",
                false,
                1
            ),
            ("Nara, briefly.", "[City]\nNara\n\n[Days]\n1", false, 2),
        ])
    );
    // A run without a journal records nothing; a run of another type
    // is not a run of this one.
    let model = ScriptedModel::new(["[City]\nOsaka\n[Days]\n3"]);
    Think::new(&model).run::<Trip>("Osaka").await.unwrap();
    let stay = record::<Stay>(&job, "Osaka stay", &["[City]\nOsaka\n[Nights]\n2"]).await;
    assert_eq!((stay.city.as_str(), stay.nights), ("Osaka", 2));
    assert_eq!(runs(&job).await.len(), 2);
    assert_eq!(
        job.typed_runs::<Stay>().await.unwrap()[0].answer,
        "[City]\nOsaka\n\n[Nights]\n2"
    );
}

/// A type with an optional section.
#[derive(Debug, Sections)]
struct Visit {
    /// The city.
    city: String,
    /// A note, if there is one.
    note: Option<String>,
}

#[tokio::test]
async fn an_optional_section_left_out_is_recorded_as_the_guide_asks() {
    let job = journal("optional").job("visits");
    let visit = record::<Visit>(&job, "Kyoto, no notes.", &["[City]\nKyoto"]).await;
    assert_eq!((visit.city.as_str(), visit.note), ("Kyoto", None));
    record::<Visit>(&job, "Nara, with a note.", &["[City]\nNara\n[Note]\nDeer"]).await;
    let answers: Vec<(String, String)> = job
        .typed_runs::<Visit>()
        .await
        .unwrap()
        .into_iter()
        .map(|run| (run.prompt, run.answer))
        .collect();
    // Shown as a demonstration, the first teaches the model to write every
    // section, as the guide asks, not to skip one.
    assert_eq!(
        answers,
        [
            (
                "Kyoto, no notes.".to_string(),
                "[City]\nKyoto\n\n[Note]\nN/A".to_string()
            ),
            (
                "Nara, with a note.".to_string(),
                "[City]\nNara\n\n[Note]\nDeer".to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn a_value_a_validator_or_the_check_refused_is_never_recorded() {
    let journal = journal("refused");
    let job = journal.job("trips");
    // The validator refuses 20 days; the merged answer with 3 is kept.
    record::<Trip>(
        &job,
        "Kyoto for a while",
        &["[City]\nKyoto\n[Days]\n20", "[Days]\n3"],
    )
    .await;
    // The check refuses Rome; the whole second answer is kept.
    let model = ScriptedModel::new(["[City]\nRome\n[Days]\n4", "[City]\nNara\n[Days]\n5"]);
    let think = Think::new(&model).journal(job.clone());
    let checked = think.check(|trip: &Trip| {
        let rome = trip.city == "Rome";
        async move {
            if rome {
                Err("Rome is not in Japan; pick a Japanese city.")
            } else {
                Ok(())
            }
        }
    });
    checked.run("Somewhere old").await.unwrap();
    // Values the check refused to the end: nothing is recorded.
    let model = ScriptedModel::new(["[City]\nRome\n[Days]\n4", "[City]\nRome\n[Days]\n5"]);
    let think = Think::new(&model).journal(job.clone()).max_attempts(2);
    let checked = think.check(|trip: &Trip| {
        let rome = trip.city == "Rome";
        async move {
            if rome {
                Err("Rome is not in Japan; pick a Japanese city.")
            } else {
                Ok(())
            }
        }
    });
    checked.run("Somewhere Roman").await.unwrap_err();
    // A run that never got an accepted value records nothing.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n30", "[City]\nKyoto\n[Days]\n40"]);
    Think::new(&model)
        .journal(job.clone())
        .max_attempts(2)
        .run::<Trip>("Kyoto for a month")
        .await
        .unwrap_err();
    assert_eq!(
        runs(&job).await,
        owned(&[
            ("Kyoto for a while", "[City]\nKyoto\n\n[Days]\n3", false, 2),
            ("Somewhere old", "[City]\nNara\n\n[Days]\n5", false, 2),
        ])
    );
}

/// A model that takes grammars as a JSON schema and answers from a script.
struct JsonSchemaModel {
    replies: Mutex<VecDeque<&'static str>>,
}

impl ChatModel for JsonSchemaModel {
    fn call<'a>(
        &'a self,
        _request: Request<'a>,
    ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let reply = self.replies.lock().unwrap().pop_front();
        Box::pin(async move {
            let reply = reply.ok_or_else(|| ModelError::Config("the script ran out".into()))?;
            Ok(Response::from_reply(Reply::text(reply)))
        })
    }

    fn takes_grammar(&self) -> Option<Format> {
        Some(Format::JsonSchema)
    }
}

#[tokio::test]
async fn a_run_typed_only_under_the_grammar_teaches_the_free_format() {
    let journal = journal("constrained");
    let job = journal.job("tuning");
    let json = r#"{"reasoning": "Short trip.", "city": "Kyoto", "days": 2}"#;
    let model = JsonSchemaModel {
        replies: Mutex::new(VecDeque::from(["I would say a couple of days.", json])),
    };
    let outcome = Think::new(&model)
        .journal(job.clone())
        .max_attempts(2)
        .run::<Trip>("Two days in Kyoto")
        .await
        .unwrap();
    assert_eq!(
        outcome
            .attempts
            .iter()
            .map(|a| a.constrained)
            .collect::<Vec<_>>(),
        [false, true]
    );
    let soft = "[City]\nKyoto\n\n[Days]\n2";
    assert_eq!(
        runs(&job).await,
        owned(&[("Two days in Kyoto", soft, true, 2)])
    );

    // The next similar prompt sees it in sections, not in JSON.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n3"]);
    let outcome = Think::new(&model)
        .learn_from(&job)
        .run::<Trip>("Three days in Kyoto")
        .await
        .unwrap();
    let sent = &model.requests()[0];
    assert!(
        sent[0].content.starts_with("Two days in Kyoto\n\n"),
        "{sent:?}"
    );
    assert_eq!(sent[1], Message::assistant(soft));
    assert_eq!(outcome.learned.len(), 1);
    assert_eq!(outcome.learned[0].prompt, "Two days in Kyoto");
}

/// An answer that talks about the format instead of answering it (it names
/// a header, copies the guide, holds a slot or repeats a line) is recorded,
/// since its value was typed, but never shown: the next prompt sees the
/// fit answer instead, even a less similar one.
#[tokio::test]
async fn answers_that_copy_the_format_are_never_shown() {
    let journal = journal("unfit");
    let job = journal.job("tuning");
    let junk = "[City]\nKyoto, as the [Days] section says\n[Days]\n2";
    let _: Trip = record(&job, "Two days in Kyoto", &[junk]).await;
    let _: Trip = record(
        &job,
        "Two days in Nara",
        &["[City]\nNara, a fine city\nNara, a fine city\n[Days]\n2"],
    )
    .await;
    let _: Trip = record(&job, "Three nights in Osaka", &["[City]\nOsaka\n[Days]\n3"]).await;
    assert_eq!(runs(&job).await.len(), 3);
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&job)
        .run::<Trip>("Two days in Kyoto in May")
        .await
        .unwrap();
    let shown: Vec<&str> = outcome.learned.iter().map(|l| l.prompt.as_str()).collect();
    assert_eq!(shown, ["Three nights in Osaka"]);
    let sent = &model.requests()[0];
    assert_eq!(sent[1], Message::assistant("[City]\nOsaka\n\n[Days]\n3"));
}

/// A store of runs in three jobs of one file, and runs of other types.
async fn store(journal: &Journal) -> (Job, Job) {
    let trips = journal.job("trips");
    let more = journal.job("more");
    let private = journal.job("private");
    let trip = |city: &str, days: u32| format!("[City]\n{city}\n[Days]\n{days}");
    for (prompt, city, days) in [
        ("A weekend of temples in Kyoto.", "Kyoto", 2),
        ("a weekend of temples in kyoto", "Kyoto", 3),
        ("Three days of temples in Nara", "Nara", 3),
        ("Osaka street food for a weekend", "Osaka", 2),
        ("Skiing in Sapporo for five days", "Sapporo", 5),
    ] {
        record::<Trip>(&trips, prompt, &[&trip(city, days)]).await;
    }
    record::<Trip>(
        &more,
        "Temples in Kyoto for a long weekend",
        &[&trip("Kyoto", 4)],
    )
    .await;
    record::<Trip>(
        &more,
        "A weekend of temples in Kyoto.",
        &[&trip("Kyoto", 9)],
    )
    .await;
    // The closest prompts of all, where they must never be read from.
    record::<Trip>(
        &private,
        "Temples in Kyoto for a weekend!",
        &[&trip("Kyoto", 7)],
    )
    .await;
    record::<Stay>(
        &trips,
        "Temples in Kyoto for a weekend!",
        &["[City]\nKyoto\n[Nights]\n2"],
    )
    .await;
    let notes = record::<TripNotes>(
        &trips,
        "Temples in Kyoto for a weekend!",
        &["[City]\nKyoto\n[Days]\ntwo"],
    )
    .await;
    assert_eq!((notes.city.as_str(), notes.days.as_str()), ("Kyoto", "two"));
    (trips, more)
}

const PROMPT: &str = "Temples in Kyoto for a weekend";

#[tokio::test]
async fn the_k_most_similar_earlier_prompts_of_the_jobs_passed_are_shown_before_the_history() {
    let journal = journal("picks");
    let (trips, more) = store(&journal).await;
    let picks = |outcome: &twr_runtime::Outcome<Trip>| -> Vec<(String, String, f64)> {
        outcome
            .learned
            .iter()
            .map(|l| (l.job.clone(), l.prompt.clone(), l.similarity))
            .collect()
    };
    let expected = |items: &[(&str, &str, f64)]| -> Vec<(String, String, f64)> {
        items
            .iter()
            .map(|(j, p, s)| (j.to_string(), p.to_string(), *s))
            .collect()
    };

    // Default k = 2: the two most alike, shown (and in the ledger) best
    // last, next to the prompt.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&trips)
        .learn_from(&more)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        picks(&outcome),
        expected(&[
            ("trips", "A weekend of temples in Kyoto.", 50.0 / 59.0),
            ("more", "Temples in Kyoto for a long weekend", 58.0 / 65.0),
        ])
    );

    // k = 4, with a system message and history: ties go to the job passed
    // first (the same prompt in `more` is left out), then to the prompt
    // first in byte order.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let history = [Message::user("Hi"), Message::assistant("Hello!")];
    let outcome = Think::new(&model)
        .system("You plan trips.")
        .history(&history)
        .learn_from(&trips)
        .learn_from(&more)
        .learned_demonstrations(4)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let picked = expected(&[
        ("trips", "Osaka street food for a weekend", 26.0 / 61.0),
        ("trips", "a weekend of temples in kyoto", 50.0 / 59.0),
        ("trips", "A weekend of temples in Kyoto.", 50.0 / 59.0),
        ("more", "Temples in Kyoto for a long weekend", 58.0 / 65.0),
    ]);
    assert_eq!(picks(&outcome), picked);
    let sent = &model.requests()[0];
    let shape: Vec<(String, String)> = sent
        .iter()
        .map(|m| {
            let first = m.content.lines().next().unwrap_or_default().to_string();
            (m.role.to_string(), first)
        })
        .collect();
    let line = |role: &str, text: &str| (role.to_string(), text.to_string());
    assert_eq!(
        shape,
        [
            line("system", "You plan trips."),
            line("user", "Osaka street food for a weekend"),
            line("assistant", "[City]"),
            line("user", "a weekend of temples in kyoto"),
            line("assistant", "[City]"),
            line("user", "A weekend of temples in Kyoto."),
            line("assistant", "[City]"),
            line("user", "Temples in Kyoto for a long weekend"),
            line("assistant", "[City]"),
            line("user", "Hi"),
            line("assistant", "Hello!"),
            line("user", PROMPT),
        ]
    );
    assert_eq!(sent[4], Message::assistant("[City]\nKyoto\n\n[Days]\n3"));
    assert_eq!(sent[6], Message::assistant("[City]\nKyoto\n\n[Days]\n2"));
    assert_eq!(sent[8], Message::assistant("[City]\nKyoto\n\n[Days]\n4"));

    // The same store and prompt give the same picks, in a journal opened
    // again too; the picks are in the serialized ledger.
    let again = Journal::open(journal.path().unwrap()).unwrap();
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&again.job("trips"))
        .learn_from(&again.job("more"))
        .learned_demonstrations(4)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(picks(&outcome), picked);
    let ledger = serde_json::to_value(&outcome).unwrap();
    assert_eq!(
        ledger["learned"][3],
        json!({"job": "more", "prompt": "Temples in Kyoto for a long weekend", "similarity": 58.0 / 65.0})
    );
    assert_eq!(ledger["learned"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn other_types_and_jobs_not_passed_are_never_shown() {
    let journal = journal("boundaries");
    let (trips, _more) = store(&journal).await;
    // `private` and the other types hold "Temples in Kyoto for a weekend!",
    // the closest prompt of the file: a run learning from `trips` alone
    // never shows it.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&trips)
        .learned_demonstrations(10)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let prompts: Vec<&str> = outcome.learned.iter().map(|l| l.prompt.as_str()).collect();
    assert_eq!(
        prompts,
        [
            "Skiing in Sapporo for five days",
            "Three days of temples in Nara",
            "Osaka street food for a weekend",
            "a weekend of temples in kyoto",
            "A weekend of temples in Kyoto.",
        ]
    );
    let sent: String = model.requests()[0]
        .iter()
        .map(|m| m.content.as_str().to_string())
        .collect();
    assert!(!sent.contains("weekend!"), "{sent}");
    assert!(!sent.contains("[Nights]"), "{sent}");

    // A run of another type learns only from runs of its own type.
    let model = ScriptedModel::new(["[City]\nKyoto\n[Nights]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&trips)
        .run::<Stay>(PROMPT)
        .await
        .unwrap();
    let prompts: Vec<&str> = outcome.learned.iter().map(|l| l.prompt.as_str()).collect();
    assert_eq!(prompts, ["Temples in Kyoto for a weekend!"]);
    assert_eq!(
        model.requests()[0][1],
        Message::assistant("[City]\nKyoto\n\n[Nights]\n2")
    );

    // A run that fails keeps its picks in the error.
    let model = ScriptedModel::new(["no", "still no"]);
    let error = Think::new(&model)
        .learn_from(&trips)
        .max_attempts(2)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    let prompts: Vec<&str> = error.learned().iter().map(|l| l.prompt.as_str()).collect();
    assert_eq!(
        prompts,
        [
            "a weekend of temples in kyoto",
            "A weekend of temples in Kyoto."
        ]
    );
    assert_eq!(
        serde_json::to_value(&error).unwrap()["learned"][1]["prompt"],
        "A weekend of temples in Kyoto."
    );
}

/// The schema version SQLite keeps in the file's header (`PRAGMA
/// user_version`: four bytes, big-endian, at offset 60).
fn user_version(path: &std::path::Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    u32::from_be_bytes(bytes[60..64].try_into().unwrap())
}

#[tokio::test]
async fn a_version_1_journal_opens_and_keeps_its_records() {
    // Written by twr before typed runs were recorded: job "sums", two runs
    // of `run_many` (one re-asked), three replies.
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/it/fixtures/journal-v1.twr");
    let dir = temp_dir("v1");
    let path = dir.join("journal.twr");
    std::fs::copy(fixture, &path).unwrap();
    assert_eq!(user_version(&path), 1);

    // Read-only, it is read as it is and left as it is.
    let read_only = Journal::open_read_only(&path).unwrap();
    let sums = read_only.job("sums");
    assert_eq!(sums.replies().await.unwrap(), 3);
    assert!(sums.typed_runs::<Trip>().await.unwrap().is_empty());
    let model = ScriptedModel::new(["[City]\nKyoto\n[Days]\n2"]);
    let outcome = Think::new(&model)
        .learn_from(&sums)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert!(outcome.learned.is_empty());
    drop((sums, read_only));
    assert_eq!(user_version(&path), 1);

    // Opened for writing, it gains the table of typed runs and keeps
    // every record.
    let journal = Journal::open(&path).unwrap();
    let sums = journal.job("sums");
    assert_eq!(sums.replies().await.unwrap(), 3);
    let outcomes: Vec<(usize, bool, usize, Option<String>)> = sums
        .outcomes()
        .await
        .unwrap()
        .into_iter()
        .map(|o| (o.index, o.ok, o.attempts, o.final_reply))
        .collect();
    assert_eq!(
        outcomes,
        [
            (0, true, 1, Some("[Number]\n4".to_string())),
            (1, true, 2, Some("[Number]\n6".to_string())),
        ]
    );
    record::<Trip>(&sums, "Kyoto", &["[City]\nKyoto\n[Days]\n2"]).await;
    assert_eq!(
        runs(&sums).await,
        owned(&[("Kyoto", "[City]\nKyoto\n\n[Days]\n2", false, 1)])
    );
    drop((sums, journal));
    assert_eq!(user_version(&path), 6);
}
