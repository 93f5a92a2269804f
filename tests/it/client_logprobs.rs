//! Token log-probabilities, asked for and read as each server documents
//! them, and the confidence of each section read from them: against real
//! axum servers on 127.0.0.1, through the real reqwest client. The
//! OpenAI-compatible body (`logprobs`, `top_logprobs`) and its reply whole
//! and streamed; Gemini's `responseLogprobs` and `logprobsResult`;
//! Anthropic, which has none, sends none and measures nothing; a run
//! without `confidence(true)` asks for nothing.

use serde_json::{json, Value};
use twr_runtime::model::TokenLogprob;
use twr_runtime::{Anthropic, ChatModel, Gemini, Message, OpenAiCompatible, Sections, Think};

use crate::support::client::{Scripted, TestServer};

#[derive(Debug, PartialEq, Sections)]
struct Ticket {
    /// Whether it is urgent.
    urgent: bool,
    /// How many users are hit.
    users: u32,
    /// A short title.
    title: String,
}

const REPLY: &str = "[Urgent]\nyes\n\n[Users]\n12\n\n[Title]\nDisk full";

/// A token as `(text, probability, top)`.
type Token = (&'static str, f64, Vec<(&'static str, f64)>);

/// The reply's tokens: the headers and breaks certain, the values not.
fn tokens() -> Vec<Token> {
    vec![
        ("[Urgent]\n", 1.0, vec![]),
        ("yes", 0.6, vec![("yes", 0.6), ("no", 0.2), ("Maybe", 0.1)]),
        ("\n\n[Users]\n", 1.0, vec![]),
        ("1", 0.8, vec![("1", 0.8), ("2", 0.1)]),
        ("2", 0.2, vec![("0", 0.4), ("2", 0.2)]),
        ("\n\n[Title]\n", 1.0, vec![]),
        ("Disk", 0.9, vec![("Disk", 0.9)]),
        (" full", 0.4, vec![(" full", 0.4), (" error", 0.3)]),
    ]
}

/// OpenAI's `logprobs.content` entries for `tokens`.
fn openai_tokens(tokens: &[Token]) -> Value {
    Value::Array(
        tokens
            .iter()
            .map(|(token, p, top)| {
                let top: Vec<Value> = top
                    .iter()
                    .map(|(t, p)| json!({"token": t, "logprob": p.ln(), "bytes": t.as_bytes()}))
                    .collect();
                json!({"token": token, "logprob": p.ln(), "bytes": token.as_bytes(), "top_logprobs": top})
            })
            .collect(),
    )
}

fn completion() -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": REPLY},
            "logprobs": {"content": openai_tokens(&tokens())},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18},
    })
}

/// The confidences a run reports, to three places.
fn rounded<T>(outcome: &twr_runtime::Outcome<T>) -> Vec<(&'static str, Option<f64>)> {
    ["urgent", "users", "title"]
        .into_iter()
        .map(|field| {
            let value = outcome.confidence(field);
            (field, value.map(|c| (c * 1000.0).round() / 1000.0))
        })
        .collect()
}

/// "yes" against "no" (Maybe begins no answer); the geometric mean of
/// the digits' 0.8 and 0.2; the geometric mean of 0.9 and 0.4.
const EXPECTED: [(&str, Option<f64>); 3] = [
    ("urgent", Some(0.75)),
    ("users", Some(0.4)),
    ("title", Some(0.6)),
];

fn ticket() -> Ticket {
    Ticket {
        urgent: true,
        users: 12,
        title: "Disk full".into(),
    }
}

#[tokio::test]
async fn openai_compatible_asks_for_logprobs_and_reads_them_whole() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion()),
        Scripted::json(200, completion()),
    ])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "local");
    let outcome = Think::new(&model)
        .confidence(true)
        .review_below(0.5)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(outcome.value, ticket());
    assert_eq!(rounded(&outcome), EXPECTED);
    assert_eq!(outcome.needs_review(), ["users"]);
    let body = &server.requests()[0].body;
    assert_eq!(body["logprobs"], json!(true));
    assert_eq!(body["top_logprobs"], json!(10));

    // `chat` asks for none; what a server sends unasked is kept.
    let reply = model.chat(&[Message::user("again")]).await.unwrap();
    assert!(server.requests()[1].body.get("logprobs").is_none());
    assert_eq!(reply.logprobs.len(), 8);
}

#[tokio::test]
async fn a_run_without_confidence_asks_for_nothing_and_measures_nothing() {
    let server = TestServer::start(vec![Scripted::json(200, completion())]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "local");
    let outcome = Think::new(&model)
        .review_below(0.99)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(
        rounded(&outcome),
        [("urgent", None), ("users", None), ("title", None)]
    );
    assert!(outcome.needs_review().is_empty());
    assert!(outcome.attempts[0].confidence.is_empty());
    let body = server.only_request().body;
    assert!(body.get("logprobs").is_none() && body.get("top_logprobs").is_none());
}

