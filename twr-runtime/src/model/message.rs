//! The conversation and the reply: [`Message`], [`Role`], [`Reply`],
//! [`Usage`], [`FinishReason`].

use std::fmt;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use super::attachment::{Attachment, AttachmentError, Content};
use super::logprob::TokenLogprob;
use crate::text::SharedText;

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

/// One message of a conversation: who wrote it, and what it says.
///
/// A user message may carry images and documents beside its text
/// ([`with_image`](Message::with_image), [`with_image_url`](Message::with_image_url),
/// [`with_document`](Message::with_document), ...):
///
/// ```
/// use twr_runtime::model::AttachmentKind;
/// use twr_runtime::Message;
///
/// let png = b"\x89PNG\r\n\x1a\n...".to_vec(); // std::fs::read("receipt.png")?
/// let message = Message::user("Read this receipt.")
///     .with_image(png, "image/png")
///     .with_image_url("https://example.com/receipt-back.jpg");
/// assert_eq!(message.content.as_str(), "Read this receipt.");
/// let kinds: Vec<AttachmentKind> = message.attachments().iter().map(|a| a.kind()).collect();
/// assert_eq!(kinds, [AttachmentKind::Image, AttachmentKind::Image]);
/// assert_eq!(message.check_attachments(), Ok(()));
/// ```
// Not #[non_exhaustive]: a `ChatModel` written outside this crate builds
// these with struct literals (the first version's public API allowed it and
// the contract shows `Usage { prompt_tokens, completion_tokens, .. }`), so
// they stay plain data. Attachments therefore live in `content` (a
// `Content` reads as the text it derefs to and is built from text by
// `.into()`), not in a third field a literal would have to name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says: its text, which it reads as (`m.content.as_str()`,
    /// `&*m.content`, `m.content.len()`), shared (a message made from a
    /// reply holds the reply's own buffer, and cloning a message copies no
    /// text and no attachment), and its attachments
    /// ([`Content::attachments`]).
    pub content: Content,
}

