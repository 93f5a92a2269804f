//! [`Gemini`]: Google's Generative Language API (`generateContent` and
//! `streamGenerateContent`).

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Map, Value};
use tracing::Instrument;

use super::http::{self, BodyReader, Options};
use super::secret::ApiKey;
use super::sse::{SseDecoder, SseEvent};
use crate::model::{BoxFuture, ChatModel, FinishReason, Message, ModelError, Reply, Role, Usage};
use crate::reasoning::ThinkSplitter;

/// The public endpoint.
const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// A client for Gemini models.
///
/// System messages become the `systemInstruction`, assistant messages the
/// `model` role. Thought parts (`"thought": true`, sent when
/// [`include_thoughts`](Self::include_thoughts) is on) land in
/// [`Reply::reasoning`]. The key travels in the `x-goog-api-key` header, never
/// in the URL, so it cannot leak through an error message that quotes a URL.
///
/// ```no_run
/// use twr_runtime::{ChatModel, Gemini, Message};
///
/// # async fn demo() -> Result<(), twr_runtime::ModelError> {
/// let model = Gemini::new(std::env::var("GEMINI_API_KEY").unwrap_or_default(), "gemini-2.5-flash")
///     .temperature(0.2)
///     .max_tokens(1024);
/// let reply = model.chat(&[Message::system("Be brief."), Message::user("Say hi")]).await?;
/// println!("{}", reply.content);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Gemini {
    base_url: String,
    model: String,
    api_key: Option<ApiKey>,
    include_thoughts: bool,
    options: Options,
}

