//! twr's [`ChatModel`] over a [rig](https://docs.rs/rig-core) completion
//! model: the model (its provider, key, base URL and transport) you already
//! built with rig, asked by twr's retry loop.
//!
//! ```no_run
//! use rig_core::providers::openai::OpenAIConfig;
//! use twr_rig::Rig;
//! use twr_runtime::{Sections, Think};
//!
//! #[derive(Debug, Sections)]
//! struct Trip {
//!     plan: Vec<String>,
//!     days: u32,
//! }
//!
//! # async fn run(http: rig_core::http_client::DynHttpClient) -> Result<(), Box<dyn std::error::Error>> {
//! // Any rig completion model: OpenAI's, Anthropic's, Gemini's, Ollama's...,
//! // on whichever transport your program sends through.
//! let openai = OpenAIConfig::from_env()?.connect(http);
//! let model = Rig::new(openai.chat("gpt-4o-mini")).stream(true);
//! let trip = Think::new(&model).run::<Trip>("Plan three days in Kyoto").await?;
//! println!("{:?}", trip.value);
//! # Ok(()) }
//! ```
//!
//! The adapter takes anything rig erases to a completion model
//! ([`DynModel<Completion>`](rig_core::DynModel), from a
//! [`Model`](rig_core::Model) of any provider and transport), so the
//! same model can serve a rig agent and twr's typed steps (see the
//! `agent_step` example).
//!
//! # Rust version
//!
//! rig-core 0.46 declares Rust 1.97.1, above the 1.88 the rest of twr
//! declares; this crate is apart so that a program without rig keeps the
//! older compiler. See the guide (`twr_runtime::guide::your_client`)
//! for moving to a newer rig.
//!
//! # What maps, and what rig hides
//!
//! - **Messages**: system, user and assistant messages, in order. A user
//!   message's images go as rig `Image` content and its documents as rig
//!   `Document` content (base64 of the bytes, or the URL given), before the
//!   text; rig's wire sends each the way its provider takes it, or fails
//!   with its own request error (a [`ModelError::Config`]) for one the
//!   provider cannot take. A media type rig has no name for (rig knows
//!   JPEG, PNG, GIF, WebP, HEIC, HEIF and SVG images; PDF, plain text, RTF,
//!   HTML, CSS, Markdown, CSV, XML, JavaScript and Python documents) fails
//!   with [`AttachmentError::Unsupported`] before anything is sent.
//! - **Options**: the request you give with [`Rig::with_request`]
//!   (temperature, token limit, generation options, provider options,
//!   additional parameters) is sent with every call, its conversation
//!   replaced by the loop's.
//! - **Streaming**: with [`stream(true)`](Rig::stream) the reply is read as
//!   it is written (rig's `stream`); a stream that ends before the
//!   provider ended it was cut short (rig's `Truncated`,
//!   [`ModelError::Interrupted`]).
//! - **Usage** (input, output, total, cached and cache-written input
//!   tokens), the **finish reason** (rig's `FinishReason`, with the
//!   provider's own word for the rest), **reasoning text** (rig's reasoning
//!   blocks and fragments), the model that answered and rig's **cost** of
//!   a whole reply when rig priced it.
//! - **Errors**, by kind ([`map_error`]): rig keeps a failed call's HTTP
//!   status, body *and* headers, so 408, 425, 429 and 5xx are transient
//!   [`ModelError::Status`] with the server's `Retry-After` (or
//!   `retry-after-ms`) as [`retry_after`](ModelError::retry_after); 400
//!   and the other 4xx are not, and an error rig marks as a refusal (a
//!   Gemini safety block, say) or a 400 whose body names a content policy
//!   is [`ModelError::Refused`]. Connect failures and broken streams are
//!   transient, and so is a stream rig dropped for sending nothing too long
//!   (rig's `Stalled`, a [`ModelError::Timeout`] of that idle time).
//! - **Hidden by rig**: a successful response's headers, so
//!   [`Response::rate_limits`] stays empty (the `x-ratelimit-*` counts do
//!   not reach twr's `Limited`); rig's transport error is a boxed error of
//!   its HTTP client, so a connect failure is told apart only by the
//!   `std::io::Error` in its source chain (else it is
//!   [`ModelError::Interrupted`], transient), and a timeout does not say
//!   its limit. A refusal the provider writes as text (OpenAI's `refusal`
//!   field) arrives as content: rig's Chat Completions wire reads it as
//!   answer text.

