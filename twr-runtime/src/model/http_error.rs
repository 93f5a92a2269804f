//! [`http_error`]: what an HTTP error response from a model server means,
//! said once for every client: the built-in ones and the adapter crates
//! (`twr-async-openai`, `twr-genai`, `twr-rig`) call it alike, so the
//! same reply is the same [`ModelError`] whichever client received it.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::error::ModelError;

/// What replaces a secret in server text.
const REDACTED: &str = "[redacted]";
/// The shortest text scrubbed as a secret: shorter is no real credential,
/// and replacing it everywhere would garble every message.
const MIN_SECRET_LEN: usize = 4;
/// How many characters of the server's message an error keeps.
pub(crate) const MESSAGE_CHARS: usize = 1000;

/// The [`ModelError`] an HTTP error response means: its `status`, the
/// headers it came with (`header` looks one up by its lower-case name),
/// and its `body`, with every text of `secrets` (the API key, a password
/// of the base URL) replaced by `[redacted]` wherever the server quoted it.
///
/// | the response | the error | transient |
/// | --- | --- | --- |
/// | 400 whose error `code` or `type` names a content policy or filter (`content_policy_violation`, `content_filter`) | [`ModelError::Refused`] with the server's message | no |
/// | 429 whose error `code` or `type` is `insufficient_quota` (the account's quota is used up: waiting does not help) | [`ModelError::Status`] 402 | no |
/// | any other status | [`ModelError::Status`] with the server's message and the pause `Retry-After` or `retry-after-ms` asked for ([`retry_after`](super::retry_after)) | 408, 429 and 5xx |
///
/// The server's message is the `message` of `{"error": {"message": ..}}`,
/// `{"error": ".."}`, `{"message": ..}` or `{"detail": ..}` (or of the
/// first element of an array of those, as Gemini's stream sends), else the
/// body's text, else the status's reason phrase; scrubbed of `secrets`,
/// then cut to 1000 characters.
///
/// ```
/// use twr_runtime::model::http_error;
/// use twr_runtime::ModelError;
///
/// let body = br#"{"error": {"message": "Rejected by the safety system.",
///                 "type": "invalid_request_error", "code": "content_policy_violation"}}"#;
/// let error = http_error(400, |_| None, body, &[]);
/// assert!(matches!(&error, ModelError::Refused(m) if m == "Rejected by the safety system."));
///
/// let body = br#"{"error": {"message": "bad key sk-live-1234", "code": "invalid_api_key"}}"#;
/// let error = http_error(401, |_| None, body, &["sk-live-1234"]);
/// assert_eq!(error.to_string(), "the model server answered HTTP 401: bad key [redacted]");
///
/// let error = http_error(429, |name| (name == "retry-after").then_some("7"), b"slow down", &[]);
/// assert_eq!(error.retry_after(), Some(std::time::Duration::from_secs(7)));
/// assert!(error.is_transient());
/// ```
pub fn http_error<'h>(
    status: u16,
    header: impl Fn(&str) -> Option<&'h str>,
    body: &[u8],
    secrets: &[&str],
) -> ModelError {
    let retry_after = super::retry_after(header, SystemTime::now());
    meaning(status, retry_after, body, secrets)
}

/// [`http_error`] with the pause already read from the headers.
pub(crate) fn meaning(
    status: u16,
    retry_after: Option<Duration>,
    body: &[u8],
    secrets: &[&str],
) -> ModelError {
    let json = serde_json::from_slice::<Value>(body).ok();
    let message = json
        .as_ref()
        .and_then(message_in)
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let mut message = scrubbed_quote(&message, secrets, MESSAGE_CHARS);
    if message.is_empty() {
        message = reason_phrase(status).to_string();
    }
    let codes = json.as_ref().map(error_codes).unwrap_or_default();
    let names = |test: &dyn Fn(&str) -> bool| codes.iter().any(|code| test(code));
    if status == 400
        && names(&|code| code.contains("content_policy") || code.contains("content_filter"))
    {
        return ModelError::Refused(message);
    }
    if status == 429 && names(&|code| code == "insufficient_quota") {
        return ModelError::Status {
            status: 402,
            message: format!("HTTP 429, the account's quota is used up: {message}"),
            retry_after: None,
        };
    }
    ModelError::Status {
        status,
        message,
        retry_after,
    }
}

