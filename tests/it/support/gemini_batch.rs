//! Gemini's batch mode on 127.0.0.1, as its API reference shows it, with
//! inline requests: `POST /v1beta/models/{model}:batchGenerateContent`
//! (a `batch` whose `inputConfig.requests.requests` are `{request,
//! metadata}`) answers a long-running operation named `batches/{id}`;
//! `GET /v1beta/batches/{id}` moves its `metadata.state` from
//! `BATCH_STATE_PENDING` through `BATCH_STATE_RUNNING` to
//! `BATCH_STATE_SUCCEEDED` (or `_EXPIRED`, `_CANCELLED`), and once `done`
//! the operation's `response` holds `inlinedResponses`, each with its
//! request's metadata and a `response` or an `error` (a Google status), in
//! another order than the input. The key is checked on every request.
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
pub const KEY: &str = "gemini-batch-test-key";

struct Batch {
    lines: Vec<(String, Value)>,
    fault: Fault,
    polls: u32,
    results: Option<Vec<(String, Outcome)>>,
}

/// A running emulator.
#[derive(Clone)]
pub struct GeminiBatchServer {
    /// The counts and scripted faults.
    pub core: Arc<Core>,
    batches: Arc<Mutex<HashMap<String, Batch>>>,
    /// `http://127.0.0.1:PORT/v1beta`
    pub url: String,
}

impl GeminiBatchServer {
    /// Starts a server answering lines with `answer`; the n-th batch
    /// created gets the n-th of `faults`.
    pub async fn start(answer: Answer, faults: Vec<Fault>) -> Self {
        let mut server = GeminiBatchServer {
            core: Arc::new(Core::new(answer, faults)),
            batches: Arc::default(),
            url: String::new(),
        };
        let app = Router::new()
            .route("/v1beta/models/{call}", post(create))
            .route("/v1beta/batches/{id}", get(retrieve))
            // inline requests are limited to 20 MB (axum's default limit is 2 MB).
            .layer(DefaultBodyLimit::max(20 * 1024 * 1024))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        server.url = format!("http://{}/v1beta", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }
}

fn authorized(headers: &HeaderMap) -> Result<(), StatusCode> {
    match headers.get("x-goog-api-key").and_then(|v| v.to_str().ok()) {
        Some(KEY) => Ok(()),
        _ => Err(StatusCode::UNAUTHORIZED),
    }
}

/// A generateContent request as chat messages: each content's parts
/// joined, `model` turns as the assistant's.
fn chat(request: &Value) -> Value {
    let messages: Vec<Value> = request["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let text: String = c["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["text"].as_str().unwrap())
                .collect();
            let role = if c["role"] == "model" {
                "assistant"
            } else {
                "user"
            };
            json!({"role": role, "content": text})
        })
        .collect();
    json!({ "messages": messages })
}

async fn create(
    State(server): State<GeminiBatchServer>,
    headers: HeaderMap,
    Path(call): Path<String>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    authorized(&headers)?;
    if call != "gemini-test:batchGenerateContent" {
        return Err(StatusCode::NOT_FOUND);
    }
    let batch = &body["batch"];
    let requests = batch["inputConfig"]["requests"]["requests"]
        .as_array()
        .ok_or(StatusCode::BAD_REQUEST)?;
    if !batch["displayName"].is_string() {
        return Err(StatusCode::BAD_REQUEST);
    }
    let mut lines = Vec::with_capacity(requests.len());
    for request in requests {
        let key = request["metadata"]["key"]
            .as_str()
            .ok_or(StatusCode::BAD_REQUEST)?;
        if !request["request"]["contents"].is_array() {
            return Err(StatusCode::BAD_REQUEST);
        }
        lines.push((key.to_string(), chat(&request["request"])));
    }
    let (n, fault) = server.core.create();
    let id = format!("batches/b{n:03}");
    let batch = Batch {
        lines,
        fault,
        polls: 0,
        results: None,
    };
    let operation = operation(&id, &server.core, &batch);
    server.batches.lock().unwrap().insert(id, batch);
    Ok(Json(operation))
}