#[tokio::test]
async fn openai_compatible_reads_them_streamed_chunk_by_chunk() {
    // One chunk per token, each with its own logprobs.
    let mut events: Vec<String> = tokens()
        .into_iter()
        .map(|token| {
            let text = token.0;
            json!({
                "choices": [{
                    "index": 0,
                    "delta": {"content": text},
                    "logprobs": {"content": openai_tokens(&[token])},
                }],
            })
            .to_string()
        })
        .collect();
    events
        .push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string());
    events.push("[DONE]".into());
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "local").stream(true);
    let outcome = Think::new(&model)
        .confidence(true)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(outcome.value, ticket());
    assert_eq!(rounded(&outcome), EXPECTED);
    assert_eq!(server.only_request().body["logprobs"], json!(true));
}

#[tokio::test]
async fn the_reply_of_a_model_keeps_the_tokens_as_the_server_listed_them() {
    let server = TestServer::start(vec![Scripted::json(200, completion())]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "local");
    let messages = [Message::user("q")];
    let request = twr_runtime::model::Request::new(&messages).with_logprobs(true);
    assert!(request.wants_logprobs());
    let reply = model
        .call(request)
        .await
        .unwrap()
        .into_reply()
        .await
        .unwrap();
    assert_eq!(reply.logprobs.len(), 8);
    assert_eq!(
        reply.logprobs[1],
        TokenLogprob {
            token: "yes".into(),
            logprob: 0.6f64.ln(),
            top: vec![
                ("yes".into(), 0.6f64.ln()),
                ("no".into(), 0.2f64.ln()),
                ("Maybe".into(), 0.1f64.ln())
            ],
        }
    );
    let joined: String = reply.logprobs.iter().map(|t| t.token.as_str()).collect();
    assert_eq!(joined, REPLY);
}

fn gemini_response(streamed_part: Option<usize>) -> Value {
    let all = tokens();
    let chosen: Vec<Value> = all
        .iter()
        .map(|(t, p, _)| json!({"token": t, "tokenId": 1, "logProbability": p.ln()}))
        .collect();
    let top: Vec<Value> = all
        .iter()
        .map(|(_, _, top)| {
            let candidates: Vec<Value> = top
                .iter()
                .map(|(t, p)| json!({"token": t, "tokenId": 2, "logProbability": p.ln()}))
                .collect();
            json!({ "candidates": candidates })
        })
        .collect();
    let (text, chosen, top) = match streamed_part {
        None => (REPLY.to_string(), chosen, top),
        Some(i) => (
            all[i].0.to_string(),
            vec![chosen[i].clone()],
            vec![top[i].clone()],
        ),
    };
    let last = streamed_part.is_none_or(|i| i + 1 == all.len());
    let mut candidate = json!({
        "content": {"role": "model", "parts": [{"text": text}]},
        "logprobsResult": {"topCandidates": top, "chosenCandidates": chosen},
    });
    if last {
        candidate["finishReason"] = json!("STOP");
    }
    json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 8, "totalTokenCount": 13}})
}

#[tokio::test]
async fn gemini_asks_with_response_logprobs_and_reads_the_logprobs_result() {
    let server = TestServer::start(vec![Scripted::json(200, gemini_response(None))]).await;
    let model = Gemini::new("test-key", "gemini-test").base_url(server.url("/v1beta"));
    let outcome = Think::new(&model)
        .confidence(true)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(outcome.value, ticket());
    assert_eq!(rounded(&outcome), EXPECTED);
    let body = server.only_request().body;
    assert_eq!(body["generationConfig"]["responseLogprobs"], json!(true));
    assert_eq!(body["generationConfig"]["logprobs"], json!(10));

    // Streamed: each event's tokens in turn.
    let events: Vec<String> = (0..tokens().len())
        .map(|i| gemini_response(Some(i)).to_string())
        .collect();
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let model = Gemini::new("test-key", "gemini-test")
        .base_url(server.url("/v1beta"))
        .stream(true);
    let outcome = Think::new(&model)
        .confidence(true)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(rounded(&outcome), EXPECTED);
}

#[tokio::test]
async fn anthropic_gives_none_so_nothing_is_asked_or_measured() {
    let message = json!({
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": REPLY}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 5, "output_tokens": 8},
    });
    let server = TestServer::start(vec![Scripted::json(200, message)]).await;
    let model = Anthropic::new("test-key", "claude-test").base_url(server.url("/anthropic"));
    let outcome = Think::new(&model)
        .confidence(true)
        .review_below(0.99)
        .run::<Ticket>("The disk is full for 12 users.")
        .await
        .unwrap();
    assert_eq!(outcome.value, ticket());
    assert_eq!(
        rounded(&outcome),
        [("urgent", None), ("users", None), ("title", None)]
    );
    assert!(outcome.needs_review().is_empty());
    let body = server.only_request().body;
    assert!(!body.to_string().contains("logprob"), "{body}");
}
