//! What the server said went wrong, as a [`ModelError`]: error statuses,
//! redirects, errors embedded in a 200 body or an event, bodies that do not
//! decode, refusals.
//!
//! This is the one place server text enters an error: every item of it goes
//! through [`Secrets::scrubbed_quote`] (scrubbed of every credential, then cut), so
//! a server that echoes the key cannot leak it through an error's message,
//! its source chain, or the logs that print it.

use std::time::SystemTime;

use reqwest::header::LOCATION;
use reqwest::Response;
use serde_json::{json, Value};

use super::http::retry_after;
use super::provider::{Decoded, Fault, Provider};
use super::secret::Secrets;
use crate::grammar::Dialect;
use crate::model::http_error::{self, message_in};
use crate::model::{FinishReason, ModelError};

/// How much of an error body is read, and how much of its message is kept.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
const ERROR_MESSAGE_CHARS: usize = http_error::MESSAGE_CHARS;
/// How much of a body that did not decode is quoted.
const QUOTE_CHARS: usize = 200;

/// Which text a decode error is about.
#[derive(Clone, Copy)]
pub(crate) enum Subject {
    /// A whole response body.
    Reply,
    /// One event of a stream.
    Event,
    /// The last event of a stream that ended before the event did.
    CutEvent,
}

impl Subject {
    fn as_str(self) -> &'static str {
        match self {
            Subject::Reply => "the reply",
            Subject::Event => "a stream event",
            Subject::CutEvent => "the stream's last event",
        }
    }
}

/// The error for an adapter's [`Fault`] found in `raw`.
pub(crate) fn from_fault<P: Provider>(
    provider: &P,
    fault: Fault,
    raw: &[u8],
    subject: Subject,
    secrets: &Secrets,
) -> ModelError {
    let quote = || secrets.scrubbed_quote(&String::from_utf8_lossy(raw), QUOTE_CHARS);
    match fault {
        // The body ended cleanly in the middle of an event: the reply broke
        // off, as when the connection drops, and is worth asking again.
        Fault::NotJson { error, .. } if matches!(subject, Subject::CutEvent) => {
            let said = error.to_string();
            let complaint = secrets.scrub(&said);
            ModelError::Interrupted(
                format!(
                    "the stream ended in the middle of an event ({complaint}): {}",
                    quote()
                )
                .into(),
            )
        }
        Fault::NotJson { expected, error } => {
            // serde's words go into the message, before the quote they
            // are about, and scrubbed, as serde quotes values it did not
            // expect; so its error is not kept as the source, which would
            // say them again, unscrubbed.
            let complaint = secrets.scrub(&error.to_string());
            let message = format!(
                "{} is not {expected} ({complaint}): {}",
                subject.as_str(),
                quote()
            );
            ModelError::Decode(message.into())
        }
        Fault::Missing(what) => {
            ModelError::Decode(format!("{} has no {what}: {}", subject.as_str(), quote()).into())
        }
        Fault::Embedded(error) => embedded(provider, &error, secrets),
        Fault::ErrorEvent(data) => match serde_json::from_str::<Value>(&data) {
            Ok(value) if value.get("error").is_some() => {
                embedded(provider, &value["error"], secrets)
            }
            parsed => {
                let message = parsed.ok().and_then(|v| message_in(&v)).unwrap_or(data);
                interrupted_by_server(&message, secrets)
            }
        },
        Fault::Refused(message) => {
            ModelError::Refused(secrets.scrubbed_quote(&message, ERROR_MESSAGE_CHARS))
        }
    }
}

/// Server text inside an item that is metadata rather than the model's
/// answer (a refusal, a finish reason the server named), scrubbed.
pub(crate) fn scrub_decoded(item: Decoded, secrets: &Secrets) -> Decoded {
    match item {
        Decoded::Refusal(text) => Decoded::Refusal(secrets.scrub(&text)),
        Decoded::Finish(FinishReason::Other(reason)) => {
            Decoded::Finish(FinishReason::Other(secrets.scrub(&reason)))
        }
        other => other,
    }
}

