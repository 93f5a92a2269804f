//! Gemini's batch mode, with inline requests: the lines go up in one
//! request (`POST models/{model}:batchGenerateContent`, a `batch` whose
//! `inputConfig.requests.requests` are `{request, metadata: {key}}`, each
//! `request` the body a generateContent call would send), the batch is a
//! long-running operation polled by its name (`GET batches/{id}`:
//! `metadata.state` `BATCH_STATE_PENDING`, `BATCH_STATE_RUNNING`, then
//! `BATCH_STATE_SUCCEEDED`, `_FAILED`, `_CANCELLED` or `_EXPIRED`), and its
//! output is in the operation (`response.inlinedResponses.inlinedResponses`,
//! each with the request's `metadata` and a `response` or an `error`, a
//! Google status).
//!
//! Inline requests are limited to 20 MB per batch: a larger round is
//! submitted as several batches (see [`BatchApi::MAX_BYTES`]).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::batch_api::{self, BatchApi, LineResult, Status};
use crate::client::batch_support::{self, Endpoint};
use crate::model::{BoxFuture, ChatModel, ModelError, Request};
use super::Gemini;

/// The most bytes of a finished operation, which holds every line's
/// response (a reply's own cap, 16 MiB by default, is too small for it).
const MAX_OPERATION_BYTES: usize = 1 << 30;

/// The Gemini part of a [`GeminiBatch`](crate::batch::GeminiBatch).
#[derive(Debug, Clone)]
pub struct GeminiBatchApi {
    client: Gemini,
    endpoint: Arc<Endpoint>,
}

impl GeminiBatchApi {
    pub(crate) fn new(client: Gemini) -> Self {
        let client = client.stream(false);
        let endpoint = Arc::new(Endpoint::of(&client));
        GeminiBatchApi { client, endpoint }
    }
}

/// The batch's operation, as far as it is read.
#[derive(Deserialize)]
struct Operation {
    name: String,
    #[serde(default)]
    metadata: Option<BatchMetadata>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    response: Option<BatchOutput>,
}

#[derive(Deserialize)]
struct BatchMetadata {
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    output: Option<BatchOutput>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BatchOutput {
    #[serde(default)]
    inlined_responses: Option<InlinedResponses>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InlinedResponses {
    /// Each read on its own, so that one of the wrong shape fails only its
    /// own run.
    #[serde(default)]
    inlined_responses: Vec<Value>,
}

#[derive(Deserialize)]
struct InlinedResponse {
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    response: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl Operation {
    /// The state in lower case without its prefix (`succeeded`, `expired`,
    /// ...); `BATCH_STATE_` is the REST API's, `JOB_STATE_` the SDKs'.
    fn state(&self) -> String {
        let state = self
            .metadata
            .as_ref()
            .and_then(|m| m.state.as_deref())
            .unwrap_or(if self.done { "done" } else { "pending" });
        let state = state
            .strip_prefix("BATCH_STATE_")
            .or_else(|| state.strip_prefix("JOB_STATE_"))
            .unwrap_or(state);
        state.to_ascii_lowercase()
    }

    fn ended(&self) -> bool {
        self.done
            || matches!(
                self.state().as_str(),
                "succeeded" | "failed" | "cancelled" | "expired"
            )
    }
}

impl InlinedResponse {
    /// The line's reply, or its error: a response is read as the online
    /// client reads a generateContent response; an error (a Google status)
    /// as the same error in an online reply (`INVALID_ARGUMENT` ends the
    /// run, `RESOURCE_EXHAUSTED` and `INTERNAL` are retried). An entry that
    /// cannot be read (of the wrong shape, without its request's key, with
    /// neither a response nor an error, or a response that is no
    /// generateContent response) is a decode error holding its text.
    fn read(entry: Value, api: &GeminiBatchApi) -> LineResult {
        let raw = entry.to_string();
        let unreadable = |why: &dyn std::fmt::Display| {
            batch_api::unreadable(raw.as_bytes(), why, &["metadata", "key"], |t| {
                api.endpoint.scrub(t)
            })
        };
        let line: InlinedResponse = match serde_json::from_value(entry) {
            Ok(line) => line,
            Err(why) => return unreadable(&why),
        };
        let Some(key) = line
            .metadata
            .as_ref()
            .and_then(|m| m["key"].as_str())
            .map(str::to_string)
        else {
            return unreadable(&"no metadata.key, the request's key");
        };
        let result = match (line.response, line.error) {
            (_, Some(error)) => Err(api.endpoint.line_error(&api.client, &error)),
            (Some(response), None) => {
                let body = response.to_string();
                match batch_support::decode_reply(&api.client, body.as_bytes(), &api.endpoint) {
                    Err(ModelError::Decode(why)) => return unreadable(&why),
                    result => result,
                }
            }
            (None, None) => return unreadable(&"neither a response nor an error"),
        };
        (key, result)
    }
}

impl GeminiBatchApi {
    async fn operation(&self, name: &str) -> Result<Operation, ModelError> {
        let value = self
            .endpoint
            .get_json_up_to(name, MAX_OPERATION_BYTES)
            .await?;
        decode_operation(value)
    }
}

fn decode_operation(value: Value) -> Result<Operation, ModelError> {
    serde_json::from_value(value)
        .map_err(|e| ModelError::Decode(format!("not a batch operation: {e}").into()))
}

impl BatchApi for GeminiBatchApi {
    const PROVIDER: &'static str = "gemini";

    /// No limit on the count is documented; the bytes limit comes first.
    const MAX_LINES: usize = 100_000;

    /// Inline requests are limited to 20 MB per batch.
    const MAX_BYTES: usize = 19_000_000;

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
                .map(|(key, request)| json!({"request": request, "metadata": {"key": key}}))
                .collect();
            let name = lines.first().map_or("twr", |(key, _)| key.as_str());
            let body = json!({"batch": {
                "displayName": name,
                "inputConfig": {"requests": {"requests": requests}},
            }});
            let model = self.client.model();
            let created = self
                .endpoint
                .post_json(&format!("models/{model}:batchGenerateContent"), &body)
                .await?;
            Ok(decode_operation(created)?.name)
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
        Box::pin(async move {
            let operation = self.operation(id).await?;
            let state = operation.state();
            Ok(if operation.ended() {
                Status::Ended(state)
            } else {
                Status::Running(state)
            })
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
        Box::pin(async move {
            let operation = self.operation(id).await?;
            if operation.state() == "failed" {
                let error = operation.error.map(|e| e.to_string()).unwrap_or_default();
                return Err(ModelError::Other(
                    format!("batch {id} failed: {}", self.endpoint.scrub(&error)).into(),
                ));
            }
            // The output is the operation's response once it is done; the
            // metadata carries it too.
            let state = operation.state();
            let output = operation
                .response
                .or_else(|| operation.metadata.and_then(|m| m.output));
            // A batch that ran its lines holds their responses; one without
            // them is read again (see `BatchModel`).
            let ran = !matches!(state.as_str(), "cancelled" | "expired");
            if ran
                && output
                    .as_ref()
                    .is_none_or(|o| o.inlined_responses.is_none())
            {
                return Err(ModelError::Decode(
                    format!("batch {id} ended ({state}) but holds no inlinedResponses").into(),
                ));
            }
            let responses = output
                .and_then(|o| o.inlined_responses)
                .map(|r| r.inlined_responses)
                .unwrap_or_default();
            Ok(responses
                .into_iter()
                .map(|entry| InlinedResponse::read(entry, self))
                .collect())
        })
    }
}
