//! Typed re-ask rounds over OpenAI's Batch API, against
//! the emulator in support/openai_batch.rs: every prompt in round one, the
//! re-asks of the replies that did not parse in the next rounds, results in
//! input order with each attempt's batch id and custom id and its cost at
//! the batch discount; an expired half, errored lines and a cancelled batch
//! handled as the online loop handles those failures; and a job dropped
//! while its batch runs, resumed from the journal without submitting a
//! request again (the server's counts prove it).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use twr_runtime::batch::BatchModel;
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::Journal;
use twr_runtime::model::Served;
use twr_runtime::{OpenAiCompatible, RetryPolicy, Sections, Think};

use crate::support::openai_batch::{item_of, Fault, OpenAiBatchServer};

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

fn prompts(n: u32) -> Vec<String> {
    (0..n).map(|i| format!("item {i}")).collect()
}

fn batch_model(server: &OpenAiBatchServer) -> BatchModel<twr_runtime::batch::OpenAiBatchApi> {
    let client = OpenAiCompatible::new(&server.url, "gpt-test").api_key("sk-batch-test");
    BatchModel::openai(client)
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5))
}

fn think<M: twr_runtime::ChatModel>(model: M, prompts: usize) -> Think<'static, M> {
    Think::new(model)
        .concurrency(prompts)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .prices(Prices::new().with("gpt-test", Price::per_million(2.0, 8.0).batch_discount(0.5)))
}

#[tokio::test]
async fn three_rounds_of_typed_re_asks_in_input_order() {
    let server = OpenAiBatchServer::start(answer, vec![]).await;
    let model = batch_model(&server);
    let results = think(&model, 12).run_many::<Doubled>(prompts(12)).await;
    let values: Vec<u32> = results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect();
    assert_eq!(values, (0..12).map(|n| 2 * n).collect::<Vec<_>>());
    // Round one: 12 prompts; round two: the 6 odd ones; round three: item 5.
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (3, 3, 19)
    );
    assert_eq!(model.rounds(), 3);
    assert!(
        server.asked().iter().all(|&n| n == 1),
        "{:?}",
        server.asked()
    );
    let batches = |n: usize| -> Vec<String> {
        results[n]
            .as_ref()
            .unwrap()
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
    };
    assert_eq!(batches(4), ["batch_001"]);
    assert_eq!(batches(3), ["batch_001", "batch_002"]);
    assert_eq!(batches(5), ["batch_001", "batch_002", "batch_003"]);
    // Each attempt: (1,000 x $2 + 100 x $8) per million, at half price.
    let outcome = results[5].as_ref().unwrap();
    assert!(outcome.attempts.iter().all(|a| a.cost == Some(0.0014)));
    assert_eq!(outcome.usage.prompt_tokens, 3000);
}

#[tokio::test]
async fn an_expired_half_and_errored_lines_are_retried_as_online_failures() {
    let server = OpenAiBatchServer::start(
        answer,
        vec![
            Fault::ErrorLines(vec![(2, 500), (8, 400)]),
            Fault::ExpireHalf,
        ],
    )
    .await;
    let model = batch_model(&server);
    let results = think(&model, 10).run_many::<Doubled>(prompts(10)).await;
    for (n, result) in results.iter().enumerate() {
        if n == 8 {
            let error = result.as_ref().unwrap_err();
            assert!(
                crate::support::report(&error).contains("HTTP 400: scripted 400 for item 8"),
                "{error}"
            );
            assert!(!error.model_error().unwrap().is_transient());
        } else {
            assert_eq!(
                result.as_ref().unwrap().value.number,
                2 * n as u32,
                "item {n}"
            );
        }
    }
    // Item 2's first request was answered with a 500 and asked again; the
    // expired lines were never run, so every other request ran once.
    let asked = server.asked();
    assert_eq!(
        asked.iter().filter(|&&n| n == 2).count(),
        1,
        "{:?}",
        server.asked_twice()
    );
    assert!(asked.iter().all(|&n| n <= 2));
    let retried = results[2].as_ref().unwrap().attempts[0]
        .transport_retries
        .clone();
    assert!(
        retried[0]
            .error
            .contains("HTTP 500: scripted 500 for item 2"),
        "{:?}",
        retried[0]
    );
    // Its retry may have been in the half of round two that expired.
    assert!(
        retried[1..]
            .iter()
            .all(|r| r.error.contains("batch_expired")),
        "{retried:?}"
    );
    // Round two (item 2 again and the five odd items' re-asks) expired
    // after half its lines; the other three went into round three.
    let expired: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|o| &o.attempts)
        .flat_map(|a| &a.transport_retries)
        .filter(|r| r.error.contains("batch_expired"))
        .map(|r| r.error.clone())
        .collect();
    assert_eq!(expired.len(), 3, "{expired:?}");
    assert_eq!(
        expired[0],
        "the reply broke off: batch_expired: This request could not be executed before the \
         completion window expired."
    );
    assert_eq!(server.batches(), 3);
}

