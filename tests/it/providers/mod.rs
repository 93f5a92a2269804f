//! The checks every HTTP provider must pass, run once as a table over the
//! three clients (`OpenAiCompatible`, `Gemini`, `Anthropic`): redirects, API
//! keys, error bodies. Each check is one test with a row per provider, and
//! every assertion names the row it failed on. What only one provider does
//! (its reply shapes, its stream events) is tested in its own module:
//! `client_openai`, `client_gemini`, `client_anthropic`.

mod broken_streams;
mod error_bodies;
mod keys;
mod redirects;

use std::fmt;
use std::time::Duration;

use crate::support::client::TestServer;
use serde_json::{json, Value};
use twr_runtime::{Anthropic, ChatModel, Gemini, Message, OpenAiCompatible};

/// A client of any provider, as the checks hold it: a model that can also
/// show its `Debug` output.
pub trait Client: ChatModel + fmt::Debug {}

impl<T: ChatModel + fmt::Debug> Client for T {}

/// The rows of every table.
pub const ALL: [Api; 3] = [Api::OpenAi, Api::Gemini, Api::Anthropic];

/// One provider's API: how its client is made and how its server writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    OpenAi,
    Gemini,
    Anthropic,
}

impl Api {
    /// The key the row's client sends (unlike anything else in a request,
    /// so that a 6-character piece of it found in a text is a leak).
    pub fn key(self) -> &'static str {
        match self {
            Api::OpenAi => "sk-live-Q7vT2mXw9LpR4nZs",
            Api::Gemini => "AIzaSyD-k3Jf8Hq2Wm5Xv9Ze",
            Api::Anthropic => "sk-ant-api03-Hc4Rb8Yj1Wd6",
        }
    }

    /// The model name the row's client asks for.
    pub fn model(self) -> &'static str {
        match self {
            Api::OpenAi => "test-model",
            Api::Gemini => "gemini-test",
            Api::Anthropic => "claude-test",
        }
    }

    /// The path on `server` that the client's base URL names.
    pub fn base_path(self) -> &'static str {
        match self {
            Api::OpenAi => "/v1",
            Api::Gemini => "/v1beta",
            Api::Anthropic => "/anthropic",
        }
    }

    /// The path a whole (not streamed) call is sent to.
    pub fn chat_path(self) -> &'static str {
        match self {
            Api::OpenAi => "/v1/chat/completions",
            Api::Gemini => "/v1beta/models/gemini-test:generateContent",
            Api::Anthropic => "/anthropic/v1/messages",
        }
    }

    /// The request header that carries the key, and its value.
    pub fn key_header(self) -> (&'static str, String) {
        match self {
            Api::OpenAi => ("authorization", format!("Bearer {}", self.key())),
            Api::Gemini => ("x-goog-api-key", self.key().to_string()),
            Api::Anthropic => ("x-api-key", self.key().to_string()),
        }
    }

    /// The client with `key` and `base_url`, streaming or not.
    pub fn client_at(self, base_url: &str, key: &str, stream: bool) -> Box<dyn Client> {
        match self {
            Api::OpenAi => Box::new(
                OpenAiCompatible::new(base_url, self.model())
                    .api_key(key)
                    .stream(stream),
            ),
            Api::Gemini => Box::new(
                Gemini::new(key, self.model())
                    .base_url(base_url)
                    .stream(stream),
            ),
            Api::Anthropic => Box::new(
                Anthropic::new(key, self.model())
                    .base_url(base_url)
                    .stream(stream),
            ),
        }
    }

    /// The client of `server`, with the row's key.
    pub fn client(self, server: &TestServer, stream: bool) -> Box<dyn Client> {
        self.client_at(&server.url(self.base_path()), self.key(), stream)
    }

    /// The streaming client of `server`, giving up on a request after
    /// `timeout`.
    pub fn client_timing_out(self, server: &TestServer, timeout: Duration) -> Box<dyn Client> {
        let base_url = server.url(self.base_path());
        match self {
            Api::OpenAi => Box::new(
                OpenAiCompatible::new(base_url, self.model())
                    .api_key(self.key())
                    .stream(true)
                    .timeout(timeout),
            ),
            Api::Gemini => Box::new(
                Gemini::new(self.key(), self.model())
                    .base_url(base_url)
                    .stream(true)
                    .timeout(timeout),
            ),
            Api::Anthropic => Box::new(
                Anthropic::new(self.key(), self.model())
                    .base_url(base_url)
                    .stream(true)
                    .timeout(timeout),
            ),
        }
    }

    /// A whole reply saying `text`, with its token counts, as the
    /// provider's server writes it.
    pub fn reply(self, text: &str, prompt_tokens: u32, completion_tokens: u32) -> Value {
        match self {
            Api::OpenAi => json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
            }),
            Api::Gemini => json!({
                "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": prompt_tokens,
                                  "candidatesTokenCount": completion_tokens},
            }),
            Api::Anthropic => json!({
                "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
            }),
        }
    }

    /// An error body saying `message`, as the provider's server writes it
    /// with `status`.
    pub fn error(self, status: u16, message: &str) -> Value {
        match self {
            Api::OpenAi => json!({"error": {"message": message, "code": status}}),
            Api::Gemini => {
                json!({"error": {"code": status, "message": message, "status": "ERROR"}})
            }
            Api::Anthropic => {
                json!({"type": "error", "error": {"type": "api_error", "message": message}})
            }
        }
    }
}

impl Api {
    /// A streamed reply, as the provider's server writes it, that has sent
    /// `pieces` of text and no finish yet. Anthropic's starts with a
    /// `message_start` counting 5 prompt tokens and 1 reply token.
    pub fn stream_without_finish(self, pieces: &[&str]) -> String {
        let events = pieces.iter().map(|text| match self {
            Api::OpenAi => format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
            ),
            Api::Gemini => format!(
                "data: {}\r\n\r\n",
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]})
            ),
            Api::Anthropic => format!(
                "event: content_block_delta\ndata: {}\n\n",
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": text}})
            ),
        });
        let start = match self {
            Api::Anthropic => format!(
                "event: message_start\ndata: {}\n\n",
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                    "role": "assistant", "content": [], "model": "claude-test",
                    "stop_reason": null, "usage": {"input_tokens": 5, "output_tokens": 1}}})
            ),
            Api::OpenAi | Api::Gemini => String::new(),
        };
        start + &events.collect::<String>()
    }
}

/// A conversation of two messages.
pub fn hi() -> Vec<Message> {
    vec![Message::system("Be brief."), Message::user("Say hi")]
}
