//! `ChatModel::chat_stream` of the HTTP clients against real axum servers on
//! 127.0.0.1, through the real reqwest client: the exact deltas each
//! provider's event stream gives, reasoning split out as it arrives.

use crate::support::client::{Scripted, TestServer};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::{
    ChatModel, Delta, FinishReason, Gemini, Message, ModelError, OpenAiCompatible, Usage,
};

fn chunk(delta: Value, finish: Value) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
    .to_string()
}

fn openai(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "test-model").api_key("sk-stream-test")
}

fn hi() -> Vec<Message> {
    vec![Message::user("Say hi")]
}

/// Every item of the stream, errors as their text.
async fn deltas(model: &impl ChatModel, messages: &[Message]) -> Vec<Result<Delta, String>> {
    model
        .chat_stream(messages)
        .map(|item| item.map_err(|error| error.to_string()))
        .collect()
        .await
}

fn content(text: &str) -> Result<Delta, String> {
    Ok(Delta::Content(text.to_string()))
}

fn reasoning(text: &str) -> Result<Delta, String> {
    Ok(Delta::Reasoning(text.to_string()))
}

fn done(usage: Usage, finish_reason: FinishReason) -> Result<Delta, String> {
    Ok(Delta::Done {
        usage,
        finish_reason: Some(finish_reason),
    })
}

#[tokio::test]
async fn openai_inline_think_blocks_split_mid_tag_become_reasoning_as_they_arrive() {
    let events = [
        ": ping".to_string(),
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(json!({"content": "<thi"}), Value::Null),
        chunk(json!({"content": "nk>Greet "}), Value::Null),
        chunk(json!({"content": "politely.</th"}), Value::Null),
        chunk(json!({"content": "ink>\n\n[Answer]\nHel"}), Value::Null),
        chunk(json!({"content": "lo, wörld\n"}), Value::Null),
        chunk(json!({"content": "\n"}), Value::Null),
        chunk(json!({}), json!("stop")),
        json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}).to_string(),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let model = openai(&server).stream(true);
    assert!(model.streams());
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            reasoning("Greet "),
            reasoning("politely."),
            // The blank lines after the block are not part of the answer,
            content("[Answer]\nHel"),
            // and the trailing ones are held back, then dropped at the end,
            // as `chat` trims the answer around a removed block.
            content("lo, wörld"),
            done(Usage::new(5, 7), FinishReason::Stop),
        ]
    );
    let request = server.only_request();
    assert_eq!(request.body["stream"], json!(true));
    assert_eq!(request.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn openai_reasoning_content_and_reasoning_fields_are_reasoning_deltas() {
    let events = [
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"reasoning_content": "Count "}), Value::Null),
        chunk(json!({"reasoning": "to three."}), Value::Null),
        chunk(json!({"content": "1, 2,"}), Value::Null),
        chunk(json!({"content": " 3"}), Value::Null),
        chunk(json!({}), json!("length")),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let model = openai(&server).stream(true).stream_usage(false);
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            reasoning("Count "),
            reasoning("to three."),
            content("1, 2,"),
            content(" 3"),
            // The server sent no usage: zero, as `Delta::Done` documents.
            done(Usage::default(), FinishReason::Length),
        ]
    );
}

#[tokio::test]
async fn openai_a_lone_closing_tag_is_passed_on_so_readers_know_what_came_before_was_reasoning() {
    let events = [
        chunk(json!({"content": "weigh it\n"}), Value::Null),
        chunk(json!({"content": "</think>\n\n[Answer]\nYes"}), Value::Null),
        chunk(json!({}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events), Scripted::sse(&events)]).await;
    let model = openai(&server).stream(true);
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            content("weigh it\n"),
            content("</think>"),
            content("[Answer]\nYes"),
            done(Usage::default(), FinishReason::Stop),
        ]
    );
    // `chat` on the same events: the text before the tag is reasoning.
    let reply = model.chat(&hi()).await.unwrap();
    assert_eq!(reply.content, "[Answer]\nYes");
    assert_eq!(reply.reasoning.as_deref(), Some("weigh it"));
}