#[tokio::test]
async fn a_cancelled_batch_ends_its_runs() {
    let server = OpenAiBatchServer::start(answer, vec![Fault::Cancelled]).await;
    let model = batch_model(&server);
    let results = think(&model, 3).run_many::<Doubled>(prompts(3)).await;
    for result in &results {
        let error = result.as_ref().unwrap_err();
        assert!(
            crate::support::report(&error)
                .contains("batch batch_001 ended (cancelled) before request twr-"),
            "{error}"
        );
    }
    assert_eq!(server.batches(), 1);
}

#[tokio::test]
async fn a_job_dropped_mid_round_resumes_from_the_journal_without_asking_twice() {
    let server = OpenAiBatchServer::start(answer, vec![]).await;
    let dir = std::env::temp_dir().join(format!("twr-it-batch-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("job.twr");
    server.hold.store(true, Ordering::SeqCst);
    {
        // The first process submits round one and dies while it runs.
        let journal = Journal::open(&path).unwrap();
        let job = journal.job("doubling");
        let model = batch_model(&server).journal(job.clone());
        let think = think(&model, 12).journal(job);
        let submitted = async {
            for _ in 0..2_000 {
                if server.batches() == 1 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            panic!("round one was not submitted within 10 s");
        };
        tokio::select! {
            _ = think.run_many::<Doubled>(prompts(12)) => panic!("the held batch cannot end"),
            _ = submitted => {}
        }
    }
    assert_eq!((server.batches(), server.uploads()), (1, 1));

    // The second process: the same job; the batch runs to its end now.
    server.hold.store(false, Ordering::SeqCst);
    let journal = Journal::open(&path).unwrap();
    let job = journal.job("doubling");
    let model = batch_model(&server).journal(job.clone());
    let results = think(&model, 12)
        .journal(job)
        .run_many::<Doubled>(prompts(12))
        .await;
    let values: Vec<u32> = results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect();
    assert_eq!(values, (0..12).map(|n| 2 * n).collect::<Vec<_>>());
    // Round one was not submitted again: the second process waited for
    // batch_001, then submitted only the re-asks (rounds two and three).
    assert_eq!(
        (server.batches(), server.uploads(), server.lines()),
        (3, 3, 19)
    );
    assert!(
        server.asked().iter().all(|&n| n == 1),
        "{:?}",
        server.asked()
    );
    assert_eq!(model.rounds(), 2);
    let first = &results[0].as_ref().unwrap().attempts[0].served;
    assert!(
        matches!(first, Served::Batch { batch_id, .. } if batch_id == "batch_001"),
        "{first:?}"
    );

    // A third run replays the journal: no batch at all.
    let model = batch_model(&server).journal(journal.job("doubling"));
    let results = think(&model, 12)
        .journal(journal.job("doubling"))
        .run_many::<Doubled>(prompts(12))
        .await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(server.batches(), 3);
    assert!(results[3]
        .as_ref()
        .unwrap()
        .attempts
        .iter()
        .all(|a| a.served == Served::Journal));
}
