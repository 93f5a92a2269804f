//! twr's [`ChatModel`] over an [async-openai](https://docs.rs/async-openai)
//! client: the client (and its configuration: API key, base URL, Azure,
//! headers, middleware) you already have, asked by twr's retry loop.
//!
//! ```no_run
//! use async_openai::{config::OpenAIConfig, Client};
//! use twr_async_openai::AsyncOpenAi;
//! use twr_runtime::{Sections, Think};
//!
//! #[derive(Debug, Sections)]
//! struct Trip {
//!     plan: Vec<String>,
//!     days: u32,
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::with_config(OpenAIConfig::new().with_api_key("sk-..."));
//! let model = AsyncOpenAi::new(client, "gpt-4o-mini").stream(true);
//! let trip = Think::new(&model).run::<Trip>("Plan three days in Kyoto").await?;
//! println!("{:?}", trip.value);
//! # Ok(()) }
//! ```
//!
//! # What maps, and what async-openai hides
//!
//! - **Messages**: system, user and assistant messages, in order. A user
//!   message's images go as `image_url` parts (a `data:` URL of the bytes,
//!   or the URL given) and its documents as `file` parts with `file_data`,
//!   before the text, as twr's own OpenAI client sends them. A document
//!   *URL* cannot be written in the Chat Completions API: it fails with
//!   [`AttachmentError::NoUrls`] before anything is sent, as does an
//!   attachment whose bytes are not what its media type says.
//! - **Streaming**: with [`stream(true)`](AsyncOpenAi::stream) the reply is
//!   read as it is written (`create_stream_byot`), so the loop can stop a
//!   reply whose section is already wrong; dropping the stream stops
//!   async-openai's reading task and closes the connection.
//! - **Usage** (prompt, completion, total, and cached prompt tokens), the
//!   **finish reason** (any word the server sends, not only the five
//!   async-openai's enum knows) and **reasoning text** (`reasoning_content`
//!   or `reasoning`, which async-openai's own response types drop): the
//!   adapter reads the replies with its own types through async-openai's
//!   `byot` methods, so nothing the server sends is lost.
//! - **Errors**, by kind ([`map_error`]): an `ApiError` carries the HTTP
//!   status (since async-openai 0.43, `ApiErrorResponse::status_code`), and
//!   its meaning is twr's one reading of an error response
//!   ([`twr_runtime::model::http_error`], as twr's own clients and the
//!   other adapters read it): 429 and 5xx are [`ModelError::Status`] and
//!   transient, 400 and the other 4xx are not; a 400 whose code names a
//!   content policy is [`ModelError::Refused`], as is a reply that is a
//!   `refusal`; a 429 for a used-up quota is a 402. Connect failures and
//!   broken streams are transient. The client's API key is replaced by
//!   `[redacted]` wherever the server's text quotes it.
//! - **Grammars**: told its server's [`Dialect`] with
//!   [`grammar`](AsyncOpenAi::grammar), the adapter sends a constrained
//!   attempt's grammar in the request's body, in the fields twr's own
//!   OpenAI-compatible client writes (the request is sent as JSON through
//!   async-openai's `byot` methods, so any field goes). Without a dialect
//!   it sends none and says so ([`ChatModel::takes_grammar`] is `None`),
//!   so the ledger never marks an attempt constrained that was not.
//! - **Hidden by async-openai**: the response headers. It reads an error
//!   response's body and drops its headers, so a 429's `Retry-After`
//!   (and OpenAI's `x-ratelimit-*` counts) never reach the adapter: the
//!   error's [`retry_after`](ModelError::retry_after) is `None` and twr's
//!   [`RetryPolicy`](twr_runtime::RetryPolicy) waits its own backoff. The
//!   same goes for a successful response's rate-limit headers
//!   ([`Response::rate_limits`] stays empty). A timeout of async-openai's
//!   reqwest client does not say its limit; it is reported as
//!   [`ModelError::Interrupted`] (transient), with reqwest's error as the
//!   source.

#![warn(missing_docs)]

use std::fmt;

