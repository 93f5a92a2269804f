//! Error bodies: whatever a provider's server says went wrong, in an error
//! status or inside a 200, reaches the user as
//! `the model server answered HTTP <status>: <the server's message>`, with
//! the right transience and `Retry-After`, and never with the key.

use std::time::Duration;

use super::{hi, Api};
use crate::support::client::{Scripted, TestServer};
use serde_json::json;
use twr_runtime::{ModelError, Reply, Usage};

/// One error response and what the client must make of it.
struct Row {
    api: Api,
    /// What the row is about, for failure messages.
    name: &'static str,
    stream: bool,
    response: Scripted,
    /// The status of the `ModelError::Status`.
    status: u16,
    /// Its whole Display.
    display: &'static str,
    transient: bool,
    retry_after: Option<Duration>,
}

#[allow(clippy::too_many_arguments)]
fn row(
    api: Api,
    name: &'static str,
    stream: bool,
    response: Scripted,
    status: u16,
    display: &'static str,
    transient: bool,
    retry_after: Option<u64>,
) -> Row {
    Row {
        api,
        name,
        stream,
        response: response.echoing_key(),
        status,
        display,
        transient,
        retry_after: retry_after.map(Duration::from_secs),
    }
}

/// Google's error body.
fn google(code: u16, status: &str, message: &str) -> serde_json::Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// Anthropic's error body.
fn anthropic(kind: &str, message: &str) -> serde_json::Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

