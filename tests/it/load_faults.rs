//! Load and faults: 1,000 typed runs, 200 at a time, through one
//! shared client stack (`CircuitBreaker` over `Limited` over a streaming
//! `OpenAiCompatible`) against one local axum server on 127.0.0.1 that
//! injects 429 with Retry-After, 503, 529, connections dropped mid-stream,
//! stalls past the client's timeout, replies missing a section, and a short
//! outage of 503s.
//!
//! Checked: every run ends in a value or a typed error; every reply the
//! server sent to a run, whole or cut off, is in that run's ledger, in order;
//! the requests the server saw equal the ledgers' attempts and transport
//! retries less the calls the open breaker refused without sending; no
//! panic; the whole test is bounded in time. The figures (wall time, peak
//! memory, outcome counts, what the breaker did) are printed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Router;
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::{
    CircuitBreaker, Limited, OpenAiCompatible, RetryPolicy, Sections, Think, ThinkErrorKind,
};

const RUNS: usize = 1_000;
const AT_A_TIME: usize = 200;
/// Long enough that a whole reply never times out on a loaded machine;
/// the stalls wait it out.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Requests from this one on meet an outage of 503s for this long.
const OUTAGE_AT: usize = 600;
const OUTAGE: Duration = Duration::from_millis(400);

/// A fact the runs extract.
#[derive(Debug, PartialEq, Sections)]
struct Fact {
    /// The number asked for.
    answer: u32,
    /// Why.
    reason: String,
}

/// What the server did with one request of a run.
#[derive(Debug, Clone, PartialEq)]
enum Sent {
    /// A whole reply with this text.
    Whole(String),
    /// This much text, then the connection dropped or stalled.
    Cut(String),
    /// An error status, no text.
    Status(u16),
}

#[derive(Clone, Default)]
struct Server {
    /// What each run was sent, by run number, in order.
    sent: Arc<Mutex<HashMap<usize, Vec<Sent>>>>,
    requests: Arc<Mutex<usize>>,
    /// When the outage began.
    outage: Arc<Mutex<Option<Instant>>>,
}

fn splitmix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The run a request belongs to: its prompt says "Document #n".
fn run_of(body: &Value) -> usize {
    let messages = body["messages"].as_array().expect("messages");
    messages
        .iter()
        .filter_map(|m| m["content"].as_str())
        .find_map(|text| {
            let rest = &text[text.find("Document #")? + "Document #".len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .expect("every prompt names its document")
}

/// The text of the first `n` content events of `text`.
fn first_pieces(text: &str, n: usize) -> String {
    text.as_bytes()
        .chunks(16)
        .take(n)
        .map(|c| std::str::from_utf8(c).expect("ASCII replies"))
        .collect()
}

fn sse_events(text: &str) -> Vec<String> {
    let mut events: Vec<String> = text
        .as_bytes()
        .chunks(16)
        .map(|piece| {
            let piece = std::str::from_utf8(piece).expect("ASCII replies");
            let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
            format!("data: {chunk}\n\n")
        })
        .collect();
    let stop = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    events.push(format!("data: {stop}\n\n"));
    let usage = json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}});
    events.push(format!("data: {usage}\n\ndata: [DONE]\n\n"));
    events
}

/// How a streamed response ends.
enum End {
    Complete,
    /// The connection drops; first a pause, so that what was sent reaches
    /// the client rather than dying in a buffer.
    Drop,
    /// Nothing more is sent, and the connection stays open.
    Stall,
}

fn stream_response(pieces: Vec<Bytes>, end: End) -> Response {
    let body = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
    let body = match end {
        End::Complete => Body::from_stream(body),
        End::Drop => Body::from_stream(body.chain(futures_util::stream::once(async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "dropped",
            ))
        }))),
        End::Stall => Body::from_stream(body.chain(futures_util::stream::pending())),
    };
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(body)
        .unwrap()
}

fn status(code: u16, headers: &[(&str, &str)]) -> Response {
    let mut response = Response::builder().status(StatusCode::from_u16(code).unwrap());
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"error": {"message": "injected fault"}}).to_string(),
        ))
        .unwrap()
}

async fn handle(State(server): State<Server>, body: axum::body::Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).expect("a JSON request");
    let run = run_of(&body);
    let n = {
        let mut requests = server.requests.lock().unwrap();
        *requests += 1;
        *requests - 1
    };
    let in_outage = {
        let mut outage = server.outage.lock().unwrap();
        if n == OUTAGE_AT {
            *outage = Some(Instant::now());
        }
        outage.is_some_and(|at| at.elapsed() < OUTAGE)
    };
    let good = format!(
        "[Answer]\n{}\n[Reason]\nIt is written in document {run}.\n",
        run % 97
    );
    let (sent, response) = if in_outage {
        (Sent::Status(503), status(503, &[]))
    } else {
        match splitmix(n as u64) % 100 {
            0..=4 => (
                Sent::Status(429),
                // OpenAI sends both; the finer one wins.
                status(429, &[("retry-after", "1"), ("retry-after-ms", "100")]),
            ),
            5..=8 => (Sent::Status(503), status(503, &[])),
            9..=11 => (Sent::Status(529), status(529, &[])),
            12..=15 => {
                // Half the reply, then the connection drops.
                let events = sse_events(&good);
                let half = events.len() / 2;
                let pieces = events[..half]
                    .iter()
                    .map(|e| Bytes::from(e.clone()))
                    .collect();
                (
                    Sent::Cut(first_pieces(&good, half)),
                    stream_response(pieces, End::Drop),
                )
            }
            16..=17 => {
                // Two pieces, then nothing: past the client's timeout.
                let events = sse_events(&good);
                let pieces = events[..2].iter().map(|e| Bytes::from(e.clone())).collect();
                (
                    Sent::Cut(first_pieces(&good, 2)),
                    stream_response(pieces, End::Stall),
                )
            }
            18..=32 => {
                let missing = format!("[Answer]\n{}\n", run % 97);
                let pieces = sse_events(&missing).into_iter().map(Bytes::from).collect();
                (Sent::Whole(missing), stream_response(pieces, End::Complete))
            }
            _ => {
                let pieces = sse_events(&good).into_iter().map(Bytes::from).collect();
                (Sent::Whole(good), stream_response(pieces, End::Complete))
            }
        }
    };
    server
        .sent
        .lock()
        .unwrap()
        .entry(run)
        .or_default()
        .push(sent);
    response
}