use async_openai::config::{Config, OpenAIConfig};
use async_openai::error::{ApiErrorResponse, OpenAIError, StreamError};
use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestMessageContentPartFile,
    ChatCompletionRequestMessageContentPartImage, ChatCompletionRequestMessageContentPartText,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestSystemMessageContent,
    ChatCompletionRequestUserMessage, ChatCompletionRequestUserMessageContent,
    ChatCompletionRequestUserMessageContentPart, ChatCompletionStreamOptions,
    CreateChatCompletionRequest, FileObject, ImageUrl,
};
use async_openai::Client;
use futures_util::{Stream, StreamExt as _};
use serde::Deserialize;
use serde_json::Value;
use twr_runtime::grammar::{Dialect, Format};
use twr_runtime::model::{
    http_error, until_deadline, within_deadline, Attachment, AttachmentError, AttachmentKind,
    BoxFuture, ErrorDetail, Request, Response,
};
use twr_runtime::{ChatModel, Delta, FinishReason, Message, ModelError, Reply, Role, Usage};

/// The provider named in attachment errors.
const PROVIDER: &str = "the OpenAI Chat Completions API (async-openai)";

/// A [`ChatModel`] that asks an async-openai [`Client`]'s Chat Completions
/// endpoint (`client.chat()`), with the options of a request you give.
///
/// Cheap to clone when the client is (async-openai's is).
#[derive(Clone)]
pub struct AsyncOpenAi<C: Config = OpenAIConfig> {
    client: Client<C>,
    /// The options sent with every request; its `messages`, `stream` and
    /// `stream_options` are the adapter's to fill.
    template: CreateChatCompletionRequest,
    stream: bool,
    stream_usage: bool,
    /// How the server takes a grammar; `None`: it is never sent one.
    grammar: Option<Dialect>,
}

impl<C: Config> AsyncOpenAi<C> {
    /// Asks `model` through `client`, with no other options.
    pub fn new(client: Client<C>, model: impl Into<String>) -> Self {
        let template = CreateChatCompletionRequest {
            model: model.into(),
            ..CreateChatCompletionRequest::default()
        };
        AsyncOpenAi::with_request(client, template)
    }

    /// Asks through `client` with the options of `template` (its model,
    /// temperature, token limit, seed, response format, ...), built with
    /// async-openai's `CreateChatCompletionRequestArgs` as usual. Its
    /// `messages` are ignored (each call sends its own), and so are
    /// `stream` and `stream_options`: see [`stream`](Self::stream).
    pub fn with_request(client: Client<C>, template: CreateChatCompletionRequest) -> Self {
        let template = CreateChatCompletionRequest {
            messages: Vec::new(),
            stream: None,
            stream_options: None,
            ..template
        };
        AsyncOpenAi {
            client,
            template,
            stream: false,
            stream_usage: true,
            grammar: None,
        }
    }

    /// Whether to stream replies (default `false`): the loop reads a
    /// streamed reply as it is written and stops one whose section is
    /// already wrong (see [`ChatModel::streams`]).
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Whether a streamed request asks for the token counts
    /// (`stream_options.include_usage`, default `true`). Turn it off for a
    /// server that refuses the option.
    pub fn stream_usage(mut self, include: bool) -> Self {
        self.stream_usage = include;
        self
    }

    /// Sends a constrained attempt's grammar the way `dialect` says its
    /// server takes one (`grammar` for llama.cpp, `response_format` with a
    /// strict JSON schema for OpenAI's structured outputs, ...), as twr's own
    /// [`OpenAiCompatible::grammar`](twr_runtime::OpenAiCompatible) does;
    /// the loop then constrains the last attempt of a run by default. Not
    /// set: no grammar is ever sent.
    pub fn grammar(mut self, dialect: Dialect) -> Self {
        self.grammar = Some(dialect);
        self
    }

    /// The client the adapter asks through.
    pub fn client(&self) -> &Client<C> {
        &self.client
    }

    /// The request this adapter sends for `messages`.
    pub fn request_for(
        &self,
        messages: &[Message],
    ) -> Result<CreateChatCompletionRequest, ModelError> {
        let mut request = self.template.clone();
        request.messages = messages
            .iter()
            .map(message)
            .collect::<Result<_, _>>()
            .map_err(ModelError::Attachment)?;
        if self.stream {
            request.stream = Some(true);
            if self.stream_usage {
                request.stream_options = Some(ChatCompletionStreamOptions {
                    include_usage: Some(true),
                    ..ChatCompletionStreamOptions::default()
                });
            }
        }
        Ok(request)
    }

