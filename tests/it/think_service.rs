//! A `Think` kept in a web service's state, as the guide's loop page
//! shows: built once over an `Arc` of a real client, cloned into each
//! request, each extraction run in a task of its own (`tokio::spawn`), and
//! served to a real HTTP caller. Two real servers on 127.0.0.1: the service
//! (axum) and the model server it calls (axum, answering by the prompt).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::Barrier;
use twr_runtime::{ChatModel, Choice, Gemini, OpenAiCompatible, ScriptedModel, Sections, Think};

#[derive(Debug, Clone, Copy, PartialEq, Choice)]
enum Priority {
    Low,
    High,
}

#[derive(Debug, Sections)]
struct Ticket {
    /// The ticket's number.
    id: u32,
    priority: Priority,
}

/// What the service keeps: one `Think`, built once, over a shared client.
type Extractor = Think<'static, Arc<OpenAiCompatible>>;

/// Values a service keeps in state and moves into tasks.
fn assert_service_value<T: Clone + Send + Sync + 'static>() {}

#[test]
fn a_think_over_an_owned_model_is_a_service_value() {
    assert_service_value::<Extractor>();
    assert_service_value::<Think<'static, OpenAiCompatible>>();
    assert_service_value::<Think<'static, Box<dyn ChatModel>>>();
    assert_service_value::<Think<'static, Arc<dyn ChatModel>>>();
    assert_service_value::<Think<'static, Arc<Gemini>>>();
    assert_service_value::<Think<'static, ScriptedModel>>();
}

/// Tickets whose number is odd get a first reply with a wrong priority, so
/// their run needs a second attempt; even ones are right the first time.
fn model_reply(request: &Value) -> String {
    let messages = request["messages"].as_array().expect("messages");
    let prompt = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .expect("a user message");
    let id: u32 = prompt
        .split("ticket #")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the prompt names the ticket");
    let earlier_replies = messages.iter().filter(|m| m["role"] == "assistant").count();
    match (id % 2, earlier_replies) {
        (0, _) => format!("[Id]\n{id}\n[Priority]\nLow"),
        (_, 0) => format!("[Id]\n{id}\n[Priority]\nwhenever"),
        _ => "[Priority]\nHigh".to_string(),
    }
}

/// The model server: every first request of the round waits at `barrier`,
/// so no run gets its reply until all of them have asked at once.
async fn start_model_server(first_requests: Arc<Barrier>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(request): Json<Value>| {
            let barrier = first_requests.clone();
            async move {
                let first = !request["messages"]
                    .as_array()
                    .expect("messages")
                    .iter()
                    .any(|m| m["role"] == "assistant");
                if first {
                    barrier.wait().await;
                }
                Json(json!({
                    "choices": [{
                        "message": {"role": "assistant", "content": model_reply(&request)},
                        "finish_reason": "stop",
                    }],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14},
                }))
            }
        }),
    );
    serve(app).await
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

/// `POST /tickets/{budget}` with the ticket's text: the ticket as JSON, or
/// 422 with the error. `budget` is a per-call option: the number of format
/// attempts of this request only.
async fn extract(
    State(think): State<Extractor>,
    Path(budget): Path<usize>,
    text: String,
) -> (StatusCode, Json<Value>) {
    // A per-call option: set on this request's copy, never on the state.
    let think = think.max_attempts(budget);
    let run = tokio::spawn(async move { think.run::<Ticket>(text).await });
    match run.await.expect("the run's task") {
        Ok(outcome) => (
            StatusCode::OK,
            Json(json!({
                "id": outcome.value.id,
                "priority": format!("{:?}", outcome.value.priority),
                "attempts": outcome.attempts.len(),
            })),
        ),
        Err(error) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"error": error.to_string(), "attempts": error.attempts().len()})),
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_keeps_one_think_and_serves_concurrent_extractions() {
    const REQUESTS: u32 = 16;
    let model_url = start_model_server(Arc::new(Barrier::new(REQUESTS as usize))).await;
    let client = OpenAiCompatible::new(format!("{model_url}/v1"), "local").temperature(0.0);
    let attempts_seen = Arc::new(AtomicUsize::new(0));
    let counter = attempts_seen.clone();
    let think: Extractor = Think::new(Arc::new(client))
        .system("You extract tickets.")
        .max_attempts(3)
        .on_attempt(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
    let service = serve(
        Router::new()
            .route("/tickets/{budget}", post(extract))
            .with_state(think.clone()),
    )
    .await;

    // Ticket n asks with a budget of 1 attempt when n is a multiple of 3:
    // an odd one of those fails, the budget of the others is untouched.
    let caller = reqwest::Client::new();
    let requests = (1..=REQUESTS).map(|id| {
        let caller = caller.clone();
        let url = format!("{service}/tickets/{}", if id % 3 == 0 { 1 } else { 3 });
        async move {
            let response = caller
                .post(url)
                .body(format!(
                    "Read ticket #{id} and give its number and priority."
                ))
                .send()
                .await
                .expect("the service answers");
            let status = response.status().as_u16();
            let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            (id, status, body)
        }
    });
    let answers = tokio::time::timeout(
        Duration::from_secs(20),
        futures_util::future::join_all(requests),
    )
    .await
    .expect("every first request reaches the model server at once");

    let mut expected_attempts = 0;
    for (id, status, body) in answers {
        match (id % 2, id % 3) {
            (0, _) => {
                assert_eq!(status, 200, "ticket {id}: {body}");
                assert_eq!(
                    body,
                    json!({"id": id, "priority": "Low", "attempts": 1}),
                    "ticket {id}"
                );
                expected_attempts += 1;
            }
            (_, 0) => {
                assert_eq!(status, 422, "ticket {id}: {body}");
                assert_eq!(body["attempts"], 1, "ticket {id}: {body}");
                let error = body["error"].as_str().unwrap();
                assert!(
                    error.starts_with(
                        "the model gave no valid answer in 1 attempt; the last reply still had \
                         1 problem: The [Priority] section should be one of: Low, High; \
                         it says 'whenever'."
                    ),
                    "ticket {id}: {error}"
                );
                expected_attempts += 1;
            }
            _ => {
                assert_eq!(status, 200, "ticket {id}: {body}");
                assert_eq!(
                    body,
                    json!({"id": id, "priority": "High", "attempts": 2}),
                    "ticket {id}"
                );
                expected_attempts += 2;
            }
        }
    }
    // Every clone called the one hook; the state kept its own options.
    assert_eq!(attempts_seen.load(Ordering::SeqCst), expected_attempts);
    assert!(format!("{think:?}").contains("max_attempts: Some(3)"));
}
