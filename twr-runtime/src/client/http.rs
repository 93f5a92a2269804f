//! What both clients share: request options, sending, reading a capped body,
//! and turning HTTP failures into [`ModelError`]s a person can act on.

use std::fmt;
use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, CONTENT_TYPE, RETRY_AFTER};
use reqwest::{Response, StatusCode};
use serde_json::Value;

use super::secret::ApiKey;
use crate::model::{FinishReason, ModelError, Reply};

/// Default time limit for one whole request, body included. Generous because
/// a local model on a CPU can take minutes for a long answer.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Default cap on a response body: far above any chat reply, far below
/// anything that could hurt the process.
pub(crate) const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an error body is read and how much of it is kept as the message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
const ERROR_MESSAGE_CHARS: usize = 1000;

/// The request options both clients accept.
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) stream: bool,
    pub(crate) temperature: Option<f32>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) seed: Option<u64>,
    /// Extra JSON fields merged into the request body (a JSON object).
    pub(crate) extra: Option<Value>,
    pub(crate) timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) http_client: Option<reqwest::Client>,
}

impl fmt::Debug for Options {
    // By hand: a caller's reqwest client may carry default headers (an
    // `Authorization` among them), so only whether there is one is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("stream", &self.stream)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("seed", &self.seed)
            .field("extra", &self.extra)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field(
                "http_client",
                &if self.http_client.is_some() {
                    "custom"
                } else {
                    "shared"
                },
            )
            .finish()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stream: false,
            temperature: None,
            max_tokens: None,
            seed: None,
            extra: None,
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            http_client: None,
        }
    }
}

impl Options {
    /// Adds `extra` to the extra fields; a later call wins over an earlier one.
    pub(crate) fn add_extra(&mut self, extra: Value) {
        match &mut self.extra {
            Some(existing) => merge_json(existing, extra),
            None => self.extra = Some(extra),
        }
    }

    /// Merges the extra fields into `body`; they win over the client's own.
    pub(crate) fn apply_extra(&self, body: &mut Value) -> Result<(), ModelError> {
        match &self.extra {
            None => Ok(()),
            Some(extra @ Value::Object(_)) => {
                merge_json(body, extra.clone());
                Ok(())
            }
            Some(other) => Err(ModelError::Config(format!(
                "extra request fields must be a JSON object, got {}",
                json_kind(other)
            ))),
        }
    }

    /// The HTTP client to use: the caller's, or one shared by every model
    /// client of the process (so connections are pooled).
    pub(crate) fn client(&self) -> Result<reqwest::Client, ModelError> {
        if let Some(client) = &self.http_client {
            return Ok(client.clone());
        }
        static SHARED: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                reqwest::Client::builder()
                    .build()
                    .map_err(|e| error_chain(&e))
            })
            .clone()
            .map_err(|e| ModelError::Config(format!("could not build the HTTP client: {e}")))
    }

    /// Runs `call` under the time limit.
    pub(crate) async fn timed<T>(
        &self,
        call: impl Future<Output = Result<T, ModelError>>,
    ) -> Result<T, ModelError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(result) => result,
            Err(_) => Err(ModelError::Timeout(self.timeout)),
        }
    }
}

/// Deep-merges `extra` into `base`: objects merge key by key, anything else
/// replaces. `null` removes a key, so `.extra(json!({"seed": null}))` drops it.
pub(crate) fn merge_json(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                if value.is_null() {
                    base.remove(&key);
                } else if let Some(slot) = base.get_mut(&key) {
                    merge_json(slot, value);
                } else {
                    base.insert(key, value);
                }
            }
        }
        (base, extra) => *base = extra,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks a base URL at call time, so the builder can stay infallible.
pub(crate) fn endpoint(base_url: &str, path: &str) -> Result<reqwest::Url, ModelError> {
    let url = format!("{}/{}", base_url.trim_end_matches('/'), path);
    let parsed = reqwest::Url::parse(&url).map_err(|e| {
        ModelError::Config(format!(
            "the base URL {base_url:?} is not a valid URL ({e})"
        ))
    })?;
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        return Err(ModelError::Config(format!(
            "the base URL {base_url:?} must start with http:// or https://"
        )));
    }
    Ok(parsed)
}

