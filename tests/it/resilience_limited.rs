//! `Limited` with the real client against a real axum server on 127.0.0.1
//! that records when each request arrived and how many were in flight: the
//! concurrency cap, requests per minute, the server's rate-limit headers and
//! `Retry-After` holding back the next call; tokens per minute with a
//! counting model on a paused clock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};
use tokio::time::Instant;
use twr_runtime::model::{self, BoxFuture, RateLimits, Request};
use twr_runtime::{
    ChatModel, CircuitBreaker, Delta, FinishReason, Limited, Message, ModelError, OpenAiCompatible,
    Reply, Usage,
};

/// What the server answers to request `n` (from 0): extra headers and a
/// status.
type Plan = fn(usize) -> (StatusCode, Vec<(&'static str, &'static str)>);

#[derive(Clone)]
struct Server {
    plan: Plan,
    /// How long each answer takes.
    work: Duration,
    arrivals: Arc<Mutex<Vec<Instant>>>,
    in_flight: Arc<AtomicUsize>,
    most_in_flight: Arc<AtomicUsize>,
}

async fn handle(State(server): State<Server>, axum::Json(request): axum::Json<Value>) -> Response {
    let n = {
        let mut arrivals = server.arrivals.lock().unwrap();
        arrivals.push(Instant::now());
        arrivals.len() - 1
    };
    let now = server.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    server.most_in_flight.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(server.work).await;
    server.in_flight.fetch_sub(1, Ordering::SeqCst);
    let (status, extra) = (server.plan)(n);
    let mut headers = HeaderMap::new();
    for (name, value) in extra {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if status == StatusCode::OK && request["stream"] == json!(true) {
        headers.insert(
            "content-type",
            HeaderValue::from_static("text/event-stream"),
        );
        let events = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": null}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}),
        ];
        let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        body.push_str("data: [DONE]\n\n");
        return (status, headers, body).into_response();
    }
    let body = if status == StatusCode::OK {
        json!({
            "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
        })
    } else {
        json!({"error": {"message": "slow down"}})
    };
    (status, headers, axum::Json(body)).into_response()
}

async fn start(plan: Plan, work: Duration) -> (Server, OpenAiCompatible) {
    let server = Server {
        plan,
        work,
        arrivals: Arc::default(),
        in_flight: Arc::default(),
        most_in_flight: Arc::default(),
    };
    let router = Router::new().fallback(handle).with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (server, OpenAiCompatible::new(url, "limited-model"))
}

fn ok(_: usize) -> (StatusCode, Vec<(&'static str, &'static str)>) {
    (StatusCode::OK, vec![])
}

fn ask() -> Vec<Message> {
    vec![Message::user("hi")]
}

