//! The adapter for `/chat/completions`, the API spoken by OpenAI, Ollama,
//! vLLM, llama.cpp, OpenRouter, DeepSeek and most local servers.

use std::fmt;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::attachments::{self, AttachmentRules, SizeLimit, MIB};
use crate::client::http_model::{env_value, required_env, HttpModel};
use crate::client::options::merge_json;
use crate::client::provider::{Fault, Flow, Decoded, Provider, RequestHead, RequestSpec};
use crate::client::rate_limits::ResponseHeaders;
use crate::client::secret::ApiKey;
use crate::client::sse::SseEvent;
use crate::client::{anthropic, gemini};
use crate::grammar::{Dialect, Grammar};
use crate::model::{Attachment, AttachmentError, AttachmentKind};
use crate::model::{FinishReason, Message, ModelError, RateLimits, TokenLogprob, Usage};

/// The OpenAI-compatible API (OpenAI's documented limits): PNG, JPEG,
/// WebP and GIF images, by bytes or URL, up to 20 MiB each and 50 MiB per
/// request; PDFs as bytes only, up to 32 MiB per request.
pub(crate) const ATTACHMENTS: AttachmentRules = AttachmentRules::new("the OpenAI-compatible API")
    .images(&["image/png", "image/jpeg", "image/webp", "image/gif"])
    .image_urls(true)
    .max_image(SizeLimit::bytes(20 * MIB))
    .max_images_per_request(SizeLimit::bytes(50 * MIB))
    .documents(&["application/pdf"])
    .max_documents_per_request(SizeLimit::bytes(32 * MIB));


/// OpenAI's text error codes that say what an HTTP status would.
fn openai_error_status(code: &str) -> Option<u16> {
    Some(match code {
        "invalid_request_error" | "context_length_exceeded" => 400,
        "invalid_api_key" | "invalid_authentication" => 401,
        "insufficient_quota" => 402,
        "model_not_found" => 404,
        "rate_limit_exceeded" => 429,
        _ => return None,
    })
}

/// A client for any OpenAI-compatible chat completions server.
///
/// Reasoning sent as `reasoning_content` or `reasoning`, or written inline in
/// `<think>…</think>` blocks, lands in [`Reply::reasoning`](crate::Reply::reasoning),
/// never in [`Reply::content`](crate::Reply::content). The shared options
/// and their builder are [`HttpModel`]'s.
///
/// ```no_run
/// use twr_runtime::{ChatModel, Message, OpenAiCompatible};
///
/// # async fn demo() -> Result<(), twr_runtime::ModelError> {
/// let model = OpenAiCompatible::new("http://127.0.0.1:8088/v1", "smollm2-135m-instruct")
///     .api_key("sk-local")
///     .stream(true)
///     .temperature(0.0)
///     .max_tokens(512);
/// let reply = model.chat(&[Message::user("Say hi")]).await?;
/// println!("{}", reply.content);
/// # Ok(()) }
/// ```
///
/// The API key is never shown: `Debug` prints `[redacted]`, and a server
/// error message quoting the key has it replaced.
pub type OpenAiCompatible = HttpModel<OpenAiApi>;

/// The OpenAI-compatible part of [`OpenAiCompatible`]: its own options.
#[derive(Debug, Clone)]
pub struct OpenAiApi {
    stream_usage: bool,
}

impl HttpModel<OpenAiApi> {
    /// A client for `model` at `base_url`, the URL that `/chat/completions`
    /// is appended to (for example `https://api.openai.com/v1` or
    /// `http://127.0.0.1:11434/v1`; a trailing slash is fine).
    ///
    /// The URL is checked when the first request is made, so building never
    /// fails; a bad URL gives [`ModelError::Config`] then.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let api = OpenAiApi { stream_usage: true };
        HttpModel::with_provider(api, base_url.into(), model.into())
    }

    /// A client configured from the environment: `TWR_BASE_URL`, `TWR_MODEL`,
    /// and the key from `TWR_API_KEY` or else `OPENAI_API_KEY` (optional:
    /// local servers need none). A blank variable counts as unset.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the variable that is missing or empty.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over any variable lookup (testable
    /// without touching the process environment).
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let base_url = required_env(
            &lookup,
            "TWR_BASE_URL",
            "the server's base URL, e.g. http://127.0.0.1:8088/v1",
        )?;
        let model = required_env(&lookup, "TWR_MODEL", "the model id to ask")?;
        let mut client = OpenAiCompatible::new(base_url, model);
        if let Some(key) =
            env_value(&lookup, "TWR_API_KEY").or_else(|| env_value(&lookup, "OPENAI_API_KEY"))
        {
            client = client.api_key(key);
        }
        Ok(client)
    }

    /// When streaming, asks for token usage with
    /// `stream_options.include_usage` (default: on). Turn it off for a
    /// server that rejects the field; usage is then zero unless the server
    /// sends it anyway.
    pub fn stream_usage(mut self, include: bool) -> Self {
        self.provider.stream_usage = include;
        self
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
}

