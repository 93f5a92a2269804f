//! The adapter through the real async-openai client against an axum server
//! on 127.0.0.1 (the workspace's scripted test server): a typed extraction
//! whose first reply needs a patch, whole and streamed; a rate limit; a
//! bad request; a refusal.

#[path = "../../tests/it/support/client.rs"]
mod server;

#[path = "../../tests/adapters/openai_replies.rs"]
mod replies;

use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::types::chat::CreateChatCompletionRequestArgs;
use async_openai::Client;
use replies::{
    bad_request, bad_request_case, completion, content_policy, content_policy_case,
    streamed_patch_case, streamed_patch_script, whole_patch_case, whole_patch_script, Trip,
};
use serde_json::json;
use server::{Scripted, TestServer};
use twr_async_openai::AsyncOpenAi;
use twr_runtime::grammar::{Dialect, Grammar};
use twr_runtime::{ChatModel, Message, ModelError, RetryPolicy, Think};

fn client(server: &TestServer) -> Client<OpenAIConfig> {
    let config = OpenAIConfig::new()
        .with_api_base(server.url("/v1"))
        .with_api_key("sk-test-key");
    Client::with_config(config)
}

#[tokio::test]
async fn a_whole_reply_is_patched_into_the_typed_value() {
    let server = TestServer::start(whole_patch_script()).await;
    let template = CreateChatCompletionRequestArgs::default()
        .model("gpt-test")
        .temperature(0.25_f32)
        .build()
        .unwrap();
    let model = AsyncOpenAi::with_request(client(&server), template);
    for request in whole_patch_case(&model, &server).await {
        assert_eq!(request.body.get("stream"), None);
    }
}

#[tokio::test]
async fn a_streamed_reply_is_patched_into_the_typed_value() {
    let server = TestServer::start(streamed_patch_script()).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test").stream(true);
    let (_, requests) = streamed_patch_case(&model, &server).await;
    for request in &requests {
        assert_eq!(
            request.body["stream_options"],
            json!({"include_usage": true})
        );
    }
}

/// A 429 as OpenAI sends it, asking for no pause (`retry-after: 0`), so
/// async-openai's own retries (which honour it) take no time.
fn limited() -> Scripted {
    Scripted::json(
        429,
        json!({"error": {"message": "Rate limit reached", "type": "requests",
                         "param": null, "code": "rate_limit_exceeded"}}),
    )
    .header("retry-after", "0")
}