#![warn(missing_docs)]

use std::fmt;
use std::sync::Arc;

use futures_util::{Stream, StreamExt as _};
use rig_core::completion::message::{
    AssistantContent, DocumentData, DocumentMediaType, DocumentSourceKind, ImageMediaType,
    MimeType, UserContent,
};
use rig_core::completion::{
    CompletionRequest, CompletionResponse, FinishReason as RigFinishReason, Message as RigMessage,
    Usage as RigUsage,
};
use rig_core::error::ProviderError;
use rig_core::http_client;
use rig_core::operation::Completion;
use rig_core::streaming::{CompletionStream, Item, StreamEvent};
use rig_core::DynModel;
use serde_json::Value;
use twr_runtime::model::{
    http_error, until_deadline, within_deadline, Attachment, AttachmentError, AttachmentKind,
    BoxFuture, ErrorDetail, Request, Response,
};
use twr_runtime::{ChatModel, Delta, FinishReason, Message, ModelError, Reply, Role, Usage};

/// A [`ChatModel`] that asks a rig completion model, with the request
/// options you give.
///
/// Cheap to clone (rig's erased model is shared).
#[derive(Clone)]
pub struct Rig {
    model: DynModel<Completion>,
    name: String,
    template: CompletionRequest,
    stream: bool,
}

impl Rig {
    /// Asks `model`: a rig [`Model`](rig_core::Model) of any provider and
    /// transport (`openai.chat("gpt-4o-mini")`,
    /// `anthropic.completion("claude-sonnet-4-5")`, ...), or one already
    /// erased to a [`DynModel<Completion>`].
    pub fn new(model: impl Into<DynModel<Completion>>) -> Self {
        let model = model.into();
        let name = model.id().unwrap_or(model.name()).to_string();
        Rig {
            model,
            name,
            template: CompletionRequest::new(RigMessage::user("")),
            stream: false,
        }
    }

    /// The same model sending `template`'s options with every call: its
    /// temperature, token limit, generation and provider options,
    /// additional parameters and model override. Its conversation (and
    /// any tools or documents, which a typed step does not use) is
    /// replaced by the loop's.
    ///
    /// ```no_run
    /// # fn f(model: rig_core::DynModel<rig_core::operation::Completion>) {
    /// use rig_core::completion::CompletionRequest;
    /// let options = CompletionRequest::new("").temperature(0.2).max_tokens(800);
    /// let model = twr_rig::Rig::new(model).with_request(options);
    /// # }
    /// ```
    pub fn with_request(mut self, template: CompletionRequest) -> Self {
        if let Some(model) = &template.model {
            self.name.clone_from(model);
        }
        self.template = template;
        self
    }

    /// Whether to stream replies (default `false`): the loop reads a
    /// streamed reply as it is written and stops one whose section is
    /// already wrong (see [`ChatModel::streams`]).
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// The rig model the adapter asks.
    pub fn model(&self) -> &DynModel<Completion> {
        &self.model
    }

    /// The request for `messages`: the template's options, the loop's
    /// conversation.
    fn request(&self, messages: Vec<RigMessage>) -> CompletionRequest {
        let mut request = self.template.clone();
        // rig 0.45 shares each message (`Arc`), so a cloned request copies
        // pointers.
        request.chat_history = messages.into_iter().map(Arc::new).collect();
        request.tools.clear();
        request.documents.clear();
        request.tool_choice = None;
        request
    }

    /// Opens the stream and waits for its first item, so that a failed
    /// call (a 429, a 400) is the call's error, as with a whole reply.
    async fn streamed(
        &self,
        request: CompletionRequest,
    ) -> Result<impl Stream<Item = Result<Delta, ModelError>> + Send + 'static, ModelError> {
        let mut stream = self.model.stream(request).map_err(map_error)?;
        let first = match stream.next().await {
            Some(Err(error)) => return Err(map_error(error)),
            other => other,
        };
        Ok(deltas(first, stream))
    }
}