/// An `error` member of a body or event: a status when its code names one
/// (a number, or a text code of `provider`'s such as `invalid_api_key`), so
/// 401 fails at once and 429 is retried; otherwise a reply that broke off,
/// with the server's message.
pub(crate) fn embedded<P: Provider>(provider: &P, error: &Value, secrets: &Secrets) -> ModelError {
    let message = message_in(&json!({ "error": error })).unwrap_or_else(|| error.to_string());
    match embedded_status(provider, error) {
        Some(status) => ModelError::Status {
            status,
            message: secrets.scrubbed_quote(&message, ERROR_MESSAGE_CHARS),
            retry_after: None,
        },
        None => interrupted_by_server(&message, secrets),
    }
}

fn interrupted_by_server(message: &str, secrets: &Secrets) -> ModelError {
    ModelError::Interrupted(
        format!(
            "the server reported an error: {}",
            secrets.scrubbed_quote(message, ERROR_MESSAGE_CHARS)
        )
        .into(),
    )
}

/// The HTTP status an embedded error stands for: its numeric `code` (also
/// as text, `"429"`), else the first of `code`, `type` and `status` (OpenAI,
/// Anthropic, Google) that is a text code `provider` knows
/// ([`Provider::error_status`]).
fn embedded_status<P: Provider>(provider: &P, error: &Value) -> Option<u16> {
    let http = |n: u64| u16::try_from(n).ok().filter(|n| (400..600).contains(n));
    let code = error.get("code");
    if let Some(status) = code.and_then(|c| {
        c.as_u64()
            .or_else(|| c.as_str().and_then(|s| s.trim().parse().ok()))
            .and_then(http)
    }) {
        return Some(status);
    }
    ["code", "type", "status"]
        .iter()
        .filter_map(|field| error.get(field).and_then(Value::as_str))
        .find_map(|code| provider.error_status(&code.trim().to_ascii_lowercase()))
}

