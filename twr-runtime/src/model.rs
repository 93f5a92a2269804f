//! The chat model abstraction: messages in, a [`Reply`] out.

use std::fmt;
use std::future::Future;
use std::ops::{Add, AddAssign};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use serde::{Deserialize, Serialize};

use crate::resilience::RateLimits;
use crate::text::SharedText;

/// A boxed, sendable future, as returned by [`ChatModel::chat`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A boxed, sendable stream, as returned by [`ChatModel::chat_stream`]
/// (the `futures` crate's `BoxStream`).
pub use futures_util::stream::BoxStream;

/// A streamed reply opened with the server's rate limits, as returned by
/// [`ChatModel::chat_stream_with_limits`]: the deltas of
/// [`ChatModel::chat_stream`] and what the response's headers said.
pub type StreamWithLimits<'a> = (BoxStream<'a, Result<Delta, ModelError>>, RateLimits);

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person (or program) asking.
    User,
    /// The model.
    Assistant,
}

/// One message of a conversation.
// Not #[non_exhaustive]: a `ChatModel` written outside this crate builds
// these with struct literals (the first version's public API allowed it and
// the contract shows `Usage { prompt_tokens, completion_tokens, .. }`), so
// they stay plain data; a new field must come with a default in the builders.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text, shared: a message made from a reply holds the reply's own
    /// buffer, and cloning a message copies no text. It reads as a `&str`
    /// (`m.content.as_str()`, `&*m.content`, `m.content == "..."`).
    pub content: SharedText,
}

impl Message {
    /// A message with `role` and `content`.
    pub fn new(role: Role, content: impl Into<SharedText>) -> Self {
        Message {
            role,
            content: content.into(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<SharedText>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<SharedText>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<SharedText>) -> Self {
        Message::new(Role::Assistant, content)
    }
}

/// Token counts reported by the server; summed over attempts by the loop.
// Plain data, like `Message` (see there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the reply (reasoning included when the server counts it there).
    pub completion_tokens: u64,
    /// Total as reported by the server, or the sum of the two.
    pub total_tokens: u64,
    /// Prompt tokens the server read from its prompt cache (already counted
    /// in `prompt_tokens`, billed at the cache-read price): OpenAI's
    /// `prompt_tokens_details.cached_tokens`, DeepSeek's
    /// `prompt_cache_hit_tokens`, Anthropic's `cache_read_input_tokens`,
    /// Gemini's `cachedContentTokenCount`. Zero when the server reported none.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt tokens the server wrote to its prompt cache (already counted
    /// in `prompt_tokens`, billed at the cache-write price): Anthropic's
    /// `cache_creation_input_tokens`. Zero when the server reported none.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Usage with the given counts; `total_tokens` is their sum.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        }
    }

    /// The same counts with the prompt tokens read from and written to the
    /// server's prompt cache (both part of `prompt_tokens`).
    ///
    /// ```
    /// use twr_runtime::Usage;
    ///
    /// let usage = Usage::new(2_000, 50).with_cache(1_800, 0);
    /// assert_eq!(usage.uncached_prompt_tokens(), 200);
    /// ```
    pub fn with_cache(mut self, read: u64, write: u64) -> Self {
        self.cache_read_tokens = read;
        self.cache_write_tokens = write;
        self
    }

    /// Prompt tokens neither read from nor written to the cache: those
    /// billed at the plain input price.
    pub fn uncached_prompt_tokens(&self) -> u64 {
        self.prompt_tokens
            .saturating_sub(self.cache_read_tokens)
            .saturating_sub(self.cache_write_tokens)
    }

