//! twr's [`ChatModel`] over a [genai](https://docs.rs/genai) client: the
//! client (its providers, keys, model mapping and service targets) you
//! already have, asked by twr's retry loop.
//!
//! ```no_run
//! use twr_genai::GenAi;
//! use twr_runtime::{Sections, Think};
//!
//! #[derive(Debug, Sections)]
//! struct Trip {
//!     plan: Vec<String>,
//!     days: u32,
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = genai::Client::new()?; // keys from the environment, as genai reads them
//! let model = GenAi::new(client, "gpt-4o-mini").stream(true);
//! let trip = Think::new(&model).run::<Trip>("Plan three days in Kyoto").await?;
//! println!("{:?}", trip.value);
//! # Ok(()) }
//! ```
//!
//! # What maps, and what genai hides
//!
//! - **Messages**: system, user and assistant messages, in order. A user
//!   message's images and documents go as genai `Binary` parts (base64 of
//!   the bytes, or the URL given) before the text; genai sends each the way
//!   its provider takes it, or fails with its own error (a
//!   [`ModelError::Config`]) for one the provider cannot take. An image URL
//!   is sent with the media type `image/*` unless you gave one.
//! - **Streaming**: with [`stream(true)`](GenAi::stream) the reply is read
//!   as it is written (`exec_chat_stream`); a stream that ends before
//!   genai's end event (the server's `[DONE]`) was cut short.
//! - **Usage** (prompt, completion, total, cached and cache-written prompt
//!   tokens), the **finish reason** (genai's `StopReason`, with the
//!   server's own word for the rest) and **reasoning text** (genai's
//!   `reasoning_content` and reasoning chunks).
//! - **Errors**, by kind ([`map_error`]): genai keeps the HTTP status *and*
//!   the headers of a failed call, read as twr reads every error response
//!   ([`twr_runtime::model::http_error`], shared with its own clients and
//!   the other adapters), so 429, 408 and 5xx are transient
//!   [`ModelError::Status`] with the server's `Retry-After` (or
//!   `retry-after-ms`) as [`retry_after`](ModelError::retry_after); 400
//!   and the other 4xx are not transient, and a 400 whose body names a
//!   content policy is [`ModelError::Refused`]. Connect failures and broken
//!   streams are transient.
//! - **Hidden by genai**: a successful response's headers, so
//!   [`Response::rate_limits`] stays empty (the `x-ratelimit-*` counts do
//!   not reach twr's `Limited`); an error event inside a stream carries no
//!   status (it is [`ModelError::Interrupted`], transient); and a timeout
//!   does not say its limit (it is [`ModelError::Interrupted`] too). A
//!   refusal the provider writes as text (OpenAI's `refusal` field) is not
//!   told apart by genai's response: it arrives as content, or as an empty
//!   reply.

#![warn(missing_docs)]

use std::fmt;

use futures_util::{Stream, StreamExt as _};
use genai::chat::{
    Binary, ChatMessage, ChatOptions, ChatRequest, ChatResponse, ChatStreamEvent, ContentPart,
    MessageContent, StopReason,
};
use genai::Client;
use serde_json::Value;
use twr_runtime::model::{
    http_error, until_deadline, within_deadline, Attachment, AttachmentKind, BoxFuture,
    ErrorDetail, Request, Response,
};
use twr_runtime::{ChatModel, Delta, FinishReason, Message, ModelError, Reply, Role, Usage};

/// A [`ChatModel`] that asks a genai [`Client`] for one model, with the
/// [`ChatOptions`] you give.
///
/// Cheap to clone (genai's client is shared).
#[derive(Clone)]
pub struct GenAi {
    client: Client,
    model: String,
    options: ChatOptions,
    stream: bool,
}

impl GenAi {
    /// Asks `model` (a name genai resolves: `"gpt-4o-mini"`,
    /// `"claude-sonnet-4-5"`, `"gemini-2.5-flash"`, `"ollama::qwen3"`, ...)
    /// through `client`.
    pub fn new(client: Client, model: impl Into<String>) -> Self {
        GenAi {
            client,
            model: model.into(),
            options: ChatOptions::default(),
            stream: false,
        }
    }

    /// The same model with these options (temperature, token limit, seed,
    /// reasoning effort, ...). Usage, reasoning and the stop reason of a
    /// streamed reply are always asked for: the loop reads them.
    pub fn with_options(mut self, options: ChatOptions) -> Self {
        self.options = options;
        self
    }

