//! A provider written outside the crate (the Cohere adapter of
//! `examples/custom_provider/`) gets what the built-in clients get: whole
//! and streamed replies read into a typed value through `Think`, the exact
//! request its adapter writes, the key scrubbed from every error, and
//! transport retries. Real axum servers on 127.0.0.1, the real reqwest
//! client.

#[path = "../../examples/custom_provider/cohere.rs"]
mod cohere;

use std::sync::Mutex;
use std::time::Duration;

use crate::support::client::{refused_origin, Scripted, TestServer};
use cohere::{cohere, Cohere, CohereApi};
use serde_json::{json, Value};
use twr_runtime::client::{
    ApiKey, Decoded, Fault, Flow, HttpModel, Provider, RequestHead, RequestSpec, ResponseHeaders,
    SseEvent,
};
use twr_runtime::model::{RateLimits, Request};
use twr_runtime::{
    ChatModel, Message, ModelError, RetryPolicy, ScriptedModel, Sections, Think, ThinkErrorKind,
    Usage,
};

const KEY: &str = "co-SECRET-key-0042";
const PROMPT: &str = "Review the note: 'Late, but the best coffee I had at home. 4 stars.'";
const ANSWER: &str =
    "[Product]\nAeropress\n\n[Rating]\n4\n\n[Reason]\nGreat coffee, late delivery.";

#[derive(Debug, PartialEq, Sections)]
struct Review {
    /// The product the note is about.
    product: String,
    /// The rating, from 1 to 5.
    rating: u32,
    /// Why, in one sentence.
    reason: String,
}

fn expected_review() -> Review {
    Review {
        product: "Aeropress".into(),
        rating: 4,
        reason: "Great coffee, late delivery.".into(),
    }
}

fn client(server: &TestServer) -> Cohere {
    let api = CohereApi::default().thinking_budget(256);
    HttpModel::with_provider(api, server.url("/"), "command-a-reasoning-08-2025")
        .api_key(KEY)
        .temperature(0.25)
        .max_tokens(400)
}

const SYSTEM: &str = "You read customer notes.";

/// Short pauses, so the retry test stays fast.
fn fast() -> RetryPolicy {
    RetryPolicy::default()
        .max_retries(2)
        .base_delay(Duration::from_millis(1))
}

/// The messages `Think` sends for `PROMPT`, as recorded by a scripted model
/// given the same setup.
async fn messages_think_sends() -> Vec<Message> {
    let scripted = ScriptedModel::new([ANSWER]);
    Think::new(&scripted)
        .system(SYSTEM)
        .run::<Review>(PROMPT)
        .await
        .unwrap();
    scripted.requests().remove(0)
}

/// The body the Cohere adapter must write for `messages`: Cohere's roles,
/// plain text content, the shared options under Cohere's names, and its own
/// `thinking` option.
fn cohere_body(messages: &[Message], stream: bool) -> Value {
    let messages: Vec<Value> = messages
        .iter()
        .map(|m| {
            let role = serde_json::to_value(m.role).unwrap();
            json!({"role": role, "content": m.content.as_str()})
        })
        .collect();
    json!({
        "model": "command-a-reasoning-08-2025",
        "messages": messages,
        "stream": stream,
        "temperature": 0.25,
        "max_tokens": 400,
        "thinking": {"type": "enabled", "token_budget": 256},
    })
}

/// Cohere's named events, as its stream writes them: `event:` then `data:`.
fn cohere_stream(events: &[Value]) -> Scripted {
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    Scripted::raw_sse(&body)
}

fn content_delta(index: u32, content: Value) -> Value {
    json!({"type": "content-delta", "index": index, "delta": {"message": {"content": content}}})
}

fn message_end(delta: Value) -> Value {
    json!({"type": "message-end", "id": "m-1", "delta": delta})
}

