//! What the adapter crates' tests share (twr-async-openai, twr-genai,
//! twr-rig): the typed value they extract and the OpenAI Chat Completions
//! replies the workspace's test server (`tests/it/support/client.rs`,
//! included beside this file as `server`) answers with, whole and
//! streamed. Included by each with
//! `#[path = "../../tests/adapters/openai_replies.rs"] mod replies;`.
#![allow(dead_code)]

use serde_json::{json, Value};
use twr_runtime::Sections;

use super::server::{Recorded, Scripted};

/// What the extraction asks for.
#[derive(Debug, PartialEq, Sections)]
pub struct Trip {
    /// What to see.
    pub plan: String,
    /// How many days.
    pub days: u32,
}

/// A whole reply: `content`, its `reasoning_content` when given, and the
/// usage (with 4 cached prompt tokens).
pub fn completion(content: &str, reasoning: Option<&str>, usage: (u64, u64)) -> Scripted {
    let mut message = json!({"role": "assistant", "content": content});
    if let Some(reasoning) = reasoning {
        message["reasoning_content"] = json!(reasoning);
    }
    Scripted::json(
        200,
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1,
                      "total_tokens": usage.0 + usage.1,
                      "prompt_tokens_details": {"cached_tokens": 4}}
        }),
    )
}

/// One streamed chunk.
pub fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
    .to_string()
}

/// A streamed reply: the reasoning, the content in `pieces`, the finish
/// reason, the usage, `[DONE]`.
pub fn streamed(pieces: &[&str], reasoning: &str, usage: (u64, u64)) -> Scripted {
    let mut events = vec![chunk(
        json!({"role": "assistant", "reasoning_content": reasoning}),
        None,
    )];
    events.extend(pieces.iter().map(|p| chunk(json!({"content": p}), None)));
    events.push(chunk(json!({}), Some("stop")));
    events.push(
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [], "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1,
                                        "total_tokens": usage.0 + usage.1}})
        .to_string(),
    );
    events.push("[DONE]".to_string());
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    Scripted::sse(&events)
}

/// The roles of a recorded request's messages, in order.
pub fn roles(request: &Recorded) -> Vec<String> {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}