fn rows() -> Vec<Row> {
    use Api::*;
    vec![
        // Error statuses.
        row(
            OpenAi,
            "429 with Retry-After seconds",
            false,
            Scripted::json(
                429,
                json!({"error": {"message": "Too many requests, slow down", "type": "rate_limit"}}),
            )
            .header("retry-after", "3"),
            429,
            "the model server answered HTTP 429: Too many requests, slow down",
            true,
            Some(3),
        ),
        row(
            OpenAi,
            "500 with a JSON message",
            false,
            Scripted::json(
                500,
                json!({"error": {"message": "CUDA out of memory", "code": 500}}),
            ),
            500,
            "the model server answered HTTP 500: CUDA out of memory",
            true,
            None,
        ),
        row(
            OpenAi,
            "503 with a text body",
            false,
            Scripted::text(503, "upstream unavailable\n"),
            503,
            "the model server answered HTTP 503: upstream unavailable",
            true,
            None,
        ),
        row(
            OpenAi,
            "502 with an empty body",
            false,
            Scripted::text(502, ""),
            502,
            "the model server answered HTTP 502: Bad Gateway",
            true,
            None,
        ),
        row(
            OpenAi,
            "401 naming the key",
            false,
            Scripted::json(
                401,
                json!({"error": {"message": "Incorrect API key provided: {KEY}.", "code": "invalid_api_key"}}),
            ),
            401,
            "the model server answered HTTP 401: Incorrect API key provided: [redacted].",
            false,
            None,
        ),
        row(
            Gemini,
            "429 with Retry-After seconds",
            false,
            Scripted::json(
                429,
                google(429, "RESOURCE_EXHAUSTED", "Quota exceeded for metric"),
            )
            .header("retry-after", "17"),
            429,
            "the model server answered HTTP 429: Quota exceeded for metric",
            true,
            Some(17),
        ),
        row(
            Gemini,
            "503",
            false,
            Scripted::json(503, google(503, "UNAVAILABLE", "The model is overloaded.")),
            503,
            "the model server answered HTTP 503: The model is overloaded.",
            true,
            None,
        ),
        row(
            Gemini,
            "400 naming the key",
            false,
            Scripted::json(
                400,
                google(
                    400,
                    "INVALID_ARGUMENT",
                    "API key not valid: {KEY}. Please pass a valid API key.",
                ),
            ),
            400,
            "the model server answered HTTP 400: API key not valid: [redacted]. Please pass a valid \
             API key.",
            false,
            None,
        ),
        row(
            Anthropic,
            "429 with Retry-After seconds",
            false,
            Scripted::json(
                429,
                anthropic(
                    "rate_limit_error",
                    "Number of requests has exceeded your rate limit",
                ),
            )
            .header("retry-after", "13"),
            429,
            "the model server answered HTTP 429: Number of requests has exceeded your rate limit",
            true,
            Some(13),
        ),
        row(
            Anthropic,
            "529 overloaded",
            false,
            Scripted::json(529, anthropic("overloaded_error", "Overloaded")),
            529,
            "the model server answered HTTP 529: Overloaded",
            true,
            None,
        ),
        row(
            Anthropic,
            "500",
            false,
            Scripted::json(500, anthropic("api_error", "Internal server error")),
            500,
            "the model server answered HTTP 500: Internal server error",
            true,
            None,
        ),
        row(
            Anthropic,
            "400",
            false,
            Scripted::json(
                400,
                anthropic("invalid_request_error", "max_tokens: must be at most 8192"),
            ),
            400,
            "the model server answered HTTP 400: max_tokens: must be at most 8192",
            false,
            None,
        ),
        row(
            Anthropic,
            "401 naming the key",
            false,
            Scripted::json(
                401,
                anthropic("authentication_error", "invalid x-api-key: {KEY}"),
            ),
            401,
            "the model server answered HTTP 401: invalid x-api-key: [redacted]",
            false,
            None,
        ),
        row(
            Anthropic,
            "403",
            false,
            Scripted::json(
                403,
                anthropic("permission_error", "Your API key does not have permission"),
            ),
            403,
            "the model server answered HTTP 403: Your API key does not have permission",
            false,
            None,
        ),
        row(
            Anthropic,
            "404",
            false,
            Scripted::json(404, anthropic("not_found_error", "model: claude-test")),
            404,
            "the model server answered HTTP 404: model: claude-test",
            false,
            None,
        ),
        // Errors inside a 200: the code or type says the status.
        row(
            OpenAi,
            "200 with an auth error code",
            false,
            Scripted::json(
                200,
                json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
            ),
            401,
            "the model server answered HTTP 401: Incorrect API key provided",
            false,
            None,
        ),
        row(
            OpenAi,
            "stream event with an Anthropic-style auth error",
            true,
            Scripted::sse(&[&json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string()]),
            401,
            "the model server answered HTTP 401: invalid x-api-key",
            false,
            None,
        ),
        row(
            OpenAi,
            "stream event with a rate limit code",
            true,
            Scripted::sse(&[&json!({"error": {"message": "slow down", "code": "rate_limit_exceeded"}}).to_string()]),
            429,
            "the model server answered HTTP 429: slow down",
            true,
            None,
        ),
        row(
            OpenAi,
            "stream event with a numeric code",
            true,
            Scripted::sse(&[&json!({"error": {"message": "Rate limit reached", "code": 429}}).to_string()]),
            429,
            "the model server answered HTTP 429: Rate limit reached",
            true,
            None,
        ),
        row(
            Gemini,
            "200 with the code as a string",
            false,
            Scripted::json(
                200,
                json!({"error": {"code": "503", "message": "The model is overloaded.", "status": "UNAVAILABLE"}}),
            ),
            503,
            "the model server answered HTTP 503: The model is overloaded.",
            true,
            None,
        ),
        row(
            Gemini,
            "200 with only a status name",
            false,
            Scripted::json(
                200,
                json!({"error": {"message": "API key expired", "status": "UNAUTHENTICATED"}}),
            ),
            401,
            "the model server answered HTTP 401: API key expired",
            false,
            None,
        ),
        row(
            Anthropic,
            "200 with a rate limit error",
            false,
            Scripted::json(200, anthropic("rate_limit_error", "slow down")),
            429,
            "the model server answered HTTP 429: slow down",
            true,
            None,
        ),
        row(
            Anthropic,
            "error event with an auth error",
            true,
            Scripted::raw_sse(&format!(
                "event: error\ndata: {}\n\n",
                anthropic("authentication_error", "bad key")
            )),
            401,
            "the model server answered HTTP 401: bad key",
            false,
            None,
        ),
    ]
}

#[tokio::test]
async fn error_bodies_reach_the_user_with_their_status_and_never_the_key() {
    for row in rows() {
        let name = format!("{:?}, {}", row.api, row.name);
        let server = TestServer::start(vec![row.response]).await;
        let error = row
            .api
            .client(&server, row.stream)
            .chat(&hi())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, ModelError::Status { status, .. } if *status == row.status),
            "{name}: {error:?}"
        );
        assert_eq!(error.to_string(), row.display, "{name}");
        assert_eq!(error.is_transient(), row.transient, "{name}");
        assert_eq!(error.retry_after(), row.retry_after, "{name}");
        let key = row.api.key();
        assert!(
            !crate::support::report(&error).contains(key),
            "{name}: {error}"
        );
        assert!(!format!("{error:?}").contains(key), "{name}: {error:?}");
        assert_eq!(server.requests().len(), 1, "{name}");
    }
}