/// The `code` and `type` texts of a body's error object, lower case.
fn error_codes(body: &Value) -> Vec<String> {
    let error = match body {
        Value::Array(items) => items.first().and_then(|item| item.get("error")),
        other => other.get("error"),
    };
    let Some(error) = error else {
        return Vec::new();
    };
    ["code", "type", "status"]
        .iter()
        .filter_map(|field| error.get(field).and_then(Value::as_str))
        .map(|code| code.trim().to_ascii_lowercase())
        .collect()
}

/// A status's reason phrase, for an error body that says nothing.
fn reason_phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "no error message",
    }
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

/// `text` with every one of `secrets` (4 characters or longer) replaced by
/// `[redacted]`, the longest first, so a secret that holds another is
/// replaced whole.
pub(crate) fn scrub(text: &str, secrets: &[&str]) -> String {
    let mut secrets: Vec<&str> = secrets
        .iter()
        .copied()
        .filter(|s| s.len() >= MIN_SECRET_LEN)
        .collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut text = text.to_string();
    for secret in secrets {
        if text.contains(secret) {
            text = text.replace(secret, REDACTED);
        }
    }
    text
}

/// Server text made safe to quote in an error: trimmed, scrubbed, and only
/// then cut to `max_chars` (cutting first could leave a piece of a key
/// behind).
pub(crate) fn scrubbed_quote(text: &str, secrets: &[&str], max_chars: usize) -> String {
    let mut text = scrub(text.trim(), secrets);
    if let Some((cut, _)) = text.char_indices().nth(max_chars) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(status: u16, body: &str) -> ModelError {
        http_error(status, |_| None, body.as_bytes(), &["sk-secret-key"])
    }

    #[test]
    fn a_content_policy_is_a_refusal_only_in_a_400() {
        let body = r#"{"error": {"message": "Rejected sk-secret-key.", "type": "invalid_request_error",
                        "code": "content_policy_violation"}}"#;
        assert!(matches!(error(400, body), ModelError::Refused(m) if m == "Rejected [redacted]."));
        let filtered = r#"{"error": {"message": "Filtered.", "code": "content_filter"}}"#;
        assert!(matches!(error(400, filtered), ModelError::Refused(m) if m == "Filtered."));
        assert!(matches!(
            error(500, body),
            ModelError::Status { status: 500, .. }
        ));
    }

    #[test]
    fn a_used_up_quota_is_a_402_and_a_rate_limit_a_429() {
        let quota = r#"{"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota"}}"#;
        let used_up = error(429, quota);
        assert_eq!(
            used_up.to_string(),
            "the model server answered HTTP 402: HTTP 429, the account's quota is used up: \
             You exceeded your current quota."
        );
        assert!(!used_up.is_transient());
        let limited = r#"{"error": {"message": "Slow down.", "code": "rate_limit_exceeded"}}"#;
        let retry = |name: &str| (name == "retry-after").then_some("3");
        let limited = http_error(429, retry, limited.as_bytes(), &[]);
        assert!(
            matches!(&limited, ModelError::Status { status: 429, message, .. } if message == "Slow down.")
        );
        assert_eq!(limited.retry_after(), Some(Duration::from_secs(3)));
        assert!(limited.is_transient());
    }

    #[test]
    fn an_empty_body_says_the_status_and_short_secrets_are_left_alone() {
        assert!(
            matches!(error(404, ""), ModelError::Status { message, .. } if message == "Not Found")
        );
        assert_eq!(
            scrub("me and my key", &["me", "my key"]),
            "me and [redacted]"
        );
    }
}