/// Sends the request; a non-success status becomes [`ModelError::Status`].
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    key: Option<&ApiKey>,
    timeout: Duration,
) -> Result<Response, ModelError> {
    let response = request
        .send()
        .await
        .map_err(|e| transport_error(e, key, timeout))?;
    if response.status().is_success() {
        Ok(response)
    } else {
        Err(status_error(response, key, timeout).await)
    }
}

/// Maps a reqwest failure (before or while reading the body).
pub(crate) fn transport_error(
    error: reqwest::Error,
    key: Option<&ApiKey>,
    timeout: Duration,
) -> ModelError {
    if error.is_timeout() {
        return ModelError::Timeout(timeout);
    }
    let connect = error.is_connect();
    // Only the host and port: a URL may carry credentials in its user info.
    let host = error.url().and_then(|url| {
        let host = url.host_str()?;
        Some(match url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        })
    });
    let message = scrub(error_chain(&error.without_url()), key);
    if connect {
        ModelError::Connect(match host {
            Some(host) => format!("{host} ({message})"),
            None => message,
        })
    } else {
        // The request went out but the connection failed before a whole
        // response arrived (reset, closed early): retrying may well work.
        ModelError::Interrupted(message)
    }
}

/// An error with its sources: reqwest's top-level message alone ("error
/// sending request") does not say what went wrong.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

fn scrub(text: String, key: Option<&ApiKey>) -> String {
    match key {
        Some(key) => key.scrub(text),
        None => text,
    }
}

/// Builds the error for a non-success response from its status, its
/// `Retry-After` header and the server's own message.
pub(crate) async fn status_error(
    mut response: Response,
    key: Option<&ApiKey>,
    timeout: Duration,
) -> ModelError {
    let status = response.status();
    let retry_after = retry_after(response.headers(), SystemTime::now());
    let mut body = Vec::new();
    // A body that breaks off or is huge still leaves the status to report.
    while body.len() < ERROR_BODY_LIMIT {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) => break,
            Err(e) if e.is_timeout() => return ModelError::Timeout(timeout),
            Err(_) => break,
        }
    }
    body.truncate(ERROR_BODY_LIMIT);
    let message = scrub(error_message(status, &body), key);
    ModelError::Status {
        status: status.as_u16(),
        message,
        retry_after,
    }
}

/// The human-readable message of an error body: the `message` of
/// `{"error":{"message":...}}`, `{"error":"..."}`, `{"message":...}` or
/// `{"detail":...}` (a one-element array of those too, as Gemini's streaming
/// endpoint sends), else the body's text, else the status's reason phrase.
pub(crate) fn error_message(status: StatusCode, body: &[u8]) -> String {
    let from_json = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| message_in(&value));
    let message = match from_json {
        Some(message) => message,
        None => String::from_utf8_lossy(body).trim().to_string(),
    };
    if message.is_empty() {
        return status
            .canonical_reason()
            .unwrap_or("no error message")
            .to_string();
    }
    truncate_chars(message, ERROR_MESSAGE_CHARS)
}

