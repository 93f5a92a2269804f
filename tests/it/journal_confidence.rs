//! How sure the model was, kept: the journal stores each attempt's
//! confidences and the value's sections to review, by prompt, on SQLite
//! and PostgreSQL, with the replies' token log-probabilities, so that a
//! resumed run measures what the first one did; and the response cache
//! never answers a run that asks for log-probabilities with a reply
//! cached without them (against a real axum server, through the real
//! reqwest client).

use serde_json::{json, Value};
use twr_runtime::journal::{Measured, RecordedConfidence};
use twr_runtime::model::{Served, TokenLogprob};
use twr_runtime::{OpenAiCompatible, Reply, ScriptedModel, Sections, Think};

use crate::support::backends;
use crate::support::client::{Scripted, TestServer};

#[derive(Debug, PartialEq, Sections)]
struct Order {
    city: String,
    paid: bool,
}

fn token(text: &str, p: f64) -> TokenLogprob {
    TokenLogprob {
        token: text.into(),
        logprob: p.ln(),
        top: vec![],
    }
}

/// "yes" at `p`, "no" listed with the rest: a yes/no's confidence is the
/// share of the written answer among those listed.
fn yes(p: f64) -> TokenLogprob {
    TokenLogprob {
        token: "yes".into(),
        logprob: p.ln(),
        top: vec![("yes".into(), p.ln()), ("no".into(), (1.0 - p).ln())],
    }
}

/// Equal to the twelfth place: the confidence is computed through `ln`
/// and `exp`.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// `(attempt, field, confidence, measured)` of each record.
fn rows(records: &[RecordedConfidence]) -> Vec<(usize, &str, f64, Measured)> {
    records
        .iter()
        .map(|r| (r.attempt, r.field.as_str(), r.confidence, r.measured))
        .collect()
}

fn same(found: &[(usize, &str, f64, Measured)], expected: &[(usize, &str, f64, Measured)]) {
    assert_eq!(found.len(), expected.len(), "{found:?}");
    for (f, e) in found.iter().zip(expected) {
        assert!(
            f.0 == e.0 && f.1 == e.1 && close(f.2, e.2) && f.3 == e.3,
            "{found:?} against {expected:?}"
        );
    }
}

const FIRST: &str = "Order 1: paid, to Oslo.";
const SECOND: &str = "Order 2: paid, to Oslo.";

#[tokio::test]
async fn the_journal_keeps_each_attempts_confidences_and_the_values_to_review() {
    for backend in backends::all("confidence").await {
        let journal = backend.open().await;
        let job = journal.job("orders");
        // The first reply leaves out [Paid]; the second is whole.
        let model = ScriptedModel::from_replies([
            Reply::text("[City]\nOslo").with_logprobs(vec![
                token("[City]\n", 0.9),
                token("Os", 0.3),
                token("lo", 0.9),
            ]),
            Reply::text("[City]\nOslo\n[Paid]\nyes").with_logprobs(vec![
                token("[City]\n", 1.0),
                token("Oslo", 0.64),
                token("\n[Paid]\n", 1.0),
                yes(0.95),
            ]),
        ]);
        let outcome = Think::new(&model)
            .confidence(true)
            .review_below(0.9)
            .journal(job.clone())
            .run::<Order>(FIRST)
            .await
            .unwrap();
        assert_eq!(outcome.attempts.len(), 2);
        assert_eq!(outcome.needs_review(), ["city"]);

        // Three samples agree on the second prompt's city 2 to 1.
        let samples = ScriptedModel::new([
            "[City]\nOslo\n[Paid]\nyes",
            "[City]\nBergen\n[Paid]\nyes",
            "[City]\noslo\n[Paid]\nyes",
        ]);
        Think::new(&samples)
            .samples(3)
            .review_below(0.9)
            .journal(job.clone())
            .run::<Order>(SECOND)
            .await
            .unwrap();

        // The records are made in passing: a read through the same journal
        // waits for them. Then read by a new process.
        assert_eq!(job.needs_review().await.unwrap().len(), 2);
        drop(job);
        let journal = backend.open().await;
        let job = journal.job("orders");
        same(
            &rows(&job.confidences(FIRST).await.unwrap()),
            &[
                (1, "city", (0.3f64 * 0.9).sqrt(), Measured::Logprobs),
                (2, "city", 0.64, Measured::Logprobs),
                (2, "paid", 0.95, Measured::Logprobs),
            ],
        );
        same(
            &rows(&job.confidences(SECOND).await.unwrap()),
            &[
                (1, "city", 2.0 / 3.0, Measured::Agreement),
                (1, "paid", 1.0, Measured::Agreement),
            ],
        );
        assert!(job.confidences("never asked").await.unwrap().is_empty());
        let reviews = job.needs_review().await.unwrap();
        assert_eq!(
            reviews
                .iter()
                .map(|r| r.prompt.as_str())
                .collect::<Vec<_>>(),
            [FIRST, SECOND]
        );
        assert_eq!(reviews[0].fields.len(), 1);
        assert_eq!(reviews[0].fields[0].0, "city");
        assert!(close(reviews[0].fields[0].1, 0.64));
        assert_eq!(reviews[0].threshold, 0.9);
        assert_eq!(reviews[1].fields.len(), 1);
        assert!(close(reviews[1].fields[0].1, 2.0 / 3.0));
        // Another job has none.
        assert!(journal
            .job("other")
            .needs_review()
            .await
            .unwrap()
            .is_empty());

        // Resumed, the run replays both replies with their
        // log-probabilities: the same confidences, asking nothing, and the
        // records replaced, not doubled.
        let empty = ScriptedModel::new(Vec::<String>::new());
        let again = Think::new(&empty)
            .confidence(true)
            .review_below(0.9)
            .journal(job.clone())
            .run::<Order>(FIRST)
            .await
            .unwrap();
        assert_eq!(empty.calls(), 0);
        assert!(close(again.confidence("city").unwrap(), 0.64));
        assert!(close(again.confidence("paid").unwrap(), 0.95));
        assert_eq!(again.attempts[0].served, Served::Journal);
        assert_eq!(job.confidences(FIRST).await.unwrap().len(), 3);
        assert_eq!(job.needs_review().await.unwrap().len(), 2);

        // Run again, the second prompt replays the first sample's reply,
        // which has no log-probabilities: it measured nothing this time,
        // and its old records go (they were another run's).
        let sure = ScriptedModel::from_replies([Reply::text("[City]\nOslo\n[Paid]\nyes")
            .with_logprobs(vec![token("[City]\n", 1.0), token("Oslo", 0.99)])]);
        let replayed = Think::new(&sure)
            .confidence(true)
            .review_below(0.9)
            .journal(journal.job("orders"))
            .run::<Order>(SECOND)
            .await
            .unwrap();
        assert_eq!((sure.calls(), replayed.confidence("city")), (0, None));
        let reviews = journal.job("orders").needs_review().await.unwrap();
        assert_eq!(
            reviews
                .iter()
                .map(|r| r.prompt.as_str())
                .collect::<Vec<_>>(),
            [FIRST]
        );
        assert!(job.confidences(SECOND).await.unwrap().is_empty());
    }
}