    /// The request body for `request`: [`request_for`](Self::request_for)'s
    /// request as JSON, with the request's grammar in the fields of the
    /// adapter's [`grammar`](Self::grammar) dialect when it has one.
    fn body_for(&self, request: &Request<'_>) -> Result<Value, ModelError> {
        let mut body =
            serde_json::to_value(self.request_for(request.messages)?).map_err(|error| {
                ModelError::Config(ErrorDetail::with_source("the request body", error))
            })?;
        if let (Some(dialect), Some(grammar), Some(object)) =
            (self.grammar, request.grammar(), body.as_object_mut())
        {
            let (_, fields) = dialect.request_fields(grammar);
            if let Value::Object(fields) = fields {
                object.extend(fields);
            }
        }
        Ok(body)
    }

    /// The client's API key, replaced in any server text an error quotes.
    fn secrets(&self) -> Vec<String> {
        use secrecy::ExposeSecret as _;
        vec![self.client.config().api_key().expose_secret().to_string()]
    }

    async fn whole(&self, body: Value) -> Result<Reply, ModelError> {
        let reply: Completion = self
            .client
            .chat()
            .create_byot(&body)
            .await
            .map_err(|error| map_error_redacting(error, &self.secrets()))?;
        reply.into_reply()
    }

    async fn streamed(
        &self,
        body: Value,
    ) -> Result<impl Stream<Item = Result<Delta, ModelError>> + Send + 'static, ModelError> {
        let secrets = self.secrets();
        let chunks = self
            .client
            .chat()
            .create_stream_byot::<_, Completion>(&body)
            .await
            .map_err(|error| map_error_redacting(error, &secrets))?;
        Ok(deltas(chunks, secrets))
    }
}

impl<C: Config> fmt::Debug for AsyncOpenAi<C> {
    /// The model and the options; never the client's configuration (it
    /// holds the API key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncOpenAi")
            .field("model", &self.template.model)
            .field("stream", &self.stream)
            .field("options", &self.request_options())
            .finish_non_exhaustive()
    }
}

impl<C: Config + Send + Sync> ChatModel for AsyncOpenAi<C> {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            for message in request.messages {
                message
                    .check_attachments()
                    .map_err(ModelError::Attachment)?;
            }
            let body = self.body_for(&request)?;
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
        &self.template.model
    }

    fn streams(&self) -> bool {
        self.stream
    }

    /// The [format](Dialect::format) of the adapter's
    /// [`grammar`](AsyncOpenAi::grammar) dialect; `None` without one.
    fn takes_grammar(&self) -> Option<Format> {
        self.grammar.map(Dialect::format)
    }

    /// The template's options as JSON, without the model, the messages and
    /// the streaming fields; `None` when there are none.
    fn request_options(&self) -> Option<Value> {
        let mut options = serde_json::to_value(&self.template).ok()?;
        let object = options.as_object_mut()?;
        for field in ["model", "messages", "stream", "stream_options"] {
            object.remove(field);
        }
        (!object.is_empty()).then_some(options)
    }
}

/// One twr message as async-openai's. Attachments only in a user message
/// (checked before), each before the text.
fn message(message: &Message) -> Result<ChatCompletionRequestMessage, AttachmentError> {
    let text = message.content.as_str().to_string();
    Ok(match message.role {
        Role::System => ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
            content: ChatCompletionRequestSystemMessageContent::Text(text),
            name: None,
        }),
        Role::Assistant => {
            ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                content: Some(ChatCompletionRequestAssistantMessageContent::Text(text)),
                ..ChatCompletionRequestAssistantMessage::default()
            })
        }
        Role::User => {
            let attachments = message.attachments();
            let content = if attachments.is_empty() {
                ChatCompletionRequestUserMessageContent::Text(text)
            } else {
                let mut parts = Vec::with_capacity(attachments.len() + 1);
                let mut documents = 0;
                for attachment in attachments {
                    parts.push(part(attachment, &mut documents)?);
                }
                if !text.is_empty() {
                    parts.push(ChatCompletionRequestUserMessageContentPart::Text(
                        ChatCompletionRequestMessageContentPartText {
                            text,
                            prompt_cache_breakpoint: None,
                        },
                    ));
                }
                ChatCompletionRequestUserMessageContent::Array(parts)
            };
            ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
                content,
                name: None,
            })
        }
    })
}

