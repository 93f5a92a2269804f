//! The per-provider part of an [`HttpModel`](super::HttpModel): what differs
//! between model APIs and nothing else.
//!
//! An adapter says where a call goes and how the key travels
//! ([`Provider::head`]), writes the request body ([`Provider::body`]), and
//! decodes a whole response ([`Provider::decode_reply`]) or one stream event
//! ([`Provider::decode_event`]) into [`Decoded`]s. Everything else (sending,
//! time limits, capped and UTF-8-checked reading, SSE framing, error mapping,
//! scrubbing keys out of server text, tracing, collecting decoded items into a
//! [`Reply`](crate::Reply)) is shared. The decoded items come in order, so the same
//! decoding feeds a stream of partial replies as well as the collected one.

use std::fmt;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::attachments::AttachmentRules;
use super::rate_limits::ResponseHeaders;
use super::secret::ApiKey;
use super::sse::SseEvent;
use crate::grammar::{Dialect, Grammar};
use crate::model::{
    ErrorDetail, FinishReason, Message, ModelError, RateLimits, TokenLogprob, Usage,
};

/// A model API: the adapter of one provider, for [`HttpModel`](super::HttpModel).
///
/// Implement it to speak an API none of the built-in clients speak (a
/// provider's native API, an in-house gateway); [`HttpModel::with_provider`]
/// then gives a client with the shared builder, streaming, time limits,
/// transport errors the retry loop understands, and keys that never show.
/// The [module documentation](super#your-own-provider) has a complete
/// example.
///
/// The methods are called for every request, so they should be cheap; none
/// of them sends anything. An adapter that needs options of its own keeps
/// them in its own fields, set before it is handed to
/// [`HttpModel::with_provider`].
///
/// [`HttpModel::with_provider`]: super::HttpModel::with_provider
pub trait Provider: Clone + fmt::Debug + Send + Sync + 'static {
    /// The provider's name, lower case (`"cohere"`): the `provider` field of
    /// the call's tracing span and its OpenTelemetry `gen_ai.provider.name`.
    const NAME: &'static str;

    /// The client's type name in `Debug` output (default `"HttpModel"`; the
    /// built-in clients give their alias, `"Gemini"`).
    const TYPE_NAME: &'static str = "HttpModel";

    /// What a stream lacks when it ends without saying why the model
    /// stopped, for the error (default `"no finish reason"`; the
    /// OpenAI-compatible adapter says `"no finish_reason, no [DONE]"`).
    const UNFINISHED: &'static str = "no finish reason";

    /// The OpenTelemetry `gen_ai.provider.name` of the call spans (default
    /// [`NAME`](Self::NAME); the OpenAI-compatible adapter says `"openai"`,
    /// Gemini's `"gcp.gemini"`, as the GenAI semantic conventions name them).
    const GEN_AI_PROVIDER_NAME: &'static str = Self::NAME;

    /// Whether the API answers several replies to one request (OpenAI's
    /// `n`, Gemini's `candidateCount`): the adapter writes
    /// [`RequestSpec::n`] into the body where the API takes it, and
    /// decodes each reply after a [`Decoded::Choice`]. Default `false`: a
    /// client of it is never asked for more than one, whatever
    /// [`HttpModel::takes_n`](super::HttpModel::takes_n) says.
    const TAKES_N: bool = false;

    /// State kept across the events of one stream, for an API that spreads
    /// one fact over several events (Anthropic sends input tokens first and
    /// output tokens last). `()` when every event stands alone. A fresh
    /// `Default` value starts each stream.
    type StreamState: Default + Send;

    /// Where the call for `spec` goes and the headers it carries: the path
    /// after the base URL, any query, the key (through
    /// [`RequestHead::key_header`] or [`RequestHead::key_query`], so the
    /// adapter never handles its text), and any header the API requires (a
    /// version).
    ///
    /// `key` is the client's [`api_key`](super::HttpModel::api_key), `None`
    /// when none (or a blank one) was given: an API that cannot work without
    /// one fails here, with [`ModelError::Config`] saying so, before
    /// anything is sent. `Accept: text/event-stream` is added for a
    /// streamed call.
    fn head(
        &self,
        spec: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError>;

    /// The JSON request body for `spec`, before the caller's
    /// [`extra`](super::HttpModel::extra) fields are merged in. Options the
    /// API does not have are left out. An error is [`ModelError::Config`]:
    /// a request the API cannot accept (no user message, say).
    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError>;

    /// Decodes a whole (not streamed) response body, appending what it says
    /// to `out` in order. Called too when a streamed call is answered with
    /// one JSON document (a server may ignore the request to stream).
    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault>;

    /// Decodes one server-sent event of a streamed response, appending what
    /// it says to `out`. [`Flow::Done`] when the event ends the stream (a
    /// `[DONE]`, a `message-end`); a stream may also just close after an
    /// event that carried a [`Decoded::Finish`]. Events whose data is blank
    /// (keep-alives) are never passed in. On a fault, the decoded items already in
    /// `out` are kept.
    fn decode_event(
        &self,
        state: &mut Self::StreamState,
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault>;

    /// Writes `grammar`, in `dialect`, into `body` (the one
    /// [`body`](Self::body) wrote for the same call, before the caller's
    /// [`extra`](super::HttpModel::extra) fields are merged in), where this
    /// API takes a grammar the server enforces while the model writes; and
    /// returns the field it wrote (`"grammar"`,
    /// `"generationConfig.responseJsonSchema"`), named in the error when
    /// the server refuses the request.
    ///
    /// Called only for a client told its server's dialect
    /// ([`HttpModel::grammar`](super::HttpModel::grammar)) and a request
    /// that carries a grammar ([`RequestSpec::grammar`]), so a server never
    /// receives a field it was not said to know.
    ///
    /// Provided: this API takes no grammar, a [`ModelError::Config`] naming
    /// the dialect and [`NAME`](Self::NAME), so a grammar is never dropped
    /// silently. An API that takes some dialects and not others says which
    /// it takes the same way.
    fn grammar(
        &self,
        dialect: Dialect,
        grammar: &Grammar,
        body: &mut Value,
    ) -> Result<&'static str, ModelError> {
        let _ = (grammar, body);
        Err(ModelError::Config(
            format!(
                "the {} API takes no grammar, so a client of it cannot be given \
                 .grammar(Dialect::{dialect:?})",
                Self::NAME
            )
            .into(),
        ))
    }

    /// The images and documents this API takes, as its documentation
    /// says: their media types, whether it fetches URLs, and its size
    /// limits. Every request is checked against them before anything is
    /// sent ([`AttachmentRules::check`]), so [`body`](Self::body) meets only
    /// attachments it can write (in [`RequestSpec::messages`]'s
    /// [`Message::attachments`]), and only in user messages.
    ///
    /// Provided: none (a request with an attachment fails with
    /// [`ModelError::Attachment`] naming [`NAME`](Self::NAME)), so an
    /// adapter that does not write attachments never drops one silently.
    fn attachment_rules(&self) -> AttachmentRules {
        AttachmentRules::new(Self::NAME)
    }

    /// What a response's headers say about the server's rate limits, for
    /// the [`Response`](crate::model::Response) (and so for the `Limited`
    /// wrapper, which pauses new calls when an allowance reaches zero).
    /// Called once per response, error statuses included.
    ///
    /// Provided: only the pause the server asked for (`Retry-After`, the
    /// HTTP standard, and `retry-after-ms`). An API that announces its
    /// allowances reads its own headers through [`ResponseHeaders`]; the
    /// OpenAI-compatible adapter reads `x-ratelimit-*`, Anthropic's
    /// `anthropic-ratelimit-*`.
    fn rate_limits(&self, headers: &ResponseHeaders<'_>) -> RateLimits {
        RateLimits {
            retry_after: headers.retry_after(),
            ..RateLimits::default()
        }
    }

    /// The HTTP status a text error code of this API stands for, when it
    /// says what a status would (`"rate_limit_exceeded"` is 429,
    /// `"invalid_api_key"` 401), so that an error embedded in a 200 body, a
    /// stream event or a batch line is retried exactly when the same error
    /// as a status would be. `code` is the text of the error object's
    /// `code`, `type` or `status` member (tried in that order; a numeric
    /// `code` wins over all of them), trimmed and in lower case.
    ///
    /// Provided: none, so such an error is a reply the server broke off
    /// ([`ModelError::Interrupted`], retried). Give the codes of a request
    /// that cannot succeed as sent (fail at once) and of rate limits (wait
    /// and retry); leave server-side codes (`server_error`, an overload)
    /// out, so they stay retried.
    fn error_status(&self, code: &str) -> Option<u16> {
        let _ = code;
        None
    }

    /// Adds the adapter's own options to the client's `Debug` output; by
    /// default the adapter's `Debug` as a `provider` field. Never add a
    /// credential: the client's key is printed by the client, redacted.
    fn debug_fields(&self, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("provider", self);
    }
}

