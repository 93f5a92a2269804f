//! OpenAI's Batch API (also what vLLM's `run-batch` reads and writes): the
//! lines go up as a JSONL file (`POST /files`, purpose `batch`), the batch is
//! created on it (`POST /batches`, endpoint `/v1/chat/completions`), polled
//! (`GET /batches/{id}`: `validating`, `in_progress`, `finalizing`, then
//! `completed`, `expired`, `cancelled` or `failed`), and its output and
//! error files are read line by line (`GET /files/{id}/content`). An
//! expired batch keeps the results of the lines it ran; the others are in
//! the error file (`batch_expired`) or missing.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::batch_api::{self, BatchApi, LineResult, Status};
use crate::client::batch_support::{self, Endpoint};
use crate::model::{BoxFuture, ChatModel, ModelError, Request};
use super::OpenAiCompatible;

/// The OpenAI part of an [`OpenAiBatch`](crate::batch::OpenAiBatch).
#[derive(Debug, Clone)]
pub struct OpenAiBatchApi {
    client: OpenAiCompatible,
    endpoint: Arc<Endpoint>,
}

impl OpenAiBatchApi {
    pub(crate) fn new(client: OpenAiCompatible) -> Self {
        let client = client.stream(false);
        let endpoint = Arc::new(Endpoint::of(&client));
        OpenAiBatchApi { client, endpoint }
    }
}

/// A batch object, as far as it is read.
#[derive(Deserialize)]
struct BatchObject {
    id: String,
    status: String,
    #[serde(default)]
    output_file_id: Option<String>,
    #[serde(default)]
    error_file_id: Option<String>,
    #[serde(default)]
    errors: Option<Value>,
}

/// A line of an output or error file.
#[derive(Deserialize)]
struct OutputLine {
    custom_id: String,
    #[serde(default)]
    response: Option<LineResponse>,
    #[serde(default)]
    error: Option<LineError>,
}

#[derive(Deserialize)]
struct LineResponse {
    status_code: u16,
    #[serde(default)]
    body: Value,
}

#[derive(Deserialize)]
struct LineError {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

impl OutputLine {
    /// The line's reply, or its error: a 200 body is read as the online
    /// client reads a chat completion; another status is that status's
    /// error (transient for 408, 429, 5xx); an error without a response
    /// (`batch_expired`, ...) is transient when it is an expiry. A line
    /// that says neither, or whose body is no chat completion, is a decode
    /// error holding its text (`raw`).
    fn result(self, api: &OpenAiBatchApi, raw: &[u8]) -> LineResult {
        let unreadable = |why: &dyn std::fmt::Display| {
            batch_api::unreadable(raw, why, &["custom_id"], |t| api.endpoint.scrub(t))
        };
        let result = match (self.response, self.error) {
            (Some(response), _) if response.status_code == 200 => {
                let body = response.body.to_string();
                match batch_support::decode_reply(&api.client, body.as_bytes(), &api.endpoint) {
                    Err(ModelError::Decode(why)) => return unreadable(&why),
                    result => result,
                }
            }
            (Some(response), error) => {
                let message = response.body["error"]["message"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| error.and_then(|e| e.message))
                    .unwrap_or_else(|| response.body.to_string());
                Err(ModelError::Status {
                    status: response.status_code,
                    message: api.endpoint.scrub(&message),
                    retry_after: None,
                })
            }
            (None, Some(error)) => {
                let code = error.code.unwrap_or_default();
                let message = format!(
                    "{code}: {}",
                    error.message.unwrap_or_else(|| "no message".into())
                );
                let message = api.endpoint.scrub(&message);
                if code == "batch_expired" {
                    Err(ModelError::Interrupted(message.into()))
                } else {
                    Err(ModelError::Other(message.into()))
                }
            }
            (None, None) => return unreadable(&"neither a response nor an error"),
        };
        (self.custom_id, result)
    }
}

impl BatchApi for OpenAiBatchApi {
    const PROVIDER: &'static str = "openai";

    /// OpenAI's limit: 50,000 requests per batch.
    const MAX_LINES: usize = 50_000;

    /// OpenAI's limit is 200 MB for the input file.
    const MAX_BYTES: usize = 190_000_000;

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
            let mut jsonl = Vec::with_capacity(lines.len() * 512);
            for (custom_id, body) in lines {
                let line = json!({
                    "custom_id": custom_id,
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": body,
                });
                serde_json::to_writer(&mut jsonl, &line)
                    .map_err(|e| ModelError::Config(format!("a batch line: {e}").into()))?;
                jsonl.push(b'\n');
            }
            let file = self
                .endpoint
                .upload("files", "batch", "batch.jsonl", jsonl)
                .await?;
            let file_id = file["id"]
                .as_str()
                .ok_or_else(|| ModelError::Decode("the uploaded file has no id".into()))?;
            let created = self
                .endpoint
                .post_json(
                    "batches",
                    &json!({
                        "input_file_id": file_id,
                        "endpoint": "/v1/chat/completions",
                        "completion_window": "24h",
                    }),
                )
                .await?;
            let batch: BatchObject = serde_json::from_value(created)
                .map_err(|e| ModelError::Decode(format!("not a batch object: {e}").into()))?;
            Ok(batch.id)
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
        Box::pin(async move {
            let batch = self.batch(id).await?;
            Ok(match batch.status.as_str() {
                "completed" | "expired" | "cancelled" | "failed" => Status::Ended(batch.status),
                _ => Status::Running(batch.status),
            })
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
        Box::pin(async move {
            let batch = self.batch(id).await?;
            if batch.status == "failed" {
                let errors = batch.errors.map(|e| e.to_string()).unwrap_or_default();
                return Err(ModelError::Other(
                    format!("batch {id} failed: {}", self.endpoint.scrub(&errors)).into(),
                ));
            }
            // A completed batch names its files (every batch holds a line);
            // an object without them is read again (see `BatchModel`).
            if batch.status == "completed"
                && batch.output_file_id.is_none()
                && batch.error_file_id.is_none()
            {
                return Err(ModelError::Decode(
                    format!("batch {id} is completed but names no output_file_id or error_file_id")
                        .into(),
                ));
            }
            let mut results = Vec::new();
            for file in [batch.output_file_id, batch.error_file_id]
                .into_iter()
                .flatten()
            {
                let path = format!("files/{file}/content");
                self.endpoint
                    .get_lines(&path, |line| {
                        // A line that cannot be read fails its own run only.
                        results.push(match serde_json::from_slice::<OutputLine>(line) {
                            Ok(read) => read.result(self, line),
                            Err(why) => batch_api::unreadable(line, &why, &["custom_id"], |t| {
                                self.endpoint.scrub(t)
                            }),
                        });
                        Ok(())
                    })
                    .await?;
            }
            Ok(results)
        })
    }
}

impl OpenAiBatchApi {
    async fn batch(&self, id: &str) -> Result<BatchObject, ModelError> {
        let value = self.endpoint.get_json(&format!("batches/{id}")).await?;
        serde_json::from_value(value)
            .map_err(|e| ModelError::Decode(format!("not a batch object: {e}").into()))
    }
}