#[tokio::test]
async fn a_rate_limit_is_transient_after_the_clients_own_retries() {
    // async-openai's default client retries a 429 three times itself,
    // honouring `Retry-After`, before the adapter sees the error: four
    // requests. The header itself is not handed on.
    let server = TestServer::start(vec![limited(), limited(), limited(), limited()]).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    match &error {
        ModelError::Status {
            status,
            message,
            retry_after,
        } => {
            assert_eq!(*status, 429);
            // The server's own message, as every client of twr words it.
            assert_eq!(message, "Rate limit reached");
            assert_eq!(*retry_after, None);
        }
        other => panic!("expected a 429 status, got {other:?}"),
    }
    assert!(error.is_transient());
    assert_eq!(server.requests().len(), 4);

    // In a run, the loop asks again after its own pause, and the next
    // reply is parsed.
    let mut script = vec![limited(), limited(), limited(), limited()];
    script.push(completion("[Plan]\nGo\n[Days]\n2", None, (5, 5)));
    let server = TestServer::start(script).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let policy = RetryPolicy::default().base_delay(Duration::from_millis(10));
    let outcome = Think::new(&model)
        .retry_policy(policy)
        .run::<Trip>("Plan two days")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            plan: "Go".into(),
            days: 2
        }
    );
    assert_eq!(outcome.attempts[0].transport_retries.len(), 1);
    assert_eq!(server.requests().len(), 5);

    // A 5xx is transient too (and retried by async-openai first).
    let overloaded = || Scripted::text(503, "upstream overloaded").header("retry-after", "0");
    let server =
        TestServer::start(vec![overloaded(), overloaded(), overloaded(), overloaded()]).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Status { status: 503, message, .. } if message == "upstream overloaded"),
        "{error:?}"
    );
    assert!(error.is_transient());
    assert_eq!(server.requests().len(), 4);

    // A 429 for a quota that is used up is no rate limit: waiting does not
    // help, so it is not transient (async-openai does not retry it either).
    let server = TestServer::start(vec![Scripted::json(
        429,
        json!({"error": {"message": "You exceeded your current quota.",
                         "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
    )])
    .await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 402: HTTP 429, the account's quota is used up: \
         You exceeded your current quota."
    );
    assert!(!error.is_transient());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_bad_request_ends_the_run_at_once_and_a_content_policy_is_a_refusal() {
    let server = TestServer::start(vec![bad_request()]).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    bad_request_case(
        &model,
        &server,
        "the model server answered HTTP 400: Unrecognized request argument supplied: foo",
    )
    .await;

    let server = TestServer::start(vec![content_policy()]).await;
    content_policy_case(&AsyncOpenAi::new(client(&server), "gpt-test")).await;
}

#[tokio::test]
async fn images_and_documents_go_as_parts_before_the_text() {
    let server = TestServer::start(vec![completion("[Plan]\nGo\n[Days]\n1", None, (1, 1))]).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
    let pdf = b"%PDF-1.7 rest".to_vec();
    let message = Message::user("Read these.")
        .with_image(png, "image/png")
        .with_image_url("https://example.com/a.jpg")
        .with_document(pdf, "application/pdf");
    let reply = model.chat(&[message]).await.unwrap();
    assert_eq!(reply.content, "[Plan]\nGo\n[Days]\n1");
    assert_eq!(
        server.only_request().body["messages"][0]["content"],
        json!([
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpyZXN0"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
            {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjcgcmVzdA==",
                                      "filename": "document-1.pdf"}},
            {"type": "text", "text": "Read these."}
        ])
    );
    // Bytes that are not what their media type says never leave.
    let jpeg_as_png = Message::user("x").with_image(b"\xff\xd8\xff\xe0rest".to_vec(), "image/png");
    let error = model.chat(&[jpeg_as_png]).await.unwrap_err();
    assert!(matches!(error, ModelError::Attachment(_)), "{error:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_key_the_server_echoes_is_redacted_in_the_error() {
    let server = TestServer::start(vec![Scripted::json(
        401,
        json!({"error": {"message": "Incorrect API key provided: {KEY}.",
                         "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}),
    )
    .echoing_key()])
    .await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 401: Incorrect API key provided: [redacted]."
    );
    assert!(!format!("{error:?}").contains("sk-test-key"));
}

#[tokio::test]
async fn told_its_dialect_the_adapter_sends_the_grammar_and_the_ledger_says_so() {
    let script = || {
        vec![
            completion("[Plan]\nGo\n[Days]\ntwo", None, (5, 5)),
            completion("[Days]\n2", None, (5, 5)),
        ]
    };
    // Told llama.cpp's dialect: the constrained attempt carries GBNF in
    // `grammar`, and the ledger marks it constrained.
    let server = TestServer::start(script()).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test").grammar(Dialect::LlamaCpp);
    let outcome = Think::new(&model)
        .constrain_after(1)
        .run::<Trip>("Plan two days")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 2);
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, true]);
    let requests = server.requests();
    assert_eq!(requests[0].body.get("grammar"), None);
    let days_only = Grammar::of::<Trip>().only(|spec| spec.field == "days");
    assert_eq!(requests[1].body["grammar"], json!(days_only.gbnf()));
    assert_eq!(requests[1].body["model"], "gpt-test");

    // Told no dialect: the request holds no grammar, and the ledger says
    // no attempt was constrained.
    let server = TestServer::start(script()).await;
    let model = AsyncOpenAi::new(client(&server), "gpt-test");
    let outcome = Think::new(&model)
        .constrain_after(0)
        .run::<Trip>("Plan two days")
        .await
        .unwrap();
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, false]);
    for request in server.requests() {
        let fields: Vec<&String> = request.body.as_object().unwrap().keys().collect();
        assert_eq!(fields, ["messages", "model"]);
    }
}
