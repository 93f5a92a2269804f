//! The ledger accounts for every request: under injected faults (429, 503,
//! dropped connections) the requests recorded by every run, successful or
//! not, add up to the requests a real local axum server received.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Router;
use futures_util::StreamExt;
use serde_json::json;
use twr_runtime::{Feedback, OpenAiCompatible, RetryPolicy, Think};

/// What the server does with request `n`: a fixed pseudo-random mix of
/// faults and replies, so the runs interleave with failures everywhere.
fn respond(n: usize) -> Response {
    let roll = splitmix(n as u64) % 100;
    match roll {
        0..=24 => json_response(
            StatusCode::TOO_MANY_REQUESTS,
            json!({"error": {"message": "rate limited"}}),
        ),
        25..=44 => json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"error": {"message": "overloaded"}}),
        ),
        45..=59 => dropped(),
        60..=79 => reply("about eight"),
        _ => reply("8"),
    }
}

fn splitmix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn json_response(status: StatusCode, body: serde_json::Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    response
}

fn reply(content: &str) -> Response {
    json_response(
        StatusCode::OK,
        json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }),
    )
}

/// A 200 whose connection drops after the first bytes of the body.
fn dropped() -> Response {
    let pieces: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"{\"choices\": [{\"index\": 0, ")),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "dropped",
        )),
    ];
    let mut response = Response::new(Body::from_stream(futures_util::stream::iter(pieces)));
    response
        .headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    response
}

async fn handle(State(count): State<Arc<AtomicUsize>>) -> Response {
    respond(count.fetch_add(1, Ordering::SeqCst))
}

fn legs(raw: &str) -> Result<u32, Feedback> {
    raw.trim()
        .parse::<u32>()
        .map_err(|_| Feedback::message("Write only the number."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ledger_equals_the_requests_the_server_saw() {
    let count = Arc::new(AtomicUsize::new(0));
    let router = Router::new()
        .fallback(handle)
        .with_state(Arc::clone(&count));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let model = OpenAiCompatible::new(url, "test-model").api_key("sk-ledger");
    let policy = RetryPolicy::default()
        .max_retries(2)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(2));
    let model = &model;
    let runs: Vec<_> = futures_util::stream::iter(0..200)
        .map(|_| async move {
            Think::new(model)
                .max_attempts(2)
                .retry_policy(policy)
                .run_with("How many legs has a spider?", legs)
                .await
        })
        .buffer_unordered(40)
        .collect()
        .await;

    let (mut ledger, mut old_ledger, mut failed_calls, mut values) = (0, 0, 0, 0);
    for run in &runs {
        match run {
            Ok(outcome) => {
                values += 1;
                let requests: usize = outcome
                    .attempts
                    .iter()
                    .map(|a| 1 + a.transport_retries.len())
                    .sum();
                ledger += requests;
                old_ledger += requests;
            }
            Err(error) => {
                ledger += error.requests();
                // What the ledger held before every request of the failed
                // call was kept: its replies and their retries only.
                old_ledger += error
                    .attempts()
                    .iter()
                    .map(|a| 1 + a.transport_retries.len())
                    .sum::<usize>();
                if let Some(call) = error.failed_call() {
                    failed_calls += 1;
                    assert!(!call.failures.is_empty());
                    assert!(call.failures.iter().all(|f| !f.error.is_empty()));
                    assert_eq!(call.failures.last().unwrap().delay, Duration::ZERO);
                }
            }
        }
    }
    let seen = count.load(Ordering::SeqCst);
    eprintln!(
        "{values} values of {} runs; server saw {seen} requests; ledger {ledger} \
         (without the failed calls: {old_ledger}); {failed_calls} runs ended in a failed call",
        runs.len()
    );
    assert!(
        values > 0 && failed_calls > 0,
        "the mix exercises both ends"
    );
    assert_eq!(ledger, seen);
}
