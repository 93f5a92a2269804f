//! The adapter for Google's Generative Language API (`generateContent` and
//! `streamGenerateContent`).

use std::fmt;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::client::attachments::{self, AttachmentRules, SizeLimit, MIB};
use crate::client::http_model::{env_value, required_env, HttpModel};
use crate::client::options::merge_json;
use crate::client::provider::{self, Fault, Flow, Decoded, Provider, RequestHead, RequestSpec};
use crate::client::secret::ApiKey;
use crate::client::sse::SseEvent;
use crate::grammar::{Dialect, Grammar};
use crate::model::attachment::media;
use crate::model::AttachmentKind;
use crate::model::{FinishReason, Message, ModelError, Role, TokenLogprob, Usage};

/// The public endpoint.
const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// A client for Gemini models.
///
/// System messages become the `systemInstruction`, assistant messages the
/// `model` role. Thought parts (`"thought": true`, sent when
/// [`include_thoughts`](Self::include_thoughts) is on) land in
/// [`Reply::reasoning`](crate::Reply::reasoning). The key travels in the
/// `x-goog-api-key` header, never in the URL, so it cannot leak through an
/// error message that quotes a URL, and never to another origin. The shared
/// options and their builder are [`HttpModel`]'s.
///
/// ```no_run
/// use twr_runtime::{ChatModel, Gemini, Message};
///
/// # async fn demo() -> Result<(), twr_runtime::ModelError> {
/// let model = Gemini::from_env()?   // GEMINI_API_KEY (or GOOGLE_API_KEY) and TWR_MODEL
///     .temperature(0.2)
///     .max_tokens(1024);
/// let reply = model.chat(&[Message::system("Be brief."), Message::user("Say hi")]).await?;
/// println!("{}", reply.content);
/// # Ok(()) }
/// ```
pub type Gemini = HttpModel<GeminiApi>;

/// Gemini's generateContent: PNG, JPEG, WebP, HEIC and HEIF images, PDFs
/// up to 50 MiB each, either by URL too (public or signed `https` URLs,
/// which Gemini fetches), and 100 MiB of inline data per request.
pub(crate) const ATTACHMENTS: AttachmentRules = AttachmentRules::new("Gemini")
    .images(&[
        "image/png",
        "image/jpeg",
        "image/webp",
        "image/heic",
        "image/heif",
    ])
    .image_urls(true)
    .documents(&["application/pdf"])
    .document_urls(true)
    .max_document(SizeLimit::bytes(50 * MIB))
    .max_request(SizeLimit::base64(100 * MIB));

/// Google's status names that say what an HTTP status would (also read by
/// the OpenAI-compatible adapter, for gateways that relay them).
pub(crate) fn error_status(code: &str) -> Option<u16> {
    Some(match code {
        "invalid_argument" | "failed_precondition" => 400,
        "unauthenticated" => 401,
        "permission_denied" => 403,
        "not_found" => 404,
        "resource_exhausted" => 429,
        _ => return None,
    })
}

/// The Gemini part of [`Gemini`]: its own options.
#[derive(Debug, Clone)]
pub struct GeminiApi {
    include_thoughts: bool,
}

impl HttpModel<GeminiApi> {
    /// A client for `model` (`gemini-2.5-flash`, or `models/gemini-2.5-flash`)
    /// authenticated with `api_key`. An empty or blank key is no key, and a
    /// call then fails with [`ModelError::Config`] before sending anything.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let model = model.into();
        let model = match model.strip_prefix("models/") {
            Some(bare) => bare.to_string(),
            None => model,
        };
        let api = GeminiApi {
            include_thoughts: false,
        };
        // Gemini's API reference documents `candidateCount` for every
        // model but the retired 1.0 family: several samples are one
        // request unless told otherwise.
        HttpModel::with_provider(api, DEFAULT_BASE_URL.to_string(), model)
            .api_key(api_key)
            .takes_n(true)
    }

    /// A client configured from the environment: the key from
    /// `GEMINI_API_KEY` or else `GOOGLE_API_KEY`, the model from `TWR_MODEL`.
    /// A blank variable counts as unset. The base URL stays the public
    /// endpoint; change it with [`base_url`](Self::base_url).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the variables that are missing or empty.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over any variable lookup.
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let key = env_value(&lookup, "GEMINI_API_KEY")
            .or_else(|| env_value(&lookup, "GOOGLE_API_KEY"))
            .ok_or_else(|| {
                ModelError::Config(
                    "the environment variables GEMINI_API_KEY and GOOGLE_API_KEY are not set \
                     (the Gemini API key)"
                        .into(),
                )
            })?;
        let model = required_env(&lookup, "TWR_MODEL", "the model id to ask")?;
        Ok(Gemini::new(key, model))
    }

    /// The API root (default `https://generativelanguage.googleapis.com/v1beta`);
    /// `/models/{model}:generateContent` is appended.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Asks thinking models to send their thoughts
    /// (`generationConfig.thinkingConfig.includeThoughts`), which then land in
    /// [`Reply::reasoning`](crate::Reply::reasoning).
    pub fn include_thoughts(mut self, include: bool) -> Self {
        self.provider.include_thoughts = include;
        self
    }
}

