//! The adapter for Anthropic's Messages API (`/v1/messages`).

use std::fmt;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::client::attachments::{self, AttachmentRules, SizeLimit, MIB};
use crate::client::http_model::{required_env, HttpModel};
use crate::client::options::merge_json;
use crate::client::provider::{self, Fault, Flow, Decoded, Provider, RequestHead, RequestSpec};
use crate::client::rate_limits::ResponseHeaders;
use crate::client::secret::ApiKey;
use crate::client::sse::SseEvent;
use crate::grammar::{Dialect, Grammar};
use crate::model::{Attachment, AttachmentKind};
use crate::model::{FinishReason, Message, ModelError, RateLimits, Role, Usage};

/// The public endpoint; `/v1/messages` is appended.
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `max_tokens` when none is set: the Messages API requires the field, and
/// this is enough for any structured answer twr asks for.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Anthropic's Messages API: JPEG, PNG, GIF and WebP images up to 5 MiB
/// each once base64-encoded (as the API counts), PDFs, either by URL too,
/// and 32 MiB per request.
pub(crate) const ATTACHMENTS: AttachmentRules = AttachmentRules::new("Anthropic")
    .images(&["image/jpeg", "image/png", "image/gif", "image/webp"])
    .image_urls(true)
    .max_image(SizeLimit::base64(5 * MIB))
    .documents(&["application/pdf"])
    .document_urls(true)
    .max_request(SizeLimit::base64(32 * MIB));

/// Anthropic's error types that say what an HTTP status would (also read
/// by the OpenAI-compatible adapter, for gateways that relay them).
pub(crate) fn error_status(code: &str) -> Option<u16> {
    Some(match code {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        _ => return None,
    })
}

/// Anthropic's rate-limit headers: `anthropic-ratelimit-requests-remaining`,
/// `anthropic-ratelimit-tokens-remaining` (else the smaller of its
/// `input-tokens` and `output-tokens` counts), the matching `-reset` times
/// (RFC 3339), and `retry-after`. Also read by the OpenAI-compatible
/// adapter, for Anthropic's OpenAI-compatible endpoint.
pub(crate) fn rate_limits(headers: &ResponseHeaders<'_>) -> RateLimits {
    let tokens = headers
        .count("anthropic-ratelimit-tokens-remaining")
        .or_else(|| {
            let input = headers.count("anthropic-ratelimit-input-tokens-remaining");
            let output = headers.count("anthropic-ratelimit-output-tokens-remaining");
            input.into_iter().chain(output).min()
        });
    let tokens_reset = headers
        .until("anthropic-ratelimit-tokens-reset")
        .or_else(|| {
            let input = headers.until("anthropic-ratelimit-input-tokens-reset");
            let output = headers.until("anthropic-ratelimit-output-tokens-reset");
            input.into_iter().chain(output).max()
        });
    RateLimits {
        remaining_requests: headers.count("anthropic-ratelimit-requests-remaining"),
        remaining_tokens: tokens,
        requests_reset: headers.until("anthropic-ratelimit-requests-reset"),
        tokens_reset,
        retry_after: headers.retry_after(),
    }
}

/// A client for Claude models over Anthropic's Messages API.
///
/// System messages become the top-level `system` text (joined by blank
/// lines); `max_tokens` is always sent ([`DEFAULT_MAX_TOKENS`] unless set);
/// thinking blocks land in [`Reply::reasoning`](crate::Reply::reasoning) and
/// their signatures are dropped. A `stop_reason` of `max_tokens` is a
/// truncated reply, `refusal` a [`ModelError::Refused`] with the server's
/// explanation (never retried; text that arrived before it is kept). The
/// key travels in the `x-api-key` header, never in a URL, an error, a log or
/// `Debug` output, and never to another origin. Anthropic has no sampling
/// seed, so [`seed`](HttpModel::seed) is not sent. Nor does it give token
/// log-probabilities: a request that wants them
/// ([`Request::wants_logprobs`](crate::model::Request::wants_logprobs),
/// [`Think::confidence`](crate::Think::confidence)) is sent without, its
/// reply has no [`logprobs`](crate::Reply::logprobs), and no section of it
/// gets a confidence (never a made-up number). The shared options and
/// their builder are [`HttpModel`]'s.
///
/// ```no_run
/// use twr_runtime::{Anthropic, ChatModel, Message};
///
/// # async fn demo() -> Result<(), twr_runtime::ModelError> {
/// let model = Anthropic::from_env()?   // ANTHROPIC_API_KEY and TWR_MODEL
///     .stream(true)
///     .max_tokens(1024);
/// let reply = model.chat(&[Message::system("Be brief."), Message::user("Say hi")]).await?;
/// println!("{}", reply.content);
/// # Ok(()) }
/// ```
pub type Anthropic = HttpModel<AnthropicApi>;