    /// The same counts with `total_tokens` as the server reported it (some
    /// count tokens the two parts do not show, such as cached ones).
    pub fn with_total(mut self, total_tokens: u64) -> Self {
        self.total_tokens = total_tokens;
        self
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            completion_tokens: self.completion_tokens + other.completion_tokens,
            total_tokens: self.total_tokens + other.total_tokens,
            cache_read_tokens: self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens + other.cache_write_tokens,
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// Why the model stopped writing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit cut the reply off (`length`, `MAX_TOKENS`).
    Length,
    /// A content filter stopped it.
    ContentFilter,
    /// Anything else, as the server named it.
    Other(String),
}

impl FinishReason {
    /// Maps a server's finish reason (`stop`, `length`, `STOP`, `MAX_TOKENS`, ...).
    pub fn from_server(reason: &str) -> Self {
        match reason.to_ascii_lowercase().as_str() {
            "stop" | "end_turn" | "eos" | "stop_sequence" => FinishReason::Stop,
            "length" | "max_tokens" => FinishReason::Length,
            "content_filter" | "safety" => FinishReason::ContentFilter,
            _ => FinishReason::Other(reason.to_string()),
        }
    }
}

/// One reply of the model.
///
/// A model of your own builds it with [`Reply::text`] and the `with_`
/// methods (it may gain fields, so it has no public struct literal):
///
/// ```
/// use twr_runtime::{FinishReason, Reply, Usage};
///
/// let reply = Reply::text("[Plan]\nGo east")
///     .with_usage(Usage::new(12, 5))
///     .with_finish_reason(FinishReason::Stop);
/// assert_eq!(reply.usage.total_tokens, 17);
/// assert!(!reply.is_truncated());
/// ```
// Plain data, like `Message` (see there).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// The visible answer, with any inline `<think>` block moved to `reasoning`.
    pub content: String,
    /// The model's reasoning, when the server sent it.
    pub reasoning: Option<String>,
    /// Token counts, zero when the server sent none.
    pub usage: Usage,
    /// Why the model stopped, when the server said.
    pub finish_reason: Option<FinishReason>,
}

impl Reply {
    /// A reply with only content.
    pub fn text(content: impl Into<String>) -> Self {
        Reply {
            content: content.into(),
            ..Reply::default()
        }
    }

    /// The same reply with `reasoning`.
    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.reasoning = Some(reasoning.into());
        self
    }

    /// The same reply with `usage`.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// The same reply with `finish_reason`.
    pub fn with_finish_reason(mut self, finish_reason: FinishReason) -> Self {
        self.finish_reason = Some(finish_reason);
        self
    }

    /// True when the token limit cut the reply off.
    pub fn is_truncated(&self) -> bool {
        self.finish_reason == Some(FinishReason::Length)
    }
}

/// A failure to get a reply from the model (as opposed to a reply that does
/// not parse, which is [`crate::Feedback`]).
///
/// The variants that wrap a lower-level failure (a reqwest error, an invalid
/// header value, a JSON parser's complaint) keep it as their
/// [`source()`](std::error::Error::source) through their [`ErrorDetail`];
/// build one yourself from text: `ModelError::Connect("refused".into())`.
/// Server text in every message has the API key replaced by `[redacted]`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ModelError {
    /// The server could not be reached.
    Connect(ErrorDetail),
    /// No complete reply within the time limit.
    Timeout(Duration),
    /// The server answered with an error status; `message` is the server's own.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The server's error message.
        message: String,
        /// How long the server asked us to wait (`Retry-After`).
        retry_after: Option<Duration>,
    },
    /// The reply had no text (empty or white space only).
    EmptyReply,
    /// The connection or the stream broke off before the reply was complete.
    Interrupted(ErrorDetail),
    /// The response body was larger than the configured cap.
    TooLarge {
        /// The cap in bytes.
        limit: usize,
    },
    /// The server declined to answer: a blocked prompt, a content filter, or
    /// the model's own refusal. Asking again the same way will not help.
    Refused(String),
    /// The server's response could not be understood (not the provider's
    /// JSON, or not valid UTF-8: the message names the byte offset).
    Decode(ErrorDetail),
    /// The client is misconfigured (no model name, a bad URL, an API key
    /// that cannot be sent in a header, ...).
    Config(ErrorDetail),
    /// Any other failure, from a user's own [`ChatModel`].
    Other(Box<dyn std::error::Error + Send + Sync>),
    /// Part of the reply arrived before `source` cut it off (a stream that
    /// broke or stalled). The text that arrived is kept: it is what the
    /// model said, marked incomplete. Transient exactly when `source` is.
    Incomplete {
        /// What arrived before the failure.
        partial: Box<Reply>,
        /// The failure that cut the reply off.
        source: Box<ModelError>,
    },
    /// A [`CircuitBreaker`](crate::CircuitBreaker) is open: the
    /// model failed too often in a row, so the call was not sent. Transient:
    /// it says when calls go through again.
    CircuitOpen(crate::resilience::CircuitOpen),
    /// `source` came from the model named `model` (a
    /// [`Fallback`](crate::Fallback) says which of its models
    /// failed). Transient exactly when `source` is.
    Named {
        /// The failing model's [`name()`](ChatModel::name).
        model: String,
        /// What went wrong.
        source: Box<ModelError>,
    },
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Connect(detail) => {
                write!(f, "could not connect to the model server: {detail}")
            }
            ModelError::Timeout(limit) => {
                write!(f, "the model server did not answer within {limit:?}")
            }
            ModelError::Status {
                status, message, ..
            } => write!(f, "the model server answered HTTP {status}: {message}"),
            ModelError::EmptyReply => f.write_str("the model sent an empty reply"),
            ModelError::Interrupted(detail) => write!(f, "the reply broke off: {detail}"),
            ModelError::TooLarge { limit } => {
                write!(f, "the response was larger than the {limit}-byte limit")
            }
            ModelError::Refused(message) => {
                write!(f, "the model server refused to answer: {message}")
            }
            ModelError::Decode(detail) => {
                write!(f, "could not read the model server's response: {detail}")
            }
            ModelError::Config(detail) => write!(f, "invalid model configuration: {detail}"),
            ModelError::Other(error) => fmt::Display::fmt(error, f),
            ModelError::Incomplete { partial, source } => write!(
                f,
                "{source} ({} bytes of the reply had arrived and are kept)",
                partial.content.len()
            ),
            ModelError::CircuitOpen(open) => fmt::Display::fmt(open, f),
            ModelError::Named { model, source } => write!(f, "{model}: {source}"),
        }
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelError::Connect(detail)
            | ModelError::Interrupted(detail)
            | ModelError::Decode(detail)
            | ModelError::Config(detail) => detail.source(),
            // Transparent, as `#[error(transparent)]` would be.
            ModelError::Other(error) => error.source(),
            ModelError::Incomplete { source, .. } | ModelError::Named { source, .. } => {
                Some(&**source)
            }
            ModelError::CircuitOpen(_) => None,
            ModelError::Timeout(_)
            | ModelError::Status { .. }
            | ModelError::EmptyReply
            | ModelError::TooLarge { .. }
            | ModelError::Refused(_) => None,
        }
    }
}