impl fmt::Debug for Rig {
    /// The provider, the model and the options that change replies; never
    /// the transport (it may hold a key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rig")
            .field("provider", &self.model.name())
            .field("model", &self.name)
            .field("stream", &self.stream)
            .field("options", &self.request_options())
            .finish_non_exhaustive()
    }
}

impl ChatModel for Rig {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let mut messages = Vec::with_capacity(request.messages.len());
            for message in request.messages {
                message
                    .check_attachments()
                    .map_err(ModelError::Attachment)?;
                messages.push(self::message(message)?);
            }
            let body = self.request(messages);
            let started = tokio::time::Instant::now();
            let deadline = request.deadline;
            if !self.stream {
                let response =
                    within_deadline(deadline, started, self.whole_response(body)).await??;
                return Ok(response);
            }
            let deltas = within_deadline(deadline, started, self.streamed(body)).await??;
            Ok(Response::new(until_deadline(deadline, started, deltas)))
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn streams(&self) -> bool {
        self.stream
    }

    /// The options that change what the model answers, as JSON: the
    /// template's temperature, token limit, generation options, provider
    /// options and additional parameters that are set; `None` when none is.
    fn request_options(&self) -> Option<Value> {
        let mut options = serde_json::to_value(&self.template).ok()?;
        let object = options.as_object_mut()?;
        object.retain(|name, value| {
            !value.is_null()
                && !matches!(
                    name.as_str(),
                    "chat_history"
                        | "documents"
                        | "tools"
                        | "tool_choice"
                        | "model"
                        // Where a provider may cache a prefix: it changes
                        // the price, not the answer.
                        | "cache_points"
                )
                && value != &Value::Array(Vec::new())
                && value != &Value::Object(serde_json::Map::new())
        });
        (!object.is_empty()).then_some(options)
    }
}

impl Rig {
    /// A whole reply as a response, with the model that answered and
    /// rig's cost of it when rig priced it.
    async fn whole_response(
        &self,
        request: CompletionRequest,
    ) -> Result<Response<'static>, ModelError> {
        let response = self.model.call(request).await.map_err(map_error)?;
        let model = response.model().map(str::to_string);
        let cost = response.usage.cost.as_ref().map(|cost| cost.total);
        let mut answered = Response::from_reply(reply(response)?);
        if let Some(model) = model {
            answered = answered.with_model(model);
        }
        if let Some(cost) = cost {
            answered = answered.with_cost(cost);
        }
        Ok(answered)
    }
}

/// One twr message as a rig message.
fn message(message: &Message) -> Result<RigMessage, ModelError> {
    let text = message.content.as_str().to_string();
    Ok(match message.role {
        Role::System => RigMessage::system(text),
        Role::Assistant => RigMessage::assistant(text),
        Role::User => {
            let attachments = message.attachments();
            if attachments.is_empty() {
                return Ok(RigMessage::user(text));
            }
            let mut content = attachments
                .iter()
                .map(user_content)
                .collect::<Result<Vec<_>, _>>()
                .map_err(ModelError::Attachment)?;
            if !text.is_empty() {
                content.push(UserContent::text(text));
            }
            RigMessage::User { content }
        }
    })
}

/// The media types rig names, for an error that lists them.
const IMAGE_TYPES: &[&str] = &[
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "image/heic",
    "image/heif",
    "image/svg+xml",
];
const DOCUMENT_TYPES: &[&str] = &[
    "application/pdf",
    "text/plain",
    "text/rtf",
    "text/html",
    "text/css",
    "text/markdown",
    "text/csv",
    "text/xml",
    "text/x-javascript",
    "application/x-javascript",
    "text/x-python",
    "application/x-python",
];