async fn retrieve(
    State(server): State<GeminiBatchServer>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, StatusCode> {
    authorized(&headers)?;
    let held = server.core.poll();
    let id = format!("batches/{id}");
    let mut batches = server.batches.lock().unwrap();
    let batch = batches.get_mut(&id).ok_or(StatusCode::NOT_FOUND)?;
    if batch.results.is_none() && !(held && batch.polls >= 1) {
        batch.polls += 1;
        // Pending, running for a poll, then done.
        if batch.polls >= 2 {
            batch.results = Some(server.core.run(&batch.fault, &batch.lines));
        }
    }
    let mut object = operation(&id, &server.core, batch);
    if let Fault::Omit(field, _) = batch.fault {
        // `response`: the output, in the operation and its metadata.
        omit(&mut batch.fault, &mut object, |o| {
            let out = o["metadata"].as_object_mut().unwrap().remove("output");
            o.as_object_mut().unwrap().remove(field).is_some() || out.is_some()
        });
    }
    Ok(Json(object))
}

fn operation(id: &str, core: &Core, batch: &Batch) -> Value {
    let state = match (&batch.results, &batch.fault) {
        (None, _) if batch.polls == 0 => "BATCH_STATE_PENDING",
        (None, _) => "BATCH_STATE_RUNNING",
        (Some(_), Fault::ExpireHalf) => "BATCH_STATE_EXPIRED",
        (Some(_), Fault::Cancelled) => "BATCH_STATE_CANCELLED",
        (Some(_), _) => "BATCH_STATE_SUCCEEDED",
    };
    let mut metadata = json!({
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": "models/gemini-test", "displayName": "twr", "state": state,
        "createTime": "2025-07-07T16:37:30.000000Z",
        "batchStats": {"requestCount": batch.lines.len().to_string()},
    });
    let mut operation = json!({"name": id, "metadata": {}});
    if let Some(results) = &batch.results {
        // Lines never run (expired, cancelled) have no response.
        let responses: Vec<Value> = results
            .iter()
            .filter_map(|(key, outcome)| {
                let meta = json!({ "key": key });
                let reply = |text: &str| {
                    json!({"metadata": meta, "response": {
                        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                                        "finishReason": "STOP", "index": 0}],
                        "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 100,
                                          "totalTokenCount": 1100},
                        "modelVersion": "gemini-test"}})
                };
                match outcome {
                    Outcome::Reply(text) => Some(reply(text)),
                    Outcome::Garbled(garble, item, text) => {
                        let mut entry = reply(text);
                        let entry = match garble {
                            // Not an object: a string holding half of one.
                            Garble::Cut => {
                                let whole = entry.to_string();
                                Value::String(whole[..whole.len() / 2].to_string())
                            }
                            Garble::NoBody => {
                                entry.as_object_mut().unwrap().remove("response");
                                entry
                            }
                            Garble::WrongShape => {
                                entry["response"]["candidates"] = json!("none");
                                entry
                            }
                        };
                        core.wrote_garbled(*item, &entry.to_string());
                        Some(entry)
                    }
                    Outcome::Error(status, message) => {
                        let (code, name) = match status {
                            400 => (3, "INVALID_ARGUMENT"),
                            429 => (8, "RESOURCE_EXHAUSTED"),
                            503 => (14, "UNAVAILABLE"),
                            _ => (13, "INTERNAL"),
                        };
                        Some(json!({"metadata": meta,
                            "error": {"code": code, "message": message, "status": name}}))
                    }
                    Outcome::Expired | Outcome::Cancelled => None,
                }
            })
            .collect();
        let output = json!({
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput",
            "inlinedResponses": {"inlinedResponses": responses},
        });
        metadata["output"] = output.clone();
        metadata["endTime"] = json!("2025-07-07T16:47:30.000000Z");
        operation["done"] = json!(true);
        operation["response"] = output;
    }
    operation["metadata"] = metadata;
    operation
}