/// The content part of one attachment; documents are named
/// `document-1.pdf`, `document-2.pdf`, ... (the API asks a file for a name).
fn part(
    attachment: &Attachment,
    documents: &mut usize,
) -> Result<ChatCompletionRequestUserMessageContentPart, AttachmentError> {
    let kind = attachment.kind();
    let url = match (kind, attachment.url()) {
        (AttachmentKind::Image, Some(url)) => Some(url.to_string()),
        (_, Some(_)) => {
            return Err(AttachmentError::NoUrls {
                provider: PROVIDER,
                kind,
            })
        }
        (_, None) => None,
    };
    let data_url = url.or_else(|| attachment.to_data_url());
    let Some(data_url) = data_url else {
        return Err(AttachmentError::NoUrls {
            provider: PROVIDER,
            kind,
        });
    };
    Ok(match kind {
        AttachmentKind::Image => ChatCompletionRequestUserMessageContentPart::ImageUrl(
            ChatCompletionRequestMessageContentPartImage {
                image_url: ImageUrl {
                    url: data_url,
                    detail: None,
                },
                prompt_cache_breakpoint: None,
            },
        ),
        _ => {
            *documents += 1;
            let extension = match attachment.media_type() {
                Some("application/pdf") => ".pdf",
                _ => "",
            };
            ChatCompletionRequestUserMessageContentPart::File(
                ChatCompletionRequestMessageContentPartFile {
                    file: FileObject {
                        file_data: Some(data_url),
                        file_id: None,
                        filename: Some(format!("document-{documents}{extension}")),
                    },
                    prompt_cache_breakpoint: None,
                },
            )
        }
    })
}

/// A whole response or one stream chunk, read with the adapter's own types
/// (async-openai's drop `reasoning_content` and refuse unknown finish
/// reasons).
#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<UsageBody>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<MessageBody>,
    #[serde(default)]
    delta: Option<MessageBody>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct MessageBody {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct UsageBody {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl UsageBody {
    fn counts(&self) -> Usage {
        let cached = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|details| details.cached_tokens)
            .unwrap_or(0);
        let usage = Usage::new(self.prompt_tokens, self.completion_tokens).with_cache(cached, 0);
        match self.total_tokens {
            Some(total) => usage.with_total(total),
            None => usage,
        }
    }
}

impl MessageBody {
    /// The reasoning text: `reasoning_content`, else `reasoning` (servers
    /// send one of the two; one that sends both sends the same text).
    fn reasoning(&mut self) -> Option<String> {
        let first = self.reasoning_content.take().filter(|r| !r.is_empty());
        first.or_else(|| self.reasoning.take().filter(|r| !r.is_empty()))
    }
}

impl Completion {
    fn into_reply(self) -> Result<Reply, ModelError> {
        let usage = self
            .usage
            .as_ref()
            .map(UsageBody::counts)
            .unwrap_or_default();
        let Some(choice) = self.choices.into_iter().next() else {
            return Err(ModelError::Decode(ErrorDetail::new(
                "the response has no choices",
            )));
        };
        let mut message = choice.message.or(choice.delta).unwrap_or_default();
        if let Some(refusal) = message.refusal.take().filter(|r| !r.is_empty()) {
            return Err(ModelError::Refused(refusal));
        }
        let finish_reason = choice
            .finish_reason
            .as_deref()
            .map(FinishReason::from_server);
        let content = message.content.take().unwrap_or_default();
        filtered(&content, finish_reason.as_ref())?;
        let mut reply = Reply::text(content).with_usage(usage);
        if let Some(reasoning) = message.reasoning() {
            reply = reply.with_reasoning(reasoning);
        }
        if let Some(reason) = finish_reason {
            reply = reply.with_finish_reason(reason);
        }
        Ok(reply)
    }
}

/// A content filter that stopped the reply before any text is a refusal:
/// asking again the same way meets the same filter.
fn filtered(content: &str, finish_reason: Option<&FinishReason>) -> Result<(), ModelError> {
    if finish_reason == Some(&FinishReason::ContentFilter) && content.trim().is_empty() {
        return Err(ModelError::Refused(
            "the server's content filter stopped the reply (finish_reason content_filter)".into(),
        ));
    }
    Ok(())
}

/// What the stream has said so far, for its last item.
#[derive(Default)]
struct Tail {
    finish_reason: Option<FinishReason>,
    usage: Usage,
    refusal: String,
    wrote_content: bool,
}

/// The chunks as deltas: content and reasoning as they come, then `Done`
/// once the stream ends after a finish reason (a stream that ends without
/// one was cut short, and ends without `Done`). A refusal ends it with
/// [`ModelError::Refused`].
fn deltas(
    chunks: impl Stream<Item = Result<Completion, OpenAIError>> + Send + 'static,
    secrets: Vec<String>,
) -> impl Stream<Item = Result<Delta, ModelError>> + Send + 'static {
    let chunks = Box::pin(chunks);
    // Each step gives the pieces of one chunk (a chunk may hold reasoning
    // and content both), then the stream's last item.
    futures_util::stream::unfold(Some((chunks, Tail::default())), move |state| {
        let secrets = secrets.clone();
        async move {
            let (mut chunks, mut tail) = state?;
            let Some(chunk) = chunks.next().await else {
                return Some((ending(tail).into_iter().collect(), None));
            };
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return Some((vec![Err(map_error_redacting(error, &secrets))], None)),
            };
            if let Some(usage) = &chunk.usage {
                tail.usage = usage.counts();
            }
            let mut out = Vec::new();
            if let Some(choice) = chunk.choices.into_iter().next() {
                if let Some(mut delta) = choice.delta.or(choice.message) {
                    if let Some(reasoning) = delta.reasoning() {
                        out.push(Ok(Delta::Reasoning(reasoning)));
                    }
                    if let Some(content) = delta.content.take().filter(|c| !c.is_empty()) {
                        tail.wrote_content |= !content.trim().is_empty();
                        out.push(Ok(Delta::Content(content)));
                    }
                    if let Some(refusal) = delta.refusal.take() {
                        tail.refusal.push_str(&refusal);
                    }
                }
                if let Some(reason) = choice.finish_reason {
                    tail.finish_reason = Some(FinishReason::from_server(&reason));
                }
            }
            Some((out, Some((chunks, tail))))
        }
    })
    .flat_map(futures_util::stream::iter)
}

