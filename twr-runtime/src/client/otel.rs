//! The client call's span, as the OpenTelemetry GenAI semantic conventions
//! (v1.37) describe an inference span: named `chat {model}`, of kind
//! client, with the conventions' attributes and their types.
//!
//! | attribute | type | when |
//! | --- | --- | --- |
//! | `gen_ai.operation.name` | string | always: `chat` |
//! | `gen_ai.provider.name` | string | always ([`Provider::GEN_AI_PROVIDER_NAME`]) |
//! | `gen_ai.request.model` | string | always |
//! | `server.address`, `server.port` | string, int | when the base URL has a host |
//! | `gen_ai.request.temperature` | double | when set |
//! | `gen_ai.request.max_tokens` | int | when set |
//! | `gen_ai.request.seed` | int | when set |
//! | `gen_ai.response.model` | string | when the server named the model that answered |
//! | `gen_ai.response.finish_reasons` | string[] (string without the `opentelemetry` feature) | with a reply that says why it stopped: `["stop"]` |
//! | `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens` | int | with a reply |
//! | `gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens` | int | when the server reported prompt-cache use |
//! | `error.type` | string | when the call failed: the HTTP status (`429`), or `connect`, `timeout`, ... |
//!
//! twr's own fields sit beside them under `twr.` (`twr.provider`,
//! `twr.stream`, `twr.messages`). The token counts are recorded as `i64`:
//! `tracing-opentelemetry` exports a `u64` as text, the conventions want
//! integers. `gen_ai.response.finish_reasons` is a string array, as the
//! conventions type it, with the `opentelemetry` feature: a `tracing` field
//! cannot hold an array, so the attribute is set on the OpenTelemetry span
//! itself, through `tracing-opentelemetry` (0.34, the release the feature
//! builds with; a layer of another release does not see it), so a `fmt`
//! subscriber's line does not show it. Without the feature it is a
//! `tracing` field, a string holding the array's JSON, `["stop"]`.
//!
//! The span's name and kind are set when it is created: an OpenTelemetry
//! layer starts the span when it is first entered, and a started span's
//! name and kind no longer change. The rest is recorded when the call
//! ends, so the lines a `fmt` subscriber prints keep their shape.

use tracing::field::Empty;
use tracing::Span;

use super::options::Options;
use super::provider::Provider;
use crate::model::{FinishReason, ModelError, Usage};

/// What the conventions call a request's "server": the host and port of
/// `base_url`, when it has a host.
fn server(base_url: &str) -> Option<(String, i64)> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?.to_string();
    let port = url.port_or_known_default().map_or(0, i64::from);
    Some((host, port))
}

/// The span of one call of `model` at `base_url` through provider `P`,
/// sending `messages` messages, whole or `streamed`.
pub(crate) fn call_span<P: Provider>(
    base_url: &str,
    model: &str,
    options: &Options,
    messages: usize,
    streamed: bool,
) -> Span {
    // One field list for both spans: a span's name is a literal of the macro.
    macro_rules! span {
        ($name:literal) => {
            tracing::debug_span!(
                $name,
                otel.name = %format_args!("chat {model}"),
                otel.kind = "client",
                gen_ai.operation.name = "chat",
                gen_ai.provider.name = P::GEN_AI_PROVIDER_NAME,
                gen_ai.request.model = model,
                twr.provider = P::NAME,
                twr.stream = options.stream,
                twr.messages = messages as i64,
                server.address = Empty,
                server.port = Empty,
                gen_ai.request.temperature = options.temperature.map(widen),
                gen_ai.request.max_tokens = options.max_tokens.map(i64::from),
                gen_ai.request.seed = options.seed.map(count),
                gen_ai.response.model = Empty,
                gen_ai.usage.input_tokens = Empty,
                gen_ai.usage.output_tokens = Empty,
                gen_ai.usage.cache_read.input_tokens = Empty,
                gen_ai.usage.cache_creation.input_tokens = Empty,
                gen_ai.response.finish_reasons = Empty,
                error.type = Empty,
            )
        };
    }
    let span = if streamed {
        span!("twr.chat_stream")
    } else {
        span!("twr.chat")
    };
    if let Some((host, port)) = server(base_url) {
        span.record("server.address", host.as_str());
        span.record("server.port", port);
    }
    span
}

