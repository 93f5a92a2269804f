//! HTTP clients for real model servers.
//!
//! One client type, [`HttpModel`], carries everything providers share;
//! each provider is a small adapter (a [`Provider`]) that says only what
//! differs:
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
//! # Your own provider
//!
//! For an API none of these speak (a provider's native API, an in-house
//! gateway), implement [`Provider`] and build the client with
//! [`HttpModel::with_provider`]: it has the same builder (`api_key`,
//! `stream`, `temperature`, `max_tokens`, `seed`, `extra`, `timeout`, ...),
//! streams, is retried by [`Think`](crate::Think) on a 429, a 5xx or a
//! broken connection, and keeps its key out of `Debug`, errors and logs,
//! like the built-in clients. The adapter writes the request and reads the
//! reply; the shared core sends it, reads the body or the event stream, and
//! maps what goes wrong.
//!
//! A gateway that takes `{"model", "prompt"}` at `/complete` with the key
//! in `x-gateway-key`, and answers `{"text": ...}`, or, streamed, events of
//! `{"text": ...}` and a last `{"stop": ...}`:
//!
//! ```
//! use serde_json::{json, Value};
//! use twr_runtime::client::{
//!     ApiKey, Fault, Flow, HttpModel, Decoded, Provider, RequestHead, RequestSpec, SseEvent,
//! };
//! use twr_runtime::{FinishReason, Message, ModelError};
//!
//! #[derive(Debug, Clone)]
//! struct Gateway;
//!
//! impl Provider for Gateway {
//!     const NAME: &'static str = "gateway";
//!     type StreamState = ();
//!
//!     fn head(
//!         &self,
//!         _: &RequestSpec<'_>,
//!         key: Option<&ApiKey>,
//!         head: &mut RequestHead,
//!     ) -> Result<(), ModelError> {
//!         let key = key.ok_or_else(|| ModelError::Config("the gateway needs a key".into()))?;
//!         head.path("complete").key_header("x-gateway-key", "", key)?;
//!         Ok(())
//!     }
//!
//!     fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
//!         let turns: Vec<&str> = spec.messages.iter().map(|m| m.content.as_str()).collect();
//!         let mut body = json!({"model": spec.model, "prompt": turns.join("\n\n")});
//!         if spec.stream {
//!             body["stream"] = json!(true);
//!         }
//!         if let Some(t) = spec.temperature {
//!             body["temperature"] = json!(t);
//!         }
//!         Ok(body)
//!     }
//!
//!     fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
//!         let reply: Value = serde_json::from_slice(body)
//!             .map_err(|error| Fault::NotJson { expected: "a gateway reply", error })?;
//!         let text = reply["text"].as_str().ok_or(Fault::Missing("text"))?;
//!         out.push(Decoded::Content(text.to_string()));
//!         out.push(Decoded::Finish(FinishReason::Stop));
//!         Ok(())
//!     }
//!
//!     fn decode_event(
//!         &self,
//!         _: &mut (),
//!         event: &SseEvent,
//!         out: &mut Vec<Decoded>,
//!     ) -> Result<Flow, Fault> {
//!         let data: Value = serde_json::from_str(event.data())
//!             .map_err(|error| Fault::NotJson { expected: "a gateway event", error })?;
//!         if let Some(text) = data["text"].as_str() {
//!             out.push(Decoded::Content(text.to_string()));
//!         }
//!         match data["stop"].as_str() {
//!             Some(reason) => {
//!                 out.push(Decoded::Finish(FinishReason::from_server(reason)));
//!                 Ok(Flow::Done)
//!             }
//!             None => Ok(Flow::Continue),
//!         }
//!     }
//! }
//!
//! let model = HttpModel::with_provider(Gateway, "https://llm.internal.example", "house-7b")
//!     .api_key("gw-secret")
//!     .stream(true)
//!     .temperature(0.25);
//! // What a call sends, checked without a server.
//! assert_eq!(
//!     model.request_body(&[Message::system("Be brief."), Message::user("Hi")])?,
//!     json!({"model": "house-7b", "prompt": "Be brief.\n\nHi", "stream": true, "temperature": 0.25}),
//! );
//! assert!(!format!("{model:?}").contains("gw-secret"));
//! // `Think::new(&model)` now runs the loop over it, streamed.
//! # Ok::<(), ModelError>(())
//! ```
//!
//! `examples/custom_provider/` in the repository is a complete one for
//! Cohere's native chat API, reasoning and token counts included.

// Where things are (for those who work on this module; users reach the
// public items above): `http_model` (the client, its builder, the call),
// `options` (request options, the shared client), `http` (sending,
// redirects, deadline), `body` (capped, UTF-8-checked reading), `fault`
// (server errors as `ModelError`s, scrubbed), `reply` (decoded into a
// reply, or into deltas), `deltas` (`chat_stream`), `provider` (the adapter
// trait and what it mentions), `attachments` (the rules of which images and
// documents a provider takes, checked before sending), `rate_limits` (the
// forms rate-limit headers take), `secret` (keys and scrubbing), `sse` (event
// framing), `batch_api` and `batch_support` (what a batch API does, and
// the HTTP it shares), and one folder per provider, which holds everything
// twr knows of that API: `online.rs` (its body, its grammar field, its
// decoding, its attachment rules, its rate-limit headers, its text error
// codes) beside `batch.rs` (its batch API: upload, create, poll, results).
// Adding a built-in provider is its folder plus its line below, which also
// names its client at the crate root; with a batch API, also its lines in
// `batch/mod.rs` (its alias and constructor). Inline `<think>` blocks are split off by the crate's one
// reasoning-tag lexer.

// The built-in providers: `folder: Client, its other public names;`.
built_in! {
    root
    anthropic: Anthropic, AnthropicApi, ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS;
    gemini: Gemini, GeminiApi;
    openai: OpenAiCompatible, OpenAiApi;
}

mod attachments;
#[cfg(feature = "batch")]
pub(crate) mod batch_api;
#[cfg(feature = "batch")]
pub(crate) mod batch_support;
mod body;
mod deltas;
mod fault;
mod http;
mod http_model;
mod options;
mod otel;
mod provider;
mod rate_limits;
mod reply;
mod secret;
mod sse;

// The clients themselves ([`OpenAiCompatible`](crate::OpenAiCompatible),
// [`Gemini`](crate::Gemini), [`Anthropic`](crate::Anthropic)) live at the
// crate root, and only there; this module holds what they are made of.
pub use attachments::{AttachmentRules, SizeLimit};
pub use http_model::HttpModel;
pub use provider::{Decoded, Fault, Flow, Provider, RequestHead, RequestSpec};
pub use rate_limits::ResponseHeaders;
pub use secret::ApiKey;
pub use sse::SseEvent;

pub(crate) use http::retry_after;

/// How many of the most likely tokens at each place of a reply the clients
/// ask for with its log-probabilities
/// ([`Request::wants_logprobs`](crate::model::Request::wants_logprobs)):
/// OpenAI's `top_logprobs`, Gemini's `logprobs`. Enough for the
/// alternatives of a yes/no or a choice of a few words to be listed beside
/// the one the model wrote; within both APIs' limits (20).
pub const TOP_LOGPROBS: u8 = 10;