#[tokio::test]
async fn an_error_in_the_middle_of_a_stream_keeps_the_text_before_it() {
    let openai_text = |text: &str| json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    let gemini_text = |text: &str| json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]});
    let rows = [
        (
            Api::OpenAi,
            "a JSON error",
            format!(
                "data: {}\n\ndata: {}\n\n",
                openai_text("Hel"),
                json!({"error": {"message": "Model overloaded, try later", "type": "server_error"}})
            ),
            "the reply was cut off (3 bytes of it had arrived and are kept): \
             the reply broke off: the server reported an error: Model overloaded, try later",
            Reply::text("Hel"),
        ),
        (
            Api::OpenAi,
            "an error event with plain text",
            format!(
                "data: {}\n\nevent: error\ndata: upstream timed out\n\n",
                openai_text("Hel")
            ),
            "the reply was cut off (3 bytes of it had arrived and are kept): \
             the reply broke off: the server reported an error: upstream timed out",
            Reply::text("Hel"),
        ),
        (
            Api::Gemini,
            "an error object",
            format!(
                "data: {}\r\n\r\ndata: {}\r\n\r\n",
                gemini_text("Ro"),
                google(500, "INTERNAL", "Internal error encountered.")
            ),
            "the reply was cut off (2 bytes of it had arrived and are kept): \
             the model server answered HTTP 500: Internal error encountered.",
            Reply::text("Ro"),
        ),
        (
            Api::Anthropic,
            "an error event",
            format!(
                "event: message_start\ndata: {}\n\nevent: content_block_delta\ndata: {}\n\n\
                 event: error\ndata: {}\n\n",
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                    "role": "assistant", "content": [], "model": "claude-test",
                    "stop_reason": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
                json!({"type": "content_block_delta", "index": 1,
                    "delta": {"type": "text_delta", "text": "Ro"}}),
                anthropic("overloaded_error", "Overloaded")
            ),
            "the reply was cut off (2 bytes of it had arrived and are kept): \
             the reply broke off: the server reported an error: Overloaded",
            Reply::text("Ro").with_usage(Usage::new(5, 1)),
        ),
    ];
    for (api, name, body, display, partial) in rows {
        let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
        let error = api.client(&server, true).chat(&hi()).await.unwrap_err();
        assert_eq!(crate::support::report(&error), display, "{api:?}, {name}");
        assert_eq!(error.partial(), Some(&partial), "{api:?}, {name}");
        assert!(error.is_transient(), "{api:?}, {name}");
    }
}

/// The replies whose meaning every client shares (through
/// `twr_runtime::model::http_error`, which the adapter crates call too):
/// OpenAI's 400 for a prompt its safety system rejected is a refusal, not
/// a bad request, and its 429 for a used-up quota is a 402, which waiting
/// does not fix; both fail at once, with the key redacted.
#[tokio::test]
async fn a_content_policy_is_a_refusal_and_a_used_up_quota_a_402_in_every_client() {
    let policy = Scripted::json(
        400,
        json!({"error": {"message": "Your request was rejected by the safety system. {KEY}",
                         "type": "invalid_request_error", "param": null,
                         "code": "content_policy_violation"}}),
    )
    .echoing_key();
    let quota = Scripted::json(
        429,
        json!({"error": {"message": "You exceeded your current quota.",
                         "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
    )
    .header("retry-after", "3");
    let server = TestServer::start(vec![policy, quota]).await;
    let model = Api::OpenAi.client(&server, false);
    let refused = model.chat(&hi()).await.unwrap_err();
    assert!(
        matches!(&refused, ModelError::Refused(m)
            if m == "Your request was rejected by the safety system. [redacted]"),
        "{refused:?}"
    );
    assert!(!refused.is_transient());
    let used_up = model.chat(&hi()).await.unwrap_err();
    assert_eq!(
        used_up.to_string(),
        "the model server answered HTTP 402: HTTP 429, the account's quota is used up: \
         You exceeded your current quota."
    );
    assert!(!used_up.is_transient());
    assert_eq!(used_up.retry_after(), None);
}
