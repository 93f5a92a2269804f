//! `Think::samples(k)` of a model that takes `n` (several replies to one
//! request): one request asking for all `k`, each reply read and in the
//! ledger, the call paid for once; a compatible server not said to take it
//! asked `k` times; a server that ignores `n` topped up one request at a
//! time; a wrapper written from the docs keeps the one request; a resumed
//! run replays every reply from the journal and the cache. Against a real
//! axum server on 127.0.0.1 through the real reqwest client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::cost::{Price, Prices};
use twr_runtime::model::{BoxFuture, Request, Response, Served};
use twr_runtime::run::Ending;
use twr_runtime::{ChatModel, Delta, Gemini, ModelError, OpenAiCompatible, Sections, Think, Usage};

use crate::support::backends;

#[derive(Debug, PartialEq, Sections)]
struct Event {
    /// The city it took place in.
    city: String,
    /// How many people came.
    attendees: u32,
    /// Whether tickets sold out.
    sold_out: Option<bool>,
}

/// The reply drawn as number `draw`: two of any three in a row agree on
/// Oslo, 2300 and sold out.
fn drawn(draw: u64) -> &'static str {
    match draw % 3 {
        0 => "[City]\nBergen\n\n[Attendees]\n4",
        1 => "[City]\nOslo\n\n[Attendees]\n2,300\n\n[Sold Out]\nyes",
        _ => "Let me think.\n[City]\n oslo \n\n[Attendees]\n2300\n\n[Sold Out]\nYes.",
    }
}

