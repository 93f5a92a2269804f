//! A batch job killed and resumed from its journal,
//! against the OpenAI batch emulator: the task running the job is aborted
//! while its second round runs, and a second run of the job replays round
//! one from the journal, waits for the batch the first run submitted, and
//! submits only what no batch asked yet (the emulator's counts prove that
//! no line went up twice). A journal that cannot take a record (read-only,
//! or full) ends each run with its reply kept and the journal's error.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use twr_runtime::batch::{BatchModel, OpenAiBatchApi};
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::{Job, Journal};
use twr_runtime::model::Served;
use twr_runtime::{OpenAiCompatible, RetryPolicy, Sections, Think};

use crate::support::openai_batch::{item_of, OpenAiBatchServer};

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// "item N" is 2N; an odd N's first answer needs a re-ask, and item 5's
/// re-ask needs another.
fn answer(body: &Value) -> String {
    let n = item_of(body);
    let messages = body["messages"].as_array().unwrap();
    let good = format!("[Number]\n{}", 2 * n);
    if messages.len() == 1 {
        return if n % 2 == 1 {
            "[Number]\nabout that".into()
        } else {
            good
        };
    }
    let replied = messages[messages.len() - 2]["content"].as_str().unwrap();
    if n == 5 && replied.contains("about that") {
        "[Number]\nroughly ten".into()
    } else {
        good
    }
}

fn prompts() -> Vec<String> {
    (0..12).map(|i| format!("item {i}")).collect()
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("twr-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("job.twr")
}

fn model(server: &OpenAiBatchServer, job: Job) -> BatchModel<OpenAiBatchApi> {
    let client = OpenAiCompatible::new(&server.url, "gpt-test").api_key("sk-batch-test");
    BatchModel::openai(client)
        .journal(job)
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5))
}

fn think<M: twr_runtime::ChatModel>(model: M, job: Job) -> Think<'static, M> {
    Think::new(model)
        .journal(job)
        .concurrency(12)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .prices(Prices::new().with("gpt-test", Price::per_million(2.0, 8.0).batch_discount(0.5)))
}

fn served(outcome: &twr_runtime::Outcome<Doubled>) -> Vec<String> {
    outcome
        .attempts
        .iter()
        .map(|a| match &a.served {
            Served::Batch { batch_id, .. } => batch_id.clone(),
            Served::Journal => "journal".into(),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_batch_job_aborted_in_its_second_round_resumes_without_asking_twice() {
    let server = OpenAiBatchServer::start(answer, vec![]).await;
    let path = temp_path("batch-abort");
    // Round one runs; round two's batch stays in progress.
    server.hold_from.store(2, Ordering::SeqCst);
    let journal = Journal::open(&path).unwrap();
    let job = journal.job("doubling");
    let first = think(model(&server, job.clone()), job.clone());
    let task = tokio::spawn(async move { first.run_many::<Doubled>(prompts()).await });
    for _ in 0..2_000 {
        if server.batches() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        server.batches(),
        2,
        "round two was not submitted within 10 s"
    );
    // Long enough for the submitted batch to be journaled.
    tokio::time::sleep(Duration::from_millis(100)).await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    // Round one's 12 replies are in the journal; round two's 6 lines went
    // up and were never run.
    assert_eq!(job.replies().await.unwrap(), 12);
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (2, 2, 12)
    );

    // The second run: a fresh journal handle, model and Think.
    server.hold_from.store(0, Ordering::SeqCst);
    let journal = Journal::open(&path).unwrap();
    let job = journal.job("doubling");
    let batch = model(&server, job.clone());
    let results = think(&batch, job.clone())
        .run_many::<Doubled>(prompts())
        .await;
    let values: Vec<u32> = results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect();
    assert_eq!(values, (0..12).map(|n| 2 * n).collect::<Vec<_>>());
    // One batch more (item 5's second re-ask); round two's 6 lines ran in
    // the batch the first run submitted: 19 lines in all, each asked once.
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (3, 3, 19)
    );
    assert!(
        server.asked().iter().all(|&n| n == 1),
        "{:?}",
        server.asked()
    );
    assert_eq!(batch.rounds(), 1);
    let outcome = |n: usize| results[n].as_ref().unwrap();
    assert_eq!(served(outcome(4)), ["journal"]);
    assert_eq!(served(outcome(3)), ["journal", "batch_002"]);
    assert_eq!(served(outcome(5)), ["journal", "batch_002", "batch_003"]);
    // Every line paid once: 19 lines of (1,000 x $2 + 100 x $8) per
    // million at half price; a replayed attempt costs what it cost then.
    let cost: f64 = results
        .iter()
        .map(|r| r.as_ref().unwrap().cost().unwrap())
        .sum();
    assert!((cost - 19.0 * 0.0014).abs() < 1e-12, "{cost}");
    assert_eq!(job.outcomes().await.unwrap().len(), 12);
    assert_eq!(job.replies().await.unwrap(), 19);
}

#[tokio::test]
async fn a_read_only_or_full_journal_ends_each_batch_run_with_its_reply_kept() {
    let server = OpenAiBatchServer::start(answer, vec![]).await;

    let path = temp_path("batch-read-only");
    drop(Journal::open(&path).unwrap());
    let journal = Journal::open_read_only(&path).unwrap();
    let job = journal.job("doubling");
    let results = think(model(&server, job.clone()), job)
        .run_many::<Doubled>(prompts())
        .await;
    for (n, result) in results.iter().enumerate() {
        let error = result.as_ref().unwrap_err();
        assert!(
            crate::support::report(&error).contains("is read-only"),
            "{error}"
        );
        let reply = &error.model_error().unwrap().partial().unwrap().content;
        let expected = if n % 2 == 1 {
            "[Number]\nabout that".to_string()
        } else {
            format!("[Number]\n{}", 2 * n)
        };
        assert_eq!(*reply, expected, "item {n}");
    }
    // One batch: the replies that could not be recorded are not asked for
    // again.
    assert_eq!((server.batches(), server.lines()), (1, 12));

    let path = temp_path("batch-full");
    let journal = Journal::open(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len().max(4096 * 8);
    let journal = journal.size_limit(size).unwrap();
    let job = journal.job("x".repeat(64 * 1024));
    let results = think(model(&server, job.clone()), job)
        .run_many::<Doubled>(prompts())
        .await;
    for (n, result) in results.iter().enumerate() {
        let error = result.as_ref().unwrap_err();
        assert!(
            crate::support::report(&error).contains("cannot grow"),
            "{error}"
        );
        let reply = &error.model_error().unwrap().partial().unwrap().content;
        assert!(reply.starts_with("[Number]\n"), "item {n}: {reply}");
    }
    assert_eq!((server.batches(), server.lines()), (2, 24));
}