const REPLY: &str = "[City]\nOslo\n\n[Paid]\nyes";

/// An OpenAI-compatible completion of [`REPLY`], with `logprobs.content`
/// when `logprobs` (what a server sends when asked).
fn completion(logprobs: bool) -> Value {
    let tokens = [
        ("[City]\n", 1.0f64),
        ("Oslo", 0.64),
        ("\n\n[Paid]\n", 1.0),
        ("yes", 0.95),
    ];
    let content: Vec<Value> = tokens
        .iter()
        .map(|(t, p)| {
            let top: Vec<Value> = match *t {
                "yes" => vec![
                    json!({"token": "yes", "logprob": 0.95f64.ln(), "bytes": b"yes"}),
                    json!({"token": "no", "logprob": 0.05f64.ln(), "bytes": b"no"}),
                ],
                _ => vec![],
            };
            json!({"token": t, "logprob": p.ln(), "bytes": t.as_bytes(), "top_logprobs": top})
        })
        .collect();
    let mut choice = json!({
        "index": 0,
        "message": {"role": "assistant", "content": REPLY},
        "finish_reason": "stop",
    });
    if logprobs {
        choice["logprobs"] = json!({ "content": content });
    }
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [choice],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14},
    })
}

#[tokio::test]
async fn the_cache_answers_a_run_that_wants_logprobs_only_with_a_reply_that_has_them() {
    for backend in backends::all("cache-logprobs").await {
        let server = TestServer::start(vec![
            Scripted::json(200, completion(false)),
            Scripted::json(200, completion(true)),
        ])
        .await;
        let model = OpenAiCompatible::new(server.url("/v1"), "local");
        let journal = backend.open().await;
        let run = |confidence: bool| {
            let cache = journal.cache();
            let model = &model;
            async move {
                Think::new(model)
                    .confidence(confidence)
                    .response_cache(cache)
                    .run::<Order>("Paid order to Oslo.")
                    .await
                    .unwrap()
            }
        };

        // Without confidence: asked, cached without log-probabilities.
        let first = run(false).await;
        assert_eq!(first.confidence("city"), None);
        assert_eq!(server.requests().len(), 1);

        // With: the cached reply has none, so it is asked again, for them.
        let second = run(true).await;
        assert_eq!(second.attempts[0].served, Served::Live);
        assert_eq!(server.requests().len(), 2);
        assert_eq!(server.requests()[1].body["logprobs"], json!(true));
        assert!(close(second.confidence("city").unwrap(), 0.64));
        assert!(close(second.confidence("paid").unwrap(), 0.95));

        // With again: from the cache, with the same confidences.
        let third = run(true).await;
        assert_eq!(third.attempts[0].served, Served::Cache);
        assert_eq!(server.requests().len(), 2);
        assert!(close(third.confidence("city").unwrap(), 0.64));
        assert!(close(third.confidence("paid").unwrap(), 0.95));

        // Without: the first cached reply still answers.
        let fourth = run(false).await;
        assert_eq!(fourth.attempts[0].served, Served::Cache);
        assert_eq!(fourth.confidence("city"), None);
        assert_eq!(server.requests().len(), 2);
        assert_eq!(journal.cache().len().await.unwrap(), 2);
    }
}