/// A chat completions server recording every request body. One that takes
/// `n` answers that many choices (the draws seed, seed + 1, ...), with one
/// usage for the call: the prompt's 100 tokens once, 10 per choice. One
/// that does not (as llama-cpp-python) ignores `n` and answers one.
#[derive(Clone)]
struct Choices {
    takes_n: bool,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Choices {
    async fn start(takes_n: bool) -> (Self, String) {
        let server = Choices {
            takes_n,
            bodies: Arc::default(),
        };
        let app = Router::new()
            .route("/v1/chat/completions", post(choices))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (server, format!("{origin}/v1"))
    }

    fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

async fn choices(State(server): State<Choices>, Json(body): Json<Value>) -> Json<Value> {
    server.bodies.lock().unwrap().push(body.clone());
    let seed = body["seed"].as_u64().unwrap();
    let n = match body.get("n") {
        Some(n) if server.takes_n => n.as_u64().unwrap(),
        _ => 1,
    };
    let choices: Vec<Value> = (0..n)
        .map(|index| {
            json!({
                "index": index,
                "message": {"role": "assistant", "content": drawn(seed + index)},
                "finish_reason": "stop"
            })
        })
        .collect();
    Json(json!({
        "choices": choices,
        "usage": {"prompt_tokens": 100, "completion_tokens": 10 * n, "total_tokens": 100 + 10 * n}
    }))
}

fn prices() -> Prices {
    Prices::new().with("local", Price::per_million(1.0, 2.0))
}

/// What one call asking for three replies costs: the prompt once, the
/// completion tokens of all three, as the price table counts it.
fn one_call() -> Option<f64> {
    let cost = prices().cost("local", &Usage::new(100, 30), false);
    assert!((cost.unwrap() - (100.0 * 1e-6 + 30.0 * 2e-6)).abs() < 1e-15);
    cost
}

fn oslo() -> Event {
    Event {
        city: "Oslo".into(),
        attendees: 2300,
        sold_out: Some(true),
    }
}

#[tokio::test]
async fn a_server_that_takes_n_is_asked_once_for_three_replies_and_paid_once() {
    let (server, url) = Choices::start(true).await;
    let model = OpenAiCompatible::new(&url, "local").seed(7).takes_n(true);
    assert!(model.answers_n());
    let outcome = Think::new(&model)
        .samples(3)
        .prices(prices())
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(outcome.value, oslo());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "one request for the three replies");
    assert_eq!(bodies[0]["n"], json!(3));
    assert_eq!(bodies[0]["seed"], json!(7));
    assert_eq!(bodies[0]["stream"], json!(false));
    assert_eq!(outcome.confidence("city"), Some(2.0 / 3.0));
    assert_eq!(outcome.confidence("attendees"), Some(2.0 / 3.0));
    assert_eq!(outcome.confidence("sold_out"), Some(2.0 / 3.0));
    assert_eq!(outcome.ending, Ending::FirstTry);
    // Three replies in the ledger, in the order of the choices.
    let attempt = &outcome.attempts[0];
    let raws: Vec<&str> = attempt.samples.iter().map(|s| &*s.raw).collect();
    assert_eq!(raws, [drawn(7), drawn(8), drawn(9)].map(str::trim));
    // The call's usage once: on the first reply, none on the others.
    let usages: Vec<Usage> = attempt.samples.iter().map(|s| s.usage).collect();
    assert_eq!(
        usages,
        [Usage::new(100, 30), Usage::default(), Usage::default()]
    );
    assert_eq!(attempt.usage, Usage::new(100, 30));
    assert_eq!(outcome.usage, Usage::new(100, 30));
    let costs: Vec<Option<f64>> = attempt.samples.iter().map(|s| s.cost).collect();
    assert_eq!(costs, [one_call(), Some(0.0), Some(0.0)]);
    assert_eq!(attempt.cost, one_call());
    assert_eq!(outcome.cost(), one_call());
    assert!(attempt.transport_retries.is_empty());
}

#[tokio::test]
async fn a_compatible_server_not_said_to_take_n_is_asked_three_times_without_it() {
    let (server, url) = Choices::start(true).await;
    let model = OpenAiCompatible::new(&url, "local").seed(7);
    assert!(!model.answers_n());
    let outcome = Think::new(&model)
        .samples(3)
        .prices(prices())
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(outcome.value, oslo());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert!(
        bodies.iter().all(|body| body.get("n").is_none()),
        "{bodies:?}"
    );
    let mut seeds: Vec<u64> = bodies.iter().map(|b| b["seed"].as_u64().unwrap()).collect();
    seeds.sort_unstable();
    assert_eq!(seeds, [7, 8, 9]);
    // Three calls, each paid: the prompt three times.
    assert_eq!(outcome.usage, Usage::new(300, 30));
    let each = 100.0 * 1e-6 + 10.0 * 2e-6;
    assert!((outcome.cost().unwrap() - 3.0 * each).abs() < 1e-12);
}

#[tokio::test]
async fn a_server_that_ignores_n_gives_one_reply_and_the_other_two_are_asked_alone() {
    let (server, url) = Choices::start(false).await;
    let model = OpenAiCompatible::new(&url, "local").seed(7).takes_n(true);
    let outcome = Think::new(&model)
        .samples(3)
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(outcome.value, oslo());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert_eq!(
        (&bodies[0]["n"], &bodies[0]["seed"]),
        (&json!(3), &json!(7))
    );
    let mut rest: Vec<(Option<&Value>, u64)> = bodies[1..]
        .iter()
        .map(|b| (b.get("n"), b["seed"].as_u64().unwrap()))
        .collect();
    rest.sort_by_key(|(_, seed)| *seed);
    assert_eq!(rest, [(None, 8), (None, 9)]);
    assert_eq!(outcome.attempts[0].samples.len(), 3);
    assert_eq!(outcome.confidence("city"), Some(2.0 / 3.0));
}

/// A wrapper as the docs of `twr_runtime::model` write one: it implements
/// `call` and `wrapped`, and counts the tokens of every `Done`.
struct Metered<M> {
    model: M,
    tokens: AtomicU64,
}

impl<M: ChatModel> ChatModel for Metered<M> {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let response = self.model.call(request).await?;
            Ok(response.map_deltas(|deltas| {
                deltas
                    .inspect(|item| {
                        if let Ok(Delta::Done { usage, .. }) = item {
                            self.tokens.fetch_add(usage.total_tokens, Ordering::Relaxed);
                        }
                    })
                    .boxed()
            }))
        })
    }

    fn wrapped(&self) -> Option<&dyn ChatModel> {
        Some(&self.model)
    }
}

#[tokio::test]
async fn a_wrapper_written_from_the_docs_keeps_the_one_request() {
    let (server, url) = Choices::start(true).await;
    let model = Metered {
        model: OpenAiCompatible::new(&url, "local").seed(7).takes_n(true),
        tokens: AtomicU64::new(0),
    };
    assert!(model.answers_n());
    let outcome = Think::new(&model)
        .samples(3)
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(outcome.value, oslo());
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["n"], json!(3));
    assert_eq!(outcome.attempts[0].samples.len(), 3);
    // Adding up every `Done` counts the call once.
    assert_eq!(model.tokens.load(Ordering::Relaxed), 130);
    // A pointer to the wrapper says the same.
    let shared: Arc<dyn ChatModel> = Arc::new(Metered {
        model: OpenAiCompatible::new(&url, "local").takes_n(true),
        tokens: AtomicU64::new(0),
    });
    assert!(shared.answers_n());
}