/// One attachment as rig user content: base64 of the bytes, or the URL.
fn user_content(attachment: &Attachment) -> Result<UserContent, AttachmentError> {
    let source = match (attachment.url(), attachment.to_base64()) {
        (Some(url), _) => DocumentSourceKind::url(url),
        (None, Some(base64)) => DocumentSourceKind::base64(base64),
        (None, None) => DocumentSourceKind::Unknown,
    };
    let media_type = attachment.media_type();
    let unsupported = |accepted: &'static [&'static str]| AttachmentError::Unsupported {
        provider: "rig",
        kind: attachment.kind(),
        media_type: media_type.unwrap_or_default().to_string(),
        accepted,
    };
    match attachment.kind() {
        AttachmentKind::Image => {
            let media_type = match media_type {
                None => None,
                Some(given) => Some(
                    ImageMediaType::from_mime_type(given)
                        .ok_or_else(|| unsupported(IMAGE_TYPES))?,
                ),
            };
            Ok(match source {
                DocumentSourceKind::Url(url) => UserContent::image_url(url, media_type, None),
                source => UserContent::Image(rig_core::completion::message::Image {
                    data: source,
                    media_type,
                    ..Default::default()
                }),
            })
        }
        _ => {
            let media_type = match media_type {
                None => None,
                Some(given) => Some(
                    DocumentMediaType::from_mime_type(given)
                        .ok_or_else(|| unsupported(DOCUMENT_TYPES))?,
                ),
            };
            Ok(UserContent::Document(
                rig_core::completion::message::Document {
                    // A file's bytes or URL, never text of its own: rig's
                    // `DocumentData::Text` is sent as text on every wire.
                    data: DocumentData::File(source),
                    media_type,
                    additional_params: None,
                },
            ))
        }
    }
}

/// rig's usage in twr's counts.
fn usage(usage: &RigUsage) -> Usage {
    let count = |value: Option<u64>| value.unwrap_or(0);
    let counts = Usage::new(count(usage.input_tokens), count(usage.output_tokens)).with_cache(
        count(usage.cached_input_tokens),
        count(usage.cache_creation_input_tokens),
    );
    match usage.total_tokens {
        Some(total) => counts.with_total(total),
        None => counts,
    }
}

/// rig's finish reason as twr's.
fn finish_reason(reason: &RigFinishReason) -> FinishReason {
    match reason {
        RigFinishReason::Stop => FinishReason::Stop,
        RigFinishReason::Length => FinishReason::Length,
        RigFinishReason::ContentFilter => FinishReason::ContentFilter,
        RigFinishReason::ToolCalls => FinishReason::Other("tool_calls".into()),
        RigFinishReason::Other(word) => FinishReason::from_server(word),
        // rig's enum may gain reasons; the server's word is in its Debug.
        other => FinishReason::Other(format!("{other:?}")),
    }
}

/// A content filter that stopped the reply before any text is a refusal:
/// asking again the same way meets the same filter.
fn filtered(content: &str, finish_reason: Option<&FinishReason>) -> Result<(), ModelError> {
    if finish_reason == Some(&FinishReason::ContentFilter) && content.trim().is_empty() {
        return Err(ModelError::Refused(
            "the provider's content filter stopped the reply".into(),
        ));
    }
    Ok(())
}

/// The text and reasoning blocks of a whole reply, in order.
fn reply(response: CompletionResponse) -> Result<Reply, ModelError> {
    let finish = response.finish_reason().as_ref().map(finish_reason);
    let usage = usage(&response.usage);
    let mut content = String::new();
    let mut reasoning = String::new();
    for block in &response.choice {
        match block {
            AssistantContent::Text(text) => content.push_str(text.text()),
            AssistantContent::Reasoning(thought) => reasoning.push_str(&thought.text),
            _ => {}
        }
    }
    filtered(&content, finish.as_ref())?;
    let mut reply = Reply::text(content).with_usage(usage);
    if !reasoning.is_empty() {
        reply = reply.with_reasoning(reasoning);
    }
    if let Some(reason) = finish {
        reply = reply.with_finish_reason(reason);
    }
    Ok(reply)
}

