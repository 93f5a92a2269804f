//! Anthropic's Message Batches on 127.0.0.1, as its documentation shows
//! them: `POST /v1/messages/batches` (`requests` of `{custom_id, params}`),
//! `GET /v1/messages/batches/{id}` with `processing_status` moving from
//! `in_progress` (or `canceling`) to `ended` and `request_counts` by
//! outcome, and `GET /v1/messages/batches/{id}/results`, JSONL in another
//! order than the input, each line `succeeded`, `errored`, `canceled` or
//! `expired`. The key and the version header are checked on every request.
#![allow(dead_code)] // each test uses a subset

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::batch_core::{omit, Answer, Core, Fault, Garble, Outcome};

/// The key the emulator expects.
pub const KEY: &str = "sk-ant-batch-test";

struct Batch {
    lines: Vec<(String, Value)>,
    fault: Fault,
    polls: u32,
    results: Option<Vec<(String, Outcome)>>,
}

/// A running emulator.
#[derive(Clone)]
pub struct AnthropicBatchServer {
    /// The counts and scripted faults.
    pub core: Arc<Core>,
    batches: Arc<Mutex<HashMap<String, Batch>>>,
    /// `http://127.0.0.1:PORT`
    pub url: String,
}

impl AnthropicBatchServer {
    /// Starts a server answering lines with `answer`; the n-th batch
    /// created gets the n-th of `faults`.
    pub async fn start(answer: Answer, faults: Vec<Fault>) -> Self {
        let mut server = AnthropicBatchServer {
            core: Arc::new(Core::new(answer, faults)),
            batches: Arc::default(),
            url: String::new(),
        };
        let app = Router::new()
            .route("/v1/messages/batches", post(create))
            .route("/v1/messages/batches/{id}", get(retrieve))
            .route("/v1/messages/batches/{id}/results", get(results))
            // Anthropic takes batches up to 256 MB (axum's default limit is 2 MB).
            .layer(DefaultBodyLimit::max(256 * 1024 * 1024))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        server.url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }
}

fn authorized(headers: &HeaderMap) -> Result<(), StatusCode> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if header("x-api-key") != Some(KEY) || header("anthropic-version") != Some("2023-06-01") {
        return Err(StatusCode::UNAUTHORIZED);
    }
    Ok(())
}

/// A request's params as chat messages: `system` dropped, content blocks
/// joined.
fn chat(params: &Value) -> Value {
    let messages: Vec<Value> = params["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let content = match &m["content"] {
                Value::String(text) => text.clone(),
                blocks => blocks
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["text"].as_str().unwrap())
                    .collect(),
            };
            json!({"role": m["role"], "content": content})
        })
        .collect();
    json!({ "messages": messages })
}

async fn create(
    State(server): State<AnthropicBatchServer>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    authorized(&headers)?;
    let requests = body["requests"].as_array().ok_or(StatusCode::BAD_REQUEST)?;
    let mut lines = Vec::with_capacity(requests.len());
    for request in requests {
        let custom_id = request["custom_id"]
            .as_str()
            .ok_or(StatusCode::BAD_REQUEST)?;
        // Anthropic's rule for custom ids.
        let valid = !custom_id.is_empty()
            && custom_id.len() <= 64
            && custom_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let params = &request["params"];
        if !valid
            || params["model"] != "claude-test"
            || !params["max_tokens"].is_u64()
            || params.get("stream").is_some()
        {
            return Err(StatusCode::BAD_REQUEST);
        }
        lines.push((custom_id.to_string(), chat(params)));
    }
    let (n, fault) = server.core.create();
    let id = format!("msgbatch_{n:03}");
    let batch = Batch {
        lines,
        fault,
        polls: 0,
        results: None,
    };
    let object = batch_object(&id, &batch);
    server.batches.lock().unwrap().insert(id, batch);
    Ok(Json(object))
}