/// The Anthropic part of [`Anthropic`]: its own options.
#[derive(Debug, Clone)]
pub struct AnthropicApi {
    version: &'static str,
    prompt_caching: bool,
}

impl HttpModel<AnthropicApi> {
    /// A client for `model` (`claude-sonnet-4-5`, ...) authenticated with
    /// `api_key`. An empty or blank key is no key, and a call then fails
    /// with [`ModelError::Config`] before sending anything.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let api = AnthropicApi {
            version: ANTHROPIC_VERSION,
            prompt_caching: true,
        };
        HttpModel::with_provider(api, DEFAULT_BASE_URL.to_string(), model.into()).api_key(api_key)
    }

    /// A client configured from the environment: the key from
    /// `ANTHROPIC_API_KEY`, the model from `TWR_MODEL`. A blank variable
    /// counts as unset. The base URL stays the public endpoint; change it
    /// with [`base_url`](Self::base_url).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the variable that is missing or empty.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over any variable lookup.
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let key = required_env(&lookup, "ANTHROPIC_API_KEY", "the Anthropic API key")?;
        let model = required_env(&lookup, "TWR_MODEL", "the model id to ask")?;
        Ok(Anthropic::new(key, model))
    }

    /// The API root (default `https://api.anthropic.com`); `/v1/messages` is
    /// appended.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Marks the parts of a request that repeat from one attempt to the
    /// next with `cache_control` breakpoints (default: on), so that a retry
    /// reads them from Anthropic's prompt cache, billed at a tenth of the
    /// input price, instead of paying for them again.
    ///
    /// The loop's requests are the system text, the demonstrations and the
    /// caller's history, the prompt with its format guide, then at most the
    /// latest failed reply and what was sent back about it. The breakpoints
    /// go after the system text, after the last message, in a retry after
    /// the prompt with its guide (the user message before the failed
    /// reply), and after the part every request of the program repeats
    /// whatever its prompt ([`Request::shared_prefix`](crate::model::Request#structfield.shared_prefix): the demonstrations
    /// written with [`Think::demonstration`](crate::Think::demonstration),
    /// before those learned for this prompt; the history too when none was
    /// learned). So a retry, whose last two messages are new, reads
    /// everything up to the prompt from the cache, and the next prompt
    /// reads the system text and the written demonstrations from it. Four
    /// breakpoints at most, Anthropic's limit. A prefix shorter than the
    /// model's minimum (1,024 tokens for most models) is not cached and
    /// the markers cost nothing. What was read and written is in
    /// [`Usage::cache_read_tokens`] and [`Usage::cache_write_tokens`].
    pub fn prompt_caching(mut self, on: bool) -> Self {
        self.provider.prompt_caching = on;
        self
    }
}

/// Which of the non-system messages get a `cache_control` breakpoint: the
/// last of the `shared` first ones (the end of the part every request
/// repeats, [`Request::shared_prefix`](crate::model::Request#structfield.shared_prefix),
/// counted here without the system
/// messages), the last one, and the user message two before it when the
/// message between is the model's (the prompt of a retry, followed by the
/// failed reply and the feedback). At most three, so that with the system
/// text's the request stays within Anthropic's limit of four.
fn breakpoints(roles: &[&str], shared: usize) -> [Option<usize>; 3] {
    let Some(last) = roles.len().checked_sub(1) else {
        return [None, None, None];
    };
    let prompt = last
        .checked_sub(2)
        .filter(|&p| roles[p] == "user" && roles[p + 1] == "assistant");
    let shared = shared.min(roles.len()).checked_sub(1);
    [shared, prompt, Some(last)]
}