impl Provider for GeminiApi {
    const NAME: &'static str = "gemini";
    const GEN_AI_PROVIDER_NAME: &'static str = "gcp.gemini";
    const TYPE_NAME: &'static str = "Gemini";
    const UNFINISHED: &'static str = "no finishReason";
    /// `generationConfig.candidateCount`.
    const TAKES_N: bool = true;

    type StreamState = ();

    /// `models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`
    /// when streaming; the key in `x-goog-api-key`, never in the URL.
    fn head(
        &self,
        spec: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError> {
        let model = spec.model;
        if spec.stream {
            head.path(format!("models/{model}:streamGenerateContent"))
                .query("alt", "sse");
        } else {
            head.path(format!("models/{model}:generateContent"));
        }
        let key = key.ok_or_else(|| ModelError::Config("the Gemini API key is empty".into()))?;
        head.key_header("x-goog-api-key", "", key)?;
        Ok(())
    }

    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
        let mut system = Vec::new();
        let mut contents: Vec<Value> = Vec::new();
        for message in spec.messages {
            let role = match message.role {
                Role::System => {
                    system.push(json!({ "text": message.content }));
                    continue;
                }
                Role::User => "user",
                Role::Assistant => "model",
            };
            let parts = parts(message)?;
            // Consecutive turns of one role become one turn with several parts.
            match contents.last_mut() {
                Some(last) if last["role"] == role => {
                    last["parts"].as_array_mut().expect("parts").extend(parts)
                }
                _ => contents.push(attachments::object([
                    ("role", json!(role)),
                    ("parts", Value::Array(parts)),
                ])),
            }
        }
        if contents.is_empty() {
            return Err(ModelError::Config(
                "Gemini needs at least one user or assistant message".into(),
            ));
        }
        let mut body = Map::new();
        body.insert("contents".into(), Value::Array(contents));
        if !system.is_empty() {
            body.insert("systemInstruction".into(), json!({ "parts": system }));
        }
        let mut config = Map::new();
        if let Some(temperature) = spec.temperature {
            config.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = spec.max_tokens {
            config.insert("maxOutputTokens".into(), json!(max_tokens));
        }
        if let Some(seed) = spec.seed {
            config.insert("seed".into(), json!(seed));
        }
        if self.include_thoughts {
            config.insert("thinkingConfig".into(), json!({ "includeThoughts": true }));
        }
        if spec.n > 1 {
            config.insert("candidateCount".into(), json!(spec.n));
        }
        if spec.logprobs {
            config.insert("responseLogprobs".into(), json!(true));
            config.insert("logprobs".into(), json!(crate::client::TOP_LOGPROBS));
        }
        if !config.is_empty() {
            body.insert("generationConfig".into(), Value::Object(config));
        }
        Ok(Value::Object(body))
    }

    /// Gemini's structured outputs: `generationConfig.responseMimeType`
    /// `"application/json"` with the schema in
    /// `generationConfig.responseJsonSchema`. The API reference's
    /// `GenerationConfig` describes `responseJsonSchema` as the alternative
    /// to `responseSchema` that accepts JSON Schema (`anyOf`, type lists,
    /// `additionalProperties`, as twr's schema has them), where
    /// `responseSchema` takes only a subset of OpenAPI 3.0's schema object;
    /// either needs `responseMimeType`. Any other dialect is a
    /// [`ModelError::Config`].
    fn grammar(
        &self,
        dialect: Dialect,
        grammar: &Grammar,
        body: &mut Value,
    ) -> Result<&'static str, ModelError> {
        const FIELD: &str = "generationConfig.responseJsonSchema";
        if dialect != Dialect::JsonSchema {
            return Err(provider::json_schema_only("the Gemini API", FIELD, dialect));
        }
        let config = json!({
            "responseMimeType": "application/json",
            "responseJsonSchema": grammar.json_schema(),
        });
        merge_json(body, json!({"generationConfig": config}));
        Ok(FIELD)
    }

