//! Anthropic's Message Batches: the lines go up in one request
//! (`POST /v1/messages/batches`, each `{custom_id, params}` with `params` the
//! body a Messages call would send, cache breakpoints included), the batch
//! is polled (`GET /v1/messages/batches/{id}`: `processing_status`
//! `in_progress`, `canceling`, then `ended`), and its results are read line
//! by line (`GET /v1/messages/batches/{id}/results`, JSONL in any order),
//! each `succeeded` (a message), `errored` (an error object), `canceled` or
//! `expired`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::batch_api::{self, BatchApi, LineResult, Status};
use crate::client::batch_support::{self, Endpoint};
use crate::model::{BoxFuture, ChatModel, ModelError, Request};
use super::Anthropic;

/// The Anthropic part of an [`AnthropicBatch`](crate::batch::AnthropicBatch).
#[derive(Debug, Clone)]
pub struct AnthropicBatchApi {
    client: Anthropic,
    endpoint: Arc<Endpoint>,
}

impl AnthropicBatchApi {
    pub(crate) fn new(client: Anthropic) -> Self {
        let client = client.stream(false);
        let endpoint = Arc::new(Endpoint::of(&client));
        AnthropicBatchApi { client, endpoint }
    }
}

/// A message batch, as far as it is read.
#[derive(Deserialize)]
struct MessageBatch {
    id: String,
    processing_status: String,
}

/// A line of the results.
#[derive(Deserialize)]
struct ResultLine {
    custom_id: String,
    result: LineOutcome,
}

#[derive(Deserialize)]
struct LineOutcome {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl ResultLine {
    /// The line's reply, or its error: a `succeeded` message is read as the
    /// online client reads a Messages response; an `errored` line's error
    /// is read as the same error in an online reply (a 400 ends the run,
    /// an overload is retried); an `expired` line never ran, so a new batch
    /// can run it (transient); a `canceled` one was cancelled on purpose.
    ///
    /// A `succeeded` line with no message, or one that is no Messages
    /// response, and a line of an unknown type are decode errors holding
    /// the line's text (`raw`).
    fn result(self, api: &AnthropicBatchApi, raw: &[u8]) -> LineResult {
        let unreadable = |why: &dyn std::fmt::Display| {
            batch_api::unreadable(raw, why, &["custom_id"], |t| api.endpoint.scrub(t))
        };
        let custom_id = self.custom_id;
        let outcome = self.result;
        let result = match outcome.kind.as_str() {
            "succeeded" => match outcome.message {
                Some(message) => {
                    let body = message.to_string();
                    match batch_support::decode_reply(&api.client, body.as_bytes(), &api.endpoint) {
                        Err(ModelError::Decode(why)) => return unreadable(&why),
                        result => result,
                    }
                }
                None => return unreadable(&"a succeeded result with no message"),
            },
            "errored" => {
                let error = outcome.error.unwrap_or(Value::Null);
                // `{"type": "error", "error": {"type": ..., "message": ...}}`
                let inner = match error.get("error") {
                    Some(inner) if inner.is_object() => inner,
                    _ => &error,
                };
                Err(api.endpoint.line_error(&api.client, inner))
            }
            "expired" => Err(ModelError::Interrupted(
                format!("the batch expired before request {custom_id} ran").into(),
            )),
            "canceled" => Err(ModelError::Other(
                format!("request {custom_id} was canceled with its batch").into(),
            )),
            other => return unreadable(&format_args!("a result of unknown type {other:?}")),
        };
        (custom_id, result)
    }
}

fn decode_batch(value: Value) -> Result<MessageBatch, ModelError> {
    serde_json::from_value(value)
        .map_err(|e| ModelError::Decode(format!("not a message batch: {e}").into()))
}

impl BatchApi for AnthropicBatchApi {
    const PROVIDER: &'static str = "anthropic";

    /// Anthropic's limit: 100,000 requests.
    const MAX_LINES: usize = 100_000;

    /// Anthropic's limit is 256 MB for the whole request.
    const MAX_BYTES: usize = 250_000_000;

    fn online(&self) -> &dyn ChatModel {
        &self.client
    }

    fn line(&self, request: Request<'_>) -> Result<Value, ModelError> {
        self.client.request_body_for(request)
    }

    fn submit<'a>(
        &'a self,
        lines: &'a [(String, Value)],
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            let requests: Vec<Value> = lines
                .iter()
                .map(|(custom_id, params)| json!({"custom_id": custom_id, "params": params}))
                .collect();
            let created = self
                .endpoint
                .post_json("v1/messages/batches", &json!({ "requests": requests }))
                .await?;
            Ok(decode_batch(created)?.id)
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
        Box::pin(async move {
            let batch = self
                .endpoint
                .get_json(&format!("v1/messages/batches/{id}"))
                .await?;
            let batch = decode_batch(batch)?;
            Ok(match batch.processing_status.as_str() {
                "ended" => Status::Ended(batch.processing_status),
                _ => Status::Running(batch.processing_status),
            })
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
        Box::pin(async move {
            let mut results = Vec::new();
            self.endpoint
                .get_lines(&format!("v1/messages/batches/{id}/results"), |line| {
                    // A line that cannot be read fails its own run only.
                    results.push(match serde_json::from_slice::<ResultLine>(line) {
                        Ok(read) => read.result(self, line),
                        Err(why) => {
                            batch_api::unreadable(line, &why, &["custom_id"], |t| self.endpoint.scrub(t))
                        }
                    });
                    Ok(())
                })
                .await?;
            Ok(results)
        })
    }
}
