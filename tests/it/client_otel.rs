//! The OpenTelemetry GenAI attributes on the call spans, beside twr's own
//! fields (under `twr.`), read from the span's close line of a `fmt` subscriber: a whole
//! call of `OpenAiCompatible` and a streamed one of `Anthropic`, against
//! axum on 127.0.0.1.

use crate::support::client::{Captured, Scripted, TestServer};
use futures_util::StreamExt as _;
use serde_json::json;
use tracing_subscriber::fmt::format::FmtSpan;
use twr_runtime::{Anthropic, ChatModel, Message, OpenAiCompatible};

/// The lines written while `run` runs, with span close events.
async fn traced<F: std::future::Future<Output = ()>>(run: F) -> String {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    run.await;
    captured.text()
}

#[tokio::test]
async fn a_whole_call_carries_the_gen_ai_attributes() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({
            "choices": [{"message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
        }),
    )])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "test-model").api_key("sk-otel");
    let logs = traced(async {
        model.chat(&[Message::user("hi")]).await.unwrap();
    })
    .await;
    assert!(
        logs.contains(
            "twr.chat{otel.name=chat test-model otel.kind=\"client\" \
             gen_ai.operation.name=\"chat\" gen_ai.provider.name=\"openai\" \
             gen_ai.request.model=\"test-model\" twr.provider=\"openai-compatible\" \
             twr.stream=false twr.messages=1 server.address=\"127.0.0.1\" server.port="
        ),
        "{logs}"
    );
    assert!(
        logs.contains(
            " gen_ai.usage.input_tokens=7 gen_ai.usage.output_tokens=3}: \
             twr_runtime::client::otel: close"
        ),
        "{logs}"
    );
    // With the `opentelemetry` feature (this package's), the finish reasons
    // are set on the OpenTelemetry span as an array, not as a `tracing`
    // field: a `fmt` line has none (think_otel.rs reads them).
    assert!(!logs.contains("finish_reasons"), "{logs}");
    assert!(!logs.contains("sk-otel"), "{logs}");
}

#[tokio::test]
async fn a_streamed_call_carries_them_too() {
    let events = [
        json!({"type": "message_start", "message": {"model": "claude-test-20260101",
            "usage": {"input_tokens": 40, "output_tokens": 1}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rome"}}),
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let model = Anthropic::new("sk-ant-otel", "claude-test")
        .base_url(server.url(""))
        .stream(true);
    let logs = traced(async {
        let messages = [Message::user("hi")];
        let deltas: Vec<_> = model.chat_stream(&messages).collect().await;
        assert_eq!(deltas.len(), 2);
    })
    .await;
    assert!(
        logs.contains(
            "twr.chat_stream{otel.name=chat claude-test otel.kind=\"client\" \
             gen_ai.operation.name=\"chat\" gen_ai.provider.name=\"anthropic\" \
             gen_ai.request.model=\"claude-test\" twr.provider=\"anthropic\" \
             twr.stream=true twr.messages=1 server.address=\"127.0.0.1\" server.port="
        ),
        "{logs}"
    );
    assert!(
        logs.contains(
            " gen_ai.response.model=\"claude-test-20260101\" \
             gen_ai.usage.input_tokens=40 gen_ai.usage.output_tokens=3}: \
             twr_runtime::client::otel: close"
        ),
        "{logs}"
    );
    assert!(!logs.contains("sk-ant-otel"), "{logs}");
}

#[tokio::test]
async fn prompt_cache_counts_are_attributes_when_reported() {
    let events = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 12,
            "cache_creation_input_tokens": 30, "cache_read_input_tokens": 1500, "output_tokens": 1}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rome"}}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let model = Anthropic::new("sk-ant-otel", "claude-test")
        .base_url(server.url(""))
        .stream(true);
    let logs = traced(async {
        model.chat(&[Message::user("hi")]).await.unwrap();
    })
    .await;
    assert!(
        logs.contains(
            "gen_ai.usage.input_tokens=1542 gen_ai.usage.output_tokens=3 \
             gen_ai.usage.cache_read.input_tokens=1500 \
             gen_ai.usage.cache_creation.input_tokens=30}"
        ),
        "{logs}"
    );
}