/// The options of one call, as an adapter maps them into its request
/// ([`Provider::head`], [`Provider::body`]). It may gain fields as the
/// shared builder gains options.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RequestSpec<'a> {
    /// The model id ([`HttpModel::model`](super::HttpModel::model)), never
    /// empty.
    pub model: &'a str,
    /// The conversation, never empty.
    pub messages: &'a [Message],
    /// Whether to ask for an event stream.
    pub stream: bool,
    /// The sampling temperature, when set.
    pub temperature: Option<f32>,
    /// The most tokens the reply may have, when set.
    pub max_tokens: Option<u32>,
    /// A sampling seed, when set (leave it out if the API has none).
    pub seed: Option<u64>,
    /// The grammar the reply must follow and the dialect the client was
    /// told its server takes, when both are there: the request carries a
    /// grammar ([`Request::grammar`](crate::model::Request::grammar)) and
    /// the client has a [`grammar`](super::HttpModel::grammar) dialect.
    /// [`Provider::grammar`] writes it into the body; [`Provider::head`]
    /// sees it too, for an API that wants a header with it.
    pub grammar: Option<(Dialect, &'a Grammar)>,
    /// How many of [`messages`](Self::messages), from the first, are the
    /// part every request of the program repeats
    /// ([`Request::shared_prefix`](crate::model::Request::shared_prefix)):
    /// an API with a prompt cache marks its end. `0` when the request did
    /// not say.
    pub shared_prefix: usize,
    /// Whether to ask for the log-probability of each token of the reply
    /// ([`Request::wants_logprobs`](crate::model::Request::wants_logprobs)),
    /// with the [`TOP_LOGPROBS`](super::TOP_LOGPROBS) most likely tokens
    /// at each place, where the API has them; an API without them leaves
    /// it out.
    pub logprobs: bool,
    /// How many replies to ask for in one response: `1` unless the
    /// request asks for several ([`Request::n`](crate::model::Request::n))
    /// of a client told its server takes them
    /// ([`HttpModel::takes_n`](super::HttpModel::takes_n)) whose API has
    /// them ([`Provider::TAKES_N`]); then never streamed. An adapter
    /// writes it only when above 1.
    pub n: u32,
}