/// The `content` of one message: its text alone, or a list of blocks:
/// each attachment (an `image` or `document` block with a `base64` or
/// `url` source), then the text. A `cached` message's last block carries a
/// `cache_control` breakpoint, so that the attachments before it are read
/// from the prompt cache on a retry too.
fn content(message: &Message, cached: bool) -> Result<Value, ModelError> {
    let text = message.content.as_str();
    let attachments = message.attachments();
    if attachments.is_empty() {
        return Ok(if cached {
            json!([cached_text(text)])
        } else {
            json!(text)
        });
    }
    let mut blocks = attachments
        .iter()
        .map(block)
        .collect::<Result<Vec<Value>, ModelError>>()?;
    if !text.is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    if cached {
        if let Some(Value::Object(last)) = blocks.last_mut() {
            last.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
    }
    Ok(Value::Array(blocks))
}

/// The content block of one attachment.
fn block(attachment: &Attachment) -> Result<Value, ModelError> {
    let kind = match attachment.kind() {
        AttachmentKind::Image => "image",
        AttachmentKind::Document => "document",
    };
    let source = match (
        attachment.url(),
        attachment.media_type(),
        attachment.to_base64(),
    ) {
        (Some(url), _, _) => json!({"type": "url", "url": url}),
        (None, Some(media_type), Some(data)) => attachments::object([
            ("type", json!("base64")),
            ("media_type", json!(media_type)),
            ("data", Value::String(data)),
        ]),
        // An attachment is bytes with a media type, or a URL.
        _ => {
            return Err(ModelError::Config(
                "an attachment has neither bytes nor a URL".into(),
            ))
        }
    };
    Ok(attachments::object([
        ("type", json!(kind)),
        ("source", source),
    ]))
}

/// A text content block carrying a `cache_control` breakpoint.
fn cached_text(text: &str) -> Value {
    json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}})
}

impl Provider for AnthropicApi {
    const NAME: &'static str = "anthropic";
    const TYPE_NAME: &'static str = "Anthropic";
    const UNFINISHED: &'static str = "no stop_reason, no message_stop";

    /// The token counts reported so far: Anthropic sends input tokens in
    /// `message_start` and output tokens in `message_delta`.
    type StreamState = Usage;

