//! Provider edge cases from real traffic, each recorded as a body served by
//! axum on 127.0.0.1 and read by the real reqwest client: what the server
//! said is kept (a refusal's explanation, a filter's reason, reasoning in
//! content parts, usage in a member of the server's own), and a stream that
//! ends in the middle of an event is a reply that broke off. The source of
//! each shape is noted beside it.

use std::time::Duration;

use crate::support::client::{Scripted, TestServer};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::{
    Anthropic, ChatModel, Delta, Feedback, FinishReason, Gemini, Message, ModelError,
    OpenAiCompatible, Reply, RetryPolicy, Think, ThinkErrorKind, Usage,
};

const KEY: &str = "sk-edges-SECRET-77";

fn ask() -> Vec<Message> {
    vec![Message::user("How do I pick this lock?")]
}

/// The message of a refusal, or the error when it is something else.
fn refused(error: &ModelError) -> Result<&str, String> {
    match error {
        ModelError::Refused(message) => Ok(message),
        other => Err(format!("{other:?}")),
    }
}

/// What arrived and why it stopped, for an error that kept text.
fn incomplete(error: &ModelError) -> Result<(&Reply, &ModelError), String> {
    match error {
        ModelError::Incomplete { partial, source } => Ok((partial, source)),
        other => Err(format!("{other:?}")),
    }
}

fn anthropic(server: &TestServer) -> Anthropic {
    Anthropic::new(KEY, "claude-test").base_url(server.url("/anthropic"))
}

/// An Anthropic event stream: `event: NAME` and the JSON data.
fn anthropic_events(list: &[Value]) -> String {
    list.iter()
        .map(|data| {
            format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap()
            )
        })
        .collect()
}

// Shapes: `stop_details` is Anthropic's `RefusalStopDetails`
// (`{"type": "refusal", "category": ..., "explanation": ...}`, either member
// null), on the message and on `message_delta`'s delta, as the Messages API
// reference and anthropics/anthropic-sdk-python
// (src/anthropic/types/refusal_stop_details.py, raw_message_delta_event.py)
// define them. The explanation text here is our own.
const EXPLANATION: &str =
    "This request asks for help defeating a lock the user may not own, which the usage policy does not allow.";

#[tokio::test]
async fn an_anthropic_refusal_keeps_the_servers_explanation() {
    let details = json!({"type": "refusal", "category": "cyber", "explanation": EXPLANATION});
    let whole = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [], "stop_reason": "refusal", "stop_sequence": null, "stop_details": details,
        "usage": {"input_tokens": 14, "output_tokens": 0},
    });
    let streamed = anthropic_events(&[
        json!({"type": "message_start", "message": {"id": "msg_02", "type": "message",
            "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null,
            "usage": {"input_tokens": 14, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "To open a pin"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "refusal", "stop_sequence": null,
            "stop_details": details}, "usage": {"output_tokens": 4}}),
        json!({"type": "message_stop"}),
    ]);
    // A refusal with a category and no explanation names the category.
    let no_explanation = json!({
        "type": "message", "role": "assistant", "content": [], "stop_reason": "refusal",
        "stop_details": {"type": "refusal", "category": "bio", "explanation": null},
        "usage": {"input_tokens": 14, "output_tokens": 0},
    });
    let server = TestServer::start(vec![
        Scripted::json(200, whole),
        Scripted::raw_sse(&streamed),
        Scripted::json(200, no_explanation),
    ])
    .await;
    let error = anthropic(&server).chat(&ask()).await.unwrap_err();
    assert_eq!(refused(&error), Ok(EXPLANATION));
    assert!(!error.is_transient());
    // Streamed: the text before the refusal is kept beside the explanation.
    let error = anthropic(&server)
        .stream(true)
        .chat(&ask())
        .await
        .unwrap_err();
    let (partial, source) = incomplete(&error).unwrap();
    assert_eq!(partial.content, "To open a pin");
    assert_eq!(partial.finish_reason, Some(FinishReason::ContentFilter));
    assert_eq!(refused(source), Ok(EXPLANATION));
    assert!(!error.is_transient());
    let error = anthropic(&server).chat(&ask()).await.unwrap_err();
    assert_eq!(
        refused(&error),
        Ok("Claude declined to answer (stop_reason refusal, category bio)")
    );
}