/// The error of an API whose structured outputs take a JSON schema in
/// `field`, asked for another `dialect` (a grammar for an
/// OpenAI-compatible server), for [`Provider::grammar`].
pub(crate) fn json_schema_only(api: &str, field: &str, dialect: Dialect) -> ModelError {
    ModelError::Config(
        format!(
            "{api} takes a grammar only as a JSON schema (its structured outputs, \
             `{field}`): give the client .grammar(Dialect::JsonSchema), not \
             .grammar(Dialect::{dialect:?}), which is for an OpenAI-compatible server"
        )
        .into(),
    )
}

/// Where a call goes and the headers it carries, as [`Provider::head`]
/// fills it in. Starts empty: no path (the call goes to the base URL
/// itself), no query, no header.
///
/// The key goes in only through [`key_header`](Self::key_header) and
/// [`key_query`](Self::key_query): the adapter never sees its text, the
/// header is marked sensitive (so reqwest and hyper never print it), and
/// `Debug` shows `[redacted]`.
pub struct RequestHead {
    pub(crate) path: String,
    pub(crate) query: Vec<(String, QueryValue)>,
    pub(crate) headers: HeaderMap,
}

/// A query parameter's value.
pub(crate) enum QueryValue {
    Plain(String),
    Key(ApiKey),
}

impl RequestHead {
    /// Nothing set.
    pub(crate) fn new() -> Self {
        RequestHead {
            path: String::new(),
            query: Vec::new(),
            headers: HeaderMap::new(),
        }
    }

    /// The path after the base URL (`"v2/chat"`), joined to it with one
    /// slash.
    pub fn path(&mut self, path: impl Into<String>) -> &mut Self {
        self.path = path.into();
        self
    }

    /// Appends the query parameter `name=value` (`alt=sse`), percent-encoded.
    pub fn query(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        let value = QueryValue::Plain(value.into());
        self.query.push((name.into(), value));
        self
    }

