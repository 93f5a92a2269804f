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

use crate::support::backends;
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
async fn a_read_only_or_full_journal_submits_no_batch_and_ends_each_run_with_its_error() {
    // A batch is recorded before it is created: one that cannot be
    // recorded is never submitted, so nothing is bought that the job could
    // not keep.
    let server = OpenAiBatchServer::start(answer, vec![]).await;

    let path = temp_path("batch-read-only");
    drop(Journal::open(&path).unwrap());
    let journal = Journal::open_read_only(&path).unwrap();
    let job = journal.job("doubling");
    let results = think(model(&server, job.clone()), job)
        .run_many::<Doubled>(prompts())
        .await;
    for result in &results {
        let error = result.as_ref().unwrap_err();
        assert!(
            crate::support::report(error).contains("is read-only"),
            "{error:#}"
        );
        assert!(error.model_error().unwrap().partial().is_none());
        assert!(error.attempts().is_empty());
    }
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (0, 0, 0)
    );

    let path = temp_path("batch-full");
    let journal = Journal::open(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len().max(4096 * 8);
    let journal = journal.size_limit(size).unwrap();
    let job = journal.job("x".repeat(64 * 1024));
    let results = think(model(&server, job.clone()), job)
        .run_many::<Doubled>(prompts())
        .await;
    for result in &results {
        let error = result.as_ref().unwrap_err();
        assert!(
            crate::support::report(error).contains("cannot grow"),
            "{error:#}"
        );
        assert!(error.attempts().is_empty());
    }
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (0, 0, 0)
    );
}

/// Waits up to 10 s for `done`.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..2_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{what} did not happen within 10 s");
}

fn values(results: &[Result<twr_runtime::Outcome<Doubled>, twr_runtime::ThinkError>]) -> Vec<u32> {
    results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect()
}

#[tokio::test]
async fn a_worker_killed_while_creating_a_batch_leaves_it_recorded_and_its_lines_are_asked_again_after_the_submit_timeout(
) {
    for backend in backends::all("batch-intent").await {
        let server = OpenAiBatchServer::start(answer, vec![]).await;
        server.hang_create.store(true, Ordering::SeqCst);
        let journal = backend.open().await;
        let job = journal.job("doubling");
        let first = think(model(&server, job.clone()), job.clone());
        // The submit timeout counts from when the dead worker recorded its
        // batch, which is after this instant and before its creation hung:
        // measured from here, a batch created before the timeout is a bug
        // whatever the load (measured from the second worker's start, a
        // loaded machine's slow restart made it look early).
        let started = tokio::time::Instant::now();
        let task = tokio::spawn(async move { first.run_many::<Doubled>(prompts()).await });
        until("the first batch's creation", || {
            server.hung.load(Ordering::SeqCst) == 1
        })
        .await;
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        assert_eq!(server.batches(), 0);
        drop(journal);

        // The next worker finds the 12 lines recorded as being submitted:
        // it waits for the dead worker's batch, and only once the submit
        // timeout has passed without its id does it ask them again.
        server.hang_create.store(false, Ordering::SeqCst);
        let journal = backend.open().await;
        let job = journal.job("doubling");
        let timeout = Duration::from_secs(2);
        let batch = model(&server, job.clone()).submit_timeout(timeout);
        let created = {
            let server = server.clone();
            tokio::spawn(async move {
                until("a batch's creation", || server.batches() >= 1).await;
                started.elapsed()
            })
        };
        let results = think(&batch, job.clone())
            .run_many::<Doubled>(prompts())
            .await;
        let first_created = created.await.unwrap();
        assert!(
            first_created >= timeout,
            "{backend:?}: a batch was created {first_created:?} after the dead worker began, before the submit timeout"
        );
        assert_eq!(values(&results), (0..12).map(|n| 2 * n).collect::<Vec<_>>());
        // Three rounds (12 first asks, 6 re-asks, item 5's second re-ask),
        // each line asked once: the dead worker's batch was never created.
        assert_eq!((server.batches(), server.lines()), (3, 19), "{backend:?}");
        assert!(
            server.asked().iter().all(|&n| n == 1),
            "{:?}",
            server.asked()
        );
    }
}

#[tokio::test]
async fn two_workers_batch_one_leased_job_and_no_line_is_submitted_twice() {
    for backend in backends::all("batch-fleet").await {
        let server = OpenAiBatchServer::start(answer, vec![]).await;
        let (one, two) = (backend.open().await, backend.open().await);
        let lease = Duration::from_secs(60);
        let (job_one, job_two) = (
            one.job("doubling").lease_for(lease),
            two.job("doubling").lease_for(lease),
        );
        let (model_one, model_two) = (
            model(&server, job_one.clone()),
            model(&server, job_two.clone()),
        );
        let (think_one, think_two) = (
            think(&model_one, job_one.clone()),
            think(&model_two, job_two.clone()),
        );
        let (first, second) = tokio::join!(
            think_one.run_many::<Doubled>(prompts()),
            think_two.run_many::<Doubled>(prompts()),
        );
        let right: Vec<u32> = (0..12).map(|n| 2 * n).collect();
        assert_eq!(values(&first), right, "{backend:?}");
        assert_eq!(values(&second), right, "{backend:?}");
        // 12 first asks, 6 re-asks and item 5's second: 19 lines, each
        // submitted once by one of the two workers.
        assert_eq!(server.lines(), 19, "{backend:?}");
        assert!(
            server.asked().iter().all(|&n| n == 1),
            "{:?}",
            server.asked()
        );
        assert_eq!(
            model_one.rounds() + model_two.rounds(),
            server.batches() as u32
        );
        let progress = job_one.progress().await.unwrap();
        assert_eq!(
            (progress.typed, progress.pending, progress.leased),
            (12, 0, 0)
        );
    }
}
