//! The loop and the real HTTP clients together: faults served by real axum
//! servers on 127.0.0.1, read by reqwest, retried (or not) by `Think`.

use std::time::{Duration, Instant};

use crate::support::client::{Scripted, TestServer};
use serde_json::{json, Value};
use twr_runtime::run::Ending;
use twr_runtime::{
    AttemptKind, Feedback, Gemini, ModelError, OpenAiCompatible, RetryPolicy, Think, ThinkErrorKind,
};

const KEY: &str = "sk-retry-SECRET";
const PROMPT: &str = "How many legs has a spider? Answer with the number only.";

fn reply(content: &str) -> Scripted {
    Scripted::json(
        200,
        json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }),
    )
}

fn error(status: u16, message: &str) -> Scripted {
    Scripted::json(status, json!({"error": {"message": message}}))
}

fn client(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "test-model").api_key(KEY)
}

/// Short pauses so the tests stay fast; `Retry-After` is still a floor.
fn fast() -> RetryPolicy {
    RetryPolicy::default()
        .max_retries(2)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_secs(5))
}

fn legs(raw: &str) -> Result<u32, Feedback> {
    raw.trim().parse::<u32>().map_err(|_| {
        Feedback::message(format!(
            "Write only the number; you wrote '{}'.",
            raw.trim()
        ))
    })
}

fn retry_errors(outcome_attempt: &twr_runtime::Attempt) -> Vec<String> {
    outcome_attempt
        .transport_retries
        .iter()
        .map(|r| r.error.clone())
        .collect()
}

#[tokio::test]
async fn rate_limited_with_retry_after_then_success() {
    let server = TestServer::start(vec![
        error(429, "Rate limit reached, retry in 1s").header("retry-after", "1"),
        reply("8"),
    ])
    .await;
    let model = client(&server);
    let started = Instant::now();
    let outcome = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After not honoured"
    );
    assert_eq!(outcome.value, 8);
    assert_eq!(outcome.ending, Ending::FirstTry);
    assert_eq!(outcome.attempts.len(), 1);
    let attempt = &outcome.attempts[0];
    assert_eq!(
        retry_errors(attempt),
        vec!["the model server answered HTTP 429: Rate limit reached, retry in 1s".to_string()]
    );
    assert_eq!(attempt.transport_retries[0].delay, Duration::from_secs(1));
    assert_eq!(outcome.usage.total_tokens, 12);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "a retry resends the same request"
    );
}

