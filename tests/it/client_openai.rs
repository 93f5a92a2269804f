//! `OpenAiCompatible` against real axum servers on 127.0.0.1, through the
//! real reqwest client: happy paths, streaming edge cases and every fault.

use std::time::{Duration, Instant};

use crate::support::client::{refused_origin, Scripted, TestServer};
use serde_json::{json, Value};
use twr_runtime::{ChatModel, FinishReason, Message, ModelError, OpenAiCompatible, Reply, Usage};

const KEY: &str = "sk-test-SECRET-123";

fn completion(content: Value, finish: &str, usage: Value) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": usage,
    })
}

fn chunk(delta: Value, finish: Value) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
    .to_string()
}

fn client(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "test-model").api_key(KEY)
}

fn hi() -> Vec<Message> {
    vec![Message::system("Be brief."), Message::user("Say hi")]
}

/// Asserts the key is nowhere in the error's Display or Debug.
fn assert_no_key(error: &ModelError) {
    assert!(
        !crate::support::report(&error).contains(KEY),
        "key in Display: {error}"
    );
    assert!(
        !format!("{error:?}").contains(KEY),
        "key in Debug: {error:?}"
    );
}

#[tokio::test]
async fn non_streaming_reply_request_and_reasoning() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        completion(
            json!("<think>The user wants a greeting.</think>\n\n[Answer]\nHi!"),
            "stop",
            json!({"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21}),
        ),
    )])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1/"), "test-model")
        .api_key(KEY)
        .temperature(0.25)
        .max_tokens(128)
        .seed(42)
        .extra(json!({"top_p": 0.5, "chat_template_kwargs": {"enable_thinking": true}}));
    let reply = model.chat(&hi()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("[Answer]\nHi!")
            .with_reasoning("The user wants a greeting.")
            .with_usage(Usage::new(12, 9).with_total(21))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(request.path_and_query, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-test-SECRET-123")
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Say hi"},
            ],
            "stream": false,
            "temperature": 0.25,
            "max_tokens": 128,
            "seed": 42,
            "top_p": 0.5,
            "chat_template_kwargs": {"enable_thinking": true},
        })
    );
    assert_eq!(model.name(), "test-model");
}

#[tokio::test]
async fn reasoning_content_field_and_no_key_means_no_authorization() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"choices": [{"message": {"content": "42", "reasoning_content": "6 times 7"}, "finish_reason": "stop"}]}),
    )])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "m");
    let reply = model.chat(&hi()).await.unwrap();
    assert_eq!(reply.content, "42");
    assert_eq!(reply.reasoning.as_deref(), Some("6 times 7"));
    assert_eq!(reply.usage, Usage::default());
    assert_eq!(server.only_request().header("authorization"), None);
}

#[tokio::test]
async fn streaming_split_mid_line_and_mid_tag() {
    let events = [
        ": ping".to_string(),
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(json!({"content": "<thi"}), Value::Null),
        chunk(json!({"content": "nk>Greet "}), Value::Null),
        chunk(json!({"content": "politely.</th"}), Value::Null),
        chunk(json!({"content": "ink>\n\nHello"}), Value::Null),
        ": ping".to_string(),
        chunk(json!({"content": ", wörld"}), Value::Null),
        chunk(json!({}), json!("stop")),
        json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}).to_string(),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let reply = client(&server).stream(true).chat(&hi()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("Hello, wörld")
            .with_reasoning("Greet politely.")
            .with_usage(Usage::new(5, 7).with_total(12))
            .with_finish_reason(FinishReason::Stop)
    );
    let request = server.only_request();
    assert_eq!(request.body["stream"], json!(true));
    assert_eq!(
        request.body["stream_options"],
        json!({"include_usage": true})
    );
    assert_eq!(request.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn streaming_reasoning_field_crlf_no_usage_and_length() {
    let body = [
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"reasoning": "Count "}), Value::Null),
        chunk(json!({"reasoning": "to three."}), Value::Null),
        chunk(json!({"content": "1, 2,"}), Value::Null),
        chunk(json!({}), json!("length")),
    ]
    .iter()
    .map(|e| format!("data: {e}\r\n\r\n"))
    .collect::<String>()
        + "data: [DONE]\r\n\r\n";
    let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
    let reply = client(&server)
        .stream(true)
        .stream_usage(false)
        .chat(&hi())
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::text("1, 2,")
            .with_reasoning("Count to three.")
            .with_finish_reason(FinishReason::Length)
    );
    assert!(reply.is_truncated());
    assert_eq!(server.only_request().body.get("stream_options"), None);
}

#[tokio::test]
async fn a_stream_without_done_is_complete_after_its_finish_reason() {
    let events = [
        chunk(json!({"content": "ok"}), Value::Null),
        chunk(json!({}), json!("stop")),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let reply = client(&server).stream(true).chat(&hi()).await.unwrap();
    assert_eq!(reply.content, "ok");
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn a_server_ignoring_stream_true_still_works() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        completion(
            json!("plain"),
            "stop",
            json!({"prompt_tokens": 1, "completion_tokens": 1}),
        ),
    )])
    .await;
    let reply = client(&server).stream(true).chat(&hi()).await.unwrap();
    assert_eq!(reply.content, "plain");
    assert_eq!(reply.usage, Usage::new(1, 1).with_total(2));
}