/// rig's stream items as deltas: text and reasoning fragments as they
/// come, then `Done` with the usage and finish reason of the reply rig
/// folded. A reply the provider did not end is rig's `Truncated`, an
/// interrupted stream.
fn deltas(
    first: Option<Result<Item<StreamEvent>, ProviderError>>,
    stream: CompletionStream,
) -> impl Stream<Item = Result<Delta, ModelError>> + Send + 'static {
    struct State {
        first: Option<Result<Item<StreamEvent>, ProviderError>>,
        stream: CompletionStream,
        wrote: bool,
    }
    let state = State {
        first,
        stream,
        wrote: false,
    };
    futures_util::stream::unfold(Some(state), |state| async move {
        let mut state = state?;
        loop {
            let item = match state.first.take() {
                Some(item) => Some(item),
                None => state.stream.next().await,
            };
            match item {
                Some(Ok(Item::Event(StreamEvent::Text { text, .. }))) if !text.is_empty() => {
                    state.wrote |= !text.trim().is_empty();
                    return Some((Ok(Delta::Content(text)), Some(state)));
                }
                Some(Ok(Item::Event(StreamEvent::Reasoning { text, .. }))) if !text.is_empty() => {
                    return Some((Ok(Delta::Reasoning(text)), Some(state)));
                }
                // Starts, ends, tool-call arguments, payloads rig does not
                // model: nothing the loop reads.
                Some(Ok(_)) => continue,
                Some(Err(error)) => return Some((Err(map_error(error)), None)),
                None => {
                    let response = match state.stream.finish().await {
                        Ok(response) => response,
                        Err(error) => return Some((Err(map_error(error)), None)),
                    };
                    let finish = response.finish_reason().as_ref().map(finish_reason);
                    if !state.wrote {
                        if let Err(refused) = filtered("", finish.as_ref()) {
                            return Some((Err(refused), None));
                        }
                    }
                    let done = Delta::Done {
                        usage: usage(&response.usage),
                        finish_reason: finish,
                    };
                    return Some((Ok(done), None));
                }
            }
        }
    })
}

/// A rig error as a [`ModelError`] of the same kind:
///
/// | rig | twr | transient |
/// |---|---|---|
/// | a reply rig marks as a refusal (any status) | [`ModelError::Refused`] | no |
/// | a failed call with a status | as [`http_error`] reads its status, headers and body (twr's one reading, shared with its own clients): 408, 429 and 5xx [`ModelError::Status`] with the server's `Retry-After`, a 400 whose body names a content policy [`ModelError::Refused`], a 429 for a used-up quota a 402, other statuses (`InvalidAuthentication` is a 401 or 403) [`ModelError::Status`] | 408, 429, 5xx |
/// | a provider's error without a status, marked transient | [`ModelError::Interrupted`] | yes |
/// | a provider's error without a status, `Provider` | [`ModelError::Other`] | no |
/// | `Http`: an `io::Error` of a refused or unreachable connection in its sources | [`ModelError::Connect`] | yes |
/// | `Http`: other transport failures, `StreamEnded`; `Truncated` | [`ModelError::Interrupted`] | yes |
/// | `Stalled`: a stream that sent nothing for its idle limit | [`ModelError::Timeout`] of that limit | yes |
/// | `Http`: protocol, header and content-type errors; `Json`, `Response` | [`ModelError::Decode`] | no |
/// | `Request`, `UnsupportedOption`, `Url` (what the wire cannot send) | [`ModelError::Config`] | no |
/// | anything else | [`ModelError::Other`] | no |
///
/// The rig error is kept as the source where the kind has one.
pub fn map_error(error: ProviderError) -> ModelError {
    if let Some(response) = error.provider_response() {
        if response.refusal {
            return ModelError::Refused(excerpt(&server_message(&response.body)));
        }
        if let Some(status) = response.status {
            return status_error(status.as_u16(), &response.body, response.headers.as_ref());
        }
        let message = excerpt(&server_message(&response.body));
        if error.is_retryable() {
            return ModelError::Interrupted(ErrorDetail::with_source(message, error));
        }
        return ModelError::Other(Box::new(error));
    }
    let message = excerpt(&error.to_string());
    match &error {
        ProviderError::Http(http) => match &**http {
            http_client::Error::Instance(source) if refused_connection(source.as_ref()) => {
                ModelError::Connect(ErrorDetail::with_source(message, error))
            }
            http_client::Error::Instance(_) | http_client::Error::StreamEnded => {
                ModelError::Interrupted(ErrorDetail::with_source(message, error))
            }
            http_client::Error::InvalidStatusCodeWithDetails {
                status,
                body,
                headers,
            } => status_error(status.as_u16(), body, Some(headers)),
            _ => ModelError::Decode(ErrorDetail::with_source(message, error)),
        },
        ProviderError::Truncated => {
            ModelError::Interrupted(ErrorDetail::with_source(message, error))
        }
        // rig 0.45: a stream that sent nothing for `idle` was dropped.
        ProviderError::Stalled(idle) => ModelError::Timeout(*idle),
        ProviderError::Json(_) | ProviderError::Response(_) => {
            ModelError::Decode(ErrorDetail::with_source(message, error))
        }
        ProviderError::Request(_) | ProviderError::UnsupportedOption(_) | ProviderError::Url(_) => {
            ModelError::Config(ErrorDetail::with_source(message, error))
        }
        _ if error.is_retryable() => {
            ModelError::Interrupted(ErrorDetail::with_source(message, error))
        }
        _ => ModelError::Other(Box::new(error)),
    }
}

