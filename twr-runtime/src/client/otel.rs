//! OpenTelemetry GenAI semantic-convention attributes on the call spans
//! (`twr.chat`, `twr.chat_stream`), beside twr's own fields.
//!
//! The spans declare the attributes empty and they are recorded when the
//! call ends: an OpenTelemetry layer exports a span's attributes when it
//! closes, and the lines a `fmt` subscriber prints for the call's own
//! events keep their shape.

use tracing::Span;

use crate::model::{FinishReason, Usage};

/// A finish reason as the conventions write it (`"stop"`, `"length"`).
fn finish_name(reason: &FinishReason) -> &str {
    match reason {
        FinishReason::Stop => "stop",
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other(word) => word,
    }
}

/// Records on `span` the GenAI attributes (conventions v1.37) of a call to
/// `model` of the provider whose `gen_ai.provider.name` is `provider`:
/// the span's name (`otel.name`, `chat {model}`) and kind (`otel.kind`,
/// `client`); always `gen_ai.operation.name`, `gen_ai.provider.name` and
/// `gen_ai.request.model`; with a reply, `gen_ai.usage.input_tokens`,
/// `gen_ai.usage.output_tokens` and `gen_ai.response.finish_reasons`, and
/// when the server reported prompt-cache use,
/// `gen_ai.usage.cache_read.input_tokens` and
/// `gen_ai.usage.cache_creation.input_tokens` (both part of the input
/// tokens, as the conventions say).
pub(crate) fn record(
    span: &Span,
    provider: &str,
    model: &str,
    reply: Option<(Usage, Option<&FinishReason>)>,
) {
    span.record("gen_ai.operation.name", "chat");
    // The conventions' span name, "{operation} {model}", and kind, for an
    // OpenTelemetry layer (tracing-opentelemetry reads both fields).
    span.record("otel.name", format!("chat {model}").as_str());
    span.record("otel.kind", "client");
    span.record("gen_ai.provider.name", provider);
    span.record("gen_ai.request.model", model);
    if let Some((usage, finish)) = reply {
        span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
        span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
        // Recorded only when the server reported them: most calls have none.
        if usage.cache_read_tokens > 0 {
            span.record(
                "gen_ai.usage.cache_read.input_tokens",
                usage.cache_read_tokens,
            );
        }
        if usage.cache_write_tokens > 0 {
            span.record(
                "gen_ai.usage.cache_creation.input_tokens",
                usage.cache_write_tokens,
            );
        }
        if let Some(reason) = finish {
            let reasons = format!("[\"{}\"]", finish_name(reason));
            span.record("gen_ai.response.finish_reasons", reasons.as_str());
        }
    }
}