/// A temperature as the `f64` an OpenTelemetry double holds, read from
/// its shortest text: `0.2f32` is `0.2`, not `0.20000000298023224`.
fn widen(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// A count as the `i64` an OpenTelemetry integer attribute holds.
fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// What a call ended with, for its span.
pub(crate) enum Ended<'a> {
    /// A reply, with the model the server said answered.
    Reply {
        usage: Usage,
        finish_reason: Option<&'a FinishReason>,
        response_model: Option<&'a str>,
    },
    /// A failure.
    Failed(&'a ModelError),
}

/// Records on `span` (a [`call_span`]) how the call ended.
pub(crate) fn record(span: &Span, ended: Ended<'_>) {
    match ended {
        Ended::Reply {
            usage,
            finish_reason,
            response_model,
        } => {
            if let Some(name) = response_model {
                span.record("gen_ai.response.model", name);
            }
            span.record("gen_ai.usage.input_tokens", count(usage.prompt_tokens));
            span.record("gen_ai.usage.output_tokens", count(usage.completion_tokens));
            // Recorded only when the server reported them: most calls have none.
            if usage.cache_read_tokens > 0 {
                span.record(
                    "gen_ai.usage.cache_read.input_tokens",
                    count(usage.cache_read_tokens),
                );
            }
            if usage.cache_write_tokens > 0 {
                span.record(
                    "gen_ai.usage.cache_creation.input_tokens",
                    count(usage.cache_write_tokens),
                );
            }
            if let Some(reason) = finish_reason {
                record_finish_reason(span, reason);
            }
        }
        Ended::Failed(error) => {
            span.record("error.type", error_type(error).as_ref());
        }
    }
}

/// Sets `gen_ai.response.finish_reasons` on the OpenTelemetry span behind
/// `span` as the conventions type it: an array of strings.
#[cfg(feature = "opentelemetry")]
fn record_finish_reason(span: &Span, reason: &FinishReason) {
    use opentelemetry::{Array, StringValue, Value};
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let reasons = vec![StringValue::from(reason.as_str().to_string())];
    span.set_attribute(
        "gen_ai.response.finish_reasons",
        Value::Array(Array::String(reasons)),
    );
}

/// Records `gen_ai.response.finish_reasons` as the array's JSON text: a
/// `tracing` field holds no array (the `opentelemetry` feature sets the
/// array itself).
#[cfg(not(feature = "opentelemetry"))]
fn record_finish_reason(span: &Span, reason: &FinishReason) {
    let reasons = serde_json::json!([reason.as_str()]).to_string();
    span.record("gen_ai.response.finish_reasons", reasons.as_str());
}

/// The conventions' `error.type` of a failed call: the HTTP status code
/// when the server answered with one (as the HTTP conventions write it),
/// else a short name of what failed.
fn error_type(error: &ModelError) -> std::borrow::Cow<'static, str> {
    match error {
        ModelError::Status { status, .. } => status.to_string().into(),
        ModelError::Connect(_) => "connect".into(),
        ModelError::Timeout(_) => "timeout".into(),
        ModelError::EmptyReply => "empty_reply".into(),
        ModelError::Interrupted(_) => "interrupted".into(),
        ModelError::TooLarge { .. } => "too_large".into(),
        ModelError::Refused(_) => "refused".into(),
        ModelError::Decode(_) => "decode".into(),
        ModelError::Config(_) => "config".into(),
        ModelError::Incomplete { source, .. } | ModelError::Named { source, .. } => {
            error_type(source)
        }
        ModelError::Unavailable { .. } => "unavailable".into(),
        ModelError::Attachment(_) => "attachment".into(),
        // The conventions' value for an error with no name of its own.
        ModelError::Other(_) => "_OTHER".into(),
    }
}
