//! The durable journal against a real OpenAI-compatible
//! server on 127.0.0.1: a `run_many` dropped mid-job (its future dropped,
//! or the task running it aborted) and run again in a fresh `Think`
//! replays every reply that reached it and asks only for the rest (the
//! server's per-request counts prove that nothing that reached the first
//! process is asked twice); the response cache answers a rerun
//! of unchanged prompts with no request at all, and a changed option is a
//! new request; a full or read-only journal ends the run with the reply
//! kept and the journal's error.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::{Journal, JournalError};
use twr_runtime::model::Served;

use twr_runtime::{AttemptKind, ModelError, OpenAiCompatible, ScriptedModel, Sections, Think};

use crate::support::backends::{self, Backend};

#[derive(Debug, PartialEq, Sections)]
struct Pair {
    /// A number.
    number: u32,
    /// A word.
    word: String,
}

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// A chat completions server: "item N" is answered with 2N, except that
/// the first ask of an odd N gets a reply that needs a retry. Counts each
/// distinct request body; while `hold` is set, requests for items from 10
/// on never get an answer (the process is killed while they hang).
#[derive(Clone, Default)]
struct Server {
    counts: Arc<Mutex<HashMap<String, u32>>>,
    hold: Arc<AtomicBool>,
    /// Requests held so far.
    held: Arc<AtomicUsize>,
}

impl Server {
    async fn start(&self) -> String {
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("{origin}/v1")
    }

    fn total(&self) -> u32 {
        self.counts.lock().unwrap().values().sum()
    }

    fn counts(&self) -> Vec<u32> {
        let mut counts: Vec<u32> = self.counts.lock().unwrap().values().copied().collect();
        counts.sort();
        counts
    }
}

