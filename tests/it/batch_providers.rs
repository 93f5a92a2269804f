//! Typed re-ask rounds over Anthropic's Message Batches and Gemini's batch
//! mode: one table of cases over both, against the
//! emulators in support/anthropic_batch.rs and support/gemini_batch.rs
//! (OpenAI's own cases are in batch_openai.rs). Round after round of
//! re-asks with results in input order, each attempt's batch and custom id,
//! cost at the batch discount; an expired half, errored lines and a
//! cancelled batch handled as the online loop handles those failures; a job
//! dropped while its batch runs, resumed from the journal without asking
//! anything twice (the emulator's counts prove it).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use twr_runtime::batch::{BatchApi, BatchModel};
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::{Job, Journal};
use twr_runtime::model::Served;
use twr_runtime::{Anthropic, Gemini, Outcome, RetryPolicy, Sections, Think, ThinkError};

use crate::support::anthropic_batch::{self, AnthropicBatchServer};
use crate::support::batch_core::{item_of, Core, Fault};
use crate::support::gemini_batch::{self, GeminiBatchServer};

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// "item N" is 2N; an odd N's first answer needs a re-ask, and item 5's
/// re-ask needs another (the request as chat messages).
fn answer(body: &serde_json::Value) -> String {
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

fn prompts(n: u32) -> Vec<String> {
    (0..n).map(|i| format!("item {i}")).collect()
}

#[derive(Clone, Copy, Debug)]
enum Api {
    Anthropic,
    Gemini,
}

const APIS: [Api; 2] = [Api::Anthropic, Api::Gemini];

type Results = Vec<Result<Outcome<Doubled>, ThinkError>>;

/// A running emulator of `api`.
struct Emulator {
    api: Api,
    core: Arc<Core>,
    url: String,
}

impl Emulator {
    async fn start(api: Api, faults: Vec<Fault>) -> Self {
        match api {
            Api::Anthropic => {
                let server = AnthropicBatchServer::start(answer, faults).await;
                Emulator {
                    api,
                    core: server.core,
                    url: server.url,
                }
            }
            Api::Gemini => {
                let server = GeminiBatchServer::start(answer, faults).await;
                Emulator {
                    api,
                    core: server.core,
                    url: server.url,
                }
            }
        }
    }

    /// The n-th batch's id as the provider names it.
    fn batch_id(&self, n: usize) -> String {
        match self.api {
            Api::Anthropic => format!("msgbatch_{n:03}"),
            Api::Gemini => format!("batches/b{n:03}"),
        }
    }

    /// Runs `n` prompts through a batch model of this API, with `job` as
    /// its journal if given; also the batches the model submitted.
    async fn run(&self, n: u32, job: Option<Job>) -> (Results, u32) {
        match self.api {
            Api::Anthropic => {
                let client =
                    Anthropic::new(anthropic_batch::KEY, "claude-test").base_url(&self.url);
                run(BatchModel::anthropic(client), "claude-test", n, job).await
            }
            Api::Gemini => {
                let client = Gemini::new(gemini_batch::KEY, "gemini-test").base_url(&self.url);
                run(BatchModel::gemini(client), "gemini-test", n, job).await
            }
        }
    }
}

async fn run<A: BatchApi>(
    model: BatchModel<A>,
    name: &str,
    n: u32,
    job: Option<Job>,
) -> (Results, u32) {
    let mut model = model
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5));
    if let Some(job) = &job {
        model = model.journal(job.clone());
    }
    let mut think = Think::new(&model)
        .concurrency(n as usize)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .prices(Prices::new().with(name, Price::per_million(2.0, 8.0).batch_discount(0.5)));
    if let Some(job) = job {
        think = think.journal(job);
    }
    let results = think.run_many::<Doubled>(prompts(n)).await;
    (results, model.rounds())
}

