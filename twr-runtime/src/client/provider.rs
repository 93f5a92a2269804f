//! The per-provider part of an [`HttpModel`](super::HttpModel): what differs
//! between model APIs and nothing else.
//!
//! An adapter says where a call goes and how the key travels, writes the
//! request body, and decodes a whole response or one stream event into
//! [`Piece`]s. Everything else (sending, time limits, capped and
//! UTF-8-checked reading, SSE framing, error mapping, scrubbing keys out of
//! server text, tracing, collecting pieces into a [`Reply`](crate::Reply))
//! is shared. The pieces are deltas, so the same decoding can feed a stream
//! of partial replies as well as the collected one.

use std::fmt;

use reqwest::header::{HeaderMap, HeaderValue, InvalidHeaderValue};
use serde_json::Value;

use super::secret::ApiKey;
use super::sse::SseEvent;
use crate::model::{FinishReason, Message, ModelError, Usage};

/// The options every provider maps into its request body.
pub struct RequestSpec<'a> {
    pub model: &'a str,
    pub messages: &'a [Message],
    pub stream: bool,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
}

/// One thing a response or an event said, in the order it said it.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Visible text, as sent (inline `<think>` blocks are split off later).
    Content(String),
    /// Reasoning sent in its own field or part.
    Reasoning(String),
    /// The model's own refusal text.
    Refusal(String),
    /// Token counts so far; a later one replaces an earlier one.
    Usage(Usage),
    /// Why the model stopped.
    Finish(FinishReason),
}

/// Whether a stream continues after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The server said the stream is over (`[DONE]`).
    Done,
}

/// What an adapter found wrong in a response, with the server's raw text.
/// The shared core turns it into a [`ModelError`], scrubbing the text first.
#[derive(Debug)]
pub enum Fault {
    /// Not the JSON this provider sends: what it should have been (`"a chat
    /// completion"`) and the parser's complaint.
    NotJson {
        expected: &'static str,
        error: serde_json::Error,
    },
    /// JSON without the member that carries the reply (`"choices"`).
    Missing(&'static str),
    /// An `error` member the server embedded in a 200 body or an event.
    Embedded(Value),
    /// An `event: error` whose data is plain text or JSON.
    ErrorEvent(String),
    /// The server declined to answer (a blocked prompt).
    Refused(String),
}

/// A model API: the adapter of one provider.
pub trait Provider: Clone + fmt::Debug + Send + Sync + 'static {
    /// The provider's name in tracing spans (`"openai-compatible"`).
    const NAME: &'static str;
    /// The public client type's name, for `Debug`.
    const TYPE_NAME: &'static str;
    /// What a stream that ends without finishing lacks, for the error.
    const UNFINISHED: &'static str;

    /// The path after the base URL, and a query, for a call.
    fn path(&self, model: &str, stream: bool) -> (String, Option<&'static str>);

    /// Per-stream state of [`decode_event`](Self::decode_event), for an API
    /// that spreads one fact over several events (`()` when none does).
    type StreamState: Default + Send;

    /// Adds the headers of a call: the one carrying `key` (none when a call
    /// needs no key), and any the API requires (a version header). An error
    /// when the key is missing but needed, or cannot be sent in a header.
    fn headers(&self, key: Option<&ApiKey>, out: &mut HeaderMap) -> Result<(), AuthError>;

    /// The request body, before the caller's extra fields are merged in.
    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError>;

    /// Decodes a whole (not streamed) response body.
    fn decode_reply(&self, body: &[u8], out: &mut Vec<Piece>) -> Result<(), Fault>;

    /// Decodes one server-sent event of a streamed response.
    fn decode_event(
        &self,
        state: &mut Self::StreamState,
        event: &SseEvent,
        out: &mut Vec<Piece>,
    ) -> Result<Flow, Fault>;

    /// Adds the provider's own options to the client's `Debug` output.
    fn debug_fields(&self, out: &mut fmt::DebugStruct<'_, '_>);
}

/// Why a call cannot carry its credentials.
#[derive(Debug)]
pub enum AuthError {
    /// The provider needs a key and none (or an empty one) was given.
    Missing(&'static str),
    /// The key has characters no HTTP header may carry.
    Invalid(InvalidHeaderValue),
}

/// A sensitive header value, so that reqwest and hyper never print it.
pub fn secret_header(value: &str) -> Result<HeaderValue, AuthError> {
    let mut value = HeaderValue::from_str(value).map_err(AuthError::Invalid)?;
    value.set_sensitive(true);
    Ok(value)
}