impl ModelError {
    /// True for failures worth retrying after a pause: connect errors,
    /// timeouts, interrupted streams, empty replies, 408, 429 and 5xx.
    pub fn is_transient(&self) -> bool {
        match self {
            ModelError::Connect(_)
            | ModelError::Timeout(_)
            | ModelError::EmptyReply
            | ModelError::Interrupted(_) => true,
            ModelError::Status { status, .. } => *status == 408 || *status == 429 || *status >= 500,
            ModelError::TooLarge { .. }
            | ModelError::Refused(_)
            | ModelError::Decode(_)
            | ModelError::Config(_)
            | ModelError::Other(_) => false,
            ModelError::CircuitOpen(_) => true,
            ModelError::Incomplete { source, .. } | ModelError::Named { source, .. } => {
                source.is_transient()
            }
        }
    }

    /// The pause the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Status { retry_after, .. } => *retry_after,
            ModelError::Incomplete { source, .. } | ModelError::Named { source, .. } => {
                source.retry_after()
            }
            ModelError::CircuitOpen(open) => Some(open.retry_in()),
            _ => None,
        }
    }

    /// The part of the reply that arrived before the failure, if any did
    /// (see [`ModelError::Incomplete`]).
    pub fn partial(&self) -> Option<&Reply> {
        match self {
            ModelError::Incomplete { partial, .. } => Some(partial),
            ModelError::Named { source, .. } => source.partial(),
            _ => None,
        }
    }
}

/// The message of a [`ModelError`] and, when there is one, the error
/// underneath it (a reqwest error, an invalid header value, ...), which is
/// the [`ModelError`]'s [`source()`](std::error::Error::source).
///
/// Built from text with `.into()`, or from text and an error with
/// [`with_source`](Self::with_source). It reads as the message: it derefs to
/// `str` and compares equal to strings.
///
/// ```
/// use std::error::Error;
/// use twr_runtime::{ErrorDetail, ModelError};
///
/// let error = ModelError::Connect("connection refused".into());
/// assert_eq!(error.to_string(), "could not connect to the model server: connection refused");
/// assert!(error.source().is_none());
///
/// let io = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
/// let error = ModelError::Connect(ErrorDetail::with_source("127.0.0.1:8088", io));
/// let source = error.source().unwrap();
/// assert!(source.downcast_ref::<std::io::Error>().is_some());
/// if let ModelError::Connect(detail) = &error {
///     assert!(detail.starts_with("127.0.0.1"));
/// }
/// ```
pub struct ErrorDetail {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl ErrorDetail {
    /// A message with no underlying error.
    pub fn new(message: impl Into<String>) -> Self {
        ErrorDetail {
            message: message.into(),
            source: None,
        }
    }

