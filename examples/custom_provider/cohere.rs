//! A twr provider for Cohere's native chat API (`POST /v2/chat`), written
//! outside the crate with only twr's public adapter API
//! (`twr_runtime::client`).
//!
//! Cohere's shape is not OpenAI's: the key is a bearer token, but a reply is
//! a `message` whose `content` is a list of typed blocks (`text`,
//! `thinking`), the finish reason is upper case (`COMPLETE`, `MAX_TOKENS`),
//! token counts come as `usage.tokens` (and `usage.billed_units`), and a
//! stream is a sequence of named events: `message-start`, then per block a
//! `content-start`, `content-delta`s (`{"text": ...}` or `{"thinking":
//! ...}`) and a `content-end`, and a last `message-end` with the finish
//! reason and the usage (or, when generation failed, an error).

use serde::Deserialize;
use serde_json::{json, Map, Value};
use twr_runtime::client::{
    ApiKey, Decoded, Fault, Flow, HttpModel, Provider, RequestHead, RequestSpec, SseEvent,
};
use twr_runtime::{FinishReason, ModelError, Role, Usage};

/// Cohere's public endpoint; `/v2/chat` is appended.
pub const COHERE_BASE_URL: &str = "https://api.cohere.com";

/// A client for Cohere's chat API: twr's `HttpModel` with the adapter below,
/// so it has the shared builder (`stream`, `temperature`, `max_tokens`,
/// `seed`, `extra`, `timeout`, ...).
pub type Cohere = HttpModel<CohereApi>;

/// A Cohere client for `model` at the public endpoint, with `api_key`.
pub fn cohere(api_key: &str, model: &str) -> Cohere {
    HttpModel::with_provider(CohereApi::default(), COHERE_BASE_URL, model).api_key(api_key)
}

/// The Cohere part of [`Cohere`]: its own options.
#[derive(Debug, Clone, Default)]
pub struct CohereApi {
    /// The most tokens a reasoning model may think for, when set.
    thinking_budget: Option<u32>,
}

impl CohereApi {
    /// Lets a reasoning model (`command-a-reasoning-...`) think for at most
    /// `tokens` tokens; its thoughts land in `Reply::reasoning`.
    pub fn thinking_budget(mut self, tokens: u32) -> Self {
        self.thinking_budget = Some(tokens);
        self
    }
}

impl Provider for CohereApi {
    const NAME: &'static str = "cohere";
    const TYPE_NAME: &'static str = "Cohere";
    const UNFINISHED: &'static str = "no message-end";

    /// Every Cohere event stands alone: a `content-delta` says whether it
    /// is text or thinking, and `message-end` carries the whole usage.
    type StreamState = ();

    fn head(
        &self,
        _: &RequestSpec<'_>,
        key: Option<&ApiKey>,
        head: &mut RequestHead,
    ) -> Result<(), ModelError> {
        let key = key.ok_or_else(|| ModelError::Config("the Cohere API key is empty".into()))?;
        head.path("v2/chat")
            .key_header("authorization", "Bearer ", key)?;
        Ok(())
    }

