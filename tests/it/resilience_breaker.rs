//! `CircuitBreaker` and `Fallback` with real clients against real axum
//! servers on 127.0.0.1: the breaker opens after k transient failures for
//! the longer of its cooldown and the server's Retry-After, fails fast with
//! a typed error, sends 200 concurrent runs straight to the next model while
//! open, then lets exactly one probe through.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::json;
use twr_runtime::resilience::CircuitOpen;
use twr_runtime::{
    ChatModel, CircuitBreaker, Fallback, Feedback, Message, ModelError, OpenAiCompatible, Think,
};

const FAILING: u8 = 0;
const SLOW_OK: u8 = 1;
const UNAUTHORIZED: u8 = 2;

#[derive(Clone)]
struct Upstream {
    answer: &'static str,
    mode: Arc<AtomicU8>,
    calls: Arc<AtomicUsize>,
}

async fn handle(State(up): State<Upstream>) -> Response {
    up.calls.fetch_add(1, Ordering::SeqCst);
    let ok = || {
        axum::Json(json!({
            "choices": [{"message": {"role": "assistant", "content": up.answer},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
        }))
        .into_response()
    };
    match up.mode.load(Ordering::SeqCst) {
        FAILING => (
            StatusCode::SERVICE_UNAVAILABLE,
            [("retry-after", "2")],
            axum::Json(json!({"error": {"message": "upstream overloaded"}})),
        )
            .into_response(),
        SLOW_OK => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            ok()
        }
        UNAUTHORIZED => (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": "bad key"}})),
        )
            .into_response(),
        _ => ok(),
    }
}

async fn upstream(answer: &'static str, mode: u8) -> (Upstream, String) {
    let up = Upstream {
        answer,
        mode: Arc::new(AtomicU8::new(mode)),
        calls: Arc::new(AtomicUsize::new(0)),
    };
    let router = Router::new().fallback(handle).with_state(up.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (up, url)
}

fn exactly(expected: &'static str) -> impl Fn(&str) -> Result<String, Feedback> {
    move |raw: &str| {
        assert_eq!(raw, expected, "the run was answered by the wrong model");
        Ok(raw.to_string())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_breaker_sends_200_concurrent_runs_to_the_next_model_then_probes_once() {
    let (primary, primary_url) = upstream("from primary", FAILING).await;
    let (secondary, secondary_url) = upstream("from secondary", 3).await;
    let breaker = CircuitBreaker::new(OpenAiCompatible::new(primary_url, "primary-model"))
        .threshold(3)
        .cooldown(Duration::from_millis(200));
    let model = Fallback::new(vec![
        Box::new(breaker.clone()) as Box<dyn ChatModel>,
        Box::new(OpenAiCompatible::new(secondary_url, "secondary-model")),
    ]);
    let ask = [Message::user("hi")];

    // k = 3 transient failures in a row open it.
    for _ in 0..3 {
        assert!(!breaker.is_open());
        let error = breaker.chat(&ask).await.unwrap_err();
        assert!(
            matches!(error, ModelError::Status { status: 503, .. }),
            "{error:?}"
        );
    }
    let opened = Instant::now();
    assert!(breaker.is_open());
    assert_eq!(primary.calls.load(Ordering::SeqCst), 3);

    // Fail fast, typed, saying until when: Retry-After (2 s) beats the
    // 200 ms cooldown.
    let error = breaker.chat(&ask).await.unwrap_err();
    // A wrapper's refusal: `Unavailable`, with the breaker's own error as
    // its source.
    let ModelError::Unavailable {
        retry_after,
        source,
    } = &error
    else {
        panic!("{error:?}")
    };
    let open = source
        .downcast_ref::<CircuitOpen>()
        .unwrap_or_else(|| panic!("{source:?}"));
    assert_eq!(*retry_after, Some(open.retry_in));
    let reported = std::error::Error::source(&error).and_then(|s| s.downcast_ref::<CircuitOpen>());
    assert_eq!(reported, Some(open));
    assert_eq!(open.model, "primary-model");
    assert!(!open.probing);
    assert!(
        open.retry_in > Duration::from_millis(1500) && open.retry_in <= Duration::from_secs(2),
        "{:?}",
        open.retry_in
    );
    assert!(error.is_transient());
    assert_eq!(error.retry_after(), Some(open.retry_in));
    // Held back, and the breaker's own error says why.
    assert!(
        crate::support::report(&error).starts_with(
            "the call was held back and not sent: \
             the circuit breaker of primary-model is open after repeated failures: no calls until "
        ),
        "{error}"
    );

    // 200 concurrent runs through one shared stack: none reaches the primary.
    let think = Think::new(&model).max_attempts(1);
    let runs = (0..200).map(|i| think.run_with(format!("prompt {i}"), exactly("from secondary")));
    let outcomes = futures_util::future::join_all(runs).await;
    assert!(
        opened.elapsed() < Duration::from_millis(1900),
        "the test ran too slowly to prove anything"
    );
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 200);
    assert_eq!(
        primary.calls.load(Ordering::SeqCst),
        3,
        "the primary was called while open"
    );
    assert_eq!(secondary.calls.load(Ordering::SeqCst), 200);

    // Once the time is up, one probe goes to the (now healthy, slow)
    // primary; the 19 calls made while it runs go to the secondary.
    primary.mode.store(SLOW_OK, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(2050).saturating_sub(opened.elapsed())).await;
    let calls = (0..20).map(|_| model.chat(&ask));
    let replies = futures_util::future::join_all(calls).await;
    let contents: Vec<&str> = replies
        .iter()
        .map(|r| r.as_ref().unwrap().content.as_str())
        .collect();
    assert_eq!(contents.iter().filter(|c| **c == "from primary").count(), 1);
    assert_eq!(
        contents.iter().filter(|c| **c == "from secondary").count(),
        19
    );
    assert_eq!(primary.calls.load(Ordering::SeqCst), 4);

    // The probe succeeded: closed, the primary answers again.
    assert!(!breaker.is_open());
    let reply = model.chat(&ask).await.unwrap();
    assert_eq!(reply.content, "from primary");
    assert_eq!(primary.calls.load(Ordering::SeqCst), 5);
    assert_eq!(secondary.calls.load(Ordering::SeqCst), 219);
}

#[tokio::test]
async fn a_failed_probe_reopens_and_a_success_resets_the_count() {
    let (primary, url) = upstream("ok", FAILING).await;
    let breaker = CircuitBreaker::new(OpenAiCompatible::new(url, "p"))
        .threshold(2)
        .cooldown(Duration::from_millis(50));
    let ask = [Message::user("hi")];
    // fail, succeed, fail: never two in a row, so never open.
    breaker.chat(&ask).await.unwrap_err();
    primary.mode.store(3, Ordering::SeqCst);
    breaker.chat(&ask).await.unwrap();
    primary.mode.store(FAILING, Ordering::SeqCst);
    breaker.chat(&ask).await.unwrap_err();
    assert!(!breaker.is_open());
    breaker.chat(&ask).await.unwrap_err();
    assert!(breaker.is_open());
    assert_eq!(primary.calls.load(Ordering::SeqCst), 4);
    // The probe fails: open again for Retry-After (2 s).
    tokio::time::sleep(Duration::from_millis(2050)).await;
    let error = breaker.chat(&ask).await.unwrap_err();
    assert!(
        matches!(error, ModelError::Status { status: 503, .. }),
        "{error:?}"
    );
    assert_eq!(primary.calls.load(Ordering::SeqCst), 5);
    let error = breaker.chat(&ask).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Unavailable { source, .. } if source.is::<CircuitOpen>()),
        "{error:?}"
    );
    assert_eq!(primary.calls.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn fallback_reports_a_non_transient_error_with_the_model_name() {
    let (primary, primary_url) = upstream("x", UNAUTHORIZED).await;
    let (secondary, secondary_url) = upstream("y", 3).await;
    let model = Fallback::new(vec![
        Box::new(OpenAiCompatible::new(primary_url, "primary-model")) as Box<dyn ChatModel>,
        Box::new(OpenAiCompatible::new(secondary_url, "secondary-model")),
    ]);
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert_eq!(error.to_string(), "the model primary-model failed");
    assert_eq!(
        crate::support::report(&error),
        "the model primary-model failed: the model server answered HTTP 401: bad key"
    );
    assert!(!error.is_transient());
    assert_eq!(primary.calls.load(Ordering::SeqCst), 1);
    assert_eq!(secondary.calls.load(Ordering::SeqCst), 0);
    // Every model failing transiently: the last failure, named.
    primary.mode.store(FAILING, Ordering::SeqCst);
    secondary.mode.store(FAILING, Ordering::SeqCst);
    let error = model.chat(&[Message::user("hi")]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "the model secondary-model failed: the model server answered HTTP 503: upstream overloaded"
    );
    assert_eq!(error.retry_after(), Some(Duration::from_secs(2)));
    assert_eq!(model.name(), "primary-model");
}

#[tokio::test]
async fn a_streaming_model_streams_through_the_breaker_which_counts_each_stream() {
    use futures_util::StreamExt as _;
    use twr_runtime::{Delta, Reply, ScriptedModel};

    let broken = || Err(ModelError::Interrupted("the connection dropped".into()));
    let model = ScriptedModel::from_results([
        Ok(Reply::text("[Answer]\n42")),
        broken(),
        broken(),
        Ok(Reply::text("[Answer]\n43")),
        Ok(Reply::text("[Answer]\n44")),
    ])
    .chunk_size(6);
    let breaker = CircuitBreaker::new(model)
        .threshold(2)
        .cooldown(Duration::from_millis(100));
    assert!(breaker.streams());
    let ask = [Message::user("hi")];
    let deltas = |breaker: &CircuitBreaker<ScriptedModel>| {
        let breaker = breaker.clone();
        async move {
            let items: Vec<Result<Delta, String>> = breaker
                .chat_stream(&[Message::user("hi")])
                .map(|item| item.map_err(|e| crate::support::report(&e)))
                .collect()
                .await;
            items
        }
    };
    // A whole stream, piece by piece: a success.
    assert_eq!(
        deltas(&breaker).await,
        [
            Ok(Delta::Content("[Answe".into())),
            Ok(Delta::Content("r]\n42".into())),
            Ok(Delta::Done {
                usage: Default::default(),
                finish_reason: None
            }),
        ]
    );
    // Two broken streams in a row open it; the next stream fails fast and
    // never reaches the model.
    assert!(deltas(&breaker).await[0].is_err());
    assert!(!breaker.is_open());
    assert!(deltas(&breaker).await[0].is_err());
    assert!(breaker.is_open());
    let refused = deltas(&breaker).await;
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].as_ref().unwrap_err().starts_with(
            "the call was held back and not sent: the circuit breaker of scripted is open"
        ),
        "{refused:?}"
    );
    assert_eq!(breaker.inner().calls(), 3);
    // After the cooldown, a probe stream dropped after its first piece hands
    // the probe on; the next stream probes, succeeds and closes the breaker.
    tokio::time::sleep(Duration::from_millis(120)).await;
    let mut probe = breaker.chat_stream(&ask);
    assert!(probe.next().await.unwrap().is_ok());
    // While the probe streams, other calls fail fast.
    let during = deltas(&breaker).await;
    assert!(
        during[0].as_ref().unwrap_err().starts_with(
            "the call was held back and not sent: \
                 the circuit breaker of scripted is testing the model"
        ),
        "{during:?}"
    );
    drop(probe);
    assert_eq!(deltas(&breaker).await.len(), 3);
    assert!(!breaker.is_open());
    assert_eq!(breaker.inner().calls(), 5);
}

#[tokio::test]
async fn fallback_streams_from_the_first_model_that_starts_well() {
    use futures_util::StreamExt as _;
    use twr_runtime::{Delta, FinishReason, ScriptedModel};

    let down = ScriptedModel::from_results([
        Err(ModelError::Interrupted("the connection dropped".into())),
        Err(ModelError::Config("no key".into())),
    ])
    .chunk_size(4)
    .with_name("primary-model");
    let up = ScriptedModel::new(["[Answer]\n42"])
        .chunk_size(6)
        .with_name("secondary-model");
    let model = Fallback::new(vec![Box::new(down) as Box<dyn ChatModel>, Box::new(up)]);
    assert!(model.streams());
    let ask = [Message::user("hi")];
    let items: Vec<Result<Delta, String>> = model
        .chat_stream(&ask)
        .map(|item| item.map_err(|e| e.to_string()))
        .collect()
        .await;
    assert_eq!(
        items,
        [
            Ok(Delta::Content("[Answe".into())),
            Ok(Delta::Content("r]\n42".into())),
            Ok(Delta::Done {
                usage: Default::default(),
                finish_reason: Some(FinishReason::Stop)
            }),
        ]
    );
    // A failure no retry can fix is reported at once, named, and the next
    // model is not asked.
    let items: Vec<Result<Delta, String>> = model
        .chat_stream(&ask)
        .map(|item| item.map_err(|e| crate::support::report(&e)))
        .collect()
        .await;
    assert_eq!(
        items,
        [Err(
            "the model primary-model failed: invalid model configuration: no key".to_string()
        )]
    );
}