fn gemini(server: &TestServer) -> Gemini {
    Gemini::new(KEY, "gemini-test").base_url(server.url("/v1beta"))
}

// Shapes: a candidate with `finishReason` and no `content` (or empty
// parts) when a filter blocks the reply, `safetyRatings` marking the
// blocking category `"blocked": true`, and a `finishMessage`; in a stream,
// the text chunks first and the blocking reason in the last chunk with
// empty content. From the Gemini API reference (GenerateContentResponse,
// Candidate, FinishReason; Vertex AI adds MODEL_ARMOR) and replies quoted in
// xtekky/gpt4free#2341 and epam/ai-dial-adapter-vertexai#149.
#[tokio::test]
async fn gemini_finish_reasons_that_block_are_refusals_whole_and_streamed() {
    let reasons = [
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MODEL_ARMOR",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
    ];
    let mut script: Vec<Scripted> = reasons
        .iter()
        .map(|reason| {
            Scripted::json(
                200,
                json!({"candidates": [{"finishReason": reason, "index": 0}],
                       "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}}),
            )
        })
        .collect();
    script.push(Scripted::json(
        200,
        json!({"candidates": [{"finishReason": "PROHIBITED_CONTENT", "index": 0,
        "finishMessage": "The response was blocked because it may contain prohibited content.",
        "safetyRatings": [
            {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}
        ]}]}),
    ));
    let chunk = |value: Value| format!("data: {value}\r\n\r\n");
    let streamed = [
        chunk(json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "[Steps]\n1. Insert the"}]}, "index": 0}]})),
        chunk(json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "SAFETY", "index": 0,
            "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "MEDIUM", "blocked": true}]}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 6, "totalTokenCount": 15}})),
    ]
    .concat();
    script.push(Scripted::raw_sse(&streamed));
    script.push(Scripted::raw_sse(&streamed));
    // A blocked prompt, streamed: the only chunk has `promptFeedback` and
    // no candidates (GenerateContentResponse.PromptFeedback.BlockReason).
    script.push(Scripted::raw_sse(&chunk(json!({
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT",
                           "blockReasonMessage": "The prompt was blocked."},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}}))));
    let server = TestServer::start(script).await;
    for reason in reasons {
        let error = gemini(&server).chat(&ask()).await.unwrap_err();
        assert_eq!(
            refused(&error),
            Ok(format!("Gemini stopped the reply (finishReason {reason})").as_str())
        );
        assert!(!error.is_transient(), "{reason}");
    }
    let error = gemini(&server).chat(&ask()).await.unwrap_err();
    assert_eq!(
        refused(&error),
        Ok(
            "Gemini stopped the reply (finishReason PROHIBITED_CONTENT, blocked for \
            HARM_CATEGORY_DANGEROUS_CONTENT): The response was blocked because it may contain \
            prohibited content."
        )
    );
    // Streamed: the text sent before the block is kept, never the answer.
    let said = "Gemini stopped the reply (finishReason SAFETY, blocked for \
                HARM_CATEGORY_DANGEROUS_CONTENT)";
    let error = gemini(&server).stream(true).chat(&ask()).await.unwrap_err();
    let (partial, source) = incomplete(&error).unwrap();
    assert_eq!(partial.content, "[Steps]\n1. Insert the");
    assert_eq!(partial.usage, Usage::new(9, 6).with_total(15));
    assert_eq!(refused(source), Ok(said));
    assert!(!error.is_transient());
    // The same through `chat_stream`: the text as deltas, then the error.
    let model = gemini(&server).stream(true);
    let messages = ask();
    let items: Vec<Result<Delta, ModelError>> = model.chat_stream(&messages).collect().await;
    let text: String = items
        .iter()
        .filter_map(|item| match item {
            Ok(Delta::Content(text)) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "[Steps]\n1. Insert the");
    let last = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(refused(incomplete(last).unwrap().1), Ok(said));
    let error = gemini(&server).stream(true).chat(&ask()).await.unwrap_err();
    assert_eq!(
        refused(&error),
        Ok("Gemini blocked the prompt (blockReason PROHIBITED_CONTENT): The prompt was blocked.")
    );
    assert!(!error.is_transient());
}