    /// Whether to stream replies (default `false`): the loop reads a
    /// streamed reply as it is written and stops one whose section is
    /// already wrong (see [`ChatModel::streams`]).
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// The client the adapter asks through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The options sent with every request: yours, with the captures the
    /// loop reads turned on.
    fn options(&self) -> ChatOptions {
        self.options
            .clone()
            .with_capture_usage(true)
            .with_capture_reasoning_content(true)
    }

    async fn whole(&self, request: ChatRequest) -> Result<Reply, ModelError> {
        let options = self.options();
        let response = self
            .client
            .exec_chat(self.model.as_str(), request, Some(&options))
            .await
            .map_err(map_error)?;
        reply(response)
    }

    async fn streamed(
        &self,
        request: ChatRequest,
    ) -> Result<impl Stream<Item = Result<Delta, ModelError>> + Send + 'static, ModelError> {
        let options = self.options();
        let response = self
            .client
            .exec_chat_stream(self.model.as_str(), request, Some(&options))
            .await
            .map_err(map_error)?;
        Ok(deltas(response.stream))
    }
}

impl fmt::Debug for GenAi {
    /// The model and the options that change replies; never the client
    /// (its auth resolver may hold a key) nor extra headers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenAi")
            .field("model", &self.model)
            .field("stream", &self.stream)
            .field("options", &self.request_options())
            .finish_non_exhaustive()
    }
}

impl ChatModel for GenAi {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            for message in request.messages {
                message
                    .check_attachments()
                    .map_err(ModelError::Attachment)?;
            }
            let body = chat_request(request.messages);
            let started = tokio::time::Instant::now();
            let deadline = request.deadline;
            if !self.stream {
                let reply = within_deadline(deadline, started, self.whole(body)).await??;
                return Ok(Response::from_reply(reply));
            }
            let deltas = within_deadline(deadline, started, self.streamed(body)).await??;
            Ok(Response::new(until_deadline(deadline, started, deltas)))
        })
    }

    fn name(&self) -> &str {
        &self.model
    }

    fn streams(&self) -> bool {
        self.stream
    }

    /// The options that change what the model answers, as JSON (genai's
    /// own serialization), without the captures, time limits and extra
    /// headers (which may hold credentials); `None` when there are none.
    fn request_options(&self) -> Option<Value> {
        let mut options = serde_json::to_value(&self.options).ok()?;
        let object = options.as_object_mut()?;
        object.retain(|name, value| {
            !value.is_null()
                && !name.starts_with("capture_")
                && !name.ends_with("_timeout")
                && name != "extra_headers"
                && name != "raw_frame_sink"
                && value != &Value::Array(Vec::new())
        });
        (!object.is_empty()).then_some(options)
    }
}

/// The conversation as a genai request (system messages stay in place:
/// genai moves them where its provider wants them).
fn chat_request(messages: &[Message]) -> ChatRequest {
    ChatRequest::new(messages.iter().map(message).collect())
}

fn message(message: &Message) -> ChatMessage {
    let text = message.content.as_str().to_string();
    match message.role {
        Role::System => ChatMessage::system(text),
        Role::Assistant => ChatMessage::assistant(text),
        Role::User => {
            let attachments = message.attachments();
            if attachments.is_empty() {
                return ChatMessage::user(text);
            }
            let mut parts: Vec<ContentPart> = attachments.iter().map(part).collect();
            if !text.is_empty() {
                parts.push(ContentPart::Text(text));
            }
            ChatMessage::user(MessageContent::from_parts(parts))
        }
    }
}

/// One attachment as a genai `Binary` part: base64 of the bytes, or the URL.
fn part(attachment: &Attachment) -> ContentPart {
    let media_type =
        attachment
            .media_type()
            .map(str::to_string)
            .unwrap_or_else(|| match attachment.kind() {
                AttachmentKind::Image => "image/*".to_string(),
                _ => "application/pdf".to_string(),
            });
    let binary = match (attachment.url(), attachment.to_base64()) {
        (Some(url), _) => Binary::from_url(media_type, url, None),
        (None, Some(base64)) => Binary::from_base64(media_type, base64, None),
        // An attachment is bytes or a URL; nothing else reaches here.
        (None, None) => Binary::from_base64(media_type, String::new(), None),
    };
    ContentPart::Binary(binary)
}

