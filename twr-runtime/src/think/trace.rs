//! The loop's spans, as OpenTelemetry's GenAI conventions (v1.37) and a
//! trace viewer show them: a run is one span (`twr.run`), each attempt a
//! child span (`twr.attempt`) with the HTTP client's call span below it,
//! and each section judged an event `gen_ai.evaluation.result` on its
//! attempt's span.
//!
//! The call span is the conventions' inference span (`chat {model}`, of
//! kind client, with the provider, the models asked and answering, the
//! finish reasons and the token counts; see `client::otel`). The run and
//! attempt spans are twr's own (kind internal): they name the model asked
//! (`gen_ai.request.model`) but carry no `gen_ai.operation.name` and no
//! token counts, so a viewer that sums the usage of inference spans counts
//! each call once. Where the conventions are silent (a run of attempts,
//! the attempt's number and kind) the attributes are twr's own, under
//! `twr.`:
//!
//! | attribute | on | value |
//! | --- | --- | --- |
//! | `gen_ai.request.model` | run, attempt | the model asked (string) |
//! | `twr.max_attempts` | run | the attempts allowed |
//! | `twr.retry_mode` | run | `Patch` or `Full` |
//! | `twr.attachments` | run | the prompt's images and documents, when it has any |
//! | `twr.attempts` | run | the attempts made |
//! | `twr.outcome` | run | `typed` or the error's kind |
//! | `twr.needs_review` | run | the fields below [`Think::review_below`](super::Think::review_below)'s threshold, comma-separated, when a typed run has any |
//! | `twr.attempt.number` | attempt | 1, 2, ... |
//! | `twr.attempt.kind` | attempt | `first`, `patch`, `focused`, `full`, `constrained`, `escalated` |
//! | `twr.attempt.constrained` | attempt | the request carried a grammar |
//! | `twr.attempt.outcome` | attempt | what became of the reply ([`AttemptKind`](super::AttemptKind), snake case: `rejected`, `merged`, ...) |
//! | `twr.attempt.model` | attempt | the model that answered, as the ledger names it ([`Attempt::model`](super::Attempt::model)) |
//!
//! Counts and numbers are integers, flags booleans, the rest strings. Each
//! `twr.attempt.kind` is named by its kind's file in `think/attempt/`.
//!
//! With [`Think::trace_content`](super::Think::trace_content), and only
//! then (they hold users' text), an attempt also carries
//! `gen_ai.input.messages` and `gen_ai.output.messages`, as JSON in the
//! conventions' shape (the output message with its `finish_reason`).
//!
//! `tracing-opentelemetry` names each exported span from its `otel.name`
//! field and exports each event with its message as the event's name.

use tracing::field::Empty;
use tracing::Span;

use super::confidence::{self, FieldConfidence};
use super::outcome::Attempt;
use crate::feedback::Feedback;
use crate::model::{FinishReason, Message, Role};
use crate::parse::split_sections;
use crate::sections::SectionSpec;

/// The span of one run over the model named `model`.
pub(super) fn run_span(model: &str, max_attempts: usize, mode: &str) -> Span {
    tracing::info_span!(
        "think",
        otel.name = "twr.run",
        gen_ai.request.model = %model,
        twr.max_attempts = max_attempts as i64,
        twr.retry_mode = %mode,
        twr.attachments = Empty,
        twr.attempts = Empty,
        twr.outcome = Empty,
        twr.needs_review = Empty,
    )
}

/// Records how a run ended on its span: the attempts made and `typed`, or
/// the error's kind.
pub(super) fn run_ended(span: &Span, attempts: usize, outcome: &str) {
    span.record("twr.attempts", attempts as i64);
    span.record("twr.outcome", outcome);
}

/// Records on a typed run's span the fields whose values are to review,
/// when there are any.
pub(super) fn needs_review(span: &Span, fields: &[&str]) {
    if !fields.is_empty() {
        span.record("twr.needs_review", fields.join(", ").as_str());
    }
}