    /// PNG, JPEG, WebP, HEIC and HEIF images and PDFs, by bytes or URL,
    /// within Gemini's documented limits (see [`AttachmentRules`]).
    fn attachment_rules(&self) -> AttachmentRules {
        ATTACHMENTS
    }

    /// Google's status names (`INVALID_ARGUMENT`, `UNAUTHENTICATED`,
    /// `RESOURCE_EXHAUSTED`, ...).
    fn error_status(&self, code: &str) -> Option<u16> {
        error_status(code)
    }

    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
        let body = decode(body)?;
        if body.candidates.is_empty() && body.prompt_feedback.is_none() && body.error.is_none() {
            return Err(Fault::Missing("candidates"));
        }
        body.push_decoded(out)
    }

    /// Gemini's stream has no `[DONE]`: it is complete when a chunk carried
    /// a finish reason and the connection then closed cleanly.
    fn decode_event(
        &self,
        _: &mut (),
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault> {
        decode(event.data().as_bytes())?.push_decoded(out)?;
        Ok(Flow::Continue)
    }

    fn debug_fields(&self, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("include_thoughts", &self.include_thoughts);
    }
}

/// The parts of one message: each attachment (`inlineData` with its
/// base64 bytes, or `fileData` with a URL Gemini fetches), then the text
/// (a message of text alone is one text part, empty or not).
fn parts(message: &Message) -> Result<Vec<Value>, ModelError> {
    let attachments = message.attachments();
    let mut parts = Vec::with_capacity(attachments.len() + 1);
    for attachment in attachments {
        let part = match (
            attachment.url(),
            attachment.media_type(),
            attachment.to_base64(),
        ) {
            (Some(url), _, _) => json!({ "fileData": file_data(attachment.kind(), url) }),
            (None, Some(media_type), Some(data)) => {
                let inline = attachments::object([
                    ("mimeType", json!(media_type)),
                    ("data", Value::String(data)),
                ]);
                attachments::object([("inlineData", inline)])
            }
            // An attachment is bytes with a media type, or a URL.
            _ => {
                return Err(ModelError::Config(
                    "an attachment has neither bytes nor a URL".into(),
                ))
            }
        };
        parts.push(part);
    }
    if attachments.is_empty() || !message.content.is_empty() {
        parts.push(json!({ "text": message.content }));
    }
    Ok(parts)
}

/// The `fileData` of a URL: the URL, and its media type when its file
/// name's extension says one of this kind (Gemini asks for it beside the
/// URL; a PDF is the only document it takes by URL, so a document URL is
/// one whatever its name).
fn file_data(kind: AttachmentKind, url: &str) -> Value {
    let guessed = media::guess_from_url(url);
    let media_type = match kind {
        AttachmentKind::Image => guessed.filter(|media_type| media_type.starts_with("image/")),
        AttachmentKind::Document => Some("application/pdf"),
    };
    match media_type {
        Some(media_type) => json!({ "mimeType": media_type, "fileUri": url }),
        None => json!({ "fileUri": url }),
    }
}

fn decode(bytes: &[u8]) -> Result<ResponseBody, Fault> {
    serde_json::from_slice(bytes).map_err(|error| Fault::NotJson {
        expected: "a Gemini response",
        error,
    })
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
    /// The model that answered (`"gemini-2.5-flash-001"`).
    #[serde(default)]
    model_version: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    /// Which of the candidates asked for (`candidateCount`) it is; its
    /// place among them when left out.
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
    /// Gemini's words on why it stopped, when it says more than the reason.
    #[serde(default)]
    finish_message: Option<String>,
    #[serde(default)]
    safety_ratings: Vec<SafetyRating>,
    /// The answer's tokens with their log-probabilities, when asked for
    /// (`responseLogprobs`).
    #[serde(default)]
    logprobs_result: Option<LogprobsResult>,
}

