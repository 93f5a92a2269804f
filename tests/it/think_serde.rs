//! The ledger as data (feature `serde`): an outcome and an error serialize
//! to the documented JSON shape, one JSON line per run, and an error from a
//! server that echoes the API key carries no key.

use crate::support::client::{Scripted, TestServer};
use serde::Serialize;
use serde_json::{json, Value};
use twr_runtime::{
    FinishReason, OpenAiCompatible, Reply, RetryPolicy, ScriptedModel, Sections, Think, Usage,
};

/// A fact with its reason.
#[derive(Debug, PartialEq, Sections, Serialize)]
struct Fact {
    /// The number.
    answer: u32,
    /// Why.
    reason: String,
}

/// `value` with every `*_ms` number set to 0 (timings vary).
fn without_timings(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key.ends_with("_ms") {
                    *item = json!(0);
                } else {
                    *item = without_timings(item.take());
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                *item = without_timings(item.take());
            }
        }
        _ => {}
    }
    value
}

#[tokio::test]
async fn an_outcome_is_one_json_line_in_the_documented_shape() {
    let first = Reply::text("[Answer]\nforty-two")
        .with_usage(Usage::new(40, 6))
        .with_finish_reason(FinishReason::Stop);
    let second = Reply::text("[Answer]\n42\n[Reason]\nIt is the answer.")
        .with_usage(Usage::new(90, 8))
        .with_finish_reason(FinishReason::Stop);
    let model = ScriptedModel::from_replies([first, second]).with_name("small-model");
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Fact>("What is the answer?")
        .await
        .unwrap();
    let line = serde_json::to_string(&outcome).unwrap();
    assert!(!line.contains('\n'), "one line: {line}");
    let value = without_timings(serde_json::from_str(&line).unwrap());
    // What was wrong, once in the attempt's problems; what was sent back
    // is that list and the one request the loop made.
    let problems = "Thank you. A few parts of your answer need fixing:\n\n\
        1. The [Answer] section should be a single whole number; it says 'forty-two'.\n\n\
        2. The [Reason] section is missing. Please add it: the header [Reason] on a line of its \
        own, then its content.\n   For example:\n   [Reason]\n   <free text>";
    let sent_back = format!(
        "{problems}\n\nReply with your whole answer again, every section included and each \
         header on a line of its own, with these fixes made."
    );
    let prompt = "What is the answer?\n\nThink it through freely first. Then give your final \
        answer in the sections below, each header on a line of its own followed by its \
        content.\n\n[Answer]\nThe number.\n\n[Reason]\nWhy.\n\nExample answer:\n\n\
        [Answer]\n<a single whole number>\n[Reason]\n<free text>\n\nAfter any thinking, \
        begin your final answer with [Answer] on a line of its own.";
    assert_eq!(
        value,
        json!({
            "value": {"answer": 42, "reason": "It is the answer."},
            "ending": "reasked",
            "reasks": 1,
            "attempts": [
                {
                    "number": 1,
                    "kind": "rejected",
                    "model": "small-model",
                    "raw": "[Answer]\nforty-two",
                    "reasoning": null,
                    "feedback": {"message": problems, "headers": ["[Answer]", "[Reason]"]},
                    "sent_back": sent_back,
                    "latency_ms": 0,
                    "usage": {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46, "cache_read_tokens": 0, "cache_write_tokens": 0},
                    "usage_reported": true,
                    "finish_reason": "stop",
                    "transport_retries": [],
                    "constrained": false,
                    "json": [],
                    "served": "live",
                    "cost": null,
                    "confidence": {},
                },
                {
                    "number": 2,
                    "kind": "accepted",
                    "model": "small-model",
                    "raw": "[Answer]\n42\n[Reason]\nIt is the answer.",
                    "reasoning": null,
                    "feedback": null,
                    "sent_back": null,
                    "latency_ms": 0,
                    "usage": {"prompt_tokens": 90, "completion_tokens": 8, "total_tokens": 98, "cache_read_tokens": 0, "cache_write_tokens": 0},
                    "usage_reported": true,
                    "finish_reason": "stop",
                    "transport_retries": [],
                    "constrained": false,
                    "json": [],
                    "served": "live",
                    "cost": null,
                    "confidence": {},
                },
            ],
            "usage": {"prompt_tokens": 130, "completion_tokens": 14, "total_tokens": 144, "cache_read_tokens": 0, "cache_write_tokens": 0},
            "cost": null,
            // Each reply once: the transcript points at the attempts.
            "transcript": [
                {"role": "user", "content": prompt},
                {"role": "assistant", "attempt": 1},
                {"role": "user", "attempt": 1},
                {"role": "assistant", "attempt": 2},
            ],
            "sources": [],
            "learned": [],
            "elapsed_ms": 0,
            "confidence": {},
            "needs_review": [],
        })
    );
    assert_eq!(outcome.transcript.len(), 4);
    // The accepted reply is in the line once (it was twice: in `attempts`
    // and in `transcript`).
    assert_eq!(line.matches(r"[Answer]\n42\n[Reason]").count(), 1, "{line}");
}

#[tokio::test]
async fn an_error_from_a_server_echoing_the_key_serializes_without_it() {
    const KEY: &str = "sk-serde-SECRET-9876";
    let echo = || {
        Scripted::json(
            503,
            json!({"error": {"message": "overloaded for key {KEY}"}}),
        )
        .echoing_key()
    };
    let server = TestServer::start(vec![echo(), echo()]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "test-model").api_key(KEY);
    let error = Think::new(&model)
        .retry_policy(
            RetryPolicy::default()
                .max_retries(1)
                .base_delay(std::time::Duration::from_millis(1)),
        )
        .run::<Fact>("What is the answer?")
        .await
        .unwrap_err();
    let line = serde_json::to_string(&error).unwrap();
    assert!(!line.contains("SECRET"), "{line}");
    let value = without_timings(serde_json::from_str(&line).unwrap());
    let failure = json!({
        "error": "the model server answered HTTP 503: overloaded for key [redacted]",
        "delay_ms": 0,
        "partial": null,
    });
    assert_eq!(
        value,
        json!({
            "kind": "model",
            "message": error.to_string(),
            "attempts": [],
            "failed_call": {
                "number": 1,
                "failures": [failure.clone(), failure],
                "latency_ms": 0,
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0},
                "cost": null,
            },
            "requests": 2,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0},
            "cost": null,
            "learned": [],
        })
    );
}