    /// Appends the query parameter `name` carrying the key, for an API that
    /// takes it in the URL. Prefer a header where the API accepts one: a
    /// URL is quoted more often than a header (twr itself never prints it,
    /// and scrubs the key out of any server text that quotes it).
    pub fn key_query(&mut self, name: impl Into<String>, key: &ApiKey) -> &mut Self {
        self.query.push((name.into(), QueryValue::Key(key.clone())));
        self
    }

    /// Sets the header `name` to `value` (`anthropic-version: 2023-06-01`).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `name` is not a header name or `value`
    /// has characters a header cannot carry.
    pub fn header(&mut self, name: &str, value: &str) -> Result<&mut Self, ModelError> {
        let value = HeaderValue::from_str(value).map_err(|error| {
            ModelError::Config(ErrorDetail::with_source(
                format!("the value of the header {name} has characters a header cannot carry"),
                error,
            ))
        })?;
        self.insert(name, value)
    }

    /// Sets the header `name` to `prefix` followed by the key:
    /// `key_header("authorization", "Bearer ", key)`, or
    /// `key_header("x-api-key", "", key)`. The value is marked sensitive.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `name` is not a header name or the key
    /// has characters a header cannot carry (a control character, a line
    /// break); the error never quotes the key.
    pub fn key_header(
        &mut self,
        name: &str,
        prefix: &str,
        key: &ApiKey,
    ) -> Result<&mut Self, ModelError> {
        let text = format!("{prefix}{}", key.expose());
        let mut value = HeaderValue::from_str(&text).map_err(|error| {
            ModelError::Config(ErrorDetail::with_source(
                "the API key has characters an HTTP header cannot carry \
                 (a control character, a line break, or a non-ASCII character)",
                error,
            ))
        })?;
        value.set_sensitive(true);
        self.insert(name, value)
    }

    fn insert(&mut self, name: &str, value: HeaderValue) -> Result<&mut Self, ModelError> {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|error| {
            ModelError::Config(ErrorDetail::with_source(
                format!("{name:?} is not an HTTP header name"),
                error,
            ))
        })?;
        self.headers.insert(name, value);
        Ok(self)
    }
}

impl fmt::Debug for RequestHead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let query: Vec<(&str, &dyn fmt::Debug)> = self
            .query
            .iter()
            .map(|(name, value)| {
                let value: &dyn fmt::Debug = match value {
                    QueryValue::Plain(text) => text,
                    QueryValue::Key(key) => key,
                };
                (name.as_str(), value)
            })
            .collect();
        // HeaderMap prints a sensitive value as `Sensitive`.
        f.debug_struct("RequestHead")
            .field("path", &self.path)
            .field("query", &query)
            .field("headers", &self.headers)
            .finish()
    }
}

/// One thing a provider's decoder read in a response or an event, in the
/// order it was said: the wire format's side of the seam, before the
/// shared reader turns it into what a [`ChatModel`](crate::ChatModel)
/// hands out ([`Delta`](crate::Delta)s, a [`Reply`](crate::Reply)).
///
/// Text arrives in order: the visible text is every
/// [`Content`](Self::Content) joined, so a stream hands each one out as it
/// arrives and a whole reply is decoded into the same items. Text is kept
/// as sent; inline `<think>` blocks are split off later, by the shared
/// reader. (Named apart from [`Delta`](crate::Delta): a `Decoded` also
/// carries usage, the finish reason, a refusal and the served model's name,
/// which the reader gathers rather than streams.)
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Decoded {
    /// Visible text, as sent.
    Content(String),
    /// Reasoning sent in its own field or part.
    Reasoning(String),
    /// Why the reply was declined: the model's own refusal text, or the
    /// server's explanation of a refusal or a block. With no visible text,
    /// the call fails with [`ModelError::Refused`], which is never retried.
    /// With [`Finish`](Self::Finish)`(`[`FinishReason::ContentFilter`]`)`
    /// (a filter or a refusal stopped the reply) it is that refusal's
    /// message, and any text that came before is kept in
    /// [`ModelError::Incomplete`], never taken for the answer.
    Refusal(String),
    /// Token counts so far; a later one replaces an earlier one.
    Usage(Usage),
    /// Why the model stopped. A stream that closes before any event gave
    /// one (and before [`Flow::Done`]) was cut short:
    /// [`ModelError::Interrupted`], retried.
    Finish(FinishReason),
    /// The name of the model that answered, as the server wrote it
    /// (`"gpt-4o-2024-08-06"` for a call to `"gpt-4o"`): the call span's
    /// OpenTelemetry `gen_ai.response.model`. A later one replaces an
    /// earlier one; a response that names none leaves the attribute out.
    Model(String),
    /// The log-probabilities of the next tokens of the answer, in order
    /// (asked for with [`RequestSpec::logprobs`]); they go to
    /// [`Reply::logprobs`](crate::Reply::logprobs).
    Logprobs(Vec<TokenLogprob>),
    /// The items that follow, up to the next `Choice`, belong to reply
    /// `index` (from 0) of a response with several ([`RequestSpec::n`]):
    /// an adapter whose response carries more than one reply, or one whose
    /// index is not 0, puts one before each reply's items. [`Usage`](Self::Usage)
    /// and [`Model`](Self::Model) are the whole response's, wherever they
    /// come. A reader of one reply keeps reply 0 and leaves out the
    /// others.
    Choice(u32),
}

