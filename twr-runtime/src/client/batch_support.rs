//! What the batch APIs (feature `batch`) share with the online clients: the
//! base URL, the key in its header, the shared HTTP client, scrubbing of
//! server text, and reading a reply body with the provider's own decoder.

use std::fmt;
use std::sync::Arc;

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::body::BodyReader;
use super::http::{self, Deadline};
use super::http_model::{decode_all, HttpModel};
use super::provider::{Provider, RequestHead};
use super::reply::DecodedReader;
use super::secret::Secrets;
use crate::model::{ErrorDetail, Message, ModelError, Reply};

/// The time limit of one batch API request (the upload of a large file or
/// the download of a large result included).
const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Where a provider's batch endpoints are, and how to call them.
pub(crate) struct Endpoint {
    base_url: String,
    headers: Result<HeaderMap, String>,
    client: Result<reqwest::Client, String>,
    secrets: Arc<Secrets>,
    max_response_bytes: usize,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &super::secret::redact_url(&self.base_url))
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// The endpoint of `client`: its base URL, key and HTTP client.
    pub(crate) fn of<P: Provider>(client: &HttpModel<P>) -> Self {
        // The headers of a call (the key, a version): the same for every
        // request of the provider, whatever the messages.
        let probe = [Message::user("")];
        let mut head = RequestHead::new();
        let headers = client
            .provider
            .head(
                &client.spec(&probe, None),
                client.api_key.as_ref(),
                &mut head,
            )
            .map(|()| head.headers)
            .map_err(|e| e.to_string());
        Endpoint {
            base_url: client.base_url.clone(),
            headers,
            client: client.options.client().map_err(|e| e.to_string()),
            secrets: Arc::new(Secrets::new(client.api_key.as_ref(), &client.base_url)),
            max_response_bytes: client.options.max_response_bytes,
        }
    }

    /// The error a batch API reported for one line (an Anthropic error
    /// object, a Google status), read as the same error in an online reply
    /// body is: a status when its code, type or status names one (so a 400
    /// ends the run and a 429 is retried), otherwise a reply the server
    /// broke off (a server error, an overload: transient).
    pub(crate) fn line_error<P: Provider>(
        &self,
        client: &HttpModel<P>,
        error: &Value,
    ) -> ModelError {
        super::fault::embedded(&client.provider, error, &self.secrets)
    }

    /// `text` with the key and any credentials of the base URL replaced.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.secrets.scrub(text)
    }

    fn request(
        &self,
        method: reqwest::Method,
        path: &str,
    ) -> Result<reqwest::RequestBuilder, ModelError> {
        let headers = self
            .headers
            .clone()
            .map_err(|e| ModelError::Config(e.into()))?;
        let client = self
            .client
            .clone()
            .map_err(|e| ModelError::Config(e.into()))?;
        let url = http::endpoint(&self.base_url, path)?;
        Ok(client.request(method, url).headers(headers))
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<BodyReader, ModelError> {
        let deadline = Deadline::after(REQUEST_TIMEOUT);
        let response = http::send(request, deadline, &self.secrets).await?;
        BodyReader::new(response, usize::MAX, deadline, self.secrets.clone())
    }

    async fn json(&self, request: reqwest::RequestBuilder) -> Result<Value, ModelError> {
        self.json_up_to(request, self.max_response_bytes).await
    }

    async fn json_up_to(
        &self,
        request: reqwest::RequestBuilder,
        limit: usize,
    ) -> Result<Value, ModelError> {
        let mut body = self.send(request).await?;
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > limit {
                return Err(ModelError::TooLarge { limit });
            }
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            ModelError::Decode(ErrorDetail::with_source(
                format!(
                    "the batch API's response is not JSON: {}",
                    self.secrets
                        .scrubbed_quote(&String::from_utf8_lossy(&bytes), 200)
                ),
                e,
            ))
        })
    }

    /// `POST path` with a JSON body; the JSON answer.
    pub(crate) async fn post_json(&self, path: &str, body: &Value) -> Result<Value, ModelError> {
        let request = self.request(reqwest::Method::POST, path)?.json(body);
        self.json(request).await
    }

    /// `GET path`; the JSON answer.
    pub(crate) async fn get_json(&self, path: &str) -> Result<Value, ModelError> {
        let request = self.request(reqwest::Method::GET, path)?;
        self.json(request).await
    }

    /// `GET path`; the JSON answer, which may have up to `limit` bytes (a
    /// batch whose answer holds every line's result is larger than a reply).
    pub(crate) async fn get_json_up_to(
        &self,
        path: &str,
        limit: usize,
    ) -> Result<Value, ModelError> {
        let request = self.request(reqwest::Method::GET, path)?;
        self.json_up_to(request, limit).await
    }

    /// Uploads `bytes` as the multipart file `name` with `purpose`; the
    /// JSON answer (the file object).
    pub(crate) async fn upload(
        &self,
        path: &str,
        purpose: &'static str,
        name: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Value, ModelError> {
        let part = reqwest::multipart::Part::bytes(bytes)
            .file_name(name)
            .mime_str("application/jsonl")
            .map_err(|e| ModelError::Config(ErrorDetail::with_source("a file part", e)))?;
        let form = reqwest::multipart::Form::new()
            .text("purpose", purpose)
            .part("file", part);
        let request = self.request(reqwest::Method::POST, path)?.multipart(form);
        self.json(request).await
    }

    /// `GET path`, a JSONL file, handing each non-blank line to `each` as it
    /// arrives: one pass, and only the line being read is held.
    pub(crate) async fn get_lines(
        &self,
        path: &str,
        mut each: impl FnMut(&[u8]) -> Result<(), ModelError>,
    ) -> Result<(), ModelError> {
        let request = self.request(reqwest::Method::GET, path)?;
        let mut body = self.send(request).await?;
        let mut line = Vec::new();
        while let Some(chunk) = body.next().await? {
            let mut rest = &chunk[..];
            while let Some(end) = memchr::memchr(b'\n', rest) {
                line.extend_from_slice(&rest[..end]);
                if !line.trim_ascii().is_empty() {
                    each(&line)?;
                }
                line.clear();
                rest = &rest[end + 1..];
            }
            line.extend_from_slice(rest);
        }
        if !line.trim_ascii().is_empty() {
            each(&line)?;
        }
        Ok(())
    }
}

/// A reply body (a chat completion, a message, a generateContent
/// response), read by `client`'s provider exactly as an online reply is.
pub(crate) fn decode_reply<P: Provider>(
    client: &HttpModel<P>,
    bytes: &[u8],
    endpoint: &Endpoint,
) -> Result<Reply, ModelError> {
    let mut decoded = Vec::new();
    decode_all(&client.provider, bytes, &endpoint.secrets, &mut decoded)?;
    let mut reader = DecodedReader::default();
    decoded.into_iter().for_each(|item| reader.add(item));
    reader.finish()
}