impl Provider for OpenAiApi {
    const NAME: &'static str = "openai-compatible";
    const TYPE_NAME: &'static str = "OpenAiCompatible";
    const UNFINISHED: &'static str = "no finish_reason, no [DONE]";
    const GEN_AI_PROVIDER_NAME: &'static str = "openai";
    /// `n`, as OpenAI, vLLM and SGLang take it; a client says its server
    /// does only when told ([`HttpModel::takes_n`]).
    const TAKES_N: bool = true;

    type StreamState = ();

    /// `chat/completions`, with the key (optional: local servers need none)
    /// as a bearer token.
    fn head(
        &self,
        _: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError> {
        head.path("chat/completions");
        if let Some(key) = key {
            head.key_header("authorization", "Bearer ", key)?;
        }
        Ok(())
    }

    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
        let messages = spec
            .messages
            .iter()
            .map(message)
            .collect::<Result<Vec<Value>, ModelError>>()?;
        let mut body = attachments::object([
            ("model", json!(spec.model)),
            ("messages", Value::Array(messages)),
            ("stream", json!(spec.stream)),
        ]);
        let fields = body.as_object_mut().expect("a JSON object literal");
        if let Some(temperature) = spec.temperature {
            fields.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = spec.max_tokens {
            fields.insert("max_tokens".into(), json!(max_tokens));
        }
        if let Some(seed) = spec.seed {
            fields.insert("seed".into(), json!(seed));
        }
        if spec.stream && self.stream_usage {
            fields.insert("stream_options".into(), json!({"include_usage": true}));
        }
        if spec.n > 1 {
            fields.insert("n".into(), json!(spec.n));
        }
        if spec.logprobs {
            fields.insert("logprobs".into(), json!(true));
            fields.insert("top_logprobs".into(), json!(crate::client::TOP_LOGPROBS));
        }
        Ok(body)
    }

    /// Each server's own field, as its documentation gives it:
    ///
    /// - llama.cpp's server (`tools/server` README, `grammar`) and
    ///   llama-cpp-python's server: `"grammar": <GBNF>`;
    /// - vLLM 0.12 and later: `"structured_outputs": {"grammar": <GBNF>}`
    ///   (the `guided_grammar` field of earlier versions was removed);
    /// - SGLang: `"ebnf": <GBNF>`;
    /// - mistral.rs: `"grammar": {"type": "lark", "value": <Lark>}`;
    /// - OpenAI's structured outputs, also taken by Ollama and most
    ///   servers that follow OpenAI: `"response_format": {"type":
    ///   "json_schema", "json_schema": {"name": "twr_sections", "strict":
    ///   true, "schema": <schema>}}`.
    fn grammar(
        &self,
        dialect: Dialect,
        grammar: &Grammar,
        body: &mut Value,
    ) -> Result<&'static str, ModelError> {
        let (field, value) = dialect.request_fields(grammar);
        merge_json(body, value);
        Ok(field)
    }

    /// PNG, JPEG, WebP and GIF images, by bytes or URL, and PDFs by bytes,
    /// within OpenAI's documented limits (see [`AttachmentRules`]).
    fn attachment_rules(&self) -> AttachmentRules {
        ATTACHMENTS
    }

    /// OpenAI's `x-ratelimit-remaining-requests`,
    /// `x-ratelimit-remaining-tokens`, `x-ratelimit-reset-requests` and
    /// `x-ratelimit-reset-tokens` (durations such as `6m0s` or `20ms`), and
    /// `retry-after`; where those are absent, Anthropic's
    /// `anthropic-ratelimit-*` (its OpenAI-compatible endpoint, and gateways
    /// in front of it, send those).
    fn rate_limits(&self, headers: &ResponseHeaders<'_>) -> RateLimits {
        let relayed = anthropic::rate_limits(headers);
        RateLimits {
            remaining_requests: headers
                .count("x-ratelimit-remaining-requests")
                .or(relayed.remaining_requests),
            remaining_tokens: headers
                .count("x-ratelimit-remaining-tokens")
                .or(relayed.remaining_tokens),
            requests_reset: headers
                .duration("x-ratelimit-reset-requests")
                .or(relayed.requests_reset),
            tokens_reset: headers
                .duration("x-ratelimit-reset-tokens")
                .or(relayed.tokens_reset),
            retry_after: headers.retry_after(),
        }
    }