async fn answer(State(server): State<Server>, Json(body): Json<Value>) -> Json<Value> {
    *server
        .counts
        .lock()
        .unwrap()
        .entry(body["messages"].to_string())
        .or_default() += 1;
    let messages = body["messages"].as_array().unwrap();
    let first = messages[0]["content"].as_str().unwrap();
    let n: u32 = first
        .strip_prefix("item ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    if n >= 10 && server.hold.load(Ordering::SeqCst) {
        server.held.fetch_add(1, Ordering::SeqCst);
        std::future::pending::<()>().await;
    }
    let content = if n % 2 == 1 && messages.len() == 1 {
        "[Number]\nabout that".to_string()
    } else {
        format!("[Number]\n{}", 2 * n)
    };
    Json(json!({
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    }))
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("twr-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("journal.twr")
}

fn prompts() -> Vec<String> {
    (0..20).map(|n| format!("item {n}")).collect()
}

fn prices() -> Prices {
    Prices::new().with("doubler", Price::per_million(1.0, 10.0))
}

#[tokio::test]
async fn a_killed_run_many_resumes_without_asking_twice() {
    for backend in backends::all("resume").await {
        let server = Server::default();
        let url = server.start().await;
        server.hold.store(true, Ordering::SeqCst);

        // The first process: items 0-9 end (the odd ones after a retry), items
        // 10-13 hang at the server; it is killed once ten runs have ended and
        // the four hanging requests have reached the server.
        let done = AtomicUsize::new(0);
        {
            let journal = backend.open().await;
            let model = OpenAiCompatible::new(&url, "doubler");
            let think = Think::new(&model)
                .journal(journal.job("doubling"))
                .prices(prices())
                .concurrency(4)
                .on_progress(|p| done.store(p.done, Ordering::SeqCst));
            let killed = async {
                for _ in 0..2_000 {
                    if done.load(Ordering::SeqCst) == 10 && server.held.load(Ordering::SeqCst) == 4
                    {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                panic!("ten runs did not end within 10 s");
            };
            tokio::select! {
                _ = think.run_many::<Doubled>(prompts()) => panic!("the held runs cannot end"),
                _ = killed => {}
            }
            let outcomes = journal.job("doubling").outcomes().await.unwrap();
            assert_eq!(outcomes.len(), 10);
            assert!(outcomes.iter().all(|o| o.ok && o.index < 10));
        }
        // 10 items, 5 of them retried, and the 4 requests that hang.
        assert_eq!(server.total(), 10 + 5 + 4);
        let recorded = backend
            .open()
            .await
            .job("doubling")
            .replies()
            .await
            .unwrap();
        assert_eq!(recorded, 15);

        resume(&server, &url, &backend).await;
    }
}

/// The second process of a killed job whose items 0-9 ended and whose
/// items 10-13 hung at the server: a new journal handle, model and Think
/// finish the job, replaying what the journal holds.
async fn resume(server: &Server, url: &str, backend: &Backend) {
    server.hold.store(false, Ordering::SeqCst);
    let journal = backend.open().await;
    let model = OpenAiCompatible::new(url, "doubler");
    let results = Think::new(&model)
        .journal(journal.job("doubling"))
        .prices(prices())
        .concurrency(4)
        .run_many::<Doubled>(prompts())
        .await;
    let values: Vec<u32> = results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect();
    assert_eq!(values, (0..20).map(|n| 2 * n).collect::<Vec<_>>());
    // Items 0-9 came from the journal; 10-19 from the model.
    for (n, result) in results.iter().enumerate() {
        let served: Vec<Served> = result
            .as_ref()
            .unwrap()
            .attempts
            .iter()
            .map(|a| a.served.clone())
            .collect();
        let expected = if n < 10 {
            Served::Journal
        } else {
            Served::Live
        };
        let attempts = if n % 2 == 1 { 2 } else { 1 };
        assert_eq!(served, vec![expected; attempts], "item {n}");
    }
    // 15 + 4 + (10 items, 5 retried) = 34 requests in all; only the 4 that
    // hung when the first process died were sent twice.
    assert_eq!(server.total(), 15 + 4 + 15);
    let counts = server.counts();
    assert_eq!(counts.len(), 30);
    assert_eq!(counts.iter().filter(|&&c| c == 2).count(), 4);
    assert_eq!(counts.iter().filter(|&&c| c == 1).count(), 26);
    // Every run is recorded, and the job's cost is each reply paid once:
    // 30 replies of 100 in and 10 out at $1 and $10 per million.
    let outcomes = journal.job("doubling").outcomes().await.unwrap();
    assert_eq!(outcomes.len(), 20);
    let cost: f64 = results
        .iter()
        .map(|r| r.as_ref().unwrap().cost().unwrap())
        .sum();
    assert!((cost - 30.0 * 200.0 / 1e6).abs() < 1e-12, "{cost}");

    // A third run of the finished job asks nothing.
    let results = Think::new(&model)
        .journal(journal.job("doubling"))
        .run_many::<Doubled>(prompts())
        .await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(server.total(), 34);
}

#[tokio::test]
async fn a_run_many_whose_task_is_aborted_resumes_without_asking_twice() {
    for backend in backends::all("resume-abort").await {
        let server = Server::default();
        let url = server.start().await;
        server.hold.store(true, Ordering::SeqCst);

        // The first process runs the job on a task of its own, aborted once ten
        // runs have ended and the four hanging requests reached the server.
        let journal = backend.open().await;
        let done = Arc::new(AtomicUsize::new(0));
        let seen = done.clone();
        let think = Think::new(OpenAiCompatible::new(&url, "doubler"))
            .journal(journal.job("doubling"))
            .prices(prices())
            .concurrency(4)
            .on_progress(move |p| seen.store(p.done, Ordering::SeqCst));
        let task = tokio::spawn(async move { think.run_many::<Doubled>(prompts()).await });
        for _ in 0..2_000 {
            if done.load(Ordering::SeqCst) == 10 && server.held.load(Ordering::SeqCst) == 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(
            done.load(Ordering::SeqCst),
            10,
            "ten runs did not end within 10 s"
        );
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        assert_eq!(journal.job("doubling").outcomes().await.unwrap().len(), 10);
        assert_eq!(journal.job("doubling").replies().await.unwrap(), 15);
        assert_eq!(server.total(), 10 + 5 + 4);

        resume(&server, &url, &backend).await;
    }
}

#[tokio::test]
async fn the_response_cache_answers_unchanged_requests() {
    for backend in backends::all("cache").await {
        let server = Server::default();
        let url = server.start().await;
        let journal = backend.open().await;
        let prompts = ["item 2", "item 3", "item 4"];
        let model = OpenAiCompatible::new(&url, "doubler").temperature(0.0);
        let first = Think::new(&model)
            .response_cache(journal.cache())
            .prices(prices())
            .run_many::<Doubled>(prompts)
            .await;
        assert!(first.iter().all(Result::is_ok));
        assert_eq!(server.total(), 4);
        assert_eq!(journal.cache().len().await.unwrap(), 4);

        let again = Think::new(&model)
            .response_cache(journal.cache())
            .prices(prices())
            .run_many::<Doubled>(prompts)
            .await;
        assert_eq!(
            server.total(),
            4,
            "a rerun of unchanged prompts asks nothing"
        );
        let outcome = again[1].as_ref().unwrap();
        assert_eq!(outcome.value, Doubled { number: 6 });
        assert!(outcome.attempts.iter().all(|a| a.served == Served::Cache));
        assert_eq!(outcome.cost(), Some(0.0));
        assert_eq!(outcome.usage.prompt_tokens, 200);

        // Another temperature is another request.
        let warmer = OpenAiCompatible::new(&url, "doubler").temperature(0.5);
        Think::new(&warmer)
            .response_cache(journal.cache())
            .run::<Doubled>("item 2")
            .await
            .unwrap();
        assert_eq!(server.total(), 5);
    }
}

#[tokio::test]
async fn a_full_or_read_only_journal_ends_the_run_with_the_reply_kept() {
    let server = Server::default();
    let url = server.start().await;
    let model = OpenAiCompatible::new(&url, "doubler");

    let path = temp_path("full");
    let journal = Journal::open(&path).unwrap();
    // Fill the file to its limit, then run.
    let size = std::fs::metadata(&path).unwrap().len().max(4096 * 8);
    let journal = journal.size_limit(size).unwrap();
    let error = Think::new(&model)
        .journal(journal.job("x".repeat(64 * 1024)))
        .run::<Doubled>("item 4")
        .await
        .unwrap_err();
    let model_error = error.model_error().unwrap();
    assert_eq!(model_error.partial().unwrap().content, "[Number]\n8");
    let ModelError::Incomplete { source, .. } = model_error else {
        panic!("{model_error:?}")
    };
    let ModelError::Other(inner) = &**source else {
        panic!("{source:?}")
    };
    let journal_error = inner.downcast_ref::<JournalError>().unwrap();
    assert!(
        matches!(journal_error, JournalError::Full { .. }),
        "{journal_error:?}"
    );
    assert!(
        crate::support::report(&error).contains("cannot grow"),
        "{error}"
    );

    let path = temp_path("read-only");
    drop(Journal::open(&path).unwrap());
    let journal = Journal::open_read_only(&path).unwrap();
    let error = Think::new(&model)
        .journal(journal.job("j"))
        .run::<Doubled>("item 4")
        .await
        .unwrap_err();
    let model_error = error.model_error().unwrap();
    assert_eq!(model_error.partial().unwrap().content, "[Number]\n8");
    assert!(
        crate::support::report(&error).contains("is read-only"),
        "{error}"
    );
}

#[tokio::test]
async fn a_streamed_reply_stopped_early_is_recorded_and_replayed_the_same() {
    for backend in backends::all("stopped-early").await {
        let journal = backend.open().await;
        let replies = [
            "[Number]\nmany\n[Word]\nhello",
            "[Number]\n4\n[Word]\nhello",
        ];
        let first = ScriptedModel::new(replies).chunk_size(4);
        let outcome = Think::new(&first)
            .journal(journal.job("pairs"))
            .run::<Pair>("A number and a word")
            .await
            .unwrap();
        let kinds: Vec<AttemptKind> = outcome.attempts.iter().map(|a| a.kind).collect();
        assert_eq!(kinds, [AttemptKind::Aborted, AttemptKind::Accepted]);
        // Stopped in the chunk that opened [Word], and recorded as read.
        assert_eq!(outcome.attempts[0].raw, "[Number]\nmany\n[Word]\nhel");
        assert_eq!(journal.job("pairs").replies().await.unwrap(), 2);

        // The job again: both replies from the journal, stopped at the same place.
        let second = ScriptedModel::new(Vec::<String>::new()).chunk_size(4);
        let again = Think::new(&second)
            .journal(journal.job("pairs"))
            .run::<Pair>("A number and a word")
            .await
            .unwrap();
        assert_eq!(second.calls(), 0);
        assert_eq!(again.value, outcome.value);
        let replayed: Vec<(AttemptKind, &str, Served)> = again
            .attempts
            .iter()
            .map(|a| (a.kind, a.raw.as_str(), a.served.clone()))
            .collect();
        assert_eq!(
            replayed,
            [
                (
                    AttemptKind::Aborted,
                    "[Number]\nmany\n[Word]\nhel",
                    Served::Journal
                ),
                (AttemptKind::Accepted, replies[1], Served::Journal),
            ]
        );
    }
}

#[tokio::test]
async fn the_escalation_model_answers_from_the_journal_too() {
    for backend in backends::all("escalated").await {
        let journal = backend.open().await;
        let prices = Prices::new().with("strong", Price::per_million(2.0, 8.0));
        let run = |cheap: ScriptedModel, strong: ScriptedModel| {
            let think = Think::new(Arc::new(cheap))
                .escalate_to(Arc::new(strong), 1)
                // A handle of its own, as a new process has.
                .journal(journal.job("escalated"))
                .prices(prices.clone());
            async move { think.run::<Doubled>("item 5").await }
        };
        let cheap = ScriptedModel::new(["ten"]).with_name("cheap");
        let strong = ScriptedModel::from_replies([twr_runtime::Reply::text("[Number]\n10")
            .with_usage(twr_runtime::Usage::new(1_000, 100))])
        .with_name("strong");
        let outcome = run(cheap, strong).await.unwrap();
        assert_eq!(outcome.value.number, 10);

        // Empty scripts: a call would fail the run.
        let again = run(
            ScriptedModel::new(Vec::<String>::new()).with_name("cheap"),
            ScriptedModel::new(Vec::<String>::new()).with_name("strong"),
        )
        .await
        .unwrap();
        let attempts: Vec<(&str, Served, Option<f64>)> = again
            .attempts
            .iter()
            .map(|a| (a.model.as_str(), a.served.clone(), a.cost))
            .collect();
        // The strong reply's cost is the one recorded: 1,000 x 2 + 100 x 8.
        assert_eq!(
            attempts,
            [
                ("cheap", Served::Journal, None),
                ("strong", Served::Journal, Some(0.0028))
            ]
        );
    }
}