#[tokio::test]
async fn service_unavailable_twice_then_success() {
    let server = TestServer::start(vec![
        error(503, "overloaded"),
        Scripted::text(503, "upstream connect error"),
        reply("8"),
    ])
    .await;
    let model = client(&server);
    let outcome = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap();
    assert_eq!(outcome.value, 8);
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(
        retry_errors(&outcome.attempts[0]),
        vec![
            "the model server answered HTTP 503: overloaded".to_string(),
            "the model server answered HTTP 503: upstream connect error".to_string(),
        ]
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn unauthorized_fails_at_once_with_the_server_message() {
    let server = TestServer::start(vec![
        error(401, &format!("Incorrect API key provided: {KEY}")),
        reply("8"),
    ])
    .await;
    let model = client(&server);
    let error = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap_err();
    match error.kind() {
        ThinkErrorKind::Model { source, retries } => {
            assert_eq!(
                source.to_string(),
                "the model server answered HTTP 401: Incorrect API key provided: [redacted]"
            );
            assert_eq!(*retries, 0);
            assert!(error.attempts().is_empty());
        }
        other => panic!("expected a model error, got {other:?}"),
    }
    assert!(!format!("{error:?}").contains(KEY));
    assert!(!crate::support::report(&error).contains(KEY));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn transient_failures_past_the_budget_end_the_run() {
    let server = TestServer::start(vec![
        error(500, "boom 1"),
        error(502, "boom 2"),
        error(504, "boom 3"),
        reply("8"),
    ])
    .await;
    let model = client(&server);
    let error = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Model { source: ModelError::Status { status: 504, message, .. }, retries: 2 } if message == "boom 3"),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn broken_streams_timeouts_and_empty_replies_are_retried() {
    let events = [
        json!({"choices": [{"index": 0, "delta": {"content": "Eig"}, "finish_reason": null}]})
            .to_string(),
    ];
    let cut = Scripted::sse(&events.iter().map(String::as_str).collect::<Vec<_>>());
    let good = [
        json!({"choices": [{"index": 0, "delta": {"content": "8"}, "finish_reason": null}]})
            .to_string(),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
        "[DONE]".to_string(),
    ];
    let empty = [
        json!({"choices": [{"index": 0, "delta": {"content": "  "}, "finish_reason": "stop"}]})
            .to_string(),
        "[DONE]".to_string(),
    ];
    let server = TestServer::start(vec![
        cut,
        Scripted::sse(&good.iter().map(String::as_str).collect::<Vec<_>>())
            .delay(Duration::from_secs(3)),
        Scripted::sse(&empty.iter().map(String::as_str).collect::<Vec<_>>()),
        // Without the 1 ms pause between pieces: on a loaded machine fifty
        // paced pieces can take longer than the 300 ms timeout.
        Scripted::sse(&good.iter().map(String::as_str).collect::<Vec<_>>()).pause(Duration::ZERO),
    ])
    .await;
    let model = client(&server)
        .stream(true)
        .timeout(Duration::from_millis(300));
    let outcome = Think::new(&model)
        .retry_policy(fast().max_retries(3))
        .run_with(PROMPT, legs)
        .await
        .unwrap();
    assert_eq!(outcome.value, 8);
    assert_eq!(
        retry_errors(&outcome.attempts[0]),
        vec![
            "the reply was cut off (3 bytes of it had arrived and are kept): \
             the reply broke off: the stream ended before the reply was complete (no finish_reason, no [DONE])"
                .to_string(),
            "the model server did not answer within 300ms".to_string(),
            "the model sent an empty reply".to_string(),
        ]
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn format_feedback_goes_back_over_http() {
    let server = TestServer::start(vec![reply("about eight"), reply("8")]).await;
    let model = client(&server);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .system("You count legs.")
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap();
    assert_eq!(outcome.value, 8);
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(outcome.attempts.len(), 2);
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Accepted);
    assert_eq!(outcome.usage.total_tokens, 24);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages =
        |n: usize| -> Vec<Value> { requests[n].body["messages"].as_array().unwrap().clone() };
    assert_eq!(
        messages(0),
        vec![
            json!({"role": "system", "content": "You count legs."}),
            json!({"role": "user", "content": PROMPT}),
        ]
    );
    let second = messages(1);
    assert_eq!(second.len(), 4);
    assert_eq!(second[..2], messages(0)[..]);
    assert_eq!(
        second[2],
        json!({"role": "assistant", "content": "about eight"})
    );
    assert_eq!(second[3]["role"], "user");
    assert_eq!(
        second[3]["content"],
        "Write only the number; you wrote 'about eight'.\n\nPlease answer again with these fixes made."
    );
    // The ledger records what was sent.
    assert_eq!(
        second[3]["content"].as_str(),
        outcome.attempts[0].sent_back.as_deref()
    );
}

#[tokio::test]
async fn gemini_through_the_loop() {
    let ok = json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Spiders are arachnids.", "thought": true}, {"text": "8"}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 1, "thoughtsTokenCount": 4, "totalTokenCount": 14}
    });
    let server = TestServer::start(vec![
        Scripted::json(503, json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})),
        Scripted::json(200, ok),
    ])
    .await;
    let model = Gemini::new(KEY, "gemini-test").base_url(server.url("/v1beta"));
    let outcome = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap();
    assert_eq!(outcome.value, 8);
    let attempt = &outcome.attempts[0];
    assert_eq!(attempt.reasoning.as_deref(), Some("Spiders are arachnids."));
    assert_eq!(attempt.usage.completion_tokens, 5);
    assert_eq!(
        retry_errors(attempt),
        vec!["the model server answered HTTP 503: The model is overloaded.".to_string()]
    );
}

#[tokio::test]
async fn a_blocked_prompt_fails_at_once() {
    let server = TestServer::start(vec![
        Scripted::json(200, json!({"promptFeedback": {"blockReason": "SAFETY"}})),
        Scripted::json(200, json!({"candidates": [{"content": {"parts": [{"text": "8"}]}, "finishReason": "STOP"}]})),
    ])
    .await;
    let model = Gemini::new(KEY, "gemini-test").base_url(server.url("/v1beta"));
    let error = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Model { source: ModelError::Refused(m), retries: 0 }
            if m == "Gemini blocked the prompt (blockReason SAFETY)"),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_200_carrying_an_auth_error_code_is_not_retried() {
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            json!({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}),
        ),
        reply("8"),
    ])
    .await;
    let model = client(&server);
    let error = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap_err();
    assert!(
        crate::support::report(&error)
            .contains("the model server answered HTTP 401: Incorrect API key provided"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1, "retried a permanent error");
}

#[tokio::test]
async fn a_key_that_cannot_be_a_header_is_not_retried() {
    let server = TestServer::start(vec![reply("8")]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "test-model").api_key("sk-\u{0}bad");
    let error = Think::new(&model)
        .retry_policy(fast())
        .run_with(PROMPT, legs)
        .await
        .unwrap_err();
    assert!(
        crate::support::report(&error).contains("invalid model configuration"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 0);
}