/// The last item of a stream that ended: `Done` after a finish reason, a
/// refusal's error, or nothing (cut short: the caller reads a stream
/// without `Done` as interrupted).
fn ending(tail: Tail) -> Option<Result<Delta, ModelError>> {
    if !tail.refusal.is_empty() {
        return Some(Err(ModelError::Refused(tail.refusal)));
    }
    let finish_reason = tail.finish_reason?;
    if !tail.wrote_content {
        if let Err(refused) = filtered("", Some(&finish_reason)) {
            return Some(Err(refused));
        }
    }
    Some(Ok(Delta::Done {
        usage: tail.usage,
        finish_reason: Some(finish_reason),
    }))
}

/// An async-openai error as a [`ModelError`] of the same kind:
///
/// | async-openai | twr | transient |
/// |---|---|---|
/// | `ApiError` | as [`http_error`] reads its status and error object: 408, 429 and 5xx [`ModelError::Status`] (no `retry_after`: async-openai drops the headers), 429 `insufficient_quota` a 402, 400 with a content-policy code [`ModelError::Refused`] | 408, 429, 5xx |
/// | `Reqwest`: connect | [`ModelError::Connect`] | yes |
/// | `Reqwest`: timeout, body, other | [`ModelError::Interrupted`] | yes |
/// | `Reqwest`: decode | [`ModelError::Decode`] | no |
/// | `JSONDeserialize`, `StreamError::UnknownEvent` | [`ModelError::Decode`] | no |
/// | `StreamError::EventStream` | [`ModelError::Interrupted`] | yes |
/// | `InvalidArgument` | [`ModelError::Config`] | no |
/// | anything else | [`ModelError::Other`] | no |
///
/// The async-openai error is kept as the source where the kind has one.
/// No text is redacted: the adapter itself calls
/// [`map_error_redacting`] with its client's API key.
pub fn map_error(error: OpenAIError) -> ModelError {
    map_error_redacting(error, &[] as &[&str])
}