/// A streamed reply: a thinking block, then the answer in items that cut
/// through headers.
fn streamed_answer() -> Scripted {
    cohere_stream(&[
        json!({"type": "message-start", "id": "m-1", "delta": {"message": {"role": "assistant"}}}),
        json!({"type": "content-start", "index": 0,
               "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}}),
        content_delta(0, json!({"thinking": "Late delivery, "})),
        content_delta(0, json!({"thinking": "great coffee."})),
        json!({"type": "content-end", "index": 0}),
        json!({"type": "content-start", "index": 1,
               "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
        content_delta(1, json!({"text": "[Product]\nAero"})),
        content_delta(1, json!({"text": "press\n\n[Rat"})),
        content_delta(1, json!({"text": "ing]\n4\n\n[Reason]\nGreat coffee, "})),
        content_delta(1, json!({"text": "late delivery."})),
        json!({"type": "content-end", "index": 1}),
        message_end(json!({
            "finish_reason": "COMPLETE",
            "usage": {"billed_units": {"input_tokens": 90.0, "output_tokens": 30.0},
                      "tokens": {"input_tokens": 301.0, "output_tokens": 44.0}},
        })),
    ])
}

#[tokio::test]
async fn a_whole_reply_becomes_a_typed_value() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({
            "id": "m-1",
            "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Four stars, late."},
                {"type": "text", "text": ANSWER},
            ]},
            "usage": {"billed_units": {"input_tokens": 80, "output_tokens": 20},
                      "tokens": {"input_tokens": 290, "output_tokens": 35}},
        }),
    )])
    .await;
    let model = client(&server);
    let outcome = Think::new(&model)
        .system(SYSTEM)
        .retry_policy(fast())
        .run::<Review>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, expected_review());
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(
        outcome.attempts[0].reasoning.as_deref(),
        Some("Four stars, late.")
    );
    assert_eq!(outcome.usage, Usage::new(290, 35));
    let request = server.only_request();
    assert_eq!(request.path_and_query, "/v2/chat");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("accept"), Some("*/*"));
    assert_eq!(
        request.body,
        cohere_body(&messages_think_sends().await, false)
    );
}

#[tokio::test]
async fn a_streamed_reply_is_typed_section_by_section() {
    let server = TestServer::start(vec![streamed_answer()]).await;
    let model = client(&server).stream(true);
    assert!(model.streams());
    let sections = Mutex::new(Vec::new());
    let outcome = Think::new(&model)
        .system(SYSTEM)
        .retry_policy(fast())
        .on_section(|event| {
            let text = event.text.clone();
            sections.lock().unwrap().push((event.header, text));
        })
        .run::<Review>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, expected_review());
    assert_eq!(
        sections.into_inner().unwrap(),
        [
            ("[Product]", "Aeropress".to_string()),
            ("[Rating]", "4".to_string()),
            ("[Reason]", "Great coffee, late delivery.".to_string()),
        ]
    );
    assert_eq!(
        outcome.attempts[0].reasoning.as_deref(),
        Some("Late delivery, great coffee.")
    );
    // `tokens`, not `billed_units`, and counts written as floats.
    assert_eq!(outcome.usage, Usage::new(301, 44));
    let request = server.only_request();
    assert_eq!(request.path_and_query, "/v2/chat");
    assert_eq!(request.header("accept"), Some("text/event-stream"));
    assert_eq!(
        request.body,
        cohere_body(&messages_think_sends().await, true)
    );
}

#[tokio::test]
async fn a_503_is_retried_and_the_same_request_sent_again() {
    let server = TestServer::start(vec![
        Scripted::json(503, json!({"message": "service overloaded"})),
        streamed_answer(),
    ])
    .await;
    let model = client(&server).stream(true);
    let outcome = Think::new(&model)
        .system(SYSTEM)
        .retry_policy(fast())
        .run::<Review>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, expected_review());
    assert_eq!(outcome.attempts.len(), 1);
    let retries: Vec<&str> = outcome.attempts[0]
        .transport_retries
        .iter()
        .map(|r| r.error.as_str())
        .collect();
    assert_eq!(
        retries,
        ["the model server answered HTTP 503: service overloaded"]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn the_key_is_scrubbed_from_a_refused_key() {
    let server = TestServer::start(vec![
        Scripted::json(
            401,
            json!({"id": "e-1", "message": "invalid api token: {KEY}"}),
        )
        .echoing_key(),
        streamed_answer(),
    ])
    .await;
    let model = client(&server).stream(true);
    let error = Think::new(&model)
        .system(SYSTEM)
        .retry_policy(fast())
        .run::<Review>(PROMPT)
        .await
        .unwrap_err();
    let ThinkErrorKind::Model { source, retries } = error.kind() else {
        panic!("expected a model error, got {error}");
    };
    assert_eq!(
        source.to_string(),
        "the model server answered HTTP 401: invalid api token: [redacted]"
    );
    assert_eq!(*retries, 0, "a 401 is not retried");
    assert_eq!(server.requests().len(), 1);
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{model:?}"),
    ] {
        assert!(!text.contains(KEY), "{text}");
    }
}