/// The span of attempt `number` of kind `kind` (its name, see
/// `think/attempt/`), asked of `model`.
pub(super) fn attempt_span(number: usize, kind: &str, model: &str, constrained: bool) -> Span {
    tracing::info_span!(
        "twr.attempt",
        otel.name = %format_args!("twr.attempt {number} {kind}"),
        gen_ai.request.model = %model,
        twr.attempt.number = number as i64,
        twr.attempt.kind = kind,
        twr.attempt.constrained = constrained,
        twr.attempt.outcome = Empty,
        twr.attempt.model = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
    )
}

/// Records on `span` what attempt `attempt` was: the model that answered
/// and what became of its reply. Its tokens are the call span's, and only
/// there: a viewer summing usage counts each call once.
pub(super) fn attempt_ended(span: &Span, attempt: &Attempt) {
    span.record("twr.attempt.model", attempt.model.as_str());
    span.record(
        "twr.attempt.outcome",
        super::ledger_serde::attempt_kind(attempt.kind).as_str(),
    );
}

/// Records the conversation sent and the reply on `span`, in the
/// conventions' JSON shape (opt-in: they hold users' text). The output
/// message's `finish_reason`, which the conventions' schema requires, is
/// the server's, or `stop` when it gave none (the reply ended on its own:
/// one the token limit cut off always says `length`).
pub(super) fn content(
    span: &Span,
    sent: &[Message],
    reply: &str,
    finish_reason: Option<&FinishReason>,
) {
    let input: Vec<serde_json::Value> = sent
        .iter()
        .map(|message| {
            serde_json::json!({
                "role": role_name(message.role),
                "parts": [{"type": "text", "content": message.content.as_str()}],
            })
        })
        .collect();
    let output = serde_json::json!([{
        "role": "assistant",
        "parts": [{"type": "text", "content": reply}],
        "finish_reason": finish_reason.map_or("stop", FinishReason::as_str),
    }]);
    span.record(
        "gen_ai.input.messages",
        serde_json::Value::Array(input).to_string().as_str(),
    );
    span.record("gen_ai.output.messages", output.to_string().as_str());
}

/// One `gen_ai.evaluation.result` event per section of `specs` that the
/// reply `text` was judged on, in the current span: `fail` with the
/// problem's sentence for a section a problem names, `pass` for one the
/// reply holds and no problem names. Sections the reply does not hold and
/// no problem names (kept from earlier replies, not asked for) were not
/// judged.
/// A section with a confidence ([`Think::confidence`](crate::Think::confidence))
/// carries it as `gen_ai.evaluation.score.value`.
pub(super) fn evaluations(
    specs: &[SectionSpec],
    text: &str,
    problems: Option<&Feedback>,
    confidence: &[FieldConfidence],
) {
    // Finding the sections is a pass over the reply: not made when no
    // subscriber would see the events.
    if !tracing::enabled!(tracing::Level::INFO) {
        return;
    }
    let map = split_sections(text, specs);
    for (index, spec) in specs.iter().enumerate() {
        let failed: Vec<String> = problems
            .map(|feedback| {
                feedback
                    .problems()
                    .iter()
                    .filter(|problem| problem.header == spec.header)
                    .map(ToString::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let score = confidence::find(confidence, spec.field);
        if !failed.is_empty() {
            tracing::info!(
                gen_ai.evaluation.name = spec.header,
                gen_ai.evaluation.score.label = "fail",
                gen_ai.evaluation.score.value = score,
                gen_ai.evaluation.explanation = failed.join(" ").as_str(),
                "gen_ai.evaluation.result"
            );
        } else if map.content(index).is_some() {
            tracing::info!(
                gen_ai.evaluation.name = spec.header,
                gen_ai.evaluation.score.label = "pass",
                gen_ai.evaluation.score.value = score,
                "gen_ai.evaluation.result"
            );
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}
