//! The chat model abstraction: messages in, a [`Reply`] out.

use std::fmt;
use std::future::Future;
use std::ops::{Add, AddAssign};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A boxed, sendable future, as returned by [`ChatModel::chat`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
}

impl Message {
    /// A message with `role` and `content`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::new(Role::Assistant, content)
    }
}

/// Token counts reported by the server; summed over attempts by the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the reply (reasoning included when the server counts it there).
    pub completion_tokens: u64,
    /// Total as reported by the server, or the sum of the two.
    pub total_tokens: u64,
}

impl Usage {
    /// Usage with the given counts; `total_tokens` is their sum.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
        }
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            completion_tokens: self.completion_tokens + other.completion_tokens,
            total_tokens: self.total_tokens + other.total_tokens,
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

    /// True when the token limit cut the reply off.
    pub fn is_truncated(&self) -> bool {
        self.finish_reason == Some(FinishReason::Length)
    }
}

/// A failure to get a reply from the model (as opposed to a reply that does
/// not parse, which is [`crate::Feedback`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The server could not be reached.
    #[error("could not connect to the model server: {0}")]
    Connect(String),
    /// No complete reply within the time limit.
    #[error("the model server did not answer within {0:?}")]
    Timeout(Duration),
    /// The server answered with an error status; `message` is the server's own.
    #[error("the model server answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The server's error message.
        message: String,
        /// How long the server asked us to wait (`Retry-After`).
        retry_after: Option<Duration>,
    },
    /// The reply had no text (empty or white space only).
    #[error("the model sent an empty reply")]
    EmptyReply,
    /// The connection or the stream broke off before the reply was complete.
    #[error("the reply broke off: {0}")]
    Interrupted(String),
    /// The response body was larger than the configured cap.
    #[error("the response was larger than the {limit}-byte limit")]
    TooLarge {
        /// The cap in bytes.
        limit: usize,
    },
    /// The server declined to answer: a blocked prompt, a content filter, or
    /// the model's own refusal. Asking again the same way will not help.
    #[error("the model server refused to answer: {0}")]
    Refused(String),
    /// The server's response could not be understood.
    #[error("could not read the model server's response: {0}")]
    Decode(String),
    /// The client is misconfigured (no model name, a bad URL, ...).
    #[error("invalid model configuration: {0}")]
    Config(String),
    /// Any other failure, from a user's own [`ChatModel`].
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
    /// Part of the reply arrived before `source` cut it off (a stream that
    /// broke or stalled). The text that arrived is kept: it is what the
    /// model said, marked incomplete. Transient exactly when `source` is.
    #[error("{source} ({} bytes of the reply had arrived and are kept)", partial.content.len())]
    Incomplete {
        /// What arrived before the failure.
        partial: Box<Reply>,
        /// The failure that cut the reply off.
        #[source]
        source: Box<ModelError>,
    },
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
            ModelError::Incomplete { source, .. } => source.is_transient(),
        }
    }

    /// The pause the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Status { retry_after, .. } => *retry_after,
            ModelError::Incomplete { source, .. } => source.retry_after(),
            _ => None,
        }
    }

    /// The part of the reply that arrived before the failure, if any did
    /// (see [`ModelError::Incomplete`]).
    pub fn partial(&self) -> Option<&Reply> {
        match self {
            ModelError::Incomplete { partial, .. } => Some(partial),
            _ => None,
        }
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
}

impl<M: ChatModel + ?Sized> ChatModel for &M {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        (**self).chat(messages)
    }
    fn name(&self) -> &str {
        (**self).name()
    }
}

impl<M: ChatModel + ?Sized> ChatModel for Box<M> {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        (**self).chat(messages)
    }
    fn name(&self) -> &str {
        (**self).name()
    }
}

impl<M: ChatModel + ?Sized> ChatModel for Arc<M> {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        (**self).chat(messages)
    }
    fn name(&self) -> &str {
        (**self).name()
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        })
    }
}