#[tokio::test]
async fn a_stream_that_fails_keeps_its_text_and_hides_the_key() {
    let server = TestServer::start(vec![cohere_stream(&[
        content_delta(0, json!({"text": "[Product]\nAeropress\n"})),
        message_end(json!({"finish_reason": "ERROR", "error": "upstream failed for key {KEY}"})),
    ])
    .echoing_key()])
    .await;
    let model = client(&server).stream(true);
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "the reply was cut off (20 bytes of it had arrived and are kept): \
         the reply broke off: the server reported an error: upstream failed for key [redacted]"
    );
    assert!(error.is_transient());
    assert_eq!(
        error.partial().map(|r| r.content.as_str()),
        Some("[Product]\nAeropress\n")
    );
    assert!(!format!("{error:?}").contains(KEY));
}

#[tokio::test]
async fn a_stream_cut_before_message_end_is_interrupted() {
    let server = TestServer::start(vec![cohere_stream(&[content_delta(
        0,
        json!({"text": "[Product]\nAero"}),
    )])])
    .await;
    let model = client(&server).stream(true);
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    let ModelError::Incomplete { partial, source } = &error else {
        panic!("expected Incomplete, got {error:?}");
    };
    assert_eq!(partial.content, "[Product]\nAero");
    assert_eq!(
        source.to_string(),
        "the reply broke off: the stream ended before the reply was complete (no message-end)"
    );
}

#[test]
fn debug_shows_the_adapter_and_never_the_key() {
    let model = cohere(KEY, "command-a-03-2025");
    assert_eq!(
        format!("{model:?}"),
        "Cohere { base_url: \"https://api.cohere.com\", model: \"command-a-03-2025\", \
         api_key: Some(\"[redacted]\"), thinking_budget: None, options: Options { \
         stream: false, temperature: None, max_tokens: None, seed: None, grammar: None, takes_n: false, extra: None, \
         timeout: 600s, max_response_bytes: 16777216, http_client: \"shared\" } }"
    );
}

/// Cohere's API behind a gateway that takes the key in the query and wants
/// a version header, embeds its own errors in a 200 body with text codes of
/// its own, and announces its quota in headers of its own: the rest is
/// Cohere's adapter. It keeps the trait's other defaults (`TYPE_NAME`,
/// `debug_fields`).
#[derive(Debug, Clone, Default)]
struct Gateway(CohereApi);

impl Provider for Gateway {
    const NAME: &'static str = "gateway";
    type StreamState = ();

    fn head(
        &self,
        _: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError> {
        let key = key.ok_or_else(|| ModelError::Config("the gateway needs a key".into()))?;
        head.path("/gw/chat")
            .query("api-version", "2 beta")
            .key_query("key", key)
            .header("x-gateway-version", "2")?;
        Ok(())
    }

    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
        self.0.body(spec)
    }

    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
        if let Ok(Value::Object(mut reply)) = serde_json::from_slice::<Value>(body) {
            if let Some(error) = reply.remove("gateway_error") {
                return Err(Fault::Embedded(error));
            }
        }
        self.0.decode_reply(body, out)
    }

    fn decode_event(
        &self,
        _: &mut (),
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault> {
        self.0.decode_event(&mut (), event, out)
    }

    fn rate_limits(&self, headers: &ResponseHeaders<'_>) -> RateLimits {
        let mut limits = RateLimits::default();
        limits.remaining_requests = headers.count("x-gateway-quota-left");
        limits.requests_reset = headers.duration("x-gateway-quota-reset");
        limits.retry_after = headers.retry_after();
        limits
    }

    fn error_status(&self, code: &str) -> Option<u16> {
        match code {
            "quota_spent" => Some(429),
            "key_revoked" => Some(401),
            _ => None,
        }
    }
}