async fn retrieve(
    State(server): State<AnthropicBatchServer>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, StatusCode> {
    authorized(&headers)?;
    let held = server.core.poll();
    let mut batches = server.batches.lock().unwrap();
    let batch = batches.get_mut(&id).ok_or(StatusCode::NOT_FOUND)?;
    if !held && batch.results.is_none() {
        batch.polls += 1;
        // In progress for two polls (canceling for one, when cancelled).
        if batch.polls >= 2 {
            batch.results = Some(server.core.run(&batch.fault, &batch.lines));
        }
    }
    let mut object = batch_object(&id, batch);
    if let Fault::Omit(field, _) = batch.fault {
        omit(&mut batch.fault, &mut object, |o| {
            o.as_object_mut().unwrap().remove(field).is_some()
        });
    }
    Ok(Json(object))
}

async fn results(
    State(server): State<AnthropicBatchServer>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<String, StatusCode> {
    authorized(&headers)?;
    let batches = server.batches.lock().unwrap();
    let batch = batches.get(&id).ok_or(StatusCode::NOT_FOUND)?;
    // Results are there once processing ended.
    let results = batch.results.as_ref().ok_or(StatusCode::NOT_FOUND)?;
    let mut jsonl = String::new();
    let succeeded = |i: usize, text: &str| {
        json!({"type": "succeeded", "message": {
            "id": format!("msg_{id}_{i}"), "type": "message", "role": "assistant",
            "model": "claude-test", "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1000, "output_tokens": 100,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
    };
    for (i, (custom_id, outcome)) in results.iter().enumerate() {
        let result = match outcome {
            Outcome::Reply(text) => succeeded(i, text),
            Outcome::Garbled(garble, item, text) => {
                let mut result = succeeded(i, text);
                let line = match garble {
                    Garble::Cut => {
                        let whole = json!({"custom_id": custom_id, "result": result}).to_string();
                        whole[..whole.len() / 2].to_string()
                    }
                    Garble::NoBody => {
                        result.as_object_mut().unwrap().remove("message");
                        json!({"custom_id": custom_id, "result": result}).to_string()
                    }
                    Garble::WrongShape => {
                        result["message"]["content"] = json!(7);
                        json!({"custom_id": custom_id, "result": result}).to_string()
                    }
                };
                server.core.wrote_garbled(*item, &line);
                jsonl.push_str(&line);
                jsonl.push('\n');
                continue;
            }
            Outcome::Error(status, message) => {
                let kind = match status {
                    400 => "invalid_request_error",
                    429 => "rate_limit_error",
                    529 => "overloaded_error",
                    _ => "api_error",
                };
                json!({"type": "errored", "error": {"type": "error",
                    "error": {"type": kind, "message": message}}})
            }
            Outcome::Expired => json!({"type": "expired"}),
            Outcome::Cancelled => json!({"type": "canceled"}),
        };
        jsonl.push_str(&json!({"custom_id": custom_id, "result": result}).to_string());
        jsonl.push('\n');
    }
    Ok(jsonl)
}

fn batch_object(id: &str, batch: &Batch) -> Value {
    let count = |f: fn(&Outcome) -> bool| {
        batch
            .results
            .as_ref()
            .map_or(0, |r| r.iter().filter(|(_, o)| f(o)).count())
    };
    let ended = batch.results.is_some();
    let status = match (ended, &batch.fault) {
        (true, _) => "ended",
        (false, Fault::Cancelled) if batch.polls > 0 => "canceling",
        (false, _) => "in_progress",
    };
    json!({
        "id": id, "type": "message_batch", "processing_status": status,
        "request_counts": {
            "processing": if ended { 0 } else { batch.lines.len() },
            "succeeded": count(|o| matches!(o, Outcome::Reply(_) | Outcome::Garbled(..))),
            "errored": count(|o| matches!(o, Outcome::Error(..))),
            "canceled": count(|o| matches!(o, Outcome::Cancelled)),
            "expired": count(|o| matches!(o, Outcome::Expired)),
        },
        "ended_at": if ended { json!("2024-09-24T19:37:24.100435Z") } else { Value::Null },
        "created_at": "2024-09-24T18:37:24.100435Z",
        "expires_at": "2024-09-25T18:37:24.100435Z",
        "archived_at": null, "cancel_initiated_at": null,
        "results_url": if ended {
            json!(format!("https://api.anthropic.com/v1/messages/batches/{id}/results"))
        } else {
            Value::Null
        },
    })
}