/// `logprobsResult`: the chosen token at each place
/// (`chosenCandidates`) and, place by place, the most likely ones
/// (`topCandidates[i].candidates`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogprobsResult {
    #[serde(default)]
    chosen_candidates: Vec<TokenCandidate>,
    #[serde(default)]
    top_candidates: Vec<TopCandidates>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokenCandidate {
    #[serde(default)]
    token: String,
    #[serde(default)]
    log_probability: f64,
}

#[derive(Deserialize)]
struct TopCandidates {
    #[serde(default)]
    candidates: Vec<TokenCandidate>,
}

impl LogprobsResult {
    fn tokens(self) -> Vec<TokenLogprob> {
        let mut tops = self.top_candidates.into_iter();
        self.chosen_candidates
            .into_iter()
            .map(|chosen| TokenLogprob {
                token: chosen.token,
                logprob: chosen.log_probability,
                top: tops
                    .next()
                    .map(|top| {
                        top.candidates
                            .into_iter()
                            .map(|c| (c.token, c.log_probability))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect()
    }
}

/// One category a safety filter rated; `blocked` when it stopped the reply.
#[derive(Deserialize)]
struct SafetyRating {
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    blocked: bool,
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
    /// Prompt tokens served from a cache (implicit or explicit), part of
    /// `promptTokenCount`.
    #[serde(default)]
    cached_content_token_count: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
    #[serde(default)]
    block_reason_message: Option<String>,
}

impl ResponseBody {
    /// What one response (or chunk) says; an error or a blocked prompt is a
    /// fault.
    fn push_decoded(self, out: &mut Vec<Decoded>) -> Result<(), Fault> {
        if let Some(error) = self.error {
            return Err(Fault::Embedded(error));
        }
        out.extend(self.model_version.filter(|m| !m.is_empty()).map(Decoded::Model));
        if let Some(feedback) = self.prompt_feedback {
            if let Some(reason) = feedback.block_reason {
                let detail = feedback
                    .block_reason_message
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                return Err(Fault::Refused(format!(
                    "Gemini blocked the prompt (blockReason {reason}){detail}"
                )));
            }
        }
        let several = self.candidates.len() > 1;
        for (place, candidate) in self.candidates.into_iter().enumerate() {
            if several || candidate.index.is_some() {
                out.push(Decoded::Choice(candidate.index.unwrap_or(place as u32)));
            }
            for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
                match part.text {
                    Some(text) if part.thought => out.push(Decoded::Reasoning(text)),
                    Some(text) => out.push(Decoded::Content(text)),
                    None => {}
                }
            }
            let tokens = candidate.logprobs_result.map(LogprobsResult::tokens);
            if let Some(tokens) = tokens.filter(|tokens| !tokens.is_empty()) {
                out.push(Decoded::Logprobs(tokens));
            }
            if let Some(reason) = candidate.finish_reason {
                if blocks(&reason) {
                    out.push(Decoded::Refusal(blocked_message(
                        &reason,
                        candidate.finish_message.as_deref(),
                        &candidate.safety_ratings,
                    )));
                    out.push(Decoded::Finish(FinishReason::ContentFilter));
                } else {
                    out.push(Decoded::Finish(FinishReason::from_server(&reason)));
                }
            }
        }
        if let Some(usage) = self.usage_metadata {
            let completion = usage.candidates_token_count + usage.thoughts_token_count;
            let mut counts = Usage::new(usage.prompt_token_count, completion)
                .with_cache(usage.cached_content_token_count, 0);
            if let Some(total) = usage.total_token_count {
                counts.total_tokens = total;
            }
            out.push(Decoded::Usage(counts));
        }
        Ok(())
    }
}

/// Whether a finish reason means a filter blocked the reply: asking again
/// the same way gets the same block, so it is a refusal, never an empty
/// reply to retry. From the API's `FinishReason` (generativelanguage v1beta,
/// and Vertex AI's `MODEL_ARMOR`); the streamed reply's last chunk carries
/// it with empty content after the text that was sent.
fn blocks(reason: &str) -> bool {
    matches!(
        reason,
        "SAFETY"
            | "RECITATION"
            | "BLOCKLIST"
            | "PROHIBITED_CONTENT"
            | "SPII"
            | "MODEL_ARMOR"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT"
            | "IMAGE_RECITATION"
    )
}

/// What Gemini said about a block: the reason, its `finishMessage`, and the
/// safety categories it marked blocked.
fn blocked_message(reason: &str, message: Option<&str>, ratings: &[SafetyRating]) -> String {
    let mut said = format!("Gemini stopped the reply (finishReason {reason}");
    let categories: Vec<&str> = ratings
        .iter()
        .filter(|rating| rating.blocked)
        .filter_map(|rating| rating.category.as_deref())
        .collect();
    if !categories.is_empty() {
        said.push_str(", blocked for ");
        said.push_str(&categories.join(", "));
    }
    said.push(')');
    if let Some(message) = message.map(str::trim).filter(|m| !m.is_empty()) {
        said.push_str(": ");
        said.push_str(message);
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http_model::decode_whole;
    use crate::client::reply::DecodedReader;
    use crate::client::secret::Secrets;
    use crate::client::ResponseHeaders;
    use crate::model::Message;
    use crate::model::RateLimits;
    use std::time::Duration;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn body_maps_roles_system_and_config() {
        let client = Gemini::new("k", "models/gemini-x")
            .temperature(0.25)
            .max_tokens(100)
            .include_thoughts(true)
            .extra(json!({"generationConfig": {"topK": 3}}));
        assert_eq!(client.model(), "gemini-x");
        let body = client
            .request_body(&[
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
            .request_body(&[Message::system("x")])
            .unwrap_err();
        assert!(matches!(err, ModelError::Config(_)));
    }

    #[test]
    fn blocked_prompts_are_refused() {
        let mut reader = DecodedReader::default();
        let api = GeminiApi {
            include_thoughts: false,
        };
        let body = br#"{"promptFeedback":{"blockReason":"SAFETY"}}"#;
        let err = decode_whole(&api, body, &Secrets::default(), &mut reader).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the model server refused to answer: Gemini blocked the prompt (blockReason SAFETY)"
        );
        assert!(!err.is_transient());
    }

    #[test]
    fn cached_content_tokens_are_cache_reads() {
        let mut reader = DecodedReader::default();
        let api = GeminiApi {
            include_thoughts: false,
        };
        let body = br#"{"candidates":[{"content":{"parts":[{"text":"A"}]},"finishReason":"STOP"}],
            "usageMetadata":{"promptTokenCount":2100,"candidatesTokenCount":7,"totalTokenCount":2107,
                             "cachedContentTokenCount":2048}}"#;
        decode_whole(&api, body, &Secrets::default(), &mut reader).unwrap();
        assert_eq!(
            reader.finish().unwrap().usage,
            Usage::new(2100, 7).with_cache(2048, 0)
        );
    }

    #[test]
    fn from_env_reads_either_key_and_the_model() {
        let client = Gemini::from_lookup(env(&[
            ("GEMINI_API_KEY", " "),
            ("GOOGLE_API_KEY", "g-key"),
            ("TWR_MODEL", "models/gemini-y"),
        ]))
        .unwrap();
        assert_eq!(client.api_key.as_ref().unwrap().expose(), "g-key");
        assert_eq!(client.model(), "gemini-y");
        assert_eq!(client.base_url, DEFAULT_BASE_URL);
        let client = Gemini::from_lookup(env(&[
            ("GEMINI_API_KEY", "gem-key"),
            ("GOOGLE_API_KEY", "g-key"),
            ("TWR_MODEL", "m"),
        ]))
        .unwrap();
        assert_eq!(client.api_key.as_ref().unwrap().expose(), "gem-key");
        let err =
            Gemini::from_lookup(env(&[("TWR_MODEL", "m"), ("GEMINI_API_KEY", "")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid model configuration: the environment variables GEMINI_API_KEY and \
             GOOGLE_API_KEY are not set (the Gemini API key)"
        );
        let err = Gemini::from_lookup(env(&[("GEMINI_API_KEY", "k")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid model configuration: the environment variable TWR_MODEL is not set \
             (the model id to ask)"
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

    #[test]
    fn gemini_reads_only_the_pause_it_was_asked_for() {
        let client = Gemini::new("k", "m");
        let limits = limits_of(
            client.provider(),
            &[
                ("x-ratelimit-remaining-requests", "0"),
                ("retry-after", "3"),
            ],
        );
        let expected = RateLimits {
            retry_after: Some(Duration::from_secs(3)),
            ..RateLimits::default()
        };
        assert_eq!(limits, expected);
    }
}