#[tokio::test]
async fn a_resumed_run_replays_every_reply_of_the_one_request() {
    for backend in backends::all("samples-n").await {
        let (server, url) = Choices::start(true).await;
        let model = OpenAiCompatible::new(&url, "local").seed(7).takes_n(true);
        let journal = backend.open().await;
        let run = |journal: twr_runtime::journal::Journal| {
            let model = &model;
            async move {
                Think::new(model)
                    .samples(3)
                    .prices(prices())
                    .journal(journal.job("events"))
                    .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
                    .await
                    .unwrap()
            }
        };
        let first = run(journal.clone()).await;
        assert_eq!(server.bodies().len(), 1, "{backend:?}");
        assert_eq!(journal.job("events").replies().await.unwrap(), 3);
        // Another process resumes the job: nothing is asked again.
        let again = run(backend.open().await).await;
        assert_eq!(
            server.bodies().len(),
            1,
            "{backend:?}: nothing bought again"
        );
        assert_eq!(again.value, first.value);
        assert_eq!(again.confidence("attendees"), Some(2.0 / 3.0));
        let attempt = &again.attempts[0];
        let served: Vec<&Served> = attempt.samples.iter().map(|s| &s.served).collect();
        assert_eq!(served, [&Served::Journal; 3]);
        let raws: Vec<&str> = attempt.samples.iter().map(|s| &*s.raw).collect();
        assert_eq!(raws, [drawn(7), drawn(8), drawn(9)].map(str::trim));
        // What the first run paid, recorded and replayed as it was: once.
        assert_eq!(attempt.usage, Usage::new(100, 30));
        assert_eq!(attempt.cost, one_call());

        // The response cache keeps each reply apart too.
        let cache = journal.cache();
        let cached = || async {
            Think::new(&model)
                .samples(3)
                .response_cache(journal.cache())
                .run::<Event>("Another hall.")
                .await
                .unwrap()
        };
        cached().await;
        assert_eq!(server.bodies().len(), 2, "{backend:?}");
        assert_eq!(cache.len().await.unwrap(), 3, "{backend:?}");
        let hit = cached().await;
        assert_eq!(
            server.bodies().len(),
            2,
            "{backend:?}: answered from the cache"
        );
        let served: Vec<&Served> = hit.attempts[0].samples.iter().map(|s| &s.served).collect();
        assert_eq!(served, [&Served::Cache; 3]);
        assert_eq!(hit.confidence("attendees"), Some(2.0 / 3.0));
    }
}

/// A Gemini `generateContent` endpoint answering `candidateCount`
/// candidates, recording every request body.
async fn gemini(
    State(bodies): State<Arc<Mutex<Vec<Value>>>>,
    Json(body): Json<Value>,
) -> Json<Value> {
    bodies.lock().unwrap().push(body.clone());
    let count = body["generationConfig"]["candidateCount"]
        .as_u64()
        .unwrap_or(1);
    let candidates: Vec<Value> = (0..count)
        .map(|index| {
            json!({
                "index": index,
                "content": {"role": "model", "parts": [{"text": drawn(7 + index)}]},
                "finishReason": "STOP"
            })
        })
        .collect();
    Json(json!({
        "candidates": candidates,
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10 * count,
            "totalTokenCount": 100 + 10 * count}
    }))
}

#[tokio::test]
async fn gemini_takes_candidate_count_for_its_samples() {
    let bodies: Arc<Mutex<Vec<Value>>> = Arc::default();
    let app = Router::new()
        .route("/v1beta/models/{action}", post(gemini))
        .with_state(bodies.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let model = Gemini::new("test-key", "gemini-test").base_url(format!("{origin}/v1beta"));
    assert!(model.answers_n());
    let outcome = Think::new(&model)
        .samples(3)
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(outcome.value, oslo());
    let bodies = bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["generationConfig"]["candidateCount"], json!(3));
    let attempt = &outcome.attempts[0];
    let raws: Vec<&str> = attempt.samples.iter().map(|s| &*s.raw).collect();
    assert_eq!(raws, [drawn(7), drawn(8), drawn(9)].map(str::trim));
    assert_eq!(attempt.usage, Usage::new(100, 30));
    // Told otherwise, Gemini is asked once per sample.
    assert!(!Gemini::new("k", "m").takes_n(false).answers_n());
}