/// Whether a stream continues after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Flow {
    /// More events may follow.
    Continue,
    /// The server said the stream is over (`[DONE]`, `message-end`): the
    /// rest of the body is not read.
    Done,
}

/// What an adapter found wrong in a response or an event. The shared core
/// turns it into a [`ModelError`], quoting the server's raw text only after
/// scrubbing every credential out of it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Fault {
    /// Not the JSON this provider sends: what it should have been (`"a
    /// chat response"`) and the parser's complaint. A
    /// [`ModelError::Decode`], not retried; except in the last event of a
    /// stream whose body ended before that event did (no blank line after
    /// it): the reply broke off mid-event, [`ModelError::Interrupted`],
    /// retried.
    NotJson {
        /// What the text should have been, for the message.
        expected: &'static str,
        /// The parser's complaint.
        error: serde_json::Error,
    },
    /// JSON without the member that carries the reply (`"message"`). A
    /// [`ModelError::Decode`].
    Missing(&'static str),
    /// An error object the server embedded in a 200 body or an event (the
    /// value of its `error` member). A code that names an HTTP status (a
    /// number, or a text code such as `invalid_api_key` or
    /// `rate_limit_exceeded`) gives [`ModelError::Status`] with that status,
    /// so a rate limit is retried and a bad key is not; anything else is a
    /// reply that broke off ([`ModelError::Interrupted`]), retried.
    Embedded(Value),
    /// An error event (`event: error`) with this data, plain text or JSON
    /// with an `error` member (read as [`Embedded`](Self::Embedded)).
    ErrorEvent(String),
    /// The server declined to answer (a blocked prompt): its words, as
    /// [`ModelError::Refused`], never retried.
    Refused(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_shows_in_a_head() {
        let key = ApiKey::new("sk-head-secret").unwrap();
        let mut head = RequestHead::new();
        head.path("v2/chat")
            .query("alt", "sse")
            .key_query("key", &key)
            .key_header("authorization", "Bearer ", &key)
            .unwrap()
            .header("x-version", "2")
            .unwrap();
        assert_eq!(
            format!("{head:?}"),
            "RequestHead { path: \"v2/chat\", query: [(\"alt\", \"sse\"), (\"key\", \"[redacted]\")], \
             headers: {\"authorization\": Sensitive, \"x-version\": \"2\"} }"
        );
        assert_eq!(head.headers["authorization"], "Bearer sk-head-secret");
    }

    fn config_message(error: ModelError) -> String {
        match error {
            ModelError::Config(detail) => detail.as_str().to_string(),
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }

    #[test]
    fn bad_header_names_and_values_are_config_errors() {
        let mut head = RequestHead::new();
        let error = head.header("x bad", "v").unwrap_err();
        assert_eq!(
            config_message(error),
            "\"x bad\" is not an HTTP header name"
        );
        let error = head.header("x-ok", "line\nbreak").unwrap_err();
        assert_eq!(
            config_message(error),
            "the value of the header x-ok has characters a header cannot carry"
        );
        let key = ApiKey::new("sk-bell\u{7}").unwrap();
        let error = head.key_header("x-api-key", "", &key).unwrap_err();
        assert!(matches!(error, ModelError::Config(_)), "{error:?}");
        assert!(
            !format!("{error} {error:?}").contains("sk-bell"),
            "{error:?}"
        );
        assert!(head.headers.is_empty());
    }
}