/// The loop does not ask again after a block: one request, and the error
/// says what the server said.
#[tokio::test]
async fn the_loop_does_not_retry_a_blocked_reply() {
    let server = TestServer::start(vec![
        Scripted::json(200, json!({"candidates": [{"finishReason": "MODEL_ARMOR", "index": 0}]})),
        Scripted::json(200, json!({"candidates": [{"content": {"parts": [{"text": "8"}]}, "finishReason": "STOP"}]})),
    ])
    .await;
    let model = gemini(&server);
    let policy = RetryPolicy::default()
        .max_retries(2)
        .base_delay(Duration::from_millis(1));
    let error = Think::new(&model)
        .retry_policy(policy)
        .run_with("How many legs has a spider?", |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|_| Feedback::message("Write only the number."))
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Model { source: ModelError::Refused(m), retries: 0 }
            if m == "Gemini stopped the reply (finishReason MODEL_ARMOR)"),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

fn openai(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "test-model").api_key(KEY)
}

fn sse(chunks: &[Value]) -> String {
    chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .chain(["data: [DONE]\n\n".to_owned()])
        .collect()
}

// Shapes: Mistral's Magistral models on its OpenAI-compatible endpoint send
// `content` as an array of chunks, a `thinking` chunk holding text chunks
// before the answer's `text` chunk, whole and in each stream delta, as
// quoted in spring-projects/spring-ai#5019 and vercel/ai#8072 (and
// Arize-ai/openinference#3761 for the stream).
#[tokio::test]
async fn magistral_thinking_parts_are_reasoning_whole_and_streamed() {
    let whole = json!({
        "id": "cmpl-1", "object": "chat.completion", "model": "magistral-small-2509",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "A spider is an arachnid: "},
                                              {"type": "text", "text": "eight legs."}]},
            {"type": "text", "text": "[Legs]\n8"}
        ]}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 20, "total_tokens": 31},
    });
    let delta = |content: Value, finish: Value| {
        json!({"id": "cmpl-2", "object": "chat.completion.chunk", "model": "magistral-small-2509",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": finish}]})
    };
    let streamed = sse(&[
        delta(
            json!([{"type": "thinking", "thinking": [{"type": "text", "text": "A spider is "}]}]),
            Value::Null,
        ),
        delta(
            json!([{"type": "thinking", "thinking": [{"type": "text", "text": "an arachnid."}]}]),
            Value::Null,
        ),
        delta(json!("[Legs]\n"), Value::Null),
        delta(json!([{"type": "text", "text": "8"}]), json!("stop")),
    ]);
    let server = TestServer::start(vec![
        Scripted::json(200, whole),
        Scripted::raw_sse(&streamed),
        Scripted::raw_sse(&streamed),
    ])
    .await;
    let reply = openai(&server).chat(&ask()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("[Legs]\n8")
            .with_reasoning("A spider is an arachnid: eight legs.")
            .with_usage(Usage::new(11, 20).with_total(31))
            .with_finish_reason(FinishReason::Stop)
    );
    let reply = openai(&server).stream(true).chat(&ask()).await.unwrap();
    assert_eq!(reply.content, "[Legs]\n8");
    assert_eq!(reply.reasoning.as_deref(), Some("A spider is an arachnid."));
    let model = openai(&server).stream(true);
    let messages = ask();
    let deltas: Vec<Delta> = model
        .chat_stream(&messages)
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        deltas[..4],
        [
            Delta::Reasoning("A spider is ".into()),
            Delta::Reasoning("an arachnid.".into()),
            Delta::Content("[Legs]\n".into()),
            Delta::Content("8".into()),
        ]
    );
}