/// [`map_error`], with each text of `secrets` (an API key) replaced by
/// `[redacted]` wherever the server's text that an error quotes holds it.
pub fn map_error_redacting(error: OpenAIError, secrets: &[impl AsRef<str>]) -> ModelError {
    let secrets: Vec<&str> = secrets.iter().map(AsRef::as_ref).collect();
    let scrub = |text: &str| redact(text, &secrets);
    match error {
        OpenAIError::ApiError(response) => api_error(response, &secrets),
        OpenAIError::Reqwest(error) => {
            let message = error.to_string();
            if error.is_connect() {
                ModelError::Connect(ErrorDetail::with_source(message, error))
            } else if error.is_decode() {
                ModelError::Decode(ErrorDetail::with_source(message, error))
            } else if let Some(status) = error.status() {
                ModelError::Status {
                    status: status.as_u16(),
                    message,
                    retry_after: None,
                }
            } else {
                ModelError::Interrupted(ErrorDetail::with_source(message, error))
            }
        }
        OpenAIError::JSONDeserialize(error, body) => ModelError::Decode(ErrorDetail::with_source(
            format!(
                "the response is not the API's JSON: {error} (body: {})",
                excerpt(&scrub(&body))
            ),
            error,
        )),
        OpenAIError::StreamError(error) => match *error {
            StreamError::EventStream(message) => ModelError::Interrupted(ErrorDetail::new(
                format!("the event stream broke off: {}", scrub(&message)),
            )),
            unknown @ StreamError::UnknownEvent(_) => {
                ModelError::Decode(ErrorDetail::with_source(unknown.to_string(), unknown))
            }
        },
        OpenAIError::InvalidArgument(message) => ModelError::Config(message.into()),
        other => ModelError::Other(Box::new(other)),
    }
}

/// An error response, as twr reads every error response
/// ([`http_error`]): async-openai parsed its body and dropped its headers,
/// so the body is written back from the fields it kept.
fn api_error(response: ApiErrorResponse, secrets: &[&str]) -> ModelError {
    let error = response.api_error;
    let body = serde_json::json!({"error": {
        "message": error.message,
        "type": error.r#type,
        "param": error.param,
        "code": error.code,
    }});
    http_error(
        response.status_code.as_u16(),
        |_| None,
        body.to_string().as_bytes(),
        secrets,
    )
}

/// `text` with each of `secrets` replaced by `[redacted]`.
fn redact(text: &str, secrets: &[&str]) -> String {
    secrets
        .iter()
        .filter(|secret| secret.len() >= 4)
        .fold(text.to_string(), |text, secret| {
            text.replace(secret, "[redacted]")
        })
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

    fn chunk(json: &str) -> Result<Completion, OpenAIError> {
        Ok(serde_json::from_str(json).unwrap())
    }

    fn read(chunks: Vec<Result<Completion, OpenAIError>>) -> Vec<Result<Delta, String>> {
        let stream = deltas(futures_util::stream::iter(chunks), Vec::new());
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(stream.map(|item| item.map_err(|e| e.to_string())).collect())
    }

    #[test]
    fn a_chunk_with_reasoning_and_content_gives_both_in_order() {
        let items = read(vec![
            chunk(r#"{"choices":[{"delta":{"reasoning_content":"hm","content":"[Plan]"}}]}"#),
            chunk(r#"{"choices":[{"delta":{},"finish_reason":"eos"}]}"#),
            chunk(
                r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1}}}"#,
            ),
        ]);
        assert_eq!(
            items,
            [
                Ok(Delta::Reasoning("hm".into())),
                Ok(Delta::Content("[Plan]".into())),
                Ok(Delta::Done {
                    usage: Usage::new(3, 2).with_cache(1, 0),
                    finish_reason: Some(FinishReason::Stop),
                }),
            ]
        );
    }

    #[test]
    fn a_stream_without_a_finish_reason_has_no_done_and_a_refusal_ends_in_refused() {
        let cut = read(vec![chunk(r#"{"choices":[{"delta":{"content":"[Pl"}}]}"#)]);
        assert_eq!(cut, [Ok(Delta::Content("[Pl".into()))]);
        let refused = read(vec![
            chunk(r#"{"choices":[{"delta":{"refusal":"I can't "}}]}"#),
            chunk(r#"{"choices":[{"delta":{"refusal":"help"},"finish_reason":"stop"}]}"#),
        ]);
        assert_eq!(
            refused,
            [Err(
                "the model server refused to answer: I can't help".to_string()
            )]
        );
        let filtered = read(vec![chunk(
            r#"{"choices":[{"delta":{"content":""},"finish_reason":"content_filter"}]}"#,
        )]);
        assert_eq!(
            filtered,
            [Err(
                "the model server refused to answer: the server's content filter stopped \
                  the reply (finish_reason content_filter)"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_document_url_cannot_be_sent() {
        let with_url = Message::user("read").with_document_url("https://example.com/a.pdf");
        assert_eq!(
            message(&with_url).unwrap_err(),
            AttachmentError::NoUrls {
                provider: PROVIDER,
                kind: AttachmentKind::Document
            }
        );
    }
}
