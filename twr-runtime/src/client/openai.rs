//! [`OpenAiCompatible`]: the `/chat/completions` API spoken by OpenAI,
//! Ollama, vLLM, llama.cpp, OpenRouter, DeepSeek and most local servers.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use tracing::Instrument;

use super::http::{self, BodyReader, Options};
use super::secret::ApiKey;
use super::sse::{SseDecoder, SseEvent};
use crate::model::{BoxFuture, ChatModel, FinishReason, Message, ModelError, Reply, Usage};
use crate::reasoning::ThinkSplitter;

/// A client for any OpenAI-compatible chat completions server.
///
/// Build it once and share it; it is cheap to clone and every call is
/// independent. Reasoning sent as `reasoning_content` or `reasoning`, or
/// written inline in `<think>…</think>` blocks, lands in [`Reply::reasoning`],
/// never in [`Reply::content`].
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
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    base_url: String,
    model: String,
    api_key: Option<ApiKey>,
    stream_usage: bool,
    options: Options,
}

impl OpenAiCompatible {
    /// A client for `model` at `base_url`, the URL that `/chat/completions`
    /// is appended to (for example `https://api.openai.com/v1` or
    /// `http://127.0.0.1:11434/v1`; a trailing slash is fine).
    ///
    /// The URL is checked when the first request is made, so building never
    /// fails; a bad URL gives [`ModelError::Config`] then.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiCompatible {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            stream_usage: true,
            options: Options::default(),
        }
    }

    /// A client configured from the environment: `TWR_BASE_URL`, `TWR_MODEL`,
    /// and the key from `TWR_API_KEY` or else `OPENAI_API_KEY` (optional:
    /// local servers need none).
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
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let base_url = get("TWR_BASE_URL").ok_or_else(|| {
            ModelError::Config(
                "the environment variable TWR_BASE_URL is not set \
                 (the server's base URL, e.g. http://127.0.0.1:8088/v1)"
                    .to_string(),
            )
        })?;
        let model = get("TWR_MODEL").ok_or_else(|| {
            ModelError::Config(
                "the environment variable TWR_MODEL is not set (the model id to ask)".to_string(),
            )
        })?;
        let mut client = OpenAiCompatible::new(base_url.trim(), model.trim());
        if let Some(key) = get("TWR_API_KEY").or_else(|| get("OPENAI_API_KEY")) {
            client = client.api_key(key);
        }
        Ok(client)
    }

    /// Sends `key` as a bearer token. An empty key sends none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = ApiKey::new(key);
        self
    }

    /// Streams the reply over server-sent events (default: off). The result
    /// is the same [`Reply`]; streaming keeps long generations alive through
    /// proxies that cut idle connections.
    pub fn stream(mut self, stream: bool) -> Self {
        self.options.stream = stream;
        self
    }

    /// When streaming, asks for token usage with
    /// `stream_options.include_usage` (default: on). Turn it off for a
    /// server that rejects the field; usage is then zero unless the server
    /// sends it anyway.
    pub fn stream_usage(mut self, include: bool) -> Self {
        self.stream_usage = include;
        self
    }

    /// Sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.options.temperature = Some(temperature);
        self
    }

    /// The most tokens the reply may have (`max_tokens`).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.options.max_tokens = Some(max_tokens);
        self
    }

    /// A sampling seed, for servers that honour it.
    pub fn seed(mut self, seed: u64) -> Self {
        self.options.seed = Some(seed);
        self
    }

    /// Extra fields merged into the request body, for anything this builder
    /// does not name (`top_p`, `response_format`, a provider's own options).
    /// Objects merge deeply, later calls win, and a `null` removes a field.
    /// It must be a JSON object, or requests fail with [`ModelError::Config`].
    pub fn extra(mut self, extra: Value) -> Self {
        self.options.add_extra(extra);
        self
    }

    /// The time limit for one whole request, reading the reply included
    /// (default: 10 minutes). Exceeding it gives [`ModelError::Timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// The most bytes a response may have (default: 16 MiB). A larger one
    /// gives [`ModelError::TooLarge`].
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.options.max_response_bytes = limit;
        self
    }

    /// Uses `client` for requests (proxies, TLS roots, connection limits).
    /// By default all model clients share one.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.options.http_client = Some(client);
        self
    }

    /// The model id sent with each request.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The JSON request body for `messages`.
    fn body(&self, messages: &[Message]) -> Result<Value, ModelError> {
        let mut body = json!({
            "model": self.model,
            "messages": messages,
            "stream": self.options.stream,
        });
        let fields = body.as_object_mut().expect("a JSON object literal");
        if let Some(temperature) = self.options.temperature {
            fields.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = self.options.max_tokens {
            fields.insert("max_tokens".into(), json!(max_tokens));
        }
        if let Some(seed) = self.options.seed {
            fields.insert("seed".into(), json!(seed));
        }
        if self.options.stream && self.stream_usage {
            fields.insert("stream_options".into(), json!({"include_usage": true}));
        }
        self.options.apply_extra(&mut body)?;
        Ok(body)
    }

    async fn call(&self, messages: &[Message]) -> Result<Reply, ModelError> {
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("the model name is empty".to_string()));
        }
        if messages.is_empty() {
            return Err(ModelError::Config("no messages to send".to_string()));
        }
        let url = http::endpoint(&self.base_url, "chat/completions")?;
        let body = self.body(messages)?;
        let client = self.options.client()?;
        let mut request = client.post(url).json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose());
        }
        if self.options.stream {
            request = request.header(reqwest::header::ACCEPT, "text/event-stream");
        }
        let key = self.api_key.as_ref();
        let timeout = self.options.timeout;
        let limit = self.options.max_response_bytes;
        self.options
            .timed(async move {
                let response = http::send(request, key, timeout).await?;
                let streamed = http::is_event_stream(&response);
                let mut reader = BodyReader::new(response, limit, timeout)?;
                if streamed {
                    read_stream(&mut reader, key).await
                } else {
                    let bytes = reader.read_all().await?;
                    parse_response(&bytes, key)
                }
            })
            .await
    }
}