#[tokio::test]
async fn openai_a_stream_that_breaks_gives_its_text_then_the_failure() {
    let events = [
        chunk(json!({"content": "[Answer]\n"}), Value::Null),
        chunk(json!({"content": "Hel"}), Value::Null),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let model = openai(&server).stream(true);
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            content("[Answer]\n"),
            content("Hel"),
            Err(
                "the reply broke off: the stream ended before the reply was complete \
                 (no finish_reason, no [DONE])"
                    .to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn openai_empty_replies_and_refusals_end_the_stream_with_chats_error() {
    let blank = [
        chunk(json!({"content": "<think>only this</think>"}), Value::Null),
        chunk(json!({"content": "  "}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let refused = [
        chunk(json!({"refusal": "I can't help with that."}), Value::Null),
        chunk(json!({}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let blank: Vec<&str> = blank.iter().map(String::as_str).collect();
    let refused: Vec<&str> = refused.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&blank), Scripted::sse(&refused)]).await;
    let model = openai(&server).stream(true);
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            reasoning("only this"),
            Err("the model sent an empty reply".to_string()),
        ]
    );
    let error = model
        .chat_stream(&hi())
        .collect::<Vec<_>>()
        .await
        .pop()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&error, ModelError::Refused(m) if m == "I can't help with that."),
        "{error}"
    );
}

#[tokio::test]
async fn openai_a_server_ignoring_stream_true_gives_the_whole_reply_as_deltas() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"choices": [{"index": 0, "message": {"role": "assistant",
                 "content": "<think>hmm</think>\n[Answer]\nHi", "reasoning_content": "field"},
                 "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}}),
    )])
    .await;
    let model = openai(&server).stream(true);
    assert_eq!(
        deltas(&model, &hi()).await,
        [
            reasoning("field\nhmm"),
            content("[Answer]\nHi"),
            done(Usage::new(2, 3), FinishReason::Stop),
        ]
    );
}

#[tokio::test]
async fn without_stream_true_the_client_does_not_stream_and_gives_one_piece() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"},
                 "finish_reason": "stop"}]}),
    )])
    .await;
    let model = openai(&server);
    assert!(!model.streams());
    assert_eq!(
        deltas(&model, &hi()).await,
        [content("Hi"), done(Usage::default(), FinishReason::Stop)]
    );
    assert_eq!(server.only_request().body["stream"], json!(false));
}

fn gemini_event(parts: Value, finish: Option<&str>, usage: Option<Value>) -> String {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(finish) = finish {
        candidate["finishReason"] = json!(finish);
    }
    let mut event = json!({"candidates": [candidate]});
    if let Some(usage) = usage {
        event["usageMetadata"] = usage;
    }
    format!("data: {event}\r\n\r\n")
}

#[tokio::test]
async fn gemini_thought_parts_are_reasoning_deltas_as_they_arrive() {
    let body = [
        gemini_event(json!([{"text": "Weighing ", "thought": true}]), None, None),
        gemini_event(json!([{"text": "options.", "thought": true}]), None, None),
        gemini_event(
            json!([{"text": "[Answer]\nRo"}]),
            None,
            Some(json!({"promptTokenCount": 11})),
        ),
        gemini_event(
            json!([{"text": "me"}]),
            Some("STOP"),
            Some(json!({"promptTokenCount": 11, "candidatesTokenCount": 3,
                        "thoughtsTokenCount": 4, "totalTokenCount": 18})),
        ),
    ]
    .concat();
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let model = Gemini::new("AIza-stream-test", "gemini-test")
        .base_url(server.url("/v1beta"))
        .include_thoughts(true)
        .stream(true);
    assert!(model.streams());
    assert_eq!(
        deltas(&model, &[Message::user("Capital of Italy?")]).await,
        [
            reasoning("Weighing "),
            reasoning("options."),
            content("[Answer]\nRo"),
            content("me"),
            done(Usage::new(11, 7).with_total(18), FinishReason::Stop),
        ]
    );
    assert_eq!(
        server.only_request().path_and_query,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    );
}

#[tokio::test]
async fn gemini_a_stream_cut_before_its_finish_reason_ends_with_the_failure() {
    let body = gemini_event(json!([{"text": "[Answer]\nRo"}]), None, None);
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let model = Gemini::new("AIza-stream-test", "gemini-test")
        .base_url(server.url("/v1beta"))
        .stream(true);
    assert_eq!(
        deltas(&model, &[Message::user("Capital of Italy?")]).await,
        [
            content("[Answer]\nRo"),
            Err(
                "the reply broke off: the stream ended before the reply was complete \
                 (no finishReason)"
                    .to_string()
            ),
        ]
    );
}
