//! `Gemini` against real axum servers on 127.0.0.1, through the real
//! reqwest client.

use crate::support::client::{Scripted, TestServer};
use serde_json::{json, Value};
use twr_runtime::{ChatModel, FinishReason, Gemini, Message, ModelError, Reply, Usage};

const KEY: &str = "AIza-test-SECRET-987";

fn client(server: &TestServer) -> Gemini {
    Gemini::new(KEY, "gemini-test").base_url(server.url("/v1beta"))
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("Answer in one word."),
        Message::user("Capital of France?"),
        Message::assistant("Paris."),
        Message::user("And of Italy?"),
    ]
}

fn candidate(parts: Value, finish: &str) -> Value {
    json!({"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0})
}

#[tokio::test]
async fn generate_content_with_thoughts_usage_and_the_request() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({
            "candidates": [candidate(json!([
                {"text": "Italy's capital is Rome.", "thought": true},
                {"text": "Rome"},
                {"text": "."}
            ]), "STOP")],
            "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 2,
                              "thoughtsTokenCount": 6, "totalTokenCount": 28},
            "modelVersion": "gemini-test"
        }),
    )])
    .await;
    let model = client(&server)
        .temperature(0.5)
        .max_tokens(64)
        .seed(9)
        .include_thoughts(true);
    let reply = model.chat(&conversation()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("Rome.")
            .with_reasoning("Italy's capital is Rome.")
            .with_usage(Usage::new(20, 8).with_total(28))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(
        request.path_and_query,
        "/v1beta/models/gemini-test:generateContent"
    );
    assert_eq!(request.header("x-goog-api-key"), Some(KEY));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.body,
        json!({
            "contents": [
                {"role": "user", "parts": [{"text": "Capital of France?"}]},
                {"role": "model", "parts": [{"text": "Paris."}]},
                {"role": "user", "parts": [{"text": "And of Italy?"}]},
            ],
            "systemInstruction": {"parts": [{"text": "Answer in one word."}]},
            "generationConfig": {
                "temperature": 0.5,
                "maxOutputTokens": 64,
                "seed": 9,
                "thinkingConfig": {"includeThoughts": true},
            },
        })
    );
}

#[tokio::test]
async fn stream_generate_content_over_sse() {
    let chunks = [
        json!({"candidates": [candidate(json!([{"text": "Weighing ", "thought": true}]), "")]}),
        json!({"candidates": [candidate(json!([{"text": "options.", "thought": true}]), "")]}),
        json!({"candidates": [candidate(json!([{"text": "[Answer]\nRo"}]), "")],
               "usageMetadata": {"promptTokenCount": 11}}),
        json!({"candidates": [candidate(json!([{"text": "me"}]), "STOP")],
               "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 3, "totalTokenCount": 14}}),
    ];
    // Gemini ends events with CRLF and sends no [DONE].
    let body: String = chunks
        .iter()
        .map(|c| {
            let mut c = c.clone();
            if c["candidates"][0]["finishReason"] == "" {
                c["candidates"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("finishReason");
            }
            format!("data: {c}\r\n\r\n")
        })
        .collect();
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let reply = client(&server)
        .stream(true)
        .chat(&conversation())
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::text("[Answer]\nRome")
            .with_reasoning("Weighing options.")
            .with_usage(Usage::new(11, 3).with_total(14))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(
        request.path_and_query,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    );
    assert!(!request.path_and_query.contains(KEY));
}

#[tokio::test]
async fn max_tokens_is_length() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"candidates": [candidate(json!([{"text": "The answer is"}]), "MAX_TOKENS")],
               "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 3, "totalTokenCount": 7}}),
    )])
    .await;
    let reply = client(&server).chat(&conversation()).await.unwrap();
    assert_eq!(reply.content, "The answer is");
    assert_eq!(reply.finish_reason, Some(FinishReason::Length));
    assert!(reply.is_truncated());
}

#[tokio::test]
async fn blocked_prompts_and_filtered_replies_are_refused() {
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                   "usageMetadata": {"promptTokenCount": 9}}),
        ),
        Scripted::json(
            200,
            json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]}),
        ),
    ])
    .await;
    let model = client(&server);
    let error = model.chat(&conversation()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server refused to answer: Gemini blocked the prompt (blockReason PROHIBITED_CONTENT)"
    );
    assert!(!error.is_transient());
    let error = model.chat(&conversation()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server refused to answer: Gemini stopped the reply (finishReason SAFETY)"
    );
}

#[tokio::test]
async fn a_blank_reply_is_an_empty_reply() {
    // A missing key, for every provider: providers::keys.
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"candidates": [candidate(json!([{"text": "  "}]), "STOP")]}),
    )])
    .await;
    let error = client(&server).chat(&conversation()).await.unwrap_err();
    assert!(matches!(error, ModelError::EmptyReply), "{error:?}");
    assert_eq!(server.requests().len(), 1);
}