/// The gaps between arrivals.
fn gaps(server: &Server) -> Vec<Duration> {
    let arrivals = server.arrivals.lock().unwrap();
    arrivals.windows(2).map(|w| w[1] - w[0]).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_n_requests_in_flight_across_clones_and_all_succeed() {
    let (server, client) = start(ok, Duration::from_millis(40)).await;
    let model = Limited::new(client).max_concurrent(3);
    // Every other call through a clone: the limit is shared.
    let clone = model.clone();
    let calls = (0..24).map(|i| {
        let model = if i % 2 == 0 { &model } else { &clone };
        async move {
            let messages = ask();
            model.chat(&messages).await
        }
    });
    let replies = futures_util::future::join_all(calls).await;
    assert!(replies
        .iter()
        .all(|r| r.as_ref().is_ok_and(|r| r.content == "ok")));
    assert_eq!(server.arrivals.lock().unwrap().len(), 24);
    assert_eq!(server.most_in_flight.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_per_minute_are_spread_evenly() {
    let (server, client) = start(ok, Duration::ZERO).await;
    // 600 a minute: one every 100 ms, the first at once.
    let model = Limited::new(client).requests_per_minute(600);
    let started = Instant::now();
    let calls = (0..8).map(|_| async {
        let messages = ask();
        model.chat(&messages).await.unwrap()
    });
    futures_util::future::join_all(calls).await;
    // Request i arrived no sooner than its turn, i * 100 ms (less 15 ms of
    // clock slack); late is fine, early is not.
    let offsets: Vec<Duration> = server
        .arrivals
        .lock()
        .unwrap()
        .iter()
        .map(|at| *at - started)
        .collect();
    assert_eq!(offsets.len(), 8);
    for (i, offset) in offsets.iter().enumerate() {
        let turn = Duration::from_millis(100 * i as u64).saturating_sub(Duration::from_millis(15));
        assert!(*offset >= turn, "request {i} at {offset:?}: {offsets:?}");
    }
}

fn exhausted_then_ok(n: usize) -> (StatusCode, Vec<(&'static str, &'static str)>) {
    match n {
        0 => (
            StatusCode::OK,
            vec![
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "700ms"),
                ("x-ratelimit-remaining-tokens", "9000"),
            ],
        ),
        _ => (StatusCode::OK, vec![]),
    }
}

#[tokio::test]
async fn no_requests_left_holds_the_next_call_until_the_reset() {
    let (server, client) = start(exhausted_then_ok, Duration::ZERO).await;
    let model = Limited::new(client);
    let messages = ask();
    let response = model.call(Request::new(&messages)).await.unwrap();
    let limits = response.rate_limits;
    let reply = response.into_reply().await.unwrap();
    assert_eq!(reply.content, "ok");
    let mut expected = RateLimits::default();
    expected.remaining_requests = Some(0);
    expected.remaining_tokens = Some(9000);
    expected.requests_reset = Some(Duration::from_millis(700));
    assert_eq!(limits, expected);
    model.chat(&ask()).await.unwrap();
    model.chat(&ask()).await.unwrap();
    let gaps = gaps(&server);
    assert!(gaps[0] >= Duration::from_millis(680), "{gaps:?}");
    // The pause is over: the third call went at once (another pause would
    // be 700 ms; the bound leaves room for a machine under a load of 10).
    assert!(gaps[1] < Duration::from_millis(600), "{gaps:?}");
}

#[tokio::test]
async fn no_requests_left_on_a_streamed_reply_holds_the_next_call_until_the_reset() {
    use futures_util::StreamExt as _;

    let (server, client) = start(exhausted_then_ok, Duration::ZERO).await;
    let model = Limited::new(client.stream(true));
    assert!(model.streams());
    let messages = ask();
    let request = Request::new(&messages).with_stream(true);
    let response = model.call(request).await.unwrap();
    let limits = response.rate_limits;
    let deltas: Vec<Delta> = response.deltas.map(Result::unwrap).collect().await;
    let done = Delta::Done {
        usage: Usage::new(3, 2),
        finish_reason: Some(FinishReason::Stop),
    };
    assert_eq!(deltas, [Delta::Content("ok".into()), done.clone()]);
    let mut expected = RateLimits::default();
    expected.remaining_requests = Some(0);
    expected.remaining_tokens = Some(9000);
    expected.requests_reset = Some(Duration::from_millis(700));
    assert_eq!(limits, expected);
    // The next calls stream as the loop does, through `chat_stream`.
    for _ in 0..2 {
        let deltas: Vec<Delta> = model
            .chat_stream(&ask())
            .map(Result::unwrap)
            .collect()
            .await;
        assert_eq!(deltas, [Delta::Content("ok".into()), done.clone()]);
    }
    let gaps = gaps(&server);
    assert!(gaps[0] >= Duration::from_millis(680), "{gaps:?}");
    // The pause is over: the third call went at once (another pause would
    // be 700 ms; the bound leaves room for a machine under a load of 10).
    assert!(gaps[1] < Duration::from_millis(600), "{gaps:?}");
}

fn rate_limited_then_ok(n: usize) -> (StatusCode, Vec<(&'static str, &'static str)>) {
    match n {
        0 => (StatusCode::TOO_MANY_REQUESTS, vec![("retry-after", "1")]),
        _ => (StatusCode::OK, vec![]),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_holds_back_every_other_call_sharing_the_limits() {
    let (server, client) = start(rate_limited_then_ok, Duration::ZERO).await;
    // Inside a breaker, as users compose it; the breaker stays closed.
    let model = CircuitBreaker::new(Limited::new(client).max_concurrent(4));
    let error = model.chat(&ask()).await.unwrap_err();
    assert!(
        matches!(error, ModelError::Status { status: 429, .. }),
        "{error:?}"
    );
    // Five calls from other runs: none reaches the server before the
    // second is up.
    let calls = (0..5).map(|_| async {
        let messages = ask();
        model.chat(&messages).await
    });
    let replies = futures_util::future::join_all(calls).await;
    assert!(replies.iter().all(Result::is_ok));
    let arrivals = server.arrivals.lock().unwrap().clone();
    assert_eq!(arrivals.len(), 6);
    for later in &arrivals[1..] {
        let waited = *later - arrivals[0];
        assert!(waited >= Duration::from_millis(950), "{waited:?}");
    }
}

/// A model that uses 100 tokens a call and notes when each call started.
struct Counting {
    starts: Mutex<Vec<Instant>>,
}

impl ChatModel for Counting {
    fn call<'a>(
        &'a self,
        _: Request<'a>,
    ) -> BoxFuture<'a, Result<model::Response<'a>, ModelError>> {
        self.starts.lock().unwrap().push(Instant::now());
        Box::pin(async {
            let mut reply = Reply::text("ok");
            reply.usage = Usage::new(60, 40);
            Ok(model::Response::from_reply(reply))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn tokens_per_minute_count_what_the_server_reported() {
    let model = Limited::new(Counting {
        starts: Mutex::default(),
    })
    .tokens_per_minute(250);
    let started = Instant::now();
    for _ in 0..5 {
        model.chat(&ask()).await.unwrap();
    }
    let offsets: Vec<u64> = model
        .inner()
        .starts
        .lock()
        .unwrap()
        .iter()
        .map(|at| (*at - started).as_secs())
        .collect();
    // 100 tokens a call, known only when it ends: a call starts while the
    // last minute's tokens plus its estimate (1 token for "hi") fit in 250,
    // so the third starts at 200 and the fourth, at 300, waits until the
    // first three leave the window.
    assert_eq!(offsets, vec![0, 0, 0, 60, 60]);
}

#[tokio::test]
async fn a_stream_holds_its_slot_until_it_ends_or_is_dropped() {
    use futures_util::StreamExt as _;
    use twr_runtime::{Delta, ScriptedModel};

    let model = Limited::new(ScriptedModel::new(["[Answer]\n42", "[Answer]\n43"]).chunk_size(4))
        .max_concurrent(1);
    assert!(model.streams());
    let messages = ask();
    let mut first = model.chat_stream(&messages);
    assert_eq!(
        first.next().await.unwrap().unwrap(),
        Delta::Content("[Ans".into())
    );
    // The first stream is open: a second call waits for its slot.
    let waiting = tokio::time::timeout(Duration::from_millis(200), model.chat(&messages)).await;
    assert!(waiting.is_err(), "the second call did not wait");
    drop(first);
    let reply = tokio::time::timeout(Duration::from_secs(5), model.chat(&messages))
        .await
        .expect("the slot came back when the stream was dropped")
        .unwrap();
    assert_eq!(reply.content, "[Answer]\n43");
}