impl ChatModel for OpenAiCompatible {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let span = tracing::debug_span!(
            "twr.chat",
            provider = "openai-compatible",
            model = %self.model,
            stream = self.options.stream,
            messages = messages.len(),
        );
        Box::pin(
            async move {
                let started = Instant::now();
                let result = self.call(messages).await;
                super::trace_result(&result, started);
                result
            }
            .instrument(span),
        )
    }

    fn name(&self) -> &str {
        &self.model
    }
}

/// One choice of a response or of a stream chunk.
#[derive(Deserialize)]
struct ChoiceBody {
    #[serde(default)]
    message: Option<MessageBody>,
    #[serde(default)]
    delta: Option<MessageBody>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// A message or a delta; every field is optional in practice.
#[derive(Deserialize, Default)]
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
}

impl UsageBody {
    fn usage(&self) -> Usage {
        let mut usage = Usage::new(
            self.prompt_tokens.unwrap_or(0),
            self.completion_tokens.unwrap_or(0),
        );
        if let Some(total) = self.total_tokens {
            usage.total_tokens = total;
        }
        usage
    }
}

/// A whole response or one stream chunk.
#[derive(Deserialize)]
struct ResponseBody {
    #[serde(default)]
    choices: Vec<ChoiceBody>,
    #[serde(default)]
    usage: Option<UsageBody>,
    #[serde(default)]
    error: Option<Value>,
}

/// Text from a `content`-like field: a string, or an array of parts
/// (`{"type":"text","text":...}`) as some servers send.
fn text_of(value: &Option<Value>, out: &mut String) {
    match value {
        Some(Value::String(text)) => out.push_str(text),
        Some(Value::Array(parts)) => {
            for part in parts {
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    out.push_str(text);
                }
            }
        }
        _ => {}
    }
}