    fn body(&self, spec: &RequestSpec<'_>) -> Result<Value, ModelError> {
        let messages: Vec<Value> = spec
            .messages
            .iter()
            .map(|message| {
                let role = match message.role {
                    Role::System => "system",
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                json!({"role": role, "content": message.content})
            })
            .collect();
        let mut body = Map::new();
        body.insert("model".into(), json!(spec.model));
        body.insert("messages".into(), Value::Array(messages));
        body.insert("stream".into(), json!(spec.stream));
        if let Some(temperature) = spec.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = spec.max_tokens {
            body.insert("max_tokens".into(), json!(max_tokens));
        }
        if let Some(seed) = spec.seed {
            body.insert("seed".into(), json!(seed));
        }
        if let Some(budget) = self.thinking_budget {
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "token_budget": budget}),
            );
        }
        Ok(Value::Object(body))
    }

    fn decode_reply(&self, body: &[u8], out: &mut Vec<Decoded>) -> Result<(), Fault> {
        let reply: ChatResponse = decode(body, "a Cohere chat response")?;
        let message = reply.message.ok_or(Fault::Missing("message"))?;
        for block in message.content {
            match block.kind.as_str() {
                "thinking" => out.extend(block.thinking.map(Decoded::Reasoning)),
                "text" => out.extend(block.text.map(Decoded::Content)),
                // Tool calls and citations are not text.
                _ => {}
            }
        }
        end(reply.finish_reason, reply.usage, None, out)
    }

    fn decode_event(
        &self,
        _: &mut (),
        event: &SseEvent,
        out: &mut Vec<Decoded>,
    ) -> Result<Flow, Fault> {
        let event: StreamEvent = decode(event.data().as_bytes(), "a Cohere stream event")?;
        let content = event
            .delta
            .as_ref()
            .and_then(|delta| delta.message.as_ref())
            .and_then(|message| message.content.as_ref());
        match event.kind.as_str() {
            // A block may open with text already.
            "content-start" | "content-delta" => {
                if let Some(content) = content {
                    content.push_decoded(out);
                }
            }
            "message-end" => {
                let delta = event.delta.unwrap_or_default();
                end(delta.finish_reason, delta.usage, delta.error, out)?;
                return Ok(Flow::Done);
            }
            // message-start, content-end, tool-plan-delta, citation-start, ...
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn debug_fields(&self, out: &mut std::fmt::DebugStruct<'_, '_>) {
        out.field("thinking_budget", &self.thinking_budget);
    }
}

/// The end of a reply: why it stopped, and the token counts. `ERROR` (a
/// generation that failed on Cohere's side) is a fault with Cohere's
/// message, so the call is retried.
fn end(
    reason: Option<String>,
    usage: Option<UsageBody>,
    error: Option<String>,
    out: &mut Vec<Decoded>,
) -> Result<(), Fault> {
    if let Some(usage) = usage {
        out.push(Decoded::Usage(usage.counts()));
    }
    let Some(reason) = reason else {
        return Ok(());
    };
    let reason = match reason.as_str() {
        "COMPLETE" | "STOP_SEQUENCE" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "ERROR" => {
            let message = error.unwrap_or_else(|| "generation failed".to_string());
            return Err(Fault::ErrorEvent(message));
        }
        other => FinishReason::from_server(other),
    };
    out.push(Decoded::Finish(reason));
    Ok(())
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], expected: &'static str) -> Result<T, Fault> {
    serde_json::from_slice(bytes).map_err(|error| Fault::NotJson { expected, error })
}

/// A whole reply.
#[derive(Deserialize)]
struct ChatResponse {
    message: Option<MessageBody>,
    finish_reason: Option<String>,
    usage: Option<UsageBody>,
}

#[derive(Deserialize)]
struct MessageBody {
    #[serde(default)]
    content: Vec<BlockBody>,
}

/// One content block of a whole reply.
#[derive(Deserialize)]
struct BlockBody {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    thinking: Option<String>,
}

/// One stream event: `{"type": "content-delta", "delta": {...}}`.
#[derive(Deserialize)]
struct StreamEvent {
    #[serde(rename = "type")]
    kind: String,
    delta: Option<EventDelta>,
}

#[derive(Deserialize, Default)]
struct EventDelta {
    message: Option<DeltaMessage>,
    finish_reason: Option<String>,
    usage: Option<UsageBody>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct DeltaMessage {
    content: Option<DeltaContent>,
}

/// The content of a `content-start` or a `content-delta`: text, or a
/// reasoning model's thinking.
#[derive(Deserialize)]
struct DeltaContent {
    text: Option<String>,
    thinking: Option<String>,
}

impl DeltaContent {
    fn push_decoded(&self, out: &mut Vec<Decoded>) {
        if let Some(thinking) = self.thinking.as_ref().filter(|t| !t.is_empty()) {
            out.push(Decoded::Reasoning(thinking.clone()));
        }
        if let Some(text) = self.text.as_ref().filter(|t| !t.is_empty()) {
            out.push(Decoded::Content(text.clone()));
        }
    }
}

/// Cohere counts tokens twice: `tokens` (what the model read and wrote)
/// and `billed_units`; the first is what twr reports, the second stands in
/// when it is missing. Counts are JSON numbers that may be written as floats.
#[derive(Deserialize)]
struct UsageBody {
    tokens: Option<Counts>,
    billed_units: Option<Counts>,
}

#[derive(Deserialize, Clone, Copy)]
struct Counts {
    #[serde(default)]
    input_tokens: f64,
    #[serde(default)]
    output_tokens: f64,
}

impl UsageBody {
    fn counts(&self) -> Usage {
        let counts = self.tokens.or(self.billed_units).unwrap_or(Counts {
            input_tokens: 0.0,
            output_tokens: 0.0,
        });
        Usage::new(counts.input_tokens as u64, counts.output_tokens as u64)
    }
}
