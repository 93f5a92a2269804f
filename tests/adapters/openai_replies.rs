//! What the adapter crates' tests share (twr-async-openai, twr-genai,
//! twr-rig): the typed value they extract and the OpenAI Chat Completions
//! replies the workspace's test server (`tests/it/support/client.rs`,
//! included beside this file as `server`) answers with, whole and
//! streamed, and the cases every adapter passes the same way (a patch
//! retry, whole and streamed: each adapter adds what only it sends).
//! Included by each with
//! `#[path = "../../tests/adapters/openai_replies.rs"] mod replies;`.
#![allow(dead_code)]

use serde_json::{json, Value};
use twr_runtime::{
    AttemptKind, ChatModel, FinishReason, Message, ModelError, Sections, Think, ThinkErrorKind,
    Usage,
};

use super::server::{Recorded, Scripted, TestServer};

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

/// What the server answers in [`whole_patch_case`]: a first reply whose
/// [Days] is words (with reasoning), then the patch.
pub fn whole_patch_script() -> Vec<Scripted> {
    vec![
        completion(
            "[Plan]\nSee the temples\n[Days]\nabout a week",
            Some("Kyoto..."),
            (30, 10),
        ),
        completion("[Days]\n7", None, (50, 3)),
    ]
}

/// A typed extraction with a patch retry through `model`, a whole-reply
/// model named `gpt-test` with key `sk-test-key` whose options set the
/// temperature to 0.25, served [`whole_patch_script`] by `server`: the
/// value, the ledger, the usage, and the two requests (the caller's
/// history kept, the patch request holding the failed reply and what to
/// fix). Returns the requests for what only the adapter sends.
pub async fn whole_patch_case<M: ChatModel>(model: &M, server: &TestServer) -> Vec<Recorded> {
    assert!(!model.streams());
    assert_eq!(model.name(), "gpt-test");
    assert_eq!(model.request_options(), Some(json!({"temperature": 0.25})));

    let history = [Message::user("Hi"), Message::assistant("Hello! Where to?")];
    let outcome = Think::new(model)
        .system("You plan trips.")
        .history(&history)
        .run::<Trip>("Plan a week in Kyoto")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            plan: "See the temples".into(),
            days: 7
        }
    );
    let kinds: Vec<AttemptKind> = outcome.attempts.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AttemptKind::Rejected, AttemptKind::Merged]);
    assert_eq!(outcome.attempts[0].reasoning.as_deref(), Some("Kyoto..."));
    assert_eq!(outcome.attempts[0].finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        outcome.attempts[0].usage,
        Usage::new(30, 10).with_cache(4, 0)
    );
    assert_eq!(outcome.usage, Usage::new(80, 13).with_cache(8, 0));

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.path_and_query, "/v1/chat/completions");
        assert_eq!(request.header("authorization"), Some("Bearer sk-test-key"));
        assert_eq!(request.body["model"], "gpt-test");
        assert_eq!(request.body["temperature"], 0.25);
    }
    assert_eq!(roles(&requests[0]), ["system", "user", "assistant", "user"]);
    assert_eq!(
        requests[0].body["messages"][2]["content"],
        "Hello! Where to?"
    );
    // The patch request: the conversation so far, the reply, and what to fix.
    assert_eq!(
        roles(&requests[1]),
        ["system", "user", "assistant", "user", "assistant", "user"]
    );
    assert_eq!(
        requests[1].body["messages"][4]["content"],
        "[Plan]\nSee the temples\n[Days]\nabout a week"
    );
    let fix = requests[1].body["messages"][5]["content"].as_str().unwrap();
    assert!(fix.contains("[Days]"), "{fix}");
    requests
}

/// What the server answers in [`streamed_patch_case`]: the same replies
/// as [`whole_patch_script`], streamed in pieces.
pub fn streamed_patch_script() -> Vec<Scripted> {
    vec![
        streamed(
            &["[Plan]\nSee the ", "temples\n[Days]\nabout a ", "week"],
            "hmm",
            (30, 10),
        ),
        streamed(&["[Days]\n", "7"], "ok", (50, 3)),
    ]
}

/// The patch retry through a streaming `model`, served
/// [`streamed_patch_script`] by `server`: the value, the raw reply pieced
/// together, its reasoning, the usage, and two streamed requests. Returns
/// the outcome's first attempt's finish reason and the requests, for what
/// only the adapter reports and sends.
pub async fn streamed_patch_case<M: ChatModel>(
    model: &M,
    server: &TestServer,
) -> (Option<FinishReason>, Vec<Recorded>) {
    assert!(model.streams());
    let outcome = Think::new(model)
        .run::<Trip>("Plan a week in Kyoto")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            plan: "See the temples".into(),
            days: 7
        }
    );
    assert_eq!(outcome.attempts.len(), 2);
    assert_eq!(
        outcome.attempts[0].raw.as_str(),
        "[Plan]\nSee the temples\n[Days]\nabout a week"
    );
    assert_eq!(outcome.attempts[0].reasoning.as_deref(), Some("hmm"));
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
    assert_eq!(outcome.usage, Usage::new(80, 13));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.body["stream"], true);
    }
    assert_eq!(roles(&requests[1]), ["user", "assistant", "user"]);
    (outcome.attempts[0].finish_reason.clone(), requests)
}

/// OpenAI's 400 for an argument it does not know.
pub fn bad_request() -> Scripted {
    Scripted::json(
        400,
        json!({"error": {"message": "Unrecognized request argument supplied: foo",
                         "type": "invalid_request_error", "param": "foo", "code": null}}),
    )
}

/// A run through `model`, served [`bad_request`] by `server`, ends at once:
/// one request, no retry, a model error that is not transient and reads
/// `message` (each client words the server's error its own way).
pub async fn bad_request_case<M: ChatModel>(model: &M, server: &TestServer, message: &str) {
    let error = Think::new(model)
        .run::<Trip>("Plan two days")
        .await
        .unwrap_err();
    match error.kind() {
        ThinkErrorKind::Model { source, retries } => {
            assert_eq!(*retries, 0);
            assert_eq!(source.to_string(), message);
            assert!(!source.is_transient());
        }
        other => panic!("expected a model error, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

/// OpenAI's 400 for a prompt its safety system rejected.
pub fn content_policy() -> Scripted {
    Scripted::json(
        400,
        json!({"error": {"message": "Your request was rejected by the safety system.",
                         "type": "invalid_request_error", "param": null,
                         "code": "content_policy_violation"}}),
    )
}

/// A call to `model`, served [`content_policy`], is a refusal with the
/// server's message, not transient.
pub async fn content_policy_case<M: ChatModel>(model: &M) {
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Refused(m) if m == "Your request was rejected by the safety system."),
        "{error:?}"
    );
    assert!(!error.is_transient());
}