fn batch_ids(outcome: &Outcome<Doubled>) -> Vec<String> {
    outcome
        .attempts
        .iter()
        .map(|a| match &a.served {
            Served::Batch {
                batch_id,
                custom_id,
            } => {
                assert!(custom_id.starts_with("twr-"), "{custom_id}");
                batch_id.clone()
            }
            other => panic!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn three_rounds_of_typed_re_asks_in_input_order() {
    for api in APIS {
        let emulator = Emulator::start(api, vec![]).await;
        let (results, rounds) = emulator.run(12, None).await;
        let values: Vec<u32> = results
            .iter()
            .map(|r| r.as_ref().unwrap().value.number)
            .collect();
        assert_eq!(
            values,
            (0..12).map(|n| 2 * n).collect::<Vec<_>>(),
            "{api:?}"
        );
        // Round one: 12 prompts; round two: the 6 odd ones; round three:
        // item 5.
        let core = &emulator.core;
        assert_eq!(
            (core.batches(), core.lines(), rounds),
            (3, 19, 3),
            "{api:?}"
        );
        assert!(
            core.asked().iter().all(|&n| n == 1),
            "{api:?} {:?}",
            core.asked()
        );
        let ids = |n: usize| batch_ids(results[n].as_ref().unwrap());
        let id = |n| emulator.batch_id(n);
        assert_eq!(ids(4), [id(1)], "{api:?}");
        assert_eq!(ids(3), [id(1), id(2)], "{api:?}");
        assert_eq!(ids(5), [id(1), id(2), id(3)], "{api:?}");
        // Each attempt: (1,000 x $2 + 100 x $8) per million, at half price.
        let outcome = results[5].as_ref().unwrap();
        assert!(
            outcome.attempts.iter().all(|a| a.cost == Some(0.0014)),
            "{api:?}"
        );
        assert_eq!(outcome.usage.prompt_tokens, 3000, "{api:?}");
    }
}

#[tokio::test]
async fn an_expired_half_and_errored_lines_are_retried_as_online_failures() {
    for api in APIS {
        let faults = vec![
            Fault::ErrorLines(vec![(2, 500), (8, 400)]),
            Fault::ExpireHalf,
        ];
        let emulator = Emulator::start(api, faults).await;
        let (results, _) = emulator.run(10, None).await;
        for (n, result) in results.iter().enumerate() {
            if n == 8 {
                // A 400 line ends its run at once, as a 400 reply would.
                let error = result.as_ref().unwrap_err();
                assert!(
                    crate::support::report(&error).contains("HTTP 400: scripted 400 for item 8"),
                    "{api:?} {error}"
                );
                assert!(!error.model_error().unwrap().is_transient(), "{api:?}");
            } else {
                let value = result.as_ref().map(|o| o.value.number);
                assert_eq!(value.ok(), Some(2 * n as u32), "{api:?} item {n}");
            }
        }
        // Item 2's first request was answered with a server error and
        // asked again; the expired lines never ran, so every other request
        // ran once.
        let asked = emulator.core.asked();
        assert_eq!(asked.iter().filter(|&&n| n == 2).count(), 1, "{api:?}");
        assert!(asked.iter().all(|&n| n <= 2), "{api:?}");
        let retried = &results[2].as_ref().unwrap().attempts[0].transport_retries;
        assert_eq!(
            retried[0].error,
            "the reply broke off: the server reported an error: scripted 500 for item 2",
            "{api:?}"
        );
        // Round two (item 2 again and the five odd items' re-asks) expired
        // after half its lines; the other three went into round three.
        let expired: Vec<&str> = results
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .flat_map(|o| &o.attempts)
            .flat_map(|a| &a.transport_retries)
            .map(|r| r.error.as_str())
            .filter(|e| e.contains("expired"))
            .collect();
        assert_eq!(expired.len(), 3, "{api:?} {expired:?}");
        let expected = match api {
            Api::Anthropic => "the reply broke off: the batch expired before request twr-",
            Api::Gemini => {
                "the reply broke off: batch batches/b002 ended (expired) before request twr-"
            }
        };
        assert!(
            expired.iter().all(|e| e.starts_with(expected)),
            "{api:?} {expired:?}"
        );
        assert_eq!(emulator.core.batches(), 3, "{api:?}");
    }
}

#[tokio::test]
async fn a_cancelled_batch_ends_its_runs() {
    for api in APIS {
        let emulator = Emulator::start(api, vec![Fault::Cancelled]).await;
        let (results, _) = emulator.run(3, None).await;
        let expected = match api {
            Api::Anthropic => "request twr-",
            Api::Gemini => "batch batches/b001 ended (cancelled) before request twr-",
        };
        for result in &results {
            let error = result.as_ref().unwrap_err();
            assert!(
                crate::support::report(&error).contains(expected),
                "{api:?} {error}"
            );
            if let Api::Anthropic = api {
                assert!(
                    crate::support::report(&error).ends_with("was canceled with its batch"),
                    "{error}"
                );
            }
            assert!(!error.model_error().unwrap().is_transient(), "{api:?}");
        }
        assert_eq!(emulator.core.batches(), 1, "{api:?}");
        assert!(emulator.core.asked().is_empty(), "{api:?}");
    }
}

#[tokio::test]
async fn a_job_dropped_mid_round_resumes_from_the_journal_without_asking_twice() {
    for api in APIS {
        let emulator = Emulator::start(api, vec![]).await;
        let dir = std::env::temp_dir().join(format!(
            "twr-it-batch-providers-{api:?}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job.twr");
        emulator.core.hold.store(true, Ordering::SeqCst);
        {
            // The first process submits round one and dies while it runs.
            let journal = Journal::open(&path).unwrap();
            let submitted = async {
                for _ in 0..2_000 {
                    if emulator.core.batches() == 1 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                panic!("round one was not submitted within 10 s");
            };
            tokio::select! {
                _ = emulator.run(12, Some(journal.job("doubling"))) => {
                    panic!("the held batch cannot end")
                }
                _ = submitted => {}
            }
        }
        assert_eq!(emulator.core.batches(), 1, "{api:?}");

        // The second process: the same job; the batch runs to its end now.
        emulator.core.hold.store(false, Ordering::SeqCst);
        let journal = Journal::open(&path).unwrap();
        let (results, rounds) = emulator.run(12, Some(journal.job("doubling"))).await;
        let values: Vec<u32> = results
            .iter()
            .map(|r| r.as_ref().unwrap().value.number)
            .collect();
        assert_eq!(
            values,
            (0..12).map(|n| 2 * n).collect::<Vec<_>>(),
            "{api:?}"
        );
        // Round one was not submitted again: the second process waited for
        // the first batch, then submitted only the re-asks.
        let core = &emulator.core;
        assert_eq!(
            (core.batches(), core.lines(), rounds),
            (3, 19, 2),
            "{api:?}"
        );
        assert!(
            core.asked().iter().all(|&n| n == 1),
            "{api:?} {:?}",
            core.asked()
        );
        assert_eq!(
            batch_ids(results[0].as_ref().unwrap()),
            [emulator.batch_id(1)],
            "{api:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
