//! End to end against a real OpenAI-compatible server (for example
//! llama-cpp-python serving SmolLM2-135M). Runs only when
//! `TWR_E2E_BASE_URL` is set, e.g.
//!
//! ```text
//! TWR_E2E_BASE_URL=http://127.0.0.1:8088/v1 cargo test --test e2e_local_llm -- --nocapture
//! ```
//!
//! `TWR_E2E_MODEL` names the model (default `smollm2-135m-instruct`). The
//! assertions are about the client's behaviour (what it sent, what it made of
//! the server's answer), not about how good a 135M-parameter model is.

use std::time::{Duration, Instant};

use twr_runtime::{ChatModel, FinishReason, Message, ModelError, OpenAiCompatible, Reply};

const MAX_TOKENS: u32 = 48;

fn server() -> Option<(String, String)> {
    let Ok(base) = std::env::var("TWR_E2E_BASE_URL") else {
        eprintln!(
            "skipped: TWR_E2E_BASE_URL is not set \
             (e.g. TWR_E2E_BASE_URL=http://127.0.0.1:8088/v1 to run against a local server)"
        );
        return None;
    };
    let model =
        std::env::var("TWR_E2E_MODEL").unwrap_or_else(|_| "smollm2-135m-instruct".to_string());
    Some((base, model))
}

fn messages() -> Vec<Message> {
    vec![
        Message::system("You are a concise assistant."),
        Message::user("Name three primary colors, one per line."),
    ]
}

/// Checks a reply the way the loop relies on it, and prints it.
fn check(label: &str, result: &Result<Reply, ModelError>, elapsed: Duration) {
    match result {
        Ok(reply) => {
            eprintln!(
                "{label}: {:?} in {elapsed:?}\n  content: {:?}\n  reasoning: {:?}\n  usage: {:?}",
                reply.finish_reason, reply.content, reply.reasoning, reply.usage
            );
            assert!(
                !reply.content.trim().is_empty() || reply.is_truncated(),
                "an empty reply must be an error unless truncated"
            );
            let finish = reply
                .finish_reason
                .as_ref()
                .expect("the server sends finish_reason");
            assert!(
                matches!(finish, FinishReason::Stop | FinishReason::Length),
                "{finish:?}"
            );
            let usage = reply.usage;
            if usage.total_tokens > 0 {
                assert!(usage.prompt_tokens > 0);
                assert!(usage.completion_tokens >= 1);
                assert!(usage.completion_tokens <= u64::from(MAX_TOKENS));
                assert_eq!(
                    usage.total_tokens,
                    usage.prompt_tokens + usage.completion_tokens
                );
                if *finish == FinishReason::Length {
                    assert_eq!(usage.completion_tokens, u64::from(MAX_TOKENS));
                }
            }
        }
        Err(error) => {
            eprintln!(
                "{label}: error in {elapsed:?}: {error} (transient: {})",
                error.is_transient()
            );
            assert!(
                matches!(error, ModelError::EmptyReply),
                "only an empty reply is an acceptable failure from a healthy server: {error:?}"
            );
        }
    }
}

#[tokio::test]
async fn real_server_non_streaming_and_streaming() {
    let Some((base, model_name)) = server() else {
        return;
    };
    let model = OpenAiCompatible::new(&base, &model_name)
        .temperature(0.0)
        .seed(7)
        .max_tokens(MAX_TOKENS)
        .timeout(Duration::from_secs(120));

    let started = Instant::now();
    let plain = model.chat(&messages()).await;
    check("non-streaming", &plain, started.elapsed());
    // llama.cpp servers report usage on whole responses.
    if let Ok(reply) = &plain {
        assert!(
            reply.usage.prompt_tokens > 0,
            "usage missing: {:?}",
            reply.usage
        );
    }

    let streaming = model.clone().stream(true);
    let started = Instant::now();
    let streamed = streaming.chat(&messages()).await;
    check("streaming", &streamed, started.elapsed());

    // Greedy decoding with one seed: the stream, reassembled from its
    // deltas, must be the same text as the whole response.
    if let (Ok(a), Ok(b)) = (&plain, &streamed) {
        assert_eq!(
            a.content, b.content,
            "streamed text differs from the whole response"
        );
        assert_eq!(a.finish_reason, b.finish_reason);
    }
}

#[tokio::test]
async fn real_server_errors_are_typed() {
    let Some((base, model_name)) = server() else {
        return;
    };
    // A path the server does not serve: a 404 with the server's own message,
    // not worth retrying.
    let wrong = OpenAiCompatible::new(
        format!("{}/no-such-api", base.trim_end_matches('/')),
        &model_name,
    );
    let error = wrong.chat(&messages()).await.unwrap_err();
    eprintln!("wrong path: {error}");
    assert!(
        matches!(error, ModelError::Status { status: 404, .. }),
        "{error:?}"
    );
    assert!(!error.is_transient());

    // A time limit no model can meet.
    let hurried = OpenAiCompatible::new(&base, &model_name)
        .max_tokens(MAX_TOKENS)
        .timeout(Duration::from_millis(1));
    let error = hurried.chat(&messages()).await.unwrap_err();
    eprintln!("1 ms timeout: {error}");
    assert!(
        matches!(error, ModelError::Timeout(d) if d == Duration::from_millis(1)),
        "{error:?}"
    );
}