#[tokio::test]
async fn connection_dropped_mid_body_is_interrupted() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        completion(json!("a complete answer"), "stop", json!({})),
    )
    .break_after(40)])
    .await;
    let error = client(&server).chat(&hi()).await.unwrap_err();
    // What was under way, then hyper's words, from the source chain.
    assert_eq!(
        crate::support::report(&error),
        "the reply broke off: the connection failed while reading the response: \
         error decoding response body: error reading a body from connection: \
         unexpected EOF during chunk size line"
    );
    assert!(error.is_transient());
}

#[tokio::test]
async fn a_retry_after_date_is_the_wait_until_then() {
    // Retry-After in seconds, for every provider: providers::error_bodies.
    let later = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(120));
    let server = TestServer::start(vec![Scripted::json(
        429,
        json!({"error": "quota exceeded"}),
    )
    .header("retry-after", &later)])
    .await;
    let error = client(&server).chat(&hi()).await.unwrap_err();
    let wait = error.retry_after().expect("a Retry-After date");
    // The date has one-second resolution and a little time has passed.
    assert!(
        wait <= Duration::from_secs(120) && wait >= Duration::from_secs(117),
        "{wait:?}"
    );
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 429: quota exceeded"
    );
    assert!(error.is_transient());
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    let origin = refused_origin();
    let model = OpenAiCompatible::new(format!("{origin}/v1"), "m").api_key(KEY);
    let error = model.chat(&hi()).await.unwrap_err();
    // The URL asked (with its path) and what to check in the message, the
    // reason in reqwest's error, its source.
    let expected = format!(
        "{origin}/v1/chat/completions (is a model server running there? check the client's \
         base URL, which from_env() reads from TWR_BASE_URL)"
    );
    assert!(
        matches!(&error, ModelError::Connect(m) if *m == expected),
        "{error:?}"
    );
    assert!(
        crate::support::report(&error).contains("onnection refused"),
        "{error:?}"
    );
    assert!(error.is_transient());
    assert_no_key(&error);
}

#[tokio::test]
async fn a_reply_slower_than_the_timeout() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        completion(json!("too late"), "stop", json!({})),
    )
    .delay(Duration::from_secs(3))])
    .await;
    let started = Instant::now();
    let error = client(&server)
        .timeout(Duration::from_millis(200))
        .chat(&hi())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ModelError::Timeout(d) if d == Duration::from_millis(200)),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(error.is_transient());
}

#[tokio::test]
async fn a_stream_that_stalls_hits_the_timeout() {
    let events = [
        chunk(json!({"content": "slow"}), Value::Null),
        "[DONE]".to_string(),
    ];
    let slow = Scripted::sse(&events.iter().map(String::as_str).collect::<Vec<_>>())
        .pause(Duration::from_millis(100));
    let server = TestServer::start(vec![slow]).await;
    let started = Instant::now();
    let error = client(&server)
        .stream(true)
        .timeout(Duration::from_millis(250))
        .chat(&hi())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ModelError::Timeout(d) if d == Duration::from_millis(250)),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[tokio::test]