/// Collects a reply from a whole response or from stream deltas.
#[derive(Default)]
struct ReplyBuilder {
    splitter: ThinkSplitter,
    reasoning: String,
    refusal: Option<String>,
    usage: Usage,
    finish_reason: Option<FinishReason>,
}

impl ReplyBuilder {
    fn add(&mut self, message: &MessageBody) {
        let mut content = String::new();
        text_of(&message.content, &mut content);
        self.splitter.push(&content);
        // Servers send one of the two names; a server sending both sends the
        // same text twice, so take the first that has text (some send the
        // other as `""`).
        let before = self.reasoning.len();
        text_of(&message.reasoning_content, &mut self.reasoning);
        if self.reasoning.len() == before {
            text_of(&message.reasoning, &mut self.reasoning);
        }
        if let Some(refusal) = &message.refusal {
            self.refusal
                .get_or_insert_with(String::new)
                .push_str(refusal);
        }
    }

    fn finish(self) -> Result<Reply, ModelError> {
        let (content, inline) = self.splitter.finish();
        let field = self.reasoning.trim();
        let reasoning = match (field.is_empty(), inline) {
            (true, inline) => inline,
            (false, None) => Some(field.to_string()),
            (false, Some(inline)) => Some(format!("{field}\n{inline}")),
        };
        let reply = Reply {
            content,
            reasoning,
            usage: self.usage,
            finish_reason: self.finish_reason,
        };
        http::finish_reply(reply, self.refusal)
    }
}

/// An `error` member of a body or chunk as a [`ModelError`]: a numeric HTTP
/// code keeps its status (so 429 stays retryable), anything else is a
/// stream that broke off with the server's message.
fn embedded_error(error: &Value, key: Option<&ApiKey>) -> ModelError {
    let wrapped = json!({ "error": error });
    let message = http::message_in(&wrapped).unwrap_or_else(|| error.to_string());
    let message = match key {
        Some(key) => key.scrub(message),
        None => message,
    };
    let code = error
        .get("code")
        .and_then(|c| {
            c.as_u64()
                .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|c| (400..600).contains(c));
    match code {
        Some(status) => ModelError::Status {
            status: status as u16,
            message,
            retry_after: None,
        },
        None => ModelError::Interrupted(format!("the server reported an error: {message}")),
    }
}

fn parse_response(bytes: &[u8], key: Option<&ApiKey>) -> Result<Reply, ModelError> {
    let body: ResponseBody = serde_json::from_slice(bytes).map_err(|e| {
        ModelError::Decode(format!(
            "the reply is not a chat completion ({e}): {}",
            http::excerpt(bytes)
        ))
    })?;
    if let Some(error) = &body.error {
        return Err(embedded_error(error, key));
    }
    let choice = body.choices.into_iter().next().ok_or_else(|| {
        ModelError::Decode(format!(
            "the reply has no choices: {}",
            http::excerpt(bytes)
        ))
    })?;
    let mut builder = ReplyBuilder::default();
    builder.add(choice.message.as_ref().unwrap_or(&MessageBody::default()));
    builder.finish_reason = choice
        .finish_reason
        .as_deref()
        .map(FinishReason::from_server);
    if let Some(usage) = &body.usage {
        builder.usage = usage.usage();
    }
    builder.finish()
}

async fn read_stream(reader: &mut BodyReader, key: Option<&ApiKey>) -> Result<Reply, ModelError> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut builder = ReplyBuilder::default();
    loop {
        let Some(chunk) = reader.next().await? else {
            decoder.finish(&mut events);
            if handle_events(&mut events, &mut builder, key)? {
                return builder.finish();
            }
            // Servers that skip `[DONE]` still send the finishing chunk; a
            // stream closed before either is a reply cut short.
            if builder.finish_reason.is_some() {
                return builder.finish();
            }
            return Err(ModelError::Interrupted(
                "the stream ended before the reply was complete (no finish_reason, no [DONE])"
                    .to_string(),
            ));
        };
        decoder.push(&chunk, &mut events);
        if handle_events(&mut events, &mut builder, key)? {
            return builder.finish();
        }
    }
}