    /// A message and the error it comes from.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        ErrorDetail {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// The message.
    pub fn as_str(&self) -> &str {
        &self.message
    }

    /// The underlying error, taken out.
    pub fn into_source(self) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        self.source
    }

    /// The underlying error, if any.
    pub fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl std::ops::Deref for ErrorDetail {
    type Target = str;
    fn deref(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ErrorDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ErrorDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            None => fmt::Debug::fmt(&self.message, f),
            Some(source) => f
                .debug_struct("ErrorDetail")
                .field("message", &self.message)
                .field("source", source)
                .finish(),
        }
    }
}

impl From<&str> for ErrorDetail {
    fn from(message: &str) -> Self {
        ErrorDetail::new(message)
    }
}

impl From<String> for ErrorDetail {
    fn from(message: String) -> Self {
        ErrorDetail::new(message)
    }
}

impl From<Box<dyn std::error::Error + Send + Sync>> for ErrorDetail {
    /// The error's text as the message, the error as the source.
    fn from(error: Box<dyn std::error::Error + Send + Sync>) -> Self {
        ErrorDetail {
            message: error.to_string(),
            source: Some(error),
        }
    }
}

impl PartialEq<str> for ErrorDetail {
    fn eq(&self, other: &str) -> bool {
        self.message == other
    }
}

impl PartialEq<&str> for ErrorDetail {
    fn eq(&self, other: &&str) -> bool {
        self.message == *other
    }
}

impl PartialEq<String> for ErrorDetail {
    fn eq(&self, other: &String) -> bool {
        &self.message == other
    }
}

/// A chat model: sends a conversation, returns one reply.
///
/// Object safe: use it as `&dyn ChatModel`, `Box<dyn ChatModel>` or
/// `Arc<dyn ChatModel>`. Implement it for your own backend:
///
/// ```
/// use twr_runtime::{BoxFuture, ChatModel, Message, ModelError, Reply};
///
/// struct Echo;
///
/// impl ChatModel for Echo {
///     fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
///         Box::pin(async move {
///             let last = messages.last().map(|m| m.content.clone()).unwrap_or_default();
///             Ok(Reply::text(last))
///         })
///     }
/// }
/// ```
pub trait ChatModel: Send + Sync {
    /// Sends `messages` and returns the model's reply.
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>>;

    /// A short name for logs and tracing (the model id).
    fn name(&self) -> &str {
        "model"
    }

    /// The options this model sends with every request that change what it
    /// answers (temperature, token limit, seed, extra body fields), as JSON;
    /// `None` when it has none. With [`name`](ChatModel::name) and the
    /// messages, they make the key of a request in the journal and the
    /// response cache (feature `journal`): a change of option is a new
    /// request, never a stale answer.
    ///
    /// Provided: `None`. The HTTP clients give theirs; wrappers give their
    /// model's.
    fn request_options(&self) -> Option<serde_json::Value> {
        None
    }

    /// Sends `messages` and returns the reply with where it came from, for
    /// the ledger ([`Attempt::served`](crate::Attempt::served)): a batch
    /// model names the batch and the line that answered
    /// ([`Served::Batch`](crate::Served::Batch)), and the loop prices the
    /// call with the batch discount.
    ///
    /// Provided: [`chat`](ChatModel::chat)'s reply, [`Served::Live`](crate::Served::Live).
    fn chat_served<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(Reply, crate::Served), ModelError>> {
        let reply = self.chat(messages);
        Box::pin(async move { Ok((reply.await?, crate::Served::Live)) })
    }