    /// `v1/messages`, the key in `x-api-key`, and `anthropic-version`.
    fn head(
        &self,
        _: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError> {
        let key = key.ok_or_else(|| ModelError::Config("the Anthropic API key is empty".into()))?;
        head.path("v1/messages")
            .key_header("x-api-key", "", key)?
            .header("anthropic-version", self.version)?;
        Ok(())
    }

    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
        let mut system = Vec::new();
        let mut turns = Vec::new();
        // The shared part's messages that are turns (not system text).
        let mut shared = 0;
        for (index, message) in spec.messages.iter().enumerate() {
            if index < spec.shared_prefix && message.role != Role::System {
                shared += 1;
            }
            let role = match message.role {
                Role::System => {
                    system.push(message.content.as_str());
                    continue;
                }
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            turns.push((role, message));
        }
        let marked = if self.prompt_caching {
            let roles: Vec<&str> = turns.iter().map(|(role, _)| *role).collect();
            breakpoints(&roles, shared)
        } else {
            [None, None, None]
        };
        let messages = turns
            .iter()
            .enumerate()
            .map(|(i, (role, message))| {
                let content = content(message, marked.contains(&Some(i)))?;
                Ok(attachments::object([
                    ("role", json!(role)),
                    ("content", content),
                ]))
            })
            .collect::<Result<Vec<Value>, ModelError>>()?;
        if messages.is_empty() {
            return Err(ModelError::Config(
                "Anthropic needs at least one user or assistant message".into(),
            ));
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(spec.model));
        body.insert(
            "max_tokens".into(),
            json!(spec.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
        );
        if !system.is_empty() {
            let system = system.join("\n\n");
            let system = if self.prompt_caching {
                json!([cached_text(&system)])
            } else {
                json!(system)
            };
            body.insert("system".into(), system);
        }
        body.insert("messages".into(), Value::Array(messages));
        if let Some(temperature) = spec.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if spec.stream {
            body.insert("stream".into(), json!(true));
        }
        Ok(Value::Object(body))
    }

    /// Anthropic's structured outputs: the JSON schema in
    /// `"output_config": {"format": {"type": "json_schema", "schema":
    /// <schema>}}`. As Anthropic's "Structured outputs" guide
    /// (platform.claude.com, build-with-claude/structured-outputs) says,
    /// the feature is generally available and needs no beta header; its
    /// earlier `output_format` parameter and `structured-outputs-2025-11-13`
    /// header are kept only for a transition. Any other dialect is a
    /// [`ModelError::Config`].
    fn grammar(
        &self,
        dialect: Dialect,
        grammar: &Grammar,
        body: &mut Value,
    ) -> Result<&'static str, ModelError> {
        const FIELD: &str = "output_config.format";
        if dialect != Dialect::JsonSchema {
            return Err(provider::json_schema_only(
                "the Anthropic API",
                FIELD,
                dialect,
            ));
        }
        let format = json!({"type": "json_schema", "schema": grammar.json_schema()});
        merge_json(body, json!({"output_config": {"format": format}}));
        Ok(FIELD)
    }

    /// JPEG, PNG, GIF and WebP images and PDFs, by bytes or URL, within
    /// Anthropic's documented limits (see [`AttachmentRules`]).
    fn attachment_rules(&self) -> AttachmentRules {
        ATTACHMENTS
    }

    /// `anthropic-ratelimit-*` and `retry-after`.
    fn rate_limits(&self, headers: &ResponseHeaders<'_>) -> RateLimits {
        rate_limits(headers)
    }

    /// Anthropic's error types (`authentication_error`,
    /// `rate_limit_error`, `request_too_large`, ...).
    fn error_status(&self, code: &str) -> Option<u16> {
        error_status(code)
    }

    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
        let message: MessageBody = decode(body)?;
        if let Some(error) = message.error {
            return Err(Fault::Embedded(error));
        }
        let Some(content) = message.content else {
            return Err(Fault::Missing("content"));
        };
        out.extend(message.model.filter(|m| !m.is_empty()).map(Decoded::Model));
        for block in content {
            block.push_decoded(out);
        }
        if let Some(usage) = message.usage {
            let mut counts = Usage::default();
            usage.apply(&mut counts);
            out.push(Decoded::Usage(counts));
        }
        if let Some(reason) = message.stop_reason {
            stop_reason(&reason, message.stop_details, out);
        }
        Ok(())
    }