#[tokio::test]
async fn a_gateway_says_its_own_rate_limits_and_error_codes() {
    let gateway_error = |code: &str| json!({"gateway_error": {"code": code, "message": "no"}});
    let server = TestServer::start(vec![
        Scripted::json(200, gateway_error("Quota_Spent")),
        Scripted::json(200, gateway_error("key_revoked")),
        Scripted::json(200, gateway_error("hiccup")),
        Scripted::json(
            200,
            json!({"message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
                   "finish_reason": "COMPLETE"}),
        )
        .header("x-gateway-quota-left", "0")
        .header("x-gateway-quota-reset", "1m30s")
        .header("x-ratelimit-remaining-requests", "7")
        .header("retry-after", "4"),
    ])
    .await;
    let model = HttpModel::with_provider(Gateway::default(), server.url("/"), "m").api_key(KEY);
    let hi = [Message::user("Hi")];
    let status = |error: ModelError| match error {
        ModelError::Status { status, .. } => Some(status),
        _ => None,
    };
    let spent = model.chat(&hi).await.unwrap_err();
    assert!(spent.is_transient());
    assert_eq!(status(spent), Some(429));
    let revoked = model.chat(&hi).await.unwrap_err();
    assert!(!revoked.is_transient());
    assert_eq!(status(revoked), Some(401));
    // A code the gateway does not name is a reply that broke off.
    let hiccup = model.chat(&hi).await.unwrap_err();
    assert!(matches!(hiccup, ModelError::Interrupted(_)), "{hiccup:?}");
    let response = model.call(Request::new(&hi)).await.unwrap();
    let mut expected = RateLimits::default();
    expected.remaining_requests = Some(0);
    expected.requests_reset = Some(Duration::from_secs(90));
    expected.retry_after = Some(Duration::from_secs(4));
    assert_eq!(response.rate_limits, expected);
    assert_eq!(response.into_reply().await.unwrap().content, "ok");
}

#[tokio::test]
async fn a_key_in_the_query_is_sent_there_and_scrubbed_everywhere() {
    let server = TestServer::start(vec![
        Scripted::json(401, json!({"message": format!("unknown key {KEY}")})),
        streamed_answer(),
    ])
    .await;
    let model = HttpModel::with_provider(Gateway::default(), server.url("/base/"), "m")
        .api_key(KEY)
        .stream(true);
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 401: unknown key [redacted]"
    );
    let reply = model.chat(&[Message::user("Hi")]).await.unwrap();
    assert_eq!(reply.content, ANSWER);
    assert_eq!(
        reply.reasoning.as_deref(),
        Some("Late delivery, great coffee.")
    );
    let request = &server.requests()[1];
    assert_eq!(
        request.path_and_query,
        format!("/base/gw/chat?api-version=2+beta&key={KEY}")
    );
    assert_eq!(request.header("x-gateway-version"), Some("2"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        format!("{model:?}"),
        "HttpModel { base_url: \"http://127.0.0.1:PORT/base/\", model: \"m\", \
         api_key: Some(\"[redacted]\"), provider: Gateway(CohereApi { thinking_budget: None }), \
         options: Options { stream: true, temperature: None, max_tokens: None, seed: None, \
         grammar: None, takes_n: false, extra: None, timeout: 600s, max_response_bytes: 16777216, http_client: \"shared\" } }"
            .replace("http://127.0.0.1:PORT", &server.origin)
    );
}

#[tokio::test]
async fn a_key_the_adapter_requires_fails_before_sending() {
    let server = TestServer::start(vec![streamed_answer()]).await;
    let model = HttpModel::with_provider(Gateway::default(), server.url("/"), "m").api_key("  ");
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Config(m) if m.as_str() == "the gateway needs a key"),
        "{error:?}"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_key_in_the_query_stays_out_of_connection_errors() {
    let origin = refused_origin();
    let model = HttpModel::with_provider(Gateway::default(), origin, "m").api_key(KEY);
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    assert!(matches!(error, ModelError::Connect(_)), "{error:?}");
    let mut chain = format!("{error} {error:?}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        chain.push_str(&format!(" {cause} {cause:?}"));
        source = cause.source();
    }
    assert!(!chain.contains(KEY), "{chain}");
}