/// Builds the error for a non-success response from its status, its
/// headers and its body, as every client reads one
/// ([`http_error`](crate::model::http_error): the kind, `Retry-After`, a
/// refusal, a used-up quota), the server's text scrubbed of `secrets`.
pub(crate) async fn status_error(mut response: Response, secrets: &Secrets) -> ModelError {
    let status = response.status();
    let retry_after = retry_after(response.headers(), SystemTime::now());
    if let Some(error) = redirect_error(&response, secrets) {
        return error;
    }
    let mut body = Vec::new();
    // A body that breaks off or is huge still leaves the status to report.
    while body.len() < ERROR_BODY_LIMIT {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body.truncate(ERROR_BODY_LIMIT);
    http_error::meaning(status.as_u16(), retry_after, &body, &secrets.texts())
}

/// `error`, the answer to a request that carried a grammar in `field` (in
/// `dialect`), saying so when the server refused the request as malformed
/// (400, 404, 422 and the like; not a key, quota, size or rate problem): a
/// server that does not know the field is the likeliest cause, and the
/// person reading the error should learn which field and dialect were
/// sent. The status and the server's own words are kept, so the error is
/// as transient as before (it is not).
pub(crate) fn grammar_refused(error: ModelError, dialect: Dialect, field: &str) -> ModelError {
    match error {
        ModelError::Status {
            status,
            message,
            retry_after,
        } if (400..500).contains(&status)
            && !matches!(status, 401 | 402 | 403 | 407 | 408 | 413 | 429) =>
        {
            ModelError::Status {
                status,
                message: format!(
                    "{message} (the request carried a grammar in the field `{field}`, as \
                     .grammar(Dialect::{dialect:?}) asks; this server may not take that \
                     field: give the client the dialect its server documents, or none)"
                ),
                retry_after,
            }
        }
        other => other,
    }
}

/// A redirect the shared client did not follow because it leads to another
/// origin (see `same_origin_redirects`).
fn redirect_error(response: &Response, secrets: &Secrets) -> Option<ModelError> {
    if !response.status().is_redirection() {
        return None;
    }
    let target = response
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|location| response.url().join(location).ok())
        .filter(|target| target.origin() != response.url().origin())?;
    let origin = secrets.scrub(&target.origin().ascii_serialization());
    Some(ModelError::Status {
        status: response.status().as_u16(),
        message: format!(
            "the server redirected the request to another origin, {origin}; \
             credentials are never sent to another origin, so the redirect was \
             not followed (use that server's URL as the base URL if you trust it)"
        ),
        retry_after: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::secret::ApiKey;
    use crate::{Anthropic, Gemini, OpenAiCompatible};

    /// The message of the error a response of `status` with `body` gives.
    fn status_message(status: u16, body: &[u8], secrets: &Secrets) -> String {
        match http_error::meaning(status, None, body, &secrets.texts()) {
            ModelError::Status { message, .. } => message,
            other => panic!("not a status error: {other:?}"),
        }
    }

    fn message(body: &[u8]) -> String {
        status_message(400, body, &Secrets::default())
    }

    #[test]
    fn error_messages_from_every_shape() {
        assert_eq!(
            message(br#"{"error":{"message":"bad model"}}"#),
            "bad model"
        );
        assert_eq!(message(br#"{"error":"quota gone"}"#), "quota gone");
        assert_eq!(message(br#"[{"error":{"code":400,"message":"g"}}]"#), "g");
        assert_eq!(message(br#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(message(b"  upstream exploded \n"), "upstream exploded");
        assert_eq!(message(b""), "Bad Request");
        assert_eq!(
            message(br#"{"error":{"code":1}}"#),
            r#"{"error":{"code":1}}"#
        );
    }

    #[test]
    fn long_messages_are_cut_after_scrubbing() {
        let long = "x".repeat(5000);
        let cut = message(long.as_bytes());
        assert_eq!(cut.chars().count(), ERROR_MESSAGE_CHARS + 1);
        assert!(cut.ends_with('…'));
        let key = ApiKey::new("sk-across-the-cut").unwrap();
        let secrets = Secrets::new(Some(&key), "http://h");
        let body = format!("{}sk-across-the-cut", "y".repeat(ERROR_MESSAGE_CHARS - 4));
        let cut = status_message(502, body.as_bytes(), &secrets);
        assert!(cut.ends_with("yyyy[red…"), "{cut}");
    }

    #[test]
    fn embedded_codes_number_text_or_neither() {
        let openai = OpenAiCompatible::new("http://h", "m");
        let status = |v: Value| embedded_status(openai.provider(), &v);
        assert_eq!(status(json!({"code": 429})), Some(429));
        assert_eq!(status(json!({"code": "503"})), Some(503));
        assert_eq!(status(json!({"code": "invalid_api_key"})), Some(401));
        // A compatible gateway relays the errors of the APIs behind it.
        assert_eq!(status(json!({"type": "authentication_error"})), Some(401));
        assert_eq!(
            status(json!({"code": 401, "status": "UNAUTHENTICATED"})),
            Some(401)
        );
        assert_eq!(status(json!({"status": "PERMISSION_DENIED"})), Some(403));
        assert_eq!(
            status(json!({"code": null, "type": "invalid_request_error"})),
            Some(400)
        );
        assert_eq!(status(json!({"type": "server_error"})), None);
        assert_eq!(status(json!({"code": 7, "type": "overloaded_error"})), None);
        assert_eq!(status(json!({"message": "x"})), None);
        // Each API knows its own codes, and a provider of no codes knows
        // only numbers.
        let anthropic = Anthropic::new("k", "m");
        let anthropic = anthropic.provider();
        let gemini = Gemini::new("k", "m");
        let gemini = gemini.provider();
        let limited = |field: &str, code: &str| json!({ field: code });
        let exceeded = limited("code", "rate_limit_exceeded");
        assert_eq!(embedded_status(anthropic, &exceeded), None);
        let exhausted = limited("status", " Resource_Exhausted ");
        assert_eq!(embedded_status(gemini, &exhausted), Some(429));
        let anthropic_limit = limited("type", "rate_limit_error");
        assert_eq!(embedded_status(gemini, &anthropic_limit), None);
        assert_eq!(embedded_status(anthropic, &anthropic_limit), Some(429));
    }
}