/// Applies decoded events; true once `[DONE]` arrived.
fn handle_events(
    events: &mut Vec<SseEvent>,
    builder: &mut ReplyBuilder,
    key: Option<&ApiKey>,
) -> Result<bool, ModelError> {
    for event in events.drain(..) {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        if data.is_empty() {
            continue;
        }
        if event.event.as_deref() == Some("error") {
            // An `event: error` may carry JSON or plain text.
            let message = serde_json::from_str(data)
                .ok()
                .and_then(|value| http::message_in(&value))
                .unwrap_or_else(|| data.to_string());
            let message = match key {
                Some(key) => key.scrub(message),
                None => message,
            };
            return Err(ModelError::Interrupted(format!(
                "the server reported an error: {message}"
            )));
        }
        let chunk: ResponseBody = serde_json::from_str(data).map_err(|e| {
            ModelError::Decode(format!(
                "a stream event is not a chat completion chunk ({e}): {}",
                http::excerpt(data.as_bytes())
            ))
        })?;
        if let Some(error) = &chunk.error {
            return Err(embedded_error(error, key));
        }
        if let Some(choice) = chunk.choices.first() {
            if let Some(delta) = choice.delta.as_ref().or(choice.message.as_ref()) {
                builder.add(delta);
            }
            if let Some(reason) = &choice.finish_reason {
                builder.finish_reason = Some(FinishReason::from_server(reason));
            }
        }
        if let Some(usage) = &chunk.usage {
            builder.usage = usage.usage();
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
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
    fn from_env_prefers_twr_api_key() {
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
        let body = client.body(&[Message::user("hi")]).unwrap();
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
    fn non_object_extra_is_a_config_error() {
        let client = OpenAiCompatible::new("http://h/v1", "m").extra(json!([1]));
        assert!(matches!(client.body(&[]), Err(ModelError::Config(m)) if m.contains("an array")));
    }

    #[test]
    fn a_response_with_every_field() {
        let reply = parse_response(
            br#"{"choices":[{"message":{"role":"assistant","content":"<think>hmm</think>\nHi","reasoning_content":"field"},"finish_reason":"length"}],
                "usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":9}}"#,
            None,
        )
        .unwrap();
        assert_eq!(
            reply,
            Reply {
                content: "Hi".into(),
                reasoning: Some("field\nhmm".into()),
                usage: Usage {
                    prompt_tokens: 3,
                    completion_tokens: 4,
                    total_tokens: 9
                },
                finish_reason: Some(FinishReason::Length),
            }
        );
    }

    #[test]
    fn an_empty_reasoning_content_does_not_hide_reasoning() {
        let reply = parse_response(
            br#"{"choices":[{"message":{"content":"A","reasoning_content":"","reasoning":"why"}}]}"#,
            None,
        )
        .unwrap();
        assert_eq!(reply.reasoning.as_deref(), Some("why"));
        let reply = parse_response(
            br#"{"choices":[{"message":{"content":"A","reasoning_content":"rc","reasoning":"rc"}}]}"#,
            None,
        )
        .unwrap();
        assert_eq!(reply.reasoning.as_deref(), Some("rc"));
    }

    #[test]
    fn refusals_and_filters_are_refused_not_empty() {
        let err = parse_response(
            br#"{"choices":[{"message":{"content":null,"refusal":"I can't help"},"finish_reason":"stop"}]}"#,
            None,
        )
        .unwrap_err();
        assert!(
            matches!(&err, ModelError::Refused(m) if m == "I can't help"),
            "{err}"
        );
        let err = parse_response(
            br#"{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}"#,
            None,
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Refused(_)));
    }
}