/// Whether a transport error's sources hold the `io::Error` of a
/// connection that was refused or could not be made.
fn refused_connection(error: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind;
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
            ) {
                return true;
            }
        }
        current = error.source();
    }
    false
}

/// The server's message in an `{"error": {"message": ...}}` body, else
/// the body.
fn server_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .as_ref()
        .and_then(|json| json.get("error"))
        .and_then(|error| error.get("message").or(Some(error)))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| body.trim().to_string())
}

/// A failed call's status as a [`ModelError`], as twr reads every error
/// response ([`http_error`]: the server's message, `Retry-After`, a refusal
/// for a 400 that names a content policy, a 402 for a used-up quota).
fn status_error(status: u16, body: &str, headers: Option<&http::HeaderMap>) -> ModelError {
    http_error(
        status,
        |name| headers?.get(name)?.to_str().ok(),
        body.as_bytes(),
        &[],
    )
}

/// At most 500 characters of server text, for an error message.
fn excerpt(text: &str) -> String {
    const MAX: usize = 500;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn errors_by_kind() {
        let refused = map_error(ProviderError::from_http_response(
            http::StatusCode::BAD_REQUEST,
            r#"{"error":{"message":"Blocked.","code":"content_policy_violation"}}"#,
        ));
        assert!(
            matches!(&refused, ModelError::Refused(m) if m == "Blocked."),
            "{refused:?}"
        );
        let marked = ProviderError::ProviderResponse(
            rig_core::ProviderResponseError::without_status(r#"{"error":{"message":"SAFETY"}}"#)
                .with_refusal(true),
        );
        assert!(matches!(map_error(marked), ModelError::Refused(m) if m == "SAFETY"));
        let overloaded = map_error(ProviderError::from_http_response(
            http::StatusCode::BAD_GATEWAY,
            "bad gateway\n",
        ));
        assert_eq!(
            overloaded.to_string(),
            "the model server answered HTTP 502: bad gateway"
        );
        assert!(overloaded.is_transient());
        let cut = map_error(ProviderError::Truncated);
        assert!(matches!(cut, ModelError::Interrupted(_)) && cut.is_transient());
        let stalled = map_error(ProviderError::Stalled(Duration::from_secs(90)));
        assert!(
            matches!(stalled, ModelError::Timeout(idle) if idle == Duration::from_secs(90))
                && stalled.is_transient(),
            "{stalled:?}"
        );
        let request = map_error(ProviderError::request("no such option"));
        assert!(matches!(request, ModelError::Config(_)) && !request.is_transient());
        let body = map_error(ProviderError::Response("not JSON".into()));
        assert!(matches!(body, ModelError::Decode(_)) && !body.is_transient());
        let refused_io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let connect = map_error(ProviderError::Http(std::sync::Arc::new(
            http_client::Error::Instance(Box::new(refused_io)),
        )));
        assert!(matches!(connect, ModelError::Connect(_)) && connect.is_transient());
    }

    #[test]
    fn media_types_rig_cannot_name_fail_before_sending() {
        let avif = Attachment::image(b"....ftypavif".to_vec(), "image/avif");
        let error = user_content(&avif).unwrap_err();
        assert!(
            matches!(&error, AttachmentError::Unsupported { provider: "rig", media_type, .. } if media_type == "image/avif"),
            "{error:?}"
        );
        let pdf = Attachment::document(b"%PDF-1.4 ...".to_vec(), "application/pdf");
        match user_content(&pdf).unwrap() {
            UserContent::Document(document) => {
                assert_eq!(document.media_type, Some(DocumentMediaType::PDF));
                assert!(matches!(
                    document.data,
                    DocumentData::File(DocumentSourceKind::Base64(_))
                ));
            }
            other => panic!("{other:?}"),
        }
    }
}