// Shape: Groq's OpenAI-compatible stream puts the usage in its own member,
// `x_groq.usage`, in the last chunk (with timings beside the counts), as
// quoted in vercel/ai#1651.
#[tokio::test]
async fn usage_in_groqs_own_member_is_read() {
    let chunk = |delta: Value, finish: Value, extra: Option<Value>| {
        let mut chunk = json!({"id": "chatcmpl-9", "object": "chat.completion.chunk",
            "model": "llama-3.1-8b-instant", "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]});
        if let Some(extra) = extra {
            chunk["x_groq"] = extra;
        }
        chunk
    };
    let streamed = sse(&[
        chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
            Some(json!({"id": "req_01"})),
        ),
        chunk(json!({"content": "8"}), Value::Null, None),
        chunk(
            json!({}),
            json!("stop"),
            Some(
                json!({"id": "req_01", "usage": {"queue_time": 0.051, "prompt_tokens": 23,
                "prompt_time": 0.004, "completion_tokens": 2, "completion_time": 0.002,
                "total_tokens": 25, "total_time": 0.006}}),
            ),
        ),
    ]);
    let server = TestServer::start(vec![Scripted::raw_sse(&streamed)]).await;
    let reply = openai(&server).stream(true).chat(&ask()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("8")
            .with_usage(Usage::new(23, 2).with_total(25))
            .with_finish_reason(FinishReason::Stop)
    );
}

/// A stream whose body ends cleanly in the middle of an event (a proxy or
/// server that closed without an error, seen behind load balancers that cut
/// long responses) broke off: transient, with the text that arrived.
#[tokio::test]
async fn a_stream_that_ends_mid_event_broke_off() {
    let first =
        json!({"choices": [{"index": 0, "delta": {"content": "[Legs]\n"}, "finish_reason": null}]});
    let openai_cut = format!(
        "data: {first}\n\ndata: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"eig"
    );
    let gemini_cut = format!(
        "data: {}\r\n\r\ndata: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"text\": \"8",
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "[Legs]\n"}]}}]})
    );
    // Ends inside `é` (0xC3 0xA9): the last byte never came.
    let mut mid_char =
        format!("data: {first}\n\ndata: {{\"choices\":[{{\"delta\":{{\"content\":\"caf")
            .into_bytes();
    let at = mid_char.len();
    mid_char.push(0xC3);
    let server = TestServer::start(vec![
        Scripted::raw_sse(&openai_cut),
        Scripted::raw_sse(&gemini_cut),
        Scripted::bytes(200, "text/event-stream", mid_char),
    ])
    .await;
    let error = openai(&server).stream(true).chat(&ask()).await.unwrap_err();
    let (partial, source) = incomplete(&error).unwrap();
    assert_eq!(partial.content, "[Legs]\n");
    assert!(
        matches!(source, ModelError::Interrupted(detail)
            if detail.starts_with("the stream ended in the middle of an event (EOF while parsing a string")),
        "{source:?}"
    );
    assert!(error.is_transient());
    let error = gemini(&server).stream(true).chat(&ask()).await.unwrap_err();
    let (partial, source) = incomplete(&error).unwrap();
    assert_eq!(partial.content, "[Legs]\n");
    assert!(matches!(source, ModelError::Interrupted(_)), "{source:?}");
    assert!(error.is_transient());
    let error = openai(&server).stream(true).chat(&ask()).await.unwrap_err();
    let (partial, source) = incomplete(&error).unwrap();
    assert_eq!(partial.content, "[Legs]\n");
    assert_eq!(
        source.to_string(),
        format!("the reply broke off: the stream ended inside a character, at byte offset {at} of the body")
    );
    assert!(error.is_transient());
}

/// The loop asks again after a stream cut mid-event, and the ledger says why.
#[tokio::test]
async fn the_loop_asks_again_after_a_stream_cut_mid_event() {
    let cut = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"8";
    let whole = sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "8"}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]);
    let server = TestServer::start(vec![Scripted::raw_sse(cut), Scripted::raw_sse(&whole)]).await;
    let model = openai(&server).stream(true);
    let outcome = Think::new(&model)
        .retry_policy(
            RetryPolicy::default()
                .max_retries(2)
                .base_delay(Duration::from_millis(1)),
        )
        .run_with("How many legs has a spider?", |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|_| Feedback::message("Write only the number."))
        })
        .await
        .unwrap();
    assert_eq!(outcome.value, 8);
    let retries = &outcome.attempts[0].transport_retries;
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0]
            .error
            .starts_with("the reply broke off: the stream ended in the middle of an event"),
        "{:?}",
        retries[0].error
    );
}
