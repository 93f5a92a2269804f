//! `Anthropic` against real axum servers on 127.0.0.1, through the real
//! reqwest client: every Messages API event and error shape twr reads.

use crate::support::client::{Scripted, TestServer};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::{Anthropic, ChatModel, Delta, FinishReason, Message, Reply, Usage};

const KEY: &str = "sk-ant-test-SECRET-4321";

fn client(server: &TestServer) -> Anthropic {
    Anthropic::new(KEY, "claude-test").base_url(server.url("/anthropic"))
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("Answer in one word."),
        Message::user("Capital of France?"),
        Message::assistant("Paris."),
        Message::user("And of Italy?"),
    ]
}

/// An event stream as Anthropic writes it: `event: NAME` and the JSON data,
/// whose `type` repeats the name.
fn events(list: &[Value]) -> String {
    list.iter()
        .map(|data| {
            format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap()
            )
        })
        .collect()
}

fn message_start(input: u64, output: u64) -> Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null,
        "usage": {"input_tokens": input, "output_tokens": output}}})
}

fn text_delta(text: &str) -> Value {
    json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": text}})
}

fn message_delta(stop: &str, usage: Value) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": usage})
}

#[tokio::test]
async fn a_whole_message_with_thinking_usage_and_the_request() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [
                {"type": "thinking", "thinking": "Italy's capital is Rome.", "signature": "c2ln"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Rome."}
            ],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 20, "output_tokens": 8, "cache_read_input_tokens": 5}
        }),
    )])
    .await;
    let reply = client(&server)
        .temperature(0.5)
        .max_tokens(64)
        .chat(&conversation())
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::text("Rome.")
            .with_reasoning("Italy's capital is Rome.")
            .with_usage(Usage::new(25, 8).with_cache(5, 0))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(request.path_and_query, "/anthropic/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.body,
        json!({
            "model": "claude-test",
            "max_tokens": 64,
            "system": [{"type": "text", "text": "Answer in one word.",
                        "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Capital of France?",
                                              "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": "Paris."},
                {"role": "user", "content": [{"type": "text", "text": "And of Italy?",
                                              "cache_control": {"type": "ephemeral"}}]},
            ],
            "temperature": 0.5,
        })
    );
}

#[derive(Debug, PartialEq, twr_runtime::Sections)]
struct City {
    /// The city's name.
    name: String,
    /// Its population in millions.
    millions: u32,
}

/// A whole message as Anthropic sends it, with its cache counts.
fn cached_message(text: &str, input: u64, written: u64, read: u64, output: u64) -> Value {
    json!({
        "id": "msg_c", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": input, "cache_creation_input_tokens": written,
                  "cache_read_input_tokens": read, "output_tokens": output}
    })
}

#[tokio::test]
async fn a_retry_reads_the_system_history_and_guide_from_the_prompt_cache() {
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            cached_message("[Name]\nRome\n[Millions]\nabout three", 12, 1500, 0, 9),
        ),
        Scripted::json(200, cached_message("[Millions]\n3", 40, 30, 1500, 4)),
    ])
    .await;
    let history = [
        Message::user("Capital of France?"),
        Message::assistant("Paris."),
    ];
    let outcome = twr_runtime::Think::new(&client(&server))
        .system("Answer briefly.")
        .history(&history)
        .run::<City>("The capital of Italy?")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        City {
            name: "Rome".into(),
            millions: 3
        }
    );
    let usages: Vec<Usage> = outcome.attempts.iter().map(|a| a.usage).collect();
    assert_eq!(
        usages,
        [
            Usage::new(1512, 9).with_cache(0, 1500),
            Usage::new(1570, 4).with_cache(1500, 30)
        ]
    );
    assert_eq!(outcome.usage, Usage::new(3082, 13).with_cache(1500, 1530));
    let requests = server.requests();
    let cached = |text: &str| json!([{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]);
    let prompt = outcome.transcript[3].content.to_string();
    assert!(prompt.starts_with("The capital of Italy?\n\n"), "{prompt}");
    // The first request writes the prefix: the system text, and the prompt
    // with its guide after the caller's history.
    assert_eq!(
        requests[0].body,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": cached("Answer briefly."),
            "messages": [
                {"role": "user", "content": cached("Capital of France?")},
                {"role": "assistant", "content": cached("Paris.")},
                {"role": "user", "content": cached(&prompt)},
            ],
        })
    );
    // The retry marks the same prefix (read from the cache) and its new tail.
    let feedback = outcome.attempts[0].sent_back.clone().unwrap();
    assert_eq!(
        requests[1].body,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": cached("Answer briefly."),
            "messages": [
                {"role": "user", "content": "Capital of France?"},
                {"role": "assistant", "content": cached("Paris.")},
                {"role": "user", "content": cached(&prompt)},
                {"role": "assistant", "content": "[Name]\nRome\n[Millions]\nabout three"},
                {"role": "user", "content": cached(&feedback)},
            ],
        })
    );
    // Without prompt caching the body has plain strings.
    let server = TestServer::start(vec![Scripted::json(
        200,
        cached_message("[Name]\nRome\n[Millions]\n3", 5, 0, 0, 4),
    )])
    .await;
    let plain = client(&server).prompt_caching(false);
    twr_runtime::Think::new(&plain)
        .system("Be brief.")
        .run::<City>("Italy?")
        .await
        .unwrap();
    let body = &server.only_request().body;
    assert_eq!(body["system"], json!("Be brief."));
    assert!(body["messages"][0]["content"].is_string(), "{body}");
}