/// The message inside a JSON error value, when it has one.
pub(crate) fn message_in(value: &Value) -> Option<String> {
    let text = |v: &Value| {
        v.as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match value {
        Value::Array(items) => items.first().and_then(message_in),
        Value::Object(map) => {
            if let Some(error) = map.get("error") {
                if let Some(message) = text(error) {
                    return Some(message);
                }
                if let Some(message) = error.get("message").and_then(text) {
                    return Some(message);
                }
            }
            map.get("message")
                .and_then(text)
                .or_else(|| map.get("detail").and_then(text))
        }
        _ => None,
    }
}

fn truncate_chars(mut text: String, max: usize) -> String {
    if let Some((cut, _)) = text.char_indices().nth(max) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// The pause a server asked for: `retry-after-ms` (OpenAI, Azure), else
/// `Retry-After` as seconds or as an HTTP date (a date in the past is zero).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        if seconds.is_finite() && seconds >= 0.0 {
            return Some(Duration::from_secs_f64(seconds));
        }
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// True when the response is an event stream (a server may ignore
/// `stream: true` and answer with one JSON document).
pub(crate) fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

/// Reads a body chunk by chunk, failing once it passes the cap.
pub(crate) struct BodyReader {
    response: Response,
    read: usize,
    limit: usize,
    timeout: Duration,
}

impl BodyReader {
    /// Starts reading `response`; a declared length over the cap fails at once.
    pub(crate) fn new(
        response: Response,
        limit: usize,
        timeout: Duration,
    ) -> Result<Self, ModelError> {
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(ModelError::TooLarge { limit });
        }
        Ok(BodyReader {
            response,
            read: 0,
            limit,
            timeout,
        })
    }

    /// The next piece of the body, `None` at its end.
    pub(crate) async fn next(&mut self) -> Result<Option<bytes::Bytes>, ModelError> {
        match self.response.chunk().await {
            Ok(Some(chunk)) => {
                self.read += chunk.len();
                if self.read > self.limit {
                    Err(ModelError::TooLarge { limit: self.limit })
                } else {
                    Ok(Some(chunk))
                }
            }
            Ok(None) => Ok(None),
            Err(e) if e.is_timeout() => Err(ModelError::Timeout(self.timeout)),
            Err(e) => Err(ModelError::Interrupted(format!(
                "the connection failed while reading the response: {}",
                error_chain(&e.without_url())
            ))),
        }
    }

    /// The whole body.
    pub(crate) async fn read_all(mut self) -> Result<Vec<u8>, ModelError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next().await? {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// A short, safe excerpt of a body for a decode error.
pub(crate) fn excerpt(body: &[u8]) -> String {
    truncate_chars(String::from_utf8_lossy(body).trim().to_string(), 200)
}

/// Final checks shared by both clients: an empty answer is an error unless
/// the token limit explains it (the loop then asks for a shorter answer), and
/// a content filter's silence is a refusal, not a glitch worth retrying.
pub(crate) fn finish_reply(reply: Reply, refusal: Option<String>) -> Result<Reply, ModelError> {
    if !reply.content.trim().is_empty() {
        return Ok(reply);
    }
    if let Some(refusal) = refusal.filter(|r| !r.trim().is_empty()) {
        return Err(ModelError::Refused(refusal.trim().to_string()));
    }
    match &reply.finish_reason {
        Some(FinishReason::Length) => Ok(reply),
        Some(FinishReason::ContentFilter) => Err(ModelError::Refused(
            "the server's content filter stopped the reply".to_string(),
        )),
        _ => Err(ModelError::EmptyReply),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use serde_json::json;

    #[test]
    fn merge_is_deep_and_null_removes() {
        let mut base = json!({"a": 1, "g": {"t": 0.5, "m": 10}, "s": 3});
        merge_json(
            &mut base,
            json!({"g": {"m": 20, "x": true}, "s": null, "n": [1]}),
        );
        assert_eq!(
            base,
            json!({"a": 1, "g": {"t": 0.5, "m": 20, "x": true}, "n": [1]})
        );
    }

    #[test]
    fn error_messages_from_every_shape() {
        let s = StatusCode::BAD_REQUEST;
        assert_eq!(
            error_message(s, br#"{"error":{"message":"bad model"}}"#),
            "bad model"
        );
        assert_eq!(error_message(s, br#"{"error":"quota gone"}"#), "quota gone");
        assert_eq!(
            error_message(s, br#"[{"error":{"code":400,"message":"g"}}]"#),
            "g"
        );
        assert_eq!(error_message(s, br#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(
            error_message(s, b"  upstream exploded \n"),
            "upstream exploded"
        );
        assert_eq!(error_message(s, b""), "Bad Request");
        assert_eq!(
            error_message(s, br#"{"error":{"code":1}}"#),
            r#"{"error":{"code":1}}"#
        );
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "x".repeat(5000);
        let message = error_message(StatusCode::BAD_GATEWAY, long.as_bytes());
        assert_eq!(message.chars().count(), ERROR_MESSAGE_CHARS + 1);
        assert!(message.ends_with('…'));
    }

    #[test]
    fn retry_after_in_every_form() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("1.5"));
        assert_eq!(
            retry_after(&headers, now),
            Some(Duration::from_millis(1500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&later).unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(30)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&earlier).unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_millis(250)));
    }

    #[test]
    fn endpoints_tolerate_a_trailing_slash_and_reject_junk() {
        assert_eq!(
            endpoint("http://127.0.0.1:8088/v1/", "chat/completions")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8088/v1/chat/completions"
        );
        assert!(matches!(
            endpoint("not a url", "x"),
            Err(ModelError::Config(_))
        ));
        assert!(matches!(
            endpoint("ftp://h/v1", "x"),
            Err(ModelError::Config(_))
        ));
    }
}