/// The process's peak resident memory so far, in KiB (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A transport failure the breaker refused without sending a request.
fn refused(error: &str) -> bool {
    error.starts_with("the call was held back and not sent: the circuit breaker of ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_runs_under_faults_keep_an_exact_ledger() {
    let server = Server::default();
    let router = Router::new().fallback(handle).with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let client = OpenAiCompatible::new(url, "load-model")
        .api_key("sk-load-test")
        .stream(true)
        .timeout(TIMEOUT);
    let stack = CircuitBreaker::new(Limited::new(client).max_concurrent(100))
        .threshold(12)
        .cooldown(Duration::from_millis(150));
    let policy = RetryPolicy::default()
        .max_retries(8)
        .base_delay(Duration::from_millis(5))
        .max_delay(Duration::from_millis(300));
    let think = Think::new(&stack).max_attempts(3).retry_policy(policy);

    let started = Instant::now();
    let runs = futures_util::stream::iter(0..RUNS)
        .map(|i| {
            let think = &think;
            async move {
                let prompt = format!("Document #{i}: what number does it give, and why?");
                (i, think.run::<Fact>(&prompt).await)
            }
        })
        .buffer_unordered(AT_A_TIME)
        .collect::<Vec<_>>();
    let runs = tokio::time::timeout(Duration::from_secs(240), runs)
        .await
        .expect("1,000 runs finish within 4 minutes");
    let wall = started.elapsed();

    let sent = server.sent.lock().unwrap().clone();
    let seen = *server.requests.lock().unwrap();
    let (mut values, mut first_try, mut reasked) = (0, 0, 0);
    let mut failures: HashMap<&'static str, usize> = HashMap::new();
    let (mut ledger, mut refusals) = (0, 0);
    for (i, run) in &runs {
        let server_sent = sent.get(i).cloned().unwrap_or_default();
        let whole: Vec<&str> = server_sent
            .iter()
            .filter_map(|s| match s {
                Sent::Whole(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let cut: Vec<&str> = server_sent
            .iter()
            .filter_map(|s| match s {
                Sent::Cut(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        match run {
            Ok(outcome) => {
                values += 1;
                if outcome.attempts.len() == 1 {
                    first_try += 1;
                } else {
                    reasked += 1;
                }
                assert_eq!(
                    outcome.value,
                    Fact {
                        answer: (*i % 97) as u32,
                        reason: format!("It is written in document {i}."),
                    }
                );
                let raw: Vec<&str> = outcome.attempts.iter().map(|a| a.raw.as_str()).collect();
                assert_eq!(raw, whole, "run {i}: every whole reply, in order");
                let partial: Vec<&str> = outcome
                    .attempts
                    .iter()
                    .flat_map(|a| &a.transport_retries)
                    .filter_map(|r| r.partial.as_ref().map(|p| p.content.as_str()))
                    .collect();
                assert_eq!(
                    partial, cut,
                    "run {i}: every cut reply, in order; {:#?} {server_sent:?}",
                    outcome.attempts
                );
                for attempt in &outcome.attempts {
                    ledger += 1 + attempt.transport_retries.len();
                    refusals += attempt
                        .transport_retries
                        .iter()
                        .filter(|r| refused(&r.error))
                        .count();
                }
            }
            Err(error) => {
                let kind = match error.kind() {
                    ThinkErrorKind::Model { .. } => "model error after retries",
                    ThinkErrorKind::Exhausted => "format attempts exhausted",
                    ThinkErrorKind::RepeatedReply => "repeated reply",
                    _ => "other",
                };
                *failures.entry(kind).or_default() += 1;
                assert_eq!(error.raw_replies(), whole, "run {i}: {error}");
                let partial: Vec<&str> = error
                    .incomplete_replies()
                    .iter()
                    .map(|p| p.content.as_str())
                    .collect();
                assert_eq!(partial, cut, "run {i}: every cut reply, in order");
                ledger += error.requests();
                let retried = error.attempts().iter().flat_map(|a| &a.transport_retries);
                let last = error.failed_call().into_iter().flat_map(|c| &c.failures);
                refusals += retried.chain(last).filter(|r| refused(&r.error)).count();
            }
        }
    }
    let peak = peak_rss_kib();
    eprintln!(
        "load: {RUNS} runs, {AT_A_TIME} at a time, in {:.1} s; peak RSS {} MiB; \
         {values} values ({first_try} first try, {reasked} after re-asks), failures {failures:?}; \
         server saw {seen} requests, ledgers {ledger} of which {refusals} refused by the open breaker",
        wall.as_secs_f64(),
        peak.map_or("?".to_string(), |kib| format!("{:.0}", kib as f64 / 1024.0)),
    );
    assert_eq!(runs.len(), RUNS);
    assert_eq!(ledger - refusals, seen, "every request is in a ledger");
    assert!(values > RUNS / 2, "the faults leave most runs a value");
    assert!(refusals > 0, "the outage opened the breaker");
}