    /// Sends `messages` and returns the reply as it is written: pieces of
    /// [`Delta::Content`] and [`Delta::Reasoning`], then one [`Delta::Done`].
    ///
    /// Provided: [`chat`](ChatModel::chat)'s whole reply as one piece (its
    /// reasoning, its content, then `Done`), or its error as the one item,
    /// so every model streams. A model that can do better overrides it and
    /// [`streams`](ChatModel::streams).
    ///
    /// An `Err` item ends the stream; text already sent is part of the reply
    /// that broke off. Dropping the stream must stop the request (a client
    /// closes the connection, so the server stops generating).
    fn chat_stream<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxStream<'a, Result<Delta, ModelError>> {
        whole_reply(self.chat(messages))
    }

    /// Whether [`chat_stream`](ChatModel::chat_stream) delivers a reply
    /// piece by piece as the model writes it (default `false`: the provided
    /// `chat_stream` waits for the whole reply). The loop streams, and stops
    /// a reply early when a section is already invalid, only for a model
    /// that says so.
    fn streams(&self) -> bool {
        false
    }

    /// Sends `messages` and returns the reply with what the response's
    /// headers said about the server's rate limits, so that a wrapper such
    /// as [`Limited`](crate::Limited) can slow down before the
    /// next 429.
    ///
    /// Provided: [`chat`](ChatModel::chat)'s reply and no limits
    /// ([`RateLimits::default`]). The HTTP clients read the headers;
    /// wrappers pass the limits of the model they called on.
    fn chat_with_limits<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(Reply, RateLimits), ModelError>> {
        let reply = self.chat(messages);
        Box::pin(async move { Ok((reply.await?, RateLimits::default())) })
    }

    /// Opens [`chat_stream`](ChatModel::chat_stream)'s stream and returns it
    /// with what the headers of the response that opened it said about the
    /// server's rate limits, so that a wrapper such as
    /// [`Limited`](crate::Limited) slows down on a streamed call
    /// as on [`chat_with_limits`](ChatModel::chat_with_limits).
    ///
    /// A failure to open the call is the future's `Err` or the stream's
    /// first item (the provided method always gives the latter); callers
    /// treat both alike.
    ///
    /// Provided: [`chat_stream`](ChatModel::chat_stream) and no limits
    /// ([`RateLimits::default`]). The HTTP clients read the headers;
    /// wrappers pass the limits of the model they called on.
    fn chat_stream_with_limits<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<StreamWithLimits<'a>, ModelError>> {
        let deltas = self.chat_stream(messages);
        Box::pin(std::future::ready(Ok((deltas, RateLimits::default()))))
    }
}

/// One piece of a reply streamed by [`ChatModel::chat_stream`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta {
    /// The next piece of the visible answer.
    Content(String),
    /// The next piece of the model's reasoning (a `reasoning_content`
    /// field, a thought part, or an inline `<think>` block split off).
    Reasoning(String),
    /// The reply is complete: token counts (zero when the server reported
    /// none) and why the model stopped, when the server said.
    Done {
        /// Token counts of the reply; zero when the server sent none.
        usage: Usage,
        /// Why the model stopped, when the server said.
        finish_reason: Option<FinishReason>,
    },
}

/// The stream of one whole reply: [`Delta::from_reply`] of `reply`'s
/// result, or its error.
pub(crate) fn whole_reply<'a>(
    reply: BoxFuture<'a, Result<Reply, ModelError>>,
) -> BoxStream<'a, Result<Delta, ModelError>> {
    Box::pin(futures_util::stream::once(reply).flat_map(|result| {
        let deltas = match result {
            Ok(reply) => Delta::from_reply(reply).into_iter().map(Ok).collect(),
            Err(error) => vec![Err(error)],
        };
        futures_util::stream::iter(deltas)
    }))
}

/// The stream [`ChatModel::chat_stream_with_limits`] opens, as
/// [`ChatModel::chat_stream`] hands it out: a failure to open is the one
/// item.
pub(crate) fn opened<'a>(
    opening: BoxFuture<'a, Result<StreamWithLimits<'a>, ModelError>>,
) -> BoxStream<'a, Result<Delta, ModelError>> {
    Box::pin(
        futures_util::stream::once(opening).flat_map(|result| match result {
            Ok((deltas, _)) => deltas,
            Err(error) => Box::pin(futures_util::stream::once(std::future::ready(Err(error)))),
        }),
    )
}