/// genai's usage in twr's counts.
fn usage(usage: &genai::chat::Usage) -> Usage {
    let count = |value: Option<i32>| value.map_or(0, |v| u64::try_from(v).unwrap_or(0));
    let details = usage.prompt_tokens_details.as_ref();
    let cached = count(details.and_then(|d| d.cached_tokens));
    let written = count(details.and_then(|d| d.cache_creation_tokens));
    let counts = Usage::new(count(usage.prompt_tokens), count(usage.completion_tokens))
        .with_cache(cached, written);
    match usage.total_tokens {
        Some(total) => counts.with_total(count(Some(total))),
        None => counts,
    }
}

/// genai's stop reason as twr's finish reason.
fn finish_reason(reason: &StopReason) -> FinishReason {
    match reason {
        StopReason::Completed(_) | StopReason::StopSequence(_) => FinishReason::Stop,
        StopReason::MaxTokens(_) => FinishReason::Length,
        StopReason::ContentFilter(_) => FinishReason::ContentFilter,
        StopReason::ToolCall(word) | StopReason::Other(word) => FinishReason::from_server(word),
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

fn reply(response: ChatResponse) -> Result<Reply, ModelError> {
    let finish = response.stop_reason.as_ref().map(finish_reason);
    let usage = usage(&response.usage);
    let reasoning = response.reasoning_content.clone().filter(|r| !r.is_empty());
    let content = response.into_first_text().unwrap_or_default();
    filtered(&content, finish.as_ref())?;
    let mut reply = Reply::text(content).with_usage(usage);
    if let Some(reasoning) = reasoning {
        reply = reply.with_reasoning(reasoning);
    }
    if let Some(reason) = finish {
        reply = reply.with_finish_reason(reason);
    }
    Ok(reply)
}

/// genai's stream events as deltas: content and reasoning chunks as they
/// come, `Done` at genai's end event (with the usage and stop reason it
/// captured). A stream without the end event ends without `Done`: the
/// caller reads it as cut short.
fn deltas(
    events: impl Stream<Item = genai::Result<ChatStreamEvent>> + Send + 'static,
) -> impl Stream<Item = Result<Delta, ModelError>> + Send + 'static {
    let events = Box::pin(events);
    futures_util::stream::unfold(Some((events, false)), |state| async move {
        let (mut events, mut wrote) = state?;
        loop {
            let event = match events.next().await? {
                Ok(event) => event,
                Err(error) => return Some((Err(map_error(error)), None)),
            };
            match event {
                ChatStreamEvent::Chunk(chunk) if !chunk.content.is_empty() => {
                    wrote |= !chunk.content.trim().is_empty();
                    return Some((Ok(Delta::Content(chunk.content)), Some((events, wrote))));
                }
                ChatStreamEvent::ReasoningChunk(chunk) if !chunk.content.is_empty() => {
                    return Some((Ok(Delta::Reasoning(chunk.content)), Some((events, wrote))));
                }
                ChatStreamEvent::End(end) => {
                    let finish = end.captured_stop_reason.as_ref().map(finish_reason);
                    if !wrote {
                        if let Err(refused) = filtered("", finish.as_ref()) {
                            return Some((Err(refused), None));
                        }
                    }
                    let done = Delta::Done {
                        usage: end.captured_usage.as_ref().map(usage).unwrap_or_default(),
                        finish_reason: finish,
                    };
                    return Some((Ok(done), None));
                }
                // Start, heartbeats, tool calls and thought signatures:
                // nothing the loop reads.
                _ => continue,
            }
        }
    })
}

/// A genai error as a [`ModelError`] of the same kind:
///
/// | genai | twr | transient |
/// |---|---|---|
/// | a failed call with a status | as [`http_error`] reads its status, headers and body (twr's one reading, shared with its own clients): 408, 429 and 5xx [`ModelError::Status`] with the server's `Retry-After`, a 400 whose body names a content policy [`ModelError::Refused`], a 429 for a used-up quota a 402 | 408, 429, 5xx |
/// | `WebModelCall`/`WebAdapterCall` of a reqwest connect error | [`ModelError::Connect`] | yes |
/// | other reqwest errors (timeouts, broken bodies) | [`ModelError::Interrupted`] | yes |
/// | `WebStream`, `ChatResponse` (an error event inside a stream) | [`ModelError::Interrupted`] | yes |
/// | `NoChatResponse` | [`ModelError::EmptyReply`] | yes |
/// | a body that is not the provider's JSON, `StreamParse`, `ChatResponseGeneration`, ... | [`ModelError::Decode`] | no |
/// | keys, resolvers, model mapping, unsupported roles or content, client set-up | [`ModelError::Config`] | no |
/// | anything else | [`ModelError::Other`] | no |
///
/// The genai error is kept as the source where the kind has one.
pub fn map_error(error: genai::Error) -> ModelError {
    use genai::webc;
    if let Some(status) = error.status() {
        let headers = error.headers();
        return http_error(
            status.as_u16(),
            |name| headers?.get(name)?.to_str().ok(),
            body_of(&error).as_bytes(),
            &[],
        );
    }
    let message = excerpt(&error.to_string());
    match error {
        genai::Error::WebModelCall { webc_error, .. }
        | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
            webc::Error::Reqwest(error) if error.is_connect() => {
                ModelError::Connect(ErrorDetail::with_source(message, error))
            }
            webc::Error::Reqwest(error) if error.is_decode() => {
                ModelError::Decode(ErrorDetail::with_source(message, error))
            }
            webc::Error::Reqwest(error) => {
                ModelError::Interrupted(ErrorDetail::with_source(message, error))
            }
            other => ModelError::Decode(ErrorDetail::with_source(message, other)),
        },
        genai::Error::WebStream { error, .. } => {
            ModelError::Interrupted(ErrorDetail::with_source(message, error))
        }
        error @ genai::Error::ChatResponse { .. } => {
            ModelError::Interrupted(ErrorDetail::with_source(message, error))
        }
        genai::Error::NoChatResponse { .. } => ModelError::EmptyReply,
        error @ (genai::Error::StreamParse { .. }
        | genai::Error::ChatResponseGeneration { .. }
        | genai::Error::InvalidJsonResponseElement { .. }
        | genai::Error::SerdeJson(_)
        | genai::Error::JsonValueExt(_)) => {
            ModelError::Decode(ErrorDetail::with_source(message, error))
        }
        error @ (genai::Error::ChatReqHasNoMessages { .. }
        | genai::Error::LastChatMessageIsNotUser { .. }
        | genai::Error::MessageRoleNotSupported { .. }
        | genai::Error::MessageContentTypeNotSupported { .. }
        | genai::Error::RequiresApiKey { .. }
        | genai::Error::NoAuthResolver { .. }
        | genai::Error::NoAuthData { .. }
        | genai::Error::ModelMapperFailed { .. }
        | genai::Error::Resolver { .. }
        | genai::Error::AdapterNotSupported { .. }
        | genai::Error::AdapterKindMismatch { .. }
        | genai::Error::ClientBuildFail { .. }) => {
            ModelError::Config(ErrorDetail::with_source(message, error))
        }
        other => ModelError::Other(Box::new(other)),
    }
}

