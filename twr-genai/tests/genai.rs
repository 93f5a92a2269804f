//! The adapter through the real genai client against an axum server on
//! 127.0.0.1 (the workspace's scripted test server, speaking the OpenAI
//! API that genai's OpenAI adapter reads): a typed extraction whose first
//! reply needs a patch, whole and streamed; a rate limit with its
//! `Retry-After`; a bad request; a refusal.

#[path = "../../tests/it/support/client.rs"]
mod server;

#[path = "../../tests/adapters/openai_replies.rs"]
mod replies;

use std::time::Duration;

use genai::adapter::AdapterKind;
use genai::chat::ChatOptions;
use genai::resolver::{AuthData, Endpoint};
use genai::{ModelIden, ServiceTarget};
use replies::{
    bad_request, bad_request_case, completion, content_policy, content_policy_case,
    streamed_patch_case, streamed_patch_script, whole_patch_case, whole_patch_script, Trip,
};
use serde_json::json;
use server::{Scripted, TestServer};
use twr_genai::GenAi;
use twr_runtime::{ChatModel, FinishReason, Message, ModelError, RetryPolicy, Think};

/// A genai client whose every model is served by `server` as OpenAI.
fn client(server: &TestServer) -> genai::Client {
    let endpoint = server.url("/v1/");
    genai::Client::builder()
        .with_service_target_resolver_fn(move |target: ServiceTarget| {
            Ok(ServiceTarget {
                endpoint: Endpoint::from_owned(endpoint.clone()),
                auth: AuthData::from_single("sk-test-key"),
                model: ModelIden::new(AdapterKind::OpenAI, target.model.model_name),
            })
        })
        .build()
        .expect("a genai client")
}

#[tokio::test]
async fn a_whole_reply_is_patched_into_the_typed_value() {
    let server = TestServer::start(whole_patch_script()).await;
    let options = ChatOptions::default().with_temperature(0.25);
    let model = GenAi::new(client(&server), "gpt-test").with_options(options);
    whole_patch_case(&model, &server).await;
}

#[tokio::test]
async fn a_streamed_reply_is_patched_into_the_typed_value() {
    let server = TestServer::start(streamed_patch_script()).await;
    let model = GenAi::new(client(&server), "gpt-test").stream(true);
    let (finish_reason, _) = streamed_patch_case(&model, &server).await;
    assert_eq!(finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn a_rate_limit_is_transient_with_its_retry_after() {
    let limited = || {
        Scripted::json(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "requests",
                             "param": null, "code": "rate_limit_exceeded"}}),
        )
        .header("retry-after", "0.05")
    };
    let server = TestServer::start(vec![limited()]).await;
    let model = GenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    match &error {
        ModelError::Status {
            status,
            message,
            retry_after,
        } => {
            assert_eq!(*status, 429);
            assert_eq!(message, "Rate limit reached");
            assert_eq!(*retry_after, Some(Duration::from_millis(50)));
        }
        other => panic!("expected a 429 status, got {other:?}"),
    }
    assert!(error.is_transient());
    assert_eq!(server.requests().len(), 1);

    // In a run, the loop waits at least the server's pause and asks again.
    let server = TestServer::start(vec![
        limited(),
        completion("[Plan]\nGo\n[Days]\n2", None, (5, 5)),
    ])
    .await;
    let model = GenAi::new(client(&server), "gpt-test");
    let policy = RetryPolicy::default().base_delay(Duration::from_millis(1));
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
    let retries = &outcome.attempts[0].transport_retries;
    assert_eq!(retries.len(), 1);
    assert!(retries[0].delay >= Duration::from_millis(50), "{retries:?}");
    assert_eq!(server.requests().len(), 2);

    // A 5xx is transient too.
    let server = TestServer::start(vec![Scripted::text(503, "upstream overloaded")]).await;
    let model = GenAi::new(client(&server), "gpt-test");
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 503: upstream overloaded"
    );
    assert!(error.is_transient());
}

#[tokio::test]
async fn a_bad_request_ends_the_run_at_once_and_a_content_policy_is_a_refusal() {
    let server = TestServer::start(vec![bad_request()]).await;
    let model = GenAi::new(client(&server), "gpt-test");
    bad_request_case(
        &model,
        &server,
        "the model server answered HTTP 400: Unrecognized request argument supplied: foo",
    )
    .await;

    let server = TestServer::start(vec![content_policy()]).await;
    content_policy_case(&GenAi::new(client(&server), "gpt-test")).await;
}

#[tokio::test]
async fn images_go_as_parts_before_the_text() {
    let server = TestServer::start(vec![completion("[Plan]\nGo\n[Days]\n1", None, (1, 1))]).await;
    let model = GenAi::new(client(&server), "gpt-test");
    let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
    let message = Message::user("Read these.")
        .with_image(png, "image/png")
        .with_image_url("https://example.com/a.jpg");
    let reply = model.chat(&[message]).await.unwrap();
    assert_eq!(reply.content, "[Plan]\nGo\n[Days]\n1");
    let content = &server.only_request().body["messages"][0]["content"];
    assert_eq!(
        content[0]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgpyZXN0"
    );
    assert_eq!(content[1]["image_url"]["url"], "https://example.com/a.jpg");
    assert_eq!(content[2], json!({"type": "text", "text": "Read these."}));
    // Bytes that are not what their media type says never leave.
    let jpeg_as_png = Message::user("x").with_image(b"\xff\xd8\xff\xe0rest".to_vec(), "image/png");
    let error = model.chat(&[jpeg_as_png]).await.unwrap_err();
    assert!(matches!(error, ModelError::Attachment(_)), "{error:?}");
    assert_eq!(server.requests().len(), 1);
}