impl Delta {
    /// A whole reply as deltas: its reasoning (if any), its content, `Done`.
    pub fn from_reply(reply: Reply) -> Vec<Delta> {
        let mut deltas = Vec::with_capacity(3);
        if let Some(reasoning) = reply.reasoning {
            deltas.push(Delta::Reasoning(reasoning));
        }
        deltas.push(Delta::Content(reply.content));
        deltas.push(Delta::Done {
            usage: reply.usage,
            finish_reason: reply.finish_reason,
        });
        deltas
    }
}

/// A reference or smart pointer to a model is that model: every method,
/// provided ones included, goes to the model itself (so a wrapper's own
/// `chat_stream` or `name` is never replaced by the trait's default). One
/// list for the three pointer types, so a new method is forwarded once.
macro_rules! forward_chat_model {
    ($($pointer:ty),+ $(,)?) => {$(
        impl<M: ChatModel + ?Sized> ChatModel for $pointer {
            fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
                (**self).chat(messages)
            }
            fn chat_with_limits<'a>(
                &'a self,
                messages: &'a [Message],
            ) -> BoxFuture<'a, Result<(Reply, RateLimits), ModelError>> {
                (**self).chat_with_limits(messages)
            }
            fn name(&self) -> &str {
                (**self).name()
            }
            fn request_options(&self) -> Option<serde_json::Value> {
                (**self).request_options()
            }
            fn chat_served<'a>(
                &'a self,
                messages: &'a [Message],
            ) -> BoxFuture<'a, Result<(Reply, crate::Served), ModelError>> {
                (**self).chat_served(messages)
            }
            fn chat_stream<'a>(
                &'a self,
                messages: &'a [Message],
            ) -> BoxStream<'a, Result<Delta, ModelError>> {
                (**self).chat_stream(messages)
            }
            fn chat_stream_with_limits<'a>(
                &'a self,
                messages: &'a [Message],
            ) -> BoxFuture<'a, Result<StreamWithLimits<'a>, ModelError>> {
                (**self).chat_stream_with_limits(messages)
            }
            fn streams(&self) -> bool {
                (**self).streams()
            }
        }
    )+};
}

forward_chat_model!(&M, Box<M>, Arc<M>);

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures_util::StreamExt as _;

    use super::*;
    use crate::ScriptedModel;

    /// A model with only `chat`, as users write them.
    struct Fixed(Result<Reply, fn() -> ModelError>);

    impl ChatModel for Fixed {
        fn chat<'a>(&'a self, _: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
            let result = self.0.clone().map_err(|make| make());
            Box::pin(async move { result })
        }
    }

    fn collect(stream: BoxStream<'_, Result<Delta, ModelError>>) -> Vec<Result<Delta, String>> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(stream.collect::<Vec<_>>())
            .into_iter()
            .map(|item| item.map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn the_provided_stream_is_the_whole_reply_in_one_piece() {
        let model = Fixed(Ok(Reply {
            content: "[Plan]\nGo".into(),
            reasoning: Some("why".into()),
            usage: Usage::new(5, 6),
            finish_reason: Some(FinishReason::Stop),
        }));
        assert!(!model.streams());
        assert_eq!(
            collect(model.chat_stream(&[])),
            [
                Ok(Delta::Reasoning("why".into())),
                Ok(Delta::Content("[Plan]\nGo".into())),
                Ok(Delta::Done {
                    usage: Usage::new(5, 6),
                    finish_reason: Some(FinishReason::Stop)
                }),
            ]
        );
        let failing = Fixed(Err(|| ModelError::EmptyReply));
        assert_eq!(
            collect(failing.chat_stream(&[])),
            [Err("the model sent an empty reply".to_string())]
        );
    }

    #[test]
    fn references_boxes_and_arcs_forward_the_stream() {
        let chunked = || ScriptedModel::new(["abcde"]).chunk_size(2);
        let pieces = |deltas: Vec<Result<Delta, String>>| deltas.len();
        let model = chunked();
        let by_ref: &dyn ChatModel = &model;
        assert!(by_ref.streams());
        assert_eq!(pieces(collect((&by_ref).chat_stream(&[]))), 4);
        let boxed: Box<dyn ChatModel> = Box::new(chunked());
        assert!(boxed.streams());
        assert_eq!(pieces(collect(boxed.chat_stream(&[]))), 4);
        let shared: Arc<dyn ChatModel> = Arc::new(chunked());
        assert!(shared.streams());
        assert_eq!(pieces(collect(shared.chat_stream(&[]))), 4);
    }
}