impl Gemini {
    /// A client for `model` (`gemini-2.5-flash`, or `models/gemini-2.5-flash`)
    /// authenticated with `api_key`.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let model = model.into();
        let model = match model.strip_prefix("models/") {
            Some(bare) => bare.to_string(),
            None => model,
        };
        Gemini {
            base_url: DEFAULT_BASE_URL.to_string(),
            model,
            api_key: ApiKey::new(api_key),
            include_thoughts: false,
            options: Options::default(),
        }
    }

    /// The API root (default `https://generativelanguage.googleapis.com/v1beta`);
    /// `/models/{model}:generateContent` is appended.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Streams the reply (`streamGenerateContent?alt=sse`; default: off).
    pub fn stream(mut self, stream: bool) -> Self {
        self.options.stream = stream;
        self
    }

    /// Asks thinking models to send their thoughts
    /// (`generationConfig.thinkingConfig.includeThoughts`), which then land in
    /// [`Reply::reasoning`].
    pub fn include_thoughts(mut self, include: bool) -> Self {
        self.include_thoughts = include;
        self
    }

    /// Sampling temperature (`generationConfig.temperature`).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.options.temperature = Some(temperature);
        self
    }

    /// The most tokens the reply may have (`generationConfig.maxOutputTokens`).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.options.max_tokens = Some(max_tokens);
        self
    }

    /// A sampling seed (`generationConfig.seed`).
    pub fn seed(mut self, seed: u64) -> Self {
        self.options.seed = Some(seed);
        self
    }

    /// Extra fields merged deeply into the request body (`safetySettings`,
    /// more `generationConfig`, ...); a `null` removes a field. It must be a
    /// JSON object, or requests fail with [`ModelError::Config`].
    pub fn extra(mut self, extra: Value) -> Self {
        self.options.add_extra(extra);
        self
    }

    /// The time limit for one whole request (default: 10 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// The most bytes a response may have (default: 16 MiB).
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.options.max_response_bytes = limit;
        self
    }

    /// Uses `client` for requests. By default all model clients share one.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.options.http_client = Some(client);
        self
    }

    /// The model id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The JSON request body for `messages`.
    fn body(&self, messages: &[Message]) -> Result<Value, ModelError> {
        let mut system = Vec::new();
        let mut contents: Vec<Value> = Vec::new();
        for message in messages {
            let role = match message.role {
                Role::System => {
                    system.push(json!({ "text": message.content }));
                    continue;
                }
                Role::User => "user",
                Role::Assistant => "model",
            };
            let part = json!({ "text": message.content });
            // Consecutive turns of one role become one turn with several parts.
            match contents.last_mut() {
                Some(last) if last["role"] == role => {
                    last["parts"].as_array_mut().expect("parts").push(part)
                }
                _ => contents.push(json!({ "role": role, "parts": [part] })),
            }
        }
        if contents.is_empty() {
            return Err(ModelError::Config(
                "Gemini needs at least one user or assistant message".to_string(),
            ));
        }
        let mut body = Map::new();
        body.insert("contents".into(), Value::Array(contents));
        if !system.is_empty() {
            body.insert("systemInstruction".into(), json!({ "parts": system }));
        }
        let mut config = Map::new();
        if let Some(temperature) = self.options.temperature {
            config.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = self.options.max_tokens {
            config.insert("maxOutputTokens".into(), json!(max_tokens));
        }
        if let Some(seed) = self.options.seed {
            config.insert("seed".into(), json!(seed));
        }
        if self.include_thoughts {
            config.insert("thinkingConfig".into(), json!({ "includeThoughts": true }));
        }
        if !config.is_empty() {
            body.insert("generationConfig".into(), Value::Object(config));
        }
        let mut body = Value::Object(body);
        self.options.apply_extra(&mut body)?;
        Ok(body)
    }

    async fn call(&self, messages: &[Message]) -> Result<Reply, ModelError> {
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("the model name is empty".to_string()));
        }
        let key = self
            .api_key
            .as_ref()
            .ok_or_else(|| ModelError::Config("the Gemini API key is empty".to_string()))?;
        let path = if self.options.stream {
            format!("models/{}:streamGenerateContent", self.model)
        } else {
            format!("models/{}:generateContent", self.model)
        };
        let mut url = http::endpoint(&self.base_url, &path)?;
        if self.options.stream {
            url.set_query(Some("alt=sse"));
        }
        let body = self.body(messages)?;
        let client = self.options.client()?;
        let mut api_key = reqwest::header::HeaderValue::from_str(key.expose()).map_err(|_| {
            ModelError::Config(
                "the Gemini API key contains characters not allowed in a header".to_string(),
            )
        })?;
        api_key.set_sensitive(true);
        let request = client
            .post(url)
            .header("x-goog-api-key", api_key)
            .json(&body);
        let timeout = self.options.timeout;
        let limit = self.options.max_response_bytes;
        self.options
            .timed(async move {
                let response = http::send(request, Some(key), timeout).await?;
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

impl ChatModel for Gemini {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let span = tracing::debug_span!(
            "twr.chat",
            provider = "gemini",
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponseBody {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

#[derive(Deserialize)]
struct Part {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thought: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
    #[serde(default)]
    total_token_count: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
    #[serde(default)]
    block_reason_message: Option<String>,
}

/// Gemini's finish reasons that mean "a filter stopped it".
fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::from_server(other),
    }
}

/// Collects a reply from one response or from every stream chunk.
#[derive(Default)]
struct ReplyBuilder {
    splitter: ThinkSplitter,
    thoughts: String,
    usage: Usage,
    finish_reason: Option<FinishReason>,
}

impl ReplyBuilder {
    /// Applies one response (or chunk); a blocked prompt is an error.
    fn add(&mut self, body: ResponseBody, key: &ApiKey) -> Result<(), ModelError> {
        if let Some(error) = &body.error {
            let message =
                http::message_in(&json!({ "error": error })).unwrap_or_else(|| error.to_string());
            let message = key.scrub(message);
            let status = error
                .get("code")
                .and_then(Value::as_u64)
                .filter(|c| (400..600).contains(c));
            return Err(match status {
                Some(status) => ModelError::Status {
                    status: status as u16,
                    message,
                    retry_after: None,
                },
                None => ModelError::Interrupted(format!("the server reported an error: {message}")),
            });
        }
        if let Some(reason) = body
            .prompt_feedback
            .as_ref()
            .and_then(|f| f.block_reason.as_deref())
        {
            let detail = body
                .prompt_feedback
                .as_ref()
                .and_then(|f| f.block_reason_message.as_deref())
                .map(|m| format!(": {m}"))
                .unwrap_or_default();
            return Err(ModelError::Refused(format!(
                "Gemini blocked the prompt (blockReason {reason}){detail}"
            )));
        }
        if let Some(candidate) = body.candidates.into_iter().next() {
            for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
                let Some(text) = part.text else { continue };
                if part.thought {
                    self.thoughts.push_str(&text);
                } else {
                    self.splitter.push(&text);
                }
            }
            if let Some(reason) = candidate.finish_reason.as_deref() {
                self.finish_reason = Some(finish_reason(reason));
            }
        }
        if let Some(usage) = body.usage_metadata {
            let completion = usage.candidates_token_count + usage.thoughts_token_count;
            self.usage = Usage::new(usage.prompt_token_count, completion);
            if let Some(total) = usage.total_token_count {
                self.usage.total_tokens = total;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Reply, ModelError> {
        let (content, inline) = self.splitter.finish();
        let thoughts = self.thoughts.trim();
        let reasoning = match (thoughts.is_empty(), inline) {
            (true, inline) => inline,
            (false, None) => Some(thoughts.to_string()),
            (false, Some(inline)) => Some(format!("{thoughts}\n{inline}")),
        };
        let reply = Reply {
            content,
            reasoning,
            usage: self.usage,
            finish_reason: self.finish_reason,
        };
        http::finish_reply(reply, None)
    }
}

fn decode(bytes: &[u8]) -> Result<ResponseBody, ModelError> {
    serde_json::from_slice(bytes).map_err(|e| {
        ModelError::Decode(format!(
            "the reply is not a Gemini response ({e}): {}",
            http::excerpt(bytes)
        ))
    })
}

fn parse_response(bytes: &[u8], key: &ApiKey) -> Result<Reply, ModelError> {
    let body = decode(bytes)?;
    if body.candidates.is_empty() && body.prompt_feedback.is_none() && body.error.is_none() {
        return Err(ModelError::Decode(format!(
            "the reply has no candidates: {}",
            http::excerpt(bytes)
        )));
    }
    let mut builder = ReplyBuilder::default();
    builder.add(body, key)?;
    builder.finish()
}

/// Gemini's stream has no `[DONE]`: it is complete when a chunk carried a
/// finish reason and the connection then closed cleanly.
async fn read_stream(reader: &mut BodyReader, key: &ApiKey) -> Result<Reply, ModelError> {
    let mut decoder = SseDecoder::new();
    let mut events: Vec<SseEvent> = Vec::new();
    let mut builder = ReplyBuilder::default();
    loop {
        let chunk = reader.next().await?;
        match &chunk {
            Some(bytes) => decoder.push(bytes, &mut events),
            None => decoder.finish(&mut events),
        }
        for event in events.drain(..) {
            let data = event.data.trim();
            if data.is_empty() {
                continue;
            }
            builder.add(decode(data.as_bytes())?, key)?;
        }
        if chunk.is_none() {
            break;
        }
    }
    if builder.finish_reason.is_none() {
        return Err(ModelError::Interrupted(
            "the stream ended before the reply was complete (no finishReason)".to_string(),
        ));
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_maps_roles_system_and_config() {
        let client = Gemini::new("k", "models/gemini-x")
            .temperature(0.25)
            .max_tokens(100)
            .include_thoughts(true)
            .extra(json!({"generationConfig": {"topK": 3}}));
        assert_eq!(client.model(), "gemini-x");
        let body = client
            .body(&[
                Message::system("Be brief."),
                Message::user("a"),
                Message::user("b"),
                Message::assistant("c"),
            ])
            .unwrap();
        assert_eq!(
            body,
            json!({
                "contents": [
                    {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]},
                    {"role": "model", "parts": [{"text": "c"}]},
                ],
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
                "generationConfig": {
                    "temperature": 0.25,
                    "maxOutputTokens": 100,
                    "thinkingConfig": {"includeThoughts": true},
                    "topK": 3,
                },
            })
        );
    }

    #[test]
    fn only_system_messages_is_a_config_error() {
        let err = Gemini::new("k", "m")
            .body(&[Message::system("x")])
            .unwrap_err();
        assert!(matches!(err, ModelError::Config(_)));
    }

    #[test]
    fn blocked_prompts_are_refused() {
        let key = ApiKey::new("k").unwrap();
        let err =
            parse_response(br#"{"promptFeedback":{"blockReason":"SAFETY"}}"#, &key).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the model server refused to answer: Gemini blocked the prompt (blockReason SAFETY)"
        );
        assert!(!err.is_transient());
    }
}