impl Message {
    /// A message with `role` and `content` (text, or a [`Content`]).
    pub fn new(role: Role, content: impl Into<Content>) -> Self {
        Message {
            role,
            content: content.into(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<Content>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<Content>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Message::new(Role::Assistant, content)
    }

    /// The same message with an image: its bytes (a `Vec<u8>`, a
    /// `&'static [u8]`, a [`bytes::Bytes`], ...; moved, never copied) and
    /// its media type (`"image/png"`, `"image/jpeg"`, `"image/gif"`,
    /// `"image/webp"`, ...). Call it again for more; attachments go to the
    /// model before the text, in the order added.
    ///
    /// Nothing is checked here: bytes that are not what `media_type` says,
    /// or a type or size the provider does not take, fail the call with
    /// [`ModelError::Attachment`](crate::ModelError::Attachment) before anything is sent.
    pub fn with_image(self, data: impl Into<bytes::Bytes>, media_type: &str) -> Self {
        self.with_attachment(Attachment::image(data, media_type))
    }

    /// The same message with an image the provider fetches from `url`
    /// (`http` or `https`). twr never downloads it; a provider that takes
    /// no image URL fails the call with [`ModelError::Attachment`](crate::ModelError::Attachment).
    pub fn with_image_url(self, url: impl Into<String>) -> Self {
        self.with_attachment(Attachment::image_url(url))
    }

    /// The same message with a document: its bytes and its media type
    /// (`"application/pdf"`), as for [`with_image`](Self::with_image).
    pub fn with_document(self, data: impl Into<bytes::Bytes>, media_type: &str) -> Self {
        self.with_attachment(Attachment::document(data, media_type))
    }

    /// The same message with a document the provider fetches from `url`,
    /// as for [`with_image_url`](Self::with_image_url).
    pub fn with_document_url(self, url: impl Into<String>) -> Self {
        self.with_attachment(Attachment::document_url(url))
    }

    /// The same message with `attachment` after the others.
    pub fn with_attachment(mut self, attachment: Attachment) -> Self {
        self.content = self.content.with_attachment(attachment);
        self
    }

    /// The images and documents, in order (empty for text alone).
    pub fn attachments(&self) -> &[Attachment] {
        self.content.attachments()
    }

    /// Checks what can be known of the attachments without a provider:
    /// only a user message carries any, and each passes
    /// [`Attachment::check`] (its bytes are what its media type says, ...).
    /// A run of [`Think`](crate::Think) checks its messages so before its
    /// first request; the clients check the provider's own rules too.
    pub fn check_attachments(&self) -> Result<(), AttachmentError> {
        if self.content.has_attachments() && self.role != Role::User {
            return Err(AttachmentError::NotFromUser { role: self.role });
        }
        self.content.check_attachments()
    }
}

/// A prompt given as text is a user message (`think.run::<T>("...")`).
macro_rules! user_message_from {
    ($($text:ty),+ $(,)?) => {$(
        impl From<$text> for Message {
            fn from(text: $text) -> Self {
                Message::user(text)
            }
        }
    )+};
}

user_message_from!(
    &str,
    String,
    &String,
    std::borrow::Cow<'_, str>,
    Box<str>,
    SharedText,
    &SharedText,
    Content
);

impl From<&Message> for Message {
    /// A clone (the text and the attachments are shared, not copied).
    fn from(message: &Message) -> Self {
        message.clone()
    }
}

impl Serialize for Message {
    /// `{role, content}` with the text as `content`, and for a message
    /// with attachments `attachments: [{kind, media_type, bytes}]` (their
    /// sizes, never their bytes) or `{kind, url}`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let attachments = self.content.attachments();
        let fields = if attachments.is_empty() { 2 } else { 3 };
        let mut s = serializer.serialize_struct("Message", fields)?;
        s.serialize_field("role", &self.role)?;
        s.serialize_field("content", self.content.text())?;
        if !attachments.is_empty() {
            s.serialize_field("attachments", attachments)?;
        }
        s.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    /// `{role, content}`. A message with `attachments` is refused: a ledger
    /// keeps only their kind, media type and size, so they cannot be read
    /// back.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            role: Role,
            content: SharedText,
            #[serde(default)]
            attachments: Option<serde::de::IgnoredAny>,
        }
        let stored = Stored::deserialize(deserializer)?;
        if stored.attachments.is_some() {
            return Err(serde::de::Error::custom(
                "a message's attachments cannot be read back: a ledger keeps only their kind, \
                 media type and size",
            ));
        }
        Ok(Message::new(stored.role, stored.content))
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
///
/// Serialized as its [name](FinishReason::as_str) (`"stop"`, `"length"`,
/// `"content_filter"`, or the server's own word), snake_case like every
/// other kind in the ledger; read back with [`FinishReason::from_server`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

    /// The reason as twr writes it in a serialized ledger and a journal:
    /// `stop`, `length`, `content_filter`, or for
    /// [`Other`](FinishReason::Other) the server's word as it sent it.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(word) => word,
        }
    }
}

impl Serialize for FinishReason {
    /// [`FinishReason::as_str`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FinishReason {
    /// A name as [`FinishReason::as_str`] writes it, or any server's word
    /// ([`FinishReason::from_server`]).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(FinishReason::from_server(&word))
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
    /// The log-probability of each token of the reply, in order, when the
    /// request asked for them ([`Request::wants_logprobs`](crate::model::Request::wants_logprobs))
    /// and the server gave them; empty otherwise. Their text, joined, is
    /// the reply as the server sent it (an inline `<think>` block
    /// included).
    pub logprobs: Vec<TokenLogprob>,
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

    /// The same reply with the log-probability of each of its tokens (see
    /// [`Reply::logprobs`](Reply#structfield.logprobs)): how a
    /// [`ChatModel`](crate::ChatModel) of your own hands them on.
    pub fn with_logprobs(mut self, tokens: Vec<TokenLogprob>) -> Self {
        self.logprobs = tokens;
        self
    }

    /// True when the token limit cut the reply off.
    pub fn is_truncated(&self) -> bool {
        self.finish_reason == Some(FinishReason::Length)
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