/// A breakpoint sits right after the demonstrations the program wrote: the
/// part every request repeats whatever its prompt, so the next prompt reads
/// it from the cache too. Learned demonstrations, picked for each prompt,
/// come after it, outside that part.
#[tokio::test]
async fn the_written_demonstrations_end_with_a_breakpoint_before_the_learned_ones() {
    let answer = "[Name]\nParis\n[Millions]\n2";
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            cached_message("[Name]\nRome\n[Millions]\nthree", 9, 0, 0, 9),
        ),
        Scripted::json(200, cached_message("[Millions]\n3", 9, 0, 0, 4)),
    ])
    .await;
    let outcome = twr_runtime::Think::new(&client(&server))
        .system("Answer briefly.")
        .demonstration("The capital of France?", answer)
        .run::<City>("The capital of Italy?")
        .await
        .unwrap();
    assert_eq!(outcome.value.millions, 3);
    let cached = |text: &str| json!([{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]);
    let question = outcome.transcript[1].content.to_string();
    let prompt = outcome.transcript[3].content.to_string();
    assert!(
        question.starts_with("The capital of France?\n\n"),
        "{question}"
    );
    let feedback = outcome.attempts[0].sent_back.clone().unwrap();
    // Four breakpoints, Anthropic's most: the system text, the written
    // demonstration's answer, the prompt before the failed reply, the last
    // message.
    assert_eq!(
        server.requests()[1].body,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": cached("Answer briefly."),
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "content": cached(answer)},
                {"role": "user", "content": cached(&prompt)},
                {"role": "assistant", "content": "[Name]\nRome\n[Millions]\nthree"},
                {"role": "user", "content": cached(&feedback)},
            ],
        })
    );

    // With a demonstration learned from a journal job, after the written one.
    let dir = std::env::temp_dir().join(format!("twr-it-anthropic-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = twr_runtime::journal::Journal::open(dir.join("journal.twr")).unwrap();
    let job = journal.job("capitals");
    let earlier = twr_runtime::ScriptedModel::new(["[Name]\nMadrid\n[Millions]\n3"]);
    twr_runtime::Think::new(&earlier)
        .journal(job.clone())
        .run::<City>("The capital of Spain?")
        .await
        .unwrap();
    let server = TestServer::start(vec![Scripted::json(
        200,
        cached_message("[Name]\nRome\n[Millions]\n3", 9, 0, 0, 9),
    )])
    .await;
    let outcome = twr_runtime::Think::new(&client(&server))
        .system("Answer briefly.")
        .demonstration("The capital of France?", answer)
        .learn_from(&job)
        .run::<City>("The capital of Italy?")
        .await
        .unwrap();
    assert_eq!(outcome.learned[0].prompt, "The capital of Spain?");
    let question = outcome.transcript[1].content.to_string();
    let prompt = outcome.transcript[5].content.to_string();
    assert_eq!(
        server.only_request().body,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": cached("Answer briefly."),
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "content": cached(answer)},
                // The shape of a retry (a question, an answer, the last
                // message) marks the message two before the last too.
                // A later demonstration's question asks as the prompt does.
                {"role": "user", "content": cached(
                    "The capital of Spain?\n\nAnswer in the same format, with the sections \
                     [Name] and [Millions], each header on a line of its own."
                )},
                {"role": "assistant", "content": "[Name]\nMadrid\n\n[Millions]\n3"},
                {"role": "user", "content": cached(&prompt)},
            ],
        })
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn every_stream_event_shape() {
    let body = events(&[
        message_start(31, 1),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Weighing "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "options."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "RXVT"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        text_delta("[Answer]\nRo"),
        json!({"type": "a_future_event", "payload": {"x": 1}}),
        text_delta("me"),
        json!({"type": "content_block_stop", "index": 1}),
        message_delta("end_turn", json!({"output_tokens": 12})),
        json!({"type": "message_stop"}),
    ]);
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let reply = client(&server)
        .stream(true)
        .chat(&conversation())
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::text("[Answer]\nRome")
            .with_reasoning("Weighing options.")
            .with_usage(Usage::new(31, 12))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(request.body["stream"], json!(true));
    assert_eq!(request.body["max_tokens"], json!(4096));
    assert_eq!(request.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn chat_stream_hands_out_each_delta_as_it_arrives() {
    let body = events(&[
        message_start(0, 0),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Weighing "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "RXVT"}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        text_delta("[Answer]\nRo"),
        text_delta("me"),
        message_delta(
            "max_tokens",
            json!({"input_tokens": 40, "output_tokens": 3}),
        ),
        json!({"type": "message_stop"}),
    ]);
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let model = client(&server).stream(true);
    assert!(model.streams());
    let deltas: Vec<Delta> = model
        .chat_stream(&conversation())
        .map(|item| item.unwrap())
        .collect()
        .await;
    assert_eq!(
        deltas,
        [
            Delta::Reasoning("Weighing ".into()),
            Delta::Content("[Answer]\nRo".into()),
            Delta::Content("me".into()),
            Delta::Done {
                usage: Usage::new(40, 3),
                finish_reason: Some(FinishReason::Length),
            },
        ]
    );
}

#[tokio::test]
async fn usage_from_message_delta_when_message_start_reports_zero() {
    let body = events(&[
        message_start(0, 0),
        text_delta("Rome"),
        message_delta("end_turn", json!({"input_tokens": 40, "output_tokens": 3})),
        json!({"type": "message_stop"}),
    ]);
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let reply = client(&server)
        .stream(true)
        .chat(&conversation())
        .await
        .unwrap();
    assert_eq!(reply.usage, Usage::new(40, 3));
}

#[tokio::test]
async fn max_tokens_is_a_truncated_reply() {
    let body = events(&[
        message_start(9, 1),
        text_delta("The answer is"),
        message_delta("max_tokens", json!({"output_tokens": 3})),
        json!({"type": "message_stop"}),
    ]);
    let server = TestServer::start(vec![
        Scripted::raw_sse(&body),
        Scripted::json(
            200,
            json!({"type": "message", "content": [{"type": "text", "text": "The ans"}],
                   "stop_reason": "max_tokens", "usage": {"input_tokens": 9, "output_tokens": 2}}),
        ),
    ])
    .await;
    let reply = client(&server)
        .stream(true)
        .chat(&conversation())
        .await
        .unwrap();
    assert_eq!(reply.content, "The answer is");
    assert!(reply.is_truncated());
    let reply = client(&server).chat(&conversation()).await.unwrap();
    assert_eq!(reply.content, "The ans");
    assert_eq!(reply.finish_reason, Some(FinishReason::Length));
}

#[tokio::test]
async fn a_refusal_is_a_clear_error_that_is_not_retried() {
    let body = events(&[
        message_start(9, 1),
        text_delta("I can't"),
        message_delta("refusal", json!({"output_tokens": 2})),
        json!({"type": "message_stop"}),
    ]);
    let server = TestServer::start(vec![
        Scripted::raw_sse(&body),
        Scripted::json(
            200,
            json!({"type": "message", "content": [{"type": "text", "text": "I won't."}], "stop_reason": "refusal",
                   "usage": {"input_tokens": 9, "output_tokens": 0}}),
        ),
    ])
    .await;
    let error = client(&server)
        .stream(true)
        .chat(&conversation())
        .await
        .unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "the reply was cut off (7 bytes of it had arrived and are kept): \
         the model server refused to answer: Claude declined to answer (stop_reason refusal)"
    );
    assert_eq!(error.partial().map(|r| r.content.as_str()), Some("I can't"));
    assert!(!error.is_transient());
    // Whole, the same: the text written before the refusal is kept.
    let error = client(&server).chat(&conversation()).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "the reply was cut off (8 bytes of it had arrived and are kept): \
         the model server refused to answer: Claude declined to answer (stop_reason refusal)"
    );
    assert_eq!(
        error.partial().map(|r| r.content.as_str()),
        Some("I won't.")
    );
    assert!(!error.is_transient());
}