async fn empty_and_whitespace_replies() {
    let events = [
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(json!({"content": " \n "}), Value::Null),
        chunk(json!({}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let server = TestServer::start(vec![
        Scripted::json(200, completion(json!("  \n\t"), "stop", json!({}))),
        Scripted::json(200, completion(Value::Null, "stop", json!({}))),
        Scripted::json(
            200,
            completion(json!("<think>only thinking</think>  "), "stop", json!({})),
        ),
        Scripted::sse(&events.iter().map(String::as_str).collect::<Vec<_>>()),
    ])
    .await;
    let model = client(&server);
    for _ in 0..3 {
        let error = model.chat(&hi()).await.unwrap_err();
        assert!(matches!(error, ModelError::EmptyReply), "{error:?}");
        assert!(error.is_transient());
    }
    let error = model.clone().stream(true).chat(&hi()).await.unwrap_err();
    assert!(matches!(error, ModelError::EmptyReply), "{error:?}");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let big = "x".repeat(300_000);
    let events = [chunk(json!({"content": big}), Value::Null)];
    let server = TestServer::start(vec![
        Scripted::json(200, completion(json!(big), "stop", json!({}))),
        Scripted::json(200, completion(json!(big), "stop", json!({}))).pieces(16 * 1024),
        Scripted::sse(&events.iter().map(String::as_str).collect::<Vec<_>>()).pieces(16 * 1024),
    ])
    .await;
    let model = client(&server).max_response_bytes(100_000);
    // Declared by Content-Length, then counted while streaming.
    for stream in [false, false, true] {
        let error = model.clone().stream(stream).chat(&hi()).await.unwrap_err();
        assert!(
            matches!(error, ModelError::TooLarge { limit: 100_000 }),
            "{error:?}"
        );
        assert!(!error.is_transient());
    }
}

#[tokio::test]
async fn garbage_is_a_decode_error() {
    let server = TestServer::start(vec![
        Scripted::text(200, "<html>proxy login</html>"),
        Scripted::json(200, json!({"choices": []})),
        Scripted::sse(&["{not json"]),
    ])
    .await;
    let model = client(&server);
    let error = model.chat(&hi()).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Decode(m) if m.ends_with("<html>proxy login</html>")),
        "{error}"
    );
    let error = model.chat(&hi()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"could not read the model server's response: the reply has no choices: {"choices":[]}"#
    );
    let error = model.clone().stream(true).chat(&hi()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "could not read the model server's response: a stream event is not a chat completion chunk \
         (key must be a string at line 1 column 2): {not json"
    );
    assert!(!error.is_transient());
}

#[tokio::test]
async fn bad_configuration_fails_before_any_request() {
    let model = OpenAiCompatible::new("localhost:8088/v1", "m");
    let error = model.chat(&hi()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid model configuration: the base URL \"localhost:8088/v1\" must start with http:// or https://"
    );
    let model = OpenAiCompatible::new("http://127.0.0.1:9/v1", " ");
    assert_eq!(
        model.chat(&hi()).await.unwrap_err().to_string(),
        "invalid model configuration: the model name is empty"
    );
}

#[tokio::test]
async fn a_custom_http_client_is_used_and_not_printed() {
    let server = TestServer::start(vec![Scripted::json(
        200,
        completion(json!("ok"), "stop", json!({})),
    )])
    .await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "x-proxy-token",
        reqwest::header::HeaderValue::from_static("proxy-SECRET"),
    );
    let http = reqwest::Client::builder()
        .user_agent("twr-test/1")
        .default_headers(headers)
        .build()
        .unwrap();
    let model = client(&server).http_client(http);
    assert_eq!(model.chat(&hi()).await.unwrap().content, "ok");
    let request = server.only_request();
    assert_eq!(request.header("user-agent"), Some("twr-test/1"));
    assert_eq!(request.header("x-proxy-token"), Some("proxy-SECRET"));
    let debug = format!("{model:?}");
    assert!(
        !debug.contains("proxy-SECRET") && debug.contains("http_client: \"custom\""),
        "{debug}"
    );
}

#[tokio::test]
async fn streamed_reasoning_content_deltas_are_joined() {
    let events = [
        chunk(
            json!({"role": "assistant", "reasoning_content": ""}),
            Value::Null,
        ),
        chunk(json!({"reasoning_content": "Six "}), Value::Null),
        chunk(json!({"reasoning_content": "times seven."}), Value::Null),
        chunk(
            json!({"reasoning_content": null, "content": "4"}),
            Value::Null,
        ),
        chunk(json!({"content": "2"}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let reply = client(&server).stream(true).chat(&hi()).await.unwrap();
    assert_eq!(
        reply,
        Reply::text("42")
            .with_reasoning("Six times seven.")
            .with_finish_reason(FinishReason::Stop)
    );
}

/// The 1,000-character lines of a long streamed answer, and its SSE body.
fn long_answer(lines: usize) -> (String, String) {
    let line = |n: usize| format!("{n:04} {}\n", "w".repeat(994));
    let text: String = (0..lines).map(line).collect();
    let body: String = (0..lines)
        .map(|n| {
            format!(
                "data: {}\n\n",
                chunk(json!({"content": line(n)}), Value::Null)
            )
        })
        .collect();
    (text, body)
}

#[tokio::test]
async fn a_stream_that_breaks_after_28_kb_keeps_every_byte() {
    let (text, body) = long_answer(28);
    assert_eq!(text.len(), 28_000);
    let server = TestServer::start(vec![Scripted::raw_sse(&body)
        .pieces(4096)
        .break_after(body.len())])
    .await;
    let error = client(&server).stream(true).chat(&hi()).await.unwrap_err();
    let partial = error.partial().expect("the text that arrived");
    assert_eq!(partial.content, text);
    assert_eq!(partial.finish_reason, None);
    match &error {
        ModelError::Incomplete { source, .. } => assert!(
            matches!(&**source, ModelError::Interrupted(m)
                if m.starts_with("the connection failed while reading the response")),
            "{source:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(error.is_transient());
    assert_eq!(
        error.to_string(),
        "the reply was cut off (28000 bytes of it had arrived and are kept)"
    );
}

#[tokio::test]
async fn transport_errors_keep_the_reqwest_error_as_source() {
    let model = OpenAiCompatible::new(format!("{}/v1", refused_origin()), "m");
    let error = model.chat(&hi()).await.unwrap_err();
    assert!(matches!(error, ModelError::Connect(_)), "{error:?}");
    let source = std::error::Error::source(&error).expect("a source");
    let reqwest = source.downcast_ref::<reqwest::Error>().expect("reqwest's");
    assert!(reqwest.is_connect());
    assert_eq!(reqwest.url(), None, "the URL may carry credentials");
}
