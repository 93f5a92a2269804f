//! HTTP clients for real model servers.
//!
//! - [`OpenAiCompatible`]: `/chat/completions` (OpenAI, Ollama, vLLM,
//!   llama.cpp, OpenRouter, DeepSeek, ...).
//! - [`Gemini`]: Google's `generateContent` and `streamGenerateContent`.
//!
//! Both stream or not, move reasoning out of the visible answer, cap the
//! response size, enforce a whole-request time limit, and turn every failure
//! into a [`ModelError`] whose
//! [`is_transient`](ModelError::is_transient) tells the retry loop
//! whether asking again can help. API keys never appear in `Debug` output,
//! errors or logs.

mod gemini;
mod http;
mod openai;
mod secret;
mod sse;

pub use gemini::Gemini;
pub use openai::OpenAiCompatible;

use std::time::Instant;

use crate::model::{ModelError, Reply};

/// One tracing event per call, inside the call's span (which names the
/// provider, model and stream flag, never the key).
fn trace_result(result: &Result<Reply, ModelError>, started: Instant) {
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(reply) => tracing::debug!(
            elapsed_ms,
            prompt_tokens = reply.usage.prompt_tokens,
            completion_tokens = reply.usage.completion_tokens,
            finish_reason = ?reply.finish_reason,
            content_chars = reply.content.chars().count(),
            has_reasoning = reply.reasoning.is_some(),
            "model replied"
        ),
        Err(error) => tracing::debug!(
            elapsed_ms,
            transient = error.is_transient(),
            error = %error,
            "model call failed"
        ),
    }
}