/// The body of a failed call, as genai kept it.
fn body_of(error: &genai::Error) -> String {
    use genai::webc;
    match error {
        genai::Error::HttpError { body, .. } => body.clone(),
        genai::Error::WebModelCall { webc_error, .. }
        | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
            webc::Error::ResponseFailedStatus { body, .. } => body.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
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

    /// A genai error of a failed call, with its status, headers and body.
    fn failed(status: u16, body: &str, retry_after: Option<&str>) -> genai::Error {
        let mut headers = http::HeaderMap::new();
        if let Some(pause) = retry_after {
            headers.insert("retry-after", pause.parse().unwrap());
        }
        genai::Error::HttpError {
            status: http::StatusCode::from_u16(status).unwrap(),
            canonical_reason: String::new(),
            body: body.to_string(),
            headers: Box::new(headers),
        }
    }

    #[test]
    fn a_policy_400_is_a_refusal_and_other_bodies_keep_their_message() {
        let body = r#"{"error":{"message":"Blocked.","code":"content_policy_violation"}}"#;
        let refused = map_error(failed(400, body, None));
        assert!(
            matches!(&refused, ModelError::Refused(m) if m == "Blocked."),
            "{refused:?}"
        );
        let plain = map_error(failed(502, "bad gateway\n", Some("1")));
        assert_eq!(
            plain.to_string(),
            "the model server answered HTTP 502: bad gateway"
        );
        assert_eq!(plain.retry_after(), Some(Duration::from_secs(1)));
    }
}
