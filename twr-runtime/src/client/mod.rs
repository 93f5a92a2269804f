//! HTTP clients for real model servers.
//!
//! One client type, [`HttpModel`], carries everything providers share;
//! each provider is a small adapter that says only what differs:
//!
//! - [`OpenAiCompatible`](crate::OpenAiCompatible): `/chat/completions` (OpenAI, Ollama, vLLM,
//!   llama.cpp, OpenRouter, DeepSeek, ...).
//! - [`Gemini`](crate::Gemini): Google's `generateContent` and `streamGenerateContent`.
//! - [`Anthropic`](crate::Anthropic): Anthropic's Messages API (`/v1/messages`).
//!
//! All stream or not, move reasoning out of the visible answer, cap the
//! response size, enforce a whole-request time limit, and turn every failure
//! into a [`ModelError`](crate::ModelError) whose
//! [`is_transient`](crate::ModelError::is_transient) tells the retry loop
//! whether asking again can help. API keys never appear in `Debug` output,
//! errors or logs, and never travel to another origin.
//!
//! Where things are: `http_model` (the client, its builder, the call),
//! `options` (request options, the shared client), `http` (sending,
//! redirects, deadline), `body` (capped, UTF-8-checked reading), `fault`
//! (server errors as `ModelError`s, scrubbed), `collect` (pieces into a
//! reply, or into deltas), `deltas` (`chat_stream`), `provider` (the
//! adapter trait), `secret` (keys and scrubbing), `sse` (event framing),
//! and one file per provider; inline `<think>` blocks are
//! split off by the crate's one reasoning-tag lexer.

pub(crate) mod anthropic;
mod body;
mod collect;
mod deltas;
mod fault;
pub(crate) mod gemini;
mod http;
mod http_model;
pub(crate) mod openai;
mod options;
mod otel;
mod provider;
mod secret;
mod sse;

// The clients themselves ([`OpenAiCompatible`](crate::OpenAiCompatible),
// [`Gemini`](crate::Gemini), [`Anthropic`](crate::Anthropic)) live at the
// crate root, and only there; this module holds what they are made of.
pub use anthropic::{AnthropicApi, ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS};
pub use gemini::GeminiApi;
pub use http_model::HttpModel;
pub use openai::OpenAiApi;

pub(crate) use http::retry_after;