    /// OpenAI's codes (`invalid_api_key`, `insufficient_quota`,
    /// `context_length_exceeded`, `rate_limit_exceeded`, ...), then those of
    /// the APIs a compatible gateway fronts and relays the errors of
    /// (Anthropic's, Google's).
    fn error_status(&self, code: &str) -> Option<u16> {
        openai_error_status(code)
            .or_else(|| anthropic::error_status(code))
            .or_else(|| gemini::error_status(code))
    }

    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
        let body: ResponseBody = serde_json::from_slice(body).map_err(|error| Fault::NotJson {
            expected: "a chat completion",
            error,
        })?;
        if body.choices.is_empty() && body.error.is_none() {
            return Err(Fault::Missing("choices"));
        }
        body.push_decoded(out)
    }

    fn decode_event(
        &self,
        _: &mut (),
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault> {
        let data = event.data().trim();
        if data == "[DONE]" {
            return Ok(Flow::Done);
        }
        if event.name() == Some("error") {
            return Err(Fault::ErrorEvent(data.to_string()));
        }
        let chunk: ResponseBody = serde_json::from_str(data).map_err(|error| Fault::NotJson {
            expected: "a chat completion chunk",
            error,
        })?;
        chunk.push_decoded(out)?;
        Ok(Flow::Continue)
    }

    fn debug_fields(&self, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("stream_usage", &self.stream_usage);
    }
}

/// One message of the request: `content` is the text alone, or, with
/// attachments, a list of parts: each attachment (an `image_url` part with
/// a `data:` URL or the given URL, a `file` part with `file_data` for a
/// document), then the text.
fn message(message: &Message) -> Result<Value, ModelError> {
    let attachments = message.attachments();
    if attachments.is_empty() {
        return Ok(json!({"role": message.role, "content": message.content.as_str()}));
    }
    let mut parts = Vec::with_capacity(attachments.len() + 1);
    let mut documents = 0;
    for attachment in attachments {
        parts.push(part(attachment, &mut documents)?);
    }
    if !message.content.is_empty() {
        parts.push(json!({"type": "text", "text": message.content.as_str()}));
    }
    Ok(attachments::object([
        ("role", json!(message.role)),
        ("content", Value::Array(parts)),
    ]))
}

