//! [`ModelError`]: a failure to get a reply, and [`ErrorDetail`], the
//! message and source it carries.

use std::fmt;
use std::time::Duration;

use super::message::Reply;

/// A failure to get a reply from the model (as opposed to a reply that does
/// not parse, which is [`crate::Feedback`]).
///
/// The variants that wrap a lower-level failure (a reqwest error, an invalid
/// header value, a JSON parser's complaint) keep it as their
/// [`source()`](std::error::Error::source) through their [`ErrorDetail`];
/// build one yourself from text: `ModelError::Connect("refused".into())`.
/// Server text in every message has the API key replaced by `[redacted]`.
///
/// As thiserror's and reqwest's errors do, `Display` says this level only
/// and [`source()`](std::error::Error::source) returns the cause, so a
/// report that prints an error and then each `source()` (anyhow's `{:#}`,
/// or a loop over `source()`) says each level once, and `downcast_ref`
/// reaches every cause: a variant that wraps an error
/// ([`Incomplete`](Self::Incomplete) and [`Named`](Self::Named) the
/// `ModelError` underneath, [`Attachment`](Self::Attachment) its
/// [`AttachmentError`](crate::model::AttachmentError),
/// [`Unavailable`](Self::Unavailable) the wrapper's error, an
/// [`ErrorDetail`] a reqwest error) does not say it and returns it as
/// `source()`. [`Other`](Self::Other) is transparent: its text is the
/// wrapped error's, and its `source()` that error's. `Display` alone is
/// then the short form: print the chain for the whole story.
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
    /// Any other failure, from a user's own [`ChatModel`](crate::ChatModel).
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
    /// The call was not sent: something in front of the model holds calls
    /// back for now, such as an open
    /// [`CircuitBreaker`](crate::CircuitBreaker), whose
    /// [`CircuitOpen`](crate::resilience::CircuitOpen) is the `source`.
    /// Transient: asking again after `retry_after` may go through.
    ///
    /// One variant for every wrapper that declines calls, rather than one
    /// per wrapper: a wrapper's own error type is no part of the core type
    /// every model and every caller shares, a new wrapper (yours too)
    /// needs no new variant, and a caller that retries or falls back reads
    /// only `is_transient` and `retry_after`. The details stay with the
    /// wrapper's type; downcast the source to read them:
    ///
    /// ```
    /// use std::error::Error;
    /// use std::time::Duration;
    /// use twr_runtime::{ChatModel, CircuitBreaker, Message, ModelError, ScriptedModel};
    /// use twr_runtime::resilience::CircuitOpen;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let failing = ScriptedModel::from_results([Err(ModelError::Timeout(Duration::from_secs(1)))]);
    /// let model = CircuitBreaker::new(failing).threshold(1);
    /// let _ = model.chat(&[Message::user("hi")]).await; // one failure opens it
    /// let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    /// assert!(matches!(error, ModelError::Unavailable { .. }));
    /// assert!(error.is_transient());
    /// let open = error.source().and_then(|s| s.downcast_ref::<CircuitOpen>()).unwrap();
    /// assert_eq!(open.model, "scripted");
    /// assert_eq!(error.retry_after(), Some(open.retry_in()));
    /// # });
    /// ```
    Unavailable {
        /// When calls may go through again, when the wrapper knows.
        retry_after: Option<Duration>,
        /// The wrapper's own error, which says why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An image or a document of the request cannot be sent: its bytes
    /// are not what its media type says, the provider does not take its
    /// media type, it is over the provider's size limit, ... Found before
    /// anything was sent; asking again sends the same, so it is not
    /// transient.
    Attachment(crate::model::AttachmentError),
    /// `source` came from the model named `model`, one of several that a
    /// model made of models asks (a [`Fallback`](crate::Fallback) says which
    /// of its models failed). Transient exactly when `source` is.
    ///
    /// Kept in the core type, unlike a wrapper's own error: it holds only
    /// core data (a model's name and a `ModelError`), any model made of
    /// models needs it, and what a caller reads from an error
    /// ([`is_transient`](Self::is_transient), [`retry_after`](Self::retry_after),
    /// [`partial`](Self::partial)) sees through it to the failure itself.
    Named {
        /// The failing model's [`name()`](crate::ChatModel::name).
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
            // The cause is the source: a chain prints it next.
            ModelError::Incomplete { partial, .. } => write!(
                f,
                "the reply was cut off ({} bytes of it had arrived and are kept)",
                partial.content.len()
            ),
            // The wrapper's error is the source: a chain prints it next.
            ModelError::Unavailable { .. } => f.write_str("the call was held back and not sent"),
            ModelError::Attachment(_) => f.write_str("an attachment cannot be sent"),
            ModelError::Named { model, .. } => write!(f, "the model {model} failed"),
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
            ModelError::Attachment(error) => Some(error),
            ModelError::Unavailable { source, .. } => Some(&**source),
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
            | ModelError::Other(_)
            | ModelError::Attachment(_) => false,
            ModelError::Unavailable { .. } => true,
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
            ModelError::Unavailable { retry_after, .. } => *retry_after,
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
/// use twr_runtime::model::ErrorDetail;
/// use twr_runtime::ModelError;
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
    /// True when `message` is `source`'s own text (a detail made from an
    /// error): the chain then goes on with `source`'s source, so that
    /// text is not said twice.
    says_source: bool,
}

impl ErrorDetail {
    /// A message with no underlying error.
    pub fn new(message: impl Into<String>) -> Self {
        ErrorDetail {
            message: message.into(),
            source: None,
            says_source: false,
        }
    }

    /// A message and the error it comes from. The message says what the
    /// source does not (where, doing what): the source's text follows it
    /// in a chain, so the message should not repeat it.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        ErrorDetail {
            message: message.into(),
            source: Some(source.into()),
            says_source: false,
        }
    }

    /// The message.
    pub fn as_str(&self) -> &str {
        &self.message
    }

    /// The underlying error, taken out: the one given to
    /// [`with_source`](Self::with_source), or the error the detail was made
    /// from.
    pub fn into_source(self) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        self.source
    }

    /// The next error of the chain, if any: the one given to
    /// [`with_source`](Self::with_source); for a detail made from an error
    /// (`From<Box<dyn Error>>`), whose message is that error's text, that
    /// error's own source.
    pub fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source = self
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))?;
        if self.says_source {
            source.source()
        } else {
            Some(source)
        }
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
    /// The error's text as the message; the error's own source continues
    /// the chain ([`source`](ErrorDetail::source)), and
    /// [`into_source`](ErrorDetail::into_source) gives the error back.
    fn from(error: Box<dyn std::error::Error + Send + Sync>) -> Self {
        ErrorDetail {
            message: error.to_string(),
            source: Some(error),
            says_source: true,
        }
    }
}

/// `error` and each error of its [`source()`](std::error::Error::source)
/// chain, joined by `": "`, each text once (a cause whose text is already
/// said is skipped): what the ledger keeps of a failed request, and the
/// message of a lower error whose top-level text says too little
/// (reqwest's "error sending request").
pub(crate) fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
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

/// The error of a [`ScriptedModel`](crate::ScriptedModel) asked for more replies than it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScriptExhausted {
    /// How many results the script held.
    pub scripted: usize,
}

impl fmt::Display for ScriptExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the ScriptedModel ran out of replies: it was given {} and all were used; \
             script more replies or expect fewer calls",
            self.scripted
        )
    }
}

impl std::error::Error for ScriptExhausted {}