    /// Anthropic names each event twice (`event:` and the data's `type`);
    /// the data's is read. `ping` and unknown types say nothing.
    fn decode_event(
        &self,
        counts: &mut Usage,
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault> {
        if event.name() == Some("error") {
            return Err(Fault::ErrorEvent(event.data().to_string()));
        }
        let data: StreamEvent = decode(event.data().as_bytes())?;
        match data.kind.as_str() {
            "message_start" => {
                if let Some(message) = data.message {
                    out.extend(message.model.filter(|m| !m.is_empty()).map(Decoded::Model));
                    if let Some(usage) = message.usage {
                        usage.apply(counts);
                        out.push(Decoded::Usage(*counts));
                    }
                }
            }
            "content_block_start" => {
                if let Some(block) = data.content_block {
                    block.push_decoded(out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = data.delta {
                    match delta.kind.as_deref() {
                        Some("text_delta") => out.extend(delta.text.map(Decoded::Content)),
                        Some("thinking_delta") => out.extend(delta.thinking.map(Decoded::Reasoning)),
                        // signature_delta (a thinking block's signature),
                        // input_json_delta (tool calls), citations: not text.
                        _ => {}
                    }
                }
            }
            "message_delta" => {
                if let Some(usage) = data.usage {
                    usage.apply(counts);
                    out.push(Decoded::Usage(*counts));
                }
                if let Some(delta) = data.delta {
                    if let Some(reason) = delta.stop_reason {
                        stop_reason(&reason, delta.stop_details, out);
                    }
                }
            }
            "message_stop" => return Ok(Flow::Done),
            "error" => return Err(Fault::ErrorEvent(event.data().to_string())),
            // ping, content_block_stop, and types added later.
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn debug_fields(&self, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("anthropic_version", &self.version)
            .field("prompt_caching", &self.prompt_caching);
    }
}

/// The stop reason as a finish item. `refusal` stops the reply as a filter
/// does: the reader makes it a [`ModelError::Refused`] with the server's
/// explanation from `stop_details` (its category when it gives no
/// explanation), keeping any text that arrived before it.
fn stop_reason(reason: &str, details: Option<StopDetails>, out: &mut Vec<Decoded>) {
    if reason != "refusal" {
        out.push(Decoded::Finish(FinishReason::from_server(reason)));
        return;
    }
    let details = details.unwrap_or_default();
    let explanation = details.explanation.filter(|e| !e.trim().is_empty());
    let message = match (explanation, details.category) {
        (Some(explanation), _) => explanation,
        (None, Some(category)) => {
            format!("Claude declined to answer (stop_reason refusal, category {category})")
        }
        (None, None) => "Claude declined to answer (stop_reason refusal)".to_string(),
    };
    out.push(Decoded::Refusal(message));
    out.push(Decoded::Finish(FinishReason::ContentFilter));
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Fault> {
    serde_json::from_slice(bytes).map_err(|error| Fault::NotJson {
        expected: "an Anthropic message",
        error,
    })
}

/// A whole response: a message, or `{"type":"error","error":{...}}`.
#[derive(Deserialize)]
struct MessageBody {
    #[serde(default)]
    content: Option<Vec<Block>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    stop_details: Option<StopDetails>,
    #[serde(default)]
    usage: Option<TokenCounts>,
    #[serde(default)]
    error: Option<Value>,
    /// The model that answered (`message_start` carries it in a stream).
    #[serde(default)]
    model: Option<String>,
}

/// What the server says about a refusal (`stop_details`, with
/// `stop_reason: refusal`): `{"type": "refusal", "category": "cyber",
/// "explanation": "..."}`, either member `null` when it has none.
#[derive(Deserialize, Default)]
struct StopDetails {
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    explanation: Option<String>,
}

/// One content block (whole, or as `content_block_start` opens it).
#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
}

impl Block {
    fn push_decoded(self, out: &mut Vec<Decoded>) {
        match self.kind.as_str() {
            "text" => out.extend(self.text.filter(|t| !t.is_empty()).map(Decoded::Content)),
            "thinking" => out.extend(
                self.thinking
                    .filter(|t| !t.is_empty())
                    .map(Decoded::Reasoning),
            ),
            // redacted_thinking is encrypted; tool_use is not text.
            _ => {}
        }
    }
}

#[derive(Deserialize)]
struct StreamEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    message: Option<MessageBody>,
    #[serde(default)]
    content_block: Option<Block>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    usage: Option<TokenCounts>,
}

/// A `content_block_delta`'s or a `message_delta`'s `delta`.
#[derive(Deserialize)]
struct Delta {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    stop_details: Option<StopDetails>,
}

/// Anthropic's token counts. Input tokens read from the cache count as
/// prompt tokens too: they are part of what the model read.
#[derive(Deserialize)]
struct TokenCounts {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl TokenCounts {
    /// Puts the counts this report gives into `counts`; the others stay. A
    /// zero is no report: gateways send zeros in `message_start` and the
    /// real counts in `message_delta`.
    ///
    /// The cache counts are reported apart from `input_tokens` (which
    /// counts only the tokens after the last cache breakpoint): they are
    /// added to the prompt tokens and kept as
    /// [`Usage::cache_read_tokens`] and [`Usage::cache_write_tokens`].
    fn apply(self, counts: &mut Usage) {
        let written = self.cache_creation_input_tokens.unwrap_or(0);
        let read = self.cache_read_input_tokens.unwrap_or(0);
        let input = self.input_tokens.unwrap_or(0) + written + read;
        let (prompt, read, written) = if input > 0 {
            (input, read, written)
        } else {
            (
                counts.prompt_tokens,
                counts.cache_read_tokens,
                counts.cache_write_tokens,
            )
        };
        let completion = self
            .output_tokens
            .filter(|n| *n > 0)
            .unwrap_or(counts.completion_tokens);
        *counts = Usage::new(prompt, completion).with_cache(read, written);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::Message;
    use std::time::Duration;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn body_has_top_level_system_and_default_max_tokens() {
        let client = Anthropic::new("k", "claude-x")
            .seed(3)
            .prompt_caching(false);
        let body = client
            .request_body(&[
                Message::system("Be brief."),
                Message::system("Use English."),
                Message::user("a"),
                Message::assistant("b"),
                Message::user("c"),
            ])
            .unwrap();
        assert_eq!(
            body,
            json!({
                "model": "claude-x",
                "max_tokens": DEFAULT_MAX_TOKENS,
                "system": "Be brief.\n\nUse English.",
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"},
                ],
            })
        );
        let err = client.request_body(&[Message::system("x")]).unwrap_err();
        assert!(matches!(err, ModelError::Config(_)));
    }

    #[test]
    fn breakpoints_mark_the_prompt_of_a_retry_and_the_last_message() {
        assert_eq!(breakpoints(&[], 0), [None, None, None]);
        assert_eq!(breakpoints(&["user"], 0), [None, None, Some(0)]);
        assert_eq!(
            breakpoints(&["user", "assistant", "user"], 0),
            [None, Some(0), Some(2)]
        );
        assert_eq!(
            breakpoints(&["user", "assistant", "user", "assistant", "user"], 0),
            [None, Some(2), Some(4)]
        );
        // Two user messages in a row: no retry shape, only the last.
        assert_eq!(
            breakpoints(&["user", "user", "user"], 0),
            [None, None, Some(2)]
        );
    }

    #[test]
    fn breakpoints_mark_the_end_of_the_shared_part() {
        let retry = [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
        ];
        // A demonstration, the prompt, the failed reply and the feedback.
        assert_eq!(breakpoints(&retry[..5], 2), [Some(1), Some(2), Some(4)]);
        assert_eq!(breakpoints(&retry, 4), [Some(3), Some(4), Some(6)]);
        // A count beyond the messages marks the last one.
        assert_eq!(breakpoints(&retry[..3], 9), [Some(2), Some(0), Some(2)]);
    }

    #[test]
    fn from_env_reads_the_key_and_the_model() {
        let client =
            Anthropic::from_lookup(env(&[("ANTHROPIC_API_KEY", "ak"), ("TWR_MODEL", "c")]))
                .unwrap();
        assert_eq!(client.api_key.as_ref().unwrap().expose(), "ak");
        assert_eq!(client.model(), "c");
        assert_eq!(client.base_url, DEFAULT_BASE_URL);
        let err = Anthropic::from_lookup(env(&[("ANTHROPIC_API_KEY", " "), ("TWR_MODEL", "c")]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid model configuration: the environment variable ANTHROPIC_API_KEY is not \
             set (the Anthropic API key)"
        );
    }

    fn limits_of(provider: &impl Provider, pairs: &[(&'static str, &str)]) -> RateLimits {
        let mut map = reqwest::header::HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        // 2023-11-14T22:13:20Z
        let now = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        provider.rate_limits(&ResponseHeaders::new(&map, now))
    }

    /// What [`ANTHROPIC_HEADERS`] say.
    pub(crate) fn anthropic_limits() -> RateLimits {
        RateLimits {
            remaining_requests: Some(49),
            remaining_tokens: Some(0),
            requests_reset: Some(Duration::from_secs(10)),
            tokens_reset: Some(Duration::from_millis(2500)),
            retry_after: Some(Duration::from_secs(1)),
        }
    }

    #[test]
    fn anthropic_rate_limit_headers() {
        let client = Anthropic::new("k", "m");
        let limits = limits_of(
            client.provider(),
            &[
                ("anthropic-ratelimit-requests-remaining", "49"),
                ("anthropic-ratelimit-requests-reset", "2023-11-14T22:13:30Z"),
                ("anthropic-ratelimit-input-tokens-remaining", "0"),
                (
                    "anthropic-ratelimit-input-tokens-reset",
                    "2023-11-14T22:13:22.5Z",
                ),
                ("anthropic-ratelimit-output-tokens-remaining", "8000"),
                (
                    "anthropic-ratelimit-output-tokens-reset",
                    "2023-11-14T22:13:21Z",
                ),
                ("retry-after", "1"),
            ],
        );
        assert_eq!(limits, anthropic_limits());
        assert_eq!(limits.pause(), Some(Duration::from_millis(2500)));
        // OpenAI's headers are not Anthropic's.
        let limits = limits_of(
            client.provider(),
            &[("x-ratelimit-remaining-requests", "0")],
        );
        assert!(limits.is_empty());
    }
}