/// The content part of one attachment; `documents` counts the message's
/// documents, which are named `document-1.pdf`, `document-2.pdf`, ... (the
/// API asks a file for a name).
fn part(attachment: &Attachment, documents: &mut usize) -> Result<Value, ModelError> {
    let kind = attachment.kind();
    match (kind, attachment.url(), attachment.to_data_url()) {
        (AttachmentKind::Image, Some(url), _) => {
            Ok(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        (AttachmentKind::Image, None, Some(data_url)) => {
            let image_url = attachments::object([("url", Value::String(data_url))]);
            Ok(attachments::object([
                ("type", json!("image_url")),
                ("image_url", image_url),
            ]))
        }
        (AttachmentKind::Document, None, Some(data_url)) => {
            *documents += 1;
            let extension = match attachment.media_type() {
                Some("application/pdf") => ".pdf",
                _ => "",
            };
            let filename = format!("document-{documents}{extension}");
            let file = attachments::object([
                ("filename", Value::String(filename)),
                ("file_data", Value::String(data_url)),
            ]);
            Ok(attachments::object([
                ("type", json!("file")),
                ("file", file),
            ]))
        }
        // The rules let no other through; a direct call of `body` gets the
        // rules' own error rather than a part the API would refuse.
        _ => Err(ModelError::Attachment(AttachmentError::NoUrls {
            provider: ATTACHMENTS.provider(),
            kind,
        })),
    }
}

/// A whole response or one stream chunk.
#[derive(Deserialize)]
struct ResponseBody {
    #[serde(default)]
    choices: Vec<ChoiceBody>,
    #[serde(default)]
    usage: Option<UsageBody>,
    /// Groq's own member: its streamed replies carry the usage here, in the
    /// last chunk, and not in `usage`.
    #[serde(default)]
    x_groq: Option<GroqBody>,
    #[serde(default)]
    error: Option<Value>,
    /// The model that answered, as the server names it.
    #[serde(default)]
    model: Option<String>,
}

/// Groq's `x_groq`: `{"id": "req_...", "usage": {...}}`.
#[derive(Deserialize)]
struct GroqBody {
    #[serde(default)]
    usage: Option<UsageBody>,
}

/// One choice of a response (`message`) or of a stream chunk (`delta`).
#[derive(Deserialize)]
struct ChoiceBody {
    /// Which of the replies asked for (`n`) it is; its place among the
    /// choices when the server leaves it out.
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    message: Option<MessageBody>,
    #[serde(default)]
    delta: Option<MessageBody>,
    #[serde(default)]
    finish_reason: Option<String>,
    /// The answer's tokens with their log-probabilities, when asked for
    /// (`null` otherwise).
    #[serde(default)]
    logprobs: Option<LogprobsBody>,
}

/// `logprobs` of a choice: `{"content": [{"token", "logprob",
/// "top_logprobs": [{"token", "logprob"}]}]}` (OpenAI, llama.cpp, vLLM,
/// SGLang alike), whole or the tokens of one stream chunk.
#[derive(Deserialize)]
struct LogprobsBody {
    #[serde(default)]
    content: Option<Vec<TokenBody>>,
}

#[derive(Deserialize)]
struct TokenBody {
    #[serde(default)]
    token: String,
    #[serde(default)]
    logprob: f64,
    #[serde(default)]
    top_logprobs: Vec<TopBody>,
}

#[derive(Deserialize)]
struct TopBody {
    #[serde(default)]
    token: String,
    #[serde(default)]
    logprob: f64,
}

impl LogprobsBody {
    fn tokens(self) -> Vec<TokenLogprob> {
        self.content
            .unwrap_or_default()
            .into_iter()
            .map(|token| TokenLogprob {
                token: token.token,
                logprob: token.logprob,
                top: token
                    .top_logprobs
                    .into_iter()
                    .map(|top| (top.token, top.logprob))
                    .collect(),
            })
            .collect()
    }
}

/// A message or a delta; every field is optional in practice.
#[derive(Deserialize)]
struct MessageBody {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    reasoning_content: Option<Value>,
    #[serde(default)]
    reasoning: Option<Value>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct UsageBody {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
    /// OpenAI's (and vLLM's) cached prompt tokens.
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's prompt tokens read from its disk cache, and the rest.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
    #[serde(default)]
    prompt_cache_miss_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl UsageBody {
    /// The counts, with the cached prompt tokens of whichever convention
    /// the server follows. DeepSeek's hit and miss counts add up to the
    /// prompt tokens; when `prompt_tokens` is absent they give it.
    fn counts(&self) -> Usage {
        let hit = self.prompt_cache_hit_tokens;
        let split = hit.map(|hit| hit + self.prompt_cache_miss_tokens.unwrap_or(0));
        let prompt = self.prompt_tokens.or(split).unwrap_or(0);
        let cached = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|details| details.cached_tokens)
            .or(hit)
            .unwrap_or(0);
        let mut counts =
            Usage::new(prompt, self.completion_tokens.unwrap_or(0)).with_cache(cached, 0);
        if let Some(total) = self.total_tokens {
            counts.total_tokens = total;
        }
        counts
    }
}

impl ResponseBody {
    /// What each choice and the usage say, in order; an `error` member is
    /// a fault. Each choice is marked with its index ([`Decoded::Choice`])
    /// when the server gives one or there are several, so a stream whose
    /// chunks carry the choices in turn is read apart too.
    fn push_decoded(self, out: &mut Vec<Decoded>) -> Result<(), Fault> {
        if let Some(error) = self.error {
            return Err(Fault::Embedded(error));
        }
        if let Some(model) = self.model.filter(|model| !model.is_empty()) {
            out.push(Decoded::Model(model));
        }
        let several = self.choices.len() > 1;
        for (place, choice) in self.choices.into_iter().enumerate() {
            if several || choice.index.is_some() {
                out.push(Decoded::Choice(choice.index.unwrap_or(place as u32)));
            }
            if let Some(message) = choice.delta.or(choice.message) {
                message.push_decoded(out);
            }
            let tokens = choice.logprobs.map(LogprobsBody::tokens);
            if let Some(tokens) = tokens.filter(|tokens| !tokens.is_empty()) {
                out.push(Decoded::Logprobs(tokens));
            }
            if let Some(reason) = choice.finish_reason {
                out.push(Decoded::Finish(FinishReason::from_server(&reason)));
            }
        }
        let usage = self
            .usage
            .or_else(|| self.x_groq.and_then(|groq| groq.usage));
        if let Some(usage) = usage {
            out.push(Decoded::Usage(usage.counts()));
        }
        Ok(())
    }
}

impl MessageBody {
    fn push_decoded(self, out: &mut Vec<Decoded>) {
        content_items(self.content, out);
        // Servers send one of the two names; a server sending both sends the
        // same text twice, so take the first that has text (some send the
        // other as `""`).
        if let Some(text) = text_of(self.reasoning_content).or_else(|| text_of(self.reasoning)) {
            out.push(Decoded::Reasoning(text));
        }
        if let Some(refusal) = self.refusal.filter(|r| !r.is_empty()) {
            out.push(Decoded::Refusal(refusal));
        }
    }
}

/// The decoded items of a `content` field: a string, or an array of parts as some
/// servers send, in order: text parts (`{"type":"text","text":...}`) are the
/// answer, thinking parts reasoning. Mistral's Magistral models send their
/// reasoning as `{"type":"thinking","thinking":[{"type":"text","text":...}]}`
/// before the answer's text, whole and in each stream chunk.
fn content_items(value: Option<Value>, out: &mut Vec<Decoded>) {
    let parts = match value {
        Some(Value::Array(parts)) => parts,
        other => {
            out.extend(text_of(other).map(Decoded::Content));
            return;
        }
    };
    for mut part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("thinking") => {
                let thinking = part.get_mut("thinking").map(Value::take);
                out.extend(text_of(thinking).map(Decoded::Reasoning));
            }
            Some("text") | None => {
                let text = part.get_mut("text").map(Value::take);
                out.extend(text_of(text).map(Decoded::Content));
            }
            // Images, tool references, ...: not text.
            Some(_) => {}
        }
    }
}

/// Text from a `content`-like field: a string, or an array of parts
/// (`{"type":"text","text":...}`) as some servers send; `None` when empty.
fn text_of(value: Option<Value>) -> Option<String> {
    let text = match value? {
        Value::String(text) => text,
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http_model::decode_whole;
    use crate::client::reply::DecodedReader;
    use crate::client::secret::Secrets;
    use crate::model::{Message, Reply};
    use std::time::Duration;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn parse_response(bytes: &[u8]) -> Result<Reply, ModelError> {
        let mut reader = DecodedReader::default();
        let api = OpenAiApi { stream_usage: true };
        decode_whole(&api, bytes, &Secrets::default(), &mut reader)?;
        reader.finish()
    }

    #[test]
    fn from_env_names_the_missing_variable() {
        let err = OpenAiCompatible::from_lookup(env(&[("TWR_MODEL", "m")])).unwrap_err();
        assert!(
            matches!(&err, ModelError::Config(m) if m.contains("TWR_BASE_URL")),
            "{err}"
        );
        let err = OpenAiCompatible::from_lookup(env(&[
            ("TWR_BASE_URL", "http://h/v1"),
            ("TWR_MODEL", " "),
        ]))
        .unwrap_err();
        assert!(
            matches!(&err, ModelError::Config(m) if m.contains("TWR_MODEL")),
            "{err}"
        );
    }

    #[test]
    fn from_env_prefers_twr_api_key_and_skips_blank_ones() {
        let client = OpenAiCompatible::from_lookup(env(&[
            ("TWR_BASE_URL", "http://h/v1"),
            ("TWR_MODEL", "m"),
            ("TWR_API_KEY", "k-twr"),
            ("OPENAI_API_KEY", "k-openai"),
        ]))
        .unwrap();
        assert_eq!(client.api_key.as_ref().unwrap().expose(), "k-twr");
        assert_eq!(client.base_url(), "http://h/v1");
        assert_eq!(client.model(), "m");
        let client = OpenAiCompatible::from_lookup(env(&[
            ("TWR_BASE_URL", "http://h/v1"),
            ("TWR_MODEL", "m"),
            ("TWR_API_KEY", "  "),
            ("OPENAI_API_KEY", "k-openai"),
        ]))
        .unwrap();
        assert_eq!(client.api_key.as_ref().unwrap().expose(), "k-openai");
    }

    #[test]
    fn body_has_every_option_and_extra_wins() {
        let client = OpenAiCompatible::new("http://h/v1", "m")
            .stream(true)
            .temperature(0.5)
            .max_tokens(64)
            .seed(7)
            .extra(json!({"top_p": 0.9, "seed": null}));
        let body = client.request_body(&[Message::user("hi")]).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "m",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": true,
                "temperature": 0.5,
                "max_tokens": 64,
                "stream_options": {"include_usage": true},
                "top_p": 0.9,
            })
        );
    }

    #[test]
    fn several_choices_are_read_apart_and_one_reader_keeps_the_first() {
        let body = br#"{"choices":[
            {"index":1,"message":{"content":"B"},"finish_reason":"length"},
            {"index":0,"message":{"content":"A"},"finish_reason":"stop"},
            {"index":2,"message":{"content":""},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":100,"completion_tokens":12,"total_tokens":112}}"#;
        // A reader of one reply: choice 0, wherever it comes, with the
        // call's usage.
        let reply = parse_response(body).unwrap();
        assert_eq!(reply.content, "A");
        assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
        assert_eq!(reply.usage, Usage::new(100, 12));
        // The replies of a request for several, in the order of their
        // index; the empty third is left out; the usage on the first.
        let api = OpenAiApi { stream_usage: true };
        let mut decoded = Vec::new();
        crate::client::http_model::decode_all(&api, body, &Secrets::default(), &mut decoded)
            .unwrap();
        let mut readers =
            crate::client::reply::ChoiceReaders::new(std::sync::Arc::new(Secrets::default()));
        decoded.into_iter().for_each(|item| readers.add(item));
        let replies = readers.finish().unwrap();
        let read: Vec<(&str, Usage)> = replies
            .iter()
            .map(|reply| (reply.content.as_str(), reply.usage))
            .collect();
        assert_eq!(
            read,
            [("A", Usage::new(100, 12)), ("B", Usage::default())]
        );
        assert_eq!(replies[1].finish_reason, Some(FinishReason::Length));
    }

    #[test]
    fn n_is_sent_only_by_a_client_told_its_server_takes_it() {
        let messages = [Message::user("hi")];
        let asked = crate::model::Request::new(&messages).with_n(3);
        let told = OpenAiCompatible::new("http://h/v1", "m")
            .stream(true)
            .takes_n(true);
        let body = told.request_body_for(asked).unwrap();
        // Several replies are read whole: not streamed.
        assert_eq!((&body["n"], &body["stream"]), (&json!(3), &json!(false)));
        let not_told = OpenAiCompatible::new("http://h/v1", "m");
        assert!(not_told.request_body_for(asked).unwrap().get("n").is_none());
        let one = told.request_body_for(crate::model::Request::new(&messages)).unwrap();
        assert!(one.get("n").is_none());
    }

    #[test]
    fn non_object_extra_is_a_config_error() {
        let client = OpenAiCompatible::new("http://h/v1", "m").extra(json!([1]));
        assert!(
            matches!(client.request_body(&[]), Err(ModelError::Config(m)) if m.contains("an array"))
        );
    }

    #[test]
    fn a_response_with_every_field() {
        let reply = parse_response(
            br#"{"choices":[{"message":{"role":"assistant","content":"<think>hmm</think>\nHi","reasoning_content":"field"},"finish_reason":"length"}],
                "usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":9}}"#,
        )
        .unwrap();
        assert_eq!(
            reply,
            Reply {
                content: "Hi".into(),
                reasoning: Some("field\nhmm".into()),
                usage: Usage::new(3, 4).with_total(9),
                finish_reason: Some(FinishReason::Length),
                logprobs: Vec::new(),
            }
        );
    }

    #[test]
    fn cached_prompt_tokens_of_openai_and_deepseek() {
        let openai = parse_response(
            br#"{"choices":[{"message":{"content":"A"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,
                         "prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}"#,
        )
        .unwrap();
        assert_eq!(openai.usage, Usage::new(2006, 300).with_cache(1920, 0));
        let deepseek = parse_response(
            br#"{"choices":[{"message":{"content":"A"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":80,"completion_tokens":5,"total_tokens":85,
                         "prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":16}}"#,
        )
        .unwrap();
        assert_eq!(deepseek.usage, Usage::new(80, 5).with_cache(64, 0));
        // Hit and miss without prompt_tokens still give the prompt count.
        let split = parse_response(
            br#"{"choices":[{"message":{"content":"A"}}],
                "usage":{"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":16}}"#,
        )
        .unwrap();
        assert_eq!(split.usage, Usage::new(80, 5).with_cache(64, 0));
    }

    #[test]
    fn an_empty_reasoning_content_does_not_hide_reasoning() {
        let reply = parse_response(
            br#"{"choices":[{"message":{"content":"A","reasoning_content":"","reasoning":"why"}}]}"#,
        )
        .unwrap();
        assert_eq!(reply.reasoning.as_deref(), Some("why"));
        let reply = parse_response(
            br#"{"choices":[{"message":{"content":"A","reasoning_content":"rc","reasoning":"rc"}}]}"#,
        )
        .unwrap();
        assert_eq!(reply.reasoning.as_deref(), Some("rc"));
    }

    #[test]
    fn refusals_and_filters_are_refused_not_empty() {
        let err = parse_response(
            br#"{"choices":[{"message":{"content":null,"refusal":"I can't help"},"finish_reason":"stop"}]}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&err, ModelError::Refused(m) if m == "I can't help"),
            "{err}"
        );
        let err = parse_response(
            br#"{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}"#,
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Refused(_)));
    }

    #[test]
    fn a_key_with_a_control_character_cannot_be_sent() {
        let api = OpenAiApi { stream_usage: true };
        let messages = [Message::user("hi")];
        let client = OpenAiCompatible::new("http://h/v1", "m");
        let spec = client.spec(&messages, None);
        let key = ApiKey::new("sk-a\u{7}b").unwrap();
        let mut head = RequestHead::new();
        let error = api.head(&spec, Some(&key), &mut head).unwrap_err();
        assert!(
            matches!(&error, ModelError::Config(m) if m.as_str().contains("cannot carry")),
            "{error}"
        );
        assert!(!format!("{error:?}").contains("sk-a"), "{error:?}");
        let key = ApiKey::new("sk-ok").unwrap();
        let mut head = RequestHead::new();
        api.head(&spec, Some(&key), &mut head).unwrap();
        assert_eq!(head.path, "chat/completions");
        assert!(head.headers["authorization"].is_sensitive());
        assert_eq!(head.headers["authorization"], "Bearer sk-ok");
        assert!(!format!("{head:?}").contains("sk-ok"), "{head:?}");
        let mut none = RequestHead::new();
        api.head(&spec, None, &mut none).unwrap();
        assert!(none.headers.is_empty());
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

    #[test]
    fn openai_rate_limit_headers() {
        let client = OpenAiCompatible::new("http://h/v1", "m");
        let limits = limits_of(
            client.provider(),
            &[
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-remaining-tokens", "149984"),
                ("x-ratelimit-reset-requests", "6m0s"),
                ("x-ratelimit-reset-tokens", "1.5s"),
            ],
        );
        let expected = RateLimits {
            remaining_requests: Some(0),
            remaining_tokens: Some(149_984),
            requests_reset: Some(Duration::from_secs(360)),
            tokens_reset: Some(Duration::from_millis(1500)),
            ..RateLimits::default()
        };
        assert_eq!(limits, expected);
        assert_eq!(limits.pause(), Some(Duration::from_secs(360)));
        // Anthropic's headers, from its OpenAI-compatible endpoint, where
        // OpenAI's are absent.
        let limits = limits_of(client.provider(), ANTHROPIC_HEADERS);
        assert_eq!(limits, crate::client::anthropic::tests::anthropic_limits());
        // Junk is ignored; nothing used up is no pause.
        let limits = limits_of(
            client.provider(),
            &[
                ("x-ratelimit-remaining-requests", "many"),
                ("x-ratelimit-remaining-tokens", "12"),
                ("x-ratelimit-reset-tokens", "soon"),
            ],
        );
        let expected = RateLimits {
            remaining_tokens: Some(12),
            ..RateLimits::default()
        };
        assert_eq!(limits, expected);
        assert_eq!(limits.pause(), None);
        assert!(limits_of(client.provider(), &[]).is_empty());
    }

    const ANTHROPIC_HEADERS: &[(&str, &str)] = &[
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
    ];
}
