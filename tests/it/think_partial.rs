//! Text that arrived before a stream broke or stalled
//! (`ModelError::Incomplete`) is kept in the ledger and in the error, marked
//! incomplete: it is what the model said.

use std::time::{Duration, Instant};

use crate::support::client::{Scripted, TestServer};
use serde_json::json;

use crate::support::think::*;
use twr_runtime::run::BudgetLimit;
use twr_runtime::{
    Feedback, FinishReason, ModelError, OpenAiCompatible, Reply, RetryPolicy, ScriptedModel, Think,
    ThinkErrorKind, Usage,
};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";
const PARTIAL: &str = "[Plan]\nVisit Kiyomizu-dera and";

fn fast() -> RetryPolicy {
    RetryPolicy::default()
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
}

/// A stream that stalled after `text` arrived.
fn stalled(text: &str) -> ModelError {
    ModelError::Incomplete {
        partial: Box::new(
            Reply::text(text.to_string())
                .with_reasoning("Kyoto has many temples.".to_string())
                .with_usage(Usage::new(40, 8)),
        ),
        source: Box::new(ModelError::Timeout(Duration::from_secs(30))),
    }
}

#[tokio::test]
async fn a_retried_partial_reply_is_in_the_attempts_ledger() {
    let model =
        ScriptedModel::from_results([Err(stalled(PARTIAL)), Ok(reply_with_usage(GOOD, 40, 20))]);
    let outcome = Think::new(&model)
        .retry_policy(fast())
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    let retry = &outcome.attempts[0].transport_retries[0];
    assert_eq!(
        retry.error,
        "the reply was cut off (30 bytes of it had arrived and are kept): \
         the model server did not answer within 30s"
    );
    let partial = retry.partial.as_ref().expect("the text that arrived");
    assert_eq!(partial.content, PARTIAL);
    assert_eq!(
        partial.reasoning.as_deref(),
        Some("Kyoto has many temples.")
    );
    // Its tokens count like any reply's.
    assert_eq!(outcome.attempts[0].usage, Usage::new(80, 28));
    assert_eq!(outcome.usage, Usage::new(80, 28));
}

#[tokio::test]
async fn partial_replies_of_a_failed_run_are_in_the_error() {
    let model = ScriptedModel::from_results([
        Ok(reply_with_usage("no sections", 10, 5)),
        Err(stalled("[Plan]\nFushimi")),
        Err(stalled(PARTIAL)),
    ]);
    let error = Think::new(&model)
        .retry_policy(fast().max_retries(1))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Model { retries: 1, .. }),
        "{error:?}"
    );
    assert_eq!(
        crate::support::report(&error),
        "the model call failed after 1 retry: \
         the reply was cut off (30 bytes of it had arrived and are kept): \
         the model server did not answer within 30s"
    );
    let contents: Vec<&str> = error
        .incomplete_replies()
        .iter()
        .map(|r| r.content.as_str())
        .collect();
    assert_eq!(contents, vec!["[Plan]\nFushimi", PARTIAL]);
    // The last one is also in the model error itself.
    let last = error.model_error().and_then(ModelError::partial).unwrap();
    assert_eq!(last.content, PARTIAL);
    assert_eq!(last.finish_reason, None::<FinishReason>);
    let call = error.failed_call().unwrap();
    assert_eq!(call.failures.len(), 2);
    assert_eq!(
        call.failures[1]
            .partial
            .as_ref()
            .map(|p| p.content.as_str()),
        Some(PARTIAL)
    );
    assert_eq!(error.usage(), Usage::new(90, 21));
    assert!(format!("{error:?}").contains("Visit Kiyomizu-dera and"));
    assert_eq!(error.raw_replies(), vec!["no sections"]);
}

/// 28 lines of 1,000 bytes streamed as SSE content deltas, and the text.
fn streamed_answer() -> (String, String) {
    let line = |n: usize| format!("{n:04} {}\n", "w".repeat(994));
    let text: String = (0..28).map(line).collect();
    let body: String = (0..28)
        .map(|n| {
            let event = json!({"choices": [{"index": 0, "delta": {"content": line(n)}, "finish_reason": null}]});
            format!("data: {event}\n\n")
        })
        .collect();
    (text, body)
}

#[tokio::test]
async fn a_stream_that_stalls_after_28_kb_leaves_its_text_in_the_error() {
    let (text, body) = streamed_answer();
    assert_eq!(text.len(), 28_000);
    let stalled = Scripted::raw_sse(&body)
        .pieces(4096)
        .stall_after(body.len());
    let server = TestServer::start(vec![stalled.clone(), stalled]).await;
    let model = OpenAiCompatible::new(server.url("/v1"), "test-model")
        .stream(true)
        .timeout(Duration::from_millis(400));
    let started = Instant::now();
    let error = Think::new(&model)
        .retry_policy(fast().max_retries(1))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    // The stream never ends: without the 400 ms timeout nothing would. The
    // bound leaves room for a machine under a load of 10.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(error.requests(), 2);
    assert!(
        matches!(
            error.kind(),
            ThinkErrorKind::Model {
                source: ModelError::Incomplete { .. },
                retries: 1
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        crate::support::report(&error),
        "the model call failed after 1 retry: \
         the reply was cut off (28000 bytes of it had arrived and are kept): \
         the model server did not answer within 400ms"
    );
    // Both stalled streams' text is in the error, whole and in order.
    let partials: Vec<&str> = error
        .incomplete_replies()
        .iter()
        .map(|r| r.content.as_str())
        .collect();
    let lengths: Vec<usize> = partials.iter().map(|p| p.len()).collect();
    assert!(
        partials == vec![text.as_str(), text.as_str()],
        "partial replies of {lengths:?} bytes"
    );
    assert!(error.attempts().is_empty());
}

/// When the run's own time budget ends a streamed request, the text
/// streamed so far is in the error like any incomplete reply: read section
/// by section (`run`) and read whole (`run_with`, which the client collects
/// from the event stream).
#[tokio::test]
async fn the_runs_deadline_keeps_the_text_streamed_so_far() {
    let (text, body) = streamed_answer();
    let stalled = Scripted::raw_sse(&body)
        .pieces(4096)
        .stall_after(body.len());
    let server = TestServer::start(vec![stalled.clone(), stalled]).await;
    // The client's own timeout (10 minutes) is not what ends the request.
    let model = OpenAiCompatible::new(server.url("/v1"), "test-model").stream(true);
    let think = Think::new(&model).max_duration(Duration::from_millis(700));
    for whole in [false, true] {
        let started = Instant::now();
        let error = if whole {
            think
                .run_with(PROMPT, |raw: &str| Ok::<_, Feedback>(raw.to_owned()))
                .await
                .unwrap_err()
        } else {
            think.run::<Trip>(PROMPT).await.unwrap_err()
        };
        let elapsed = started.elapsed();
        // Without the 700 ms budget the client's 10-minute timeout would end
        // it; the bound leaves room for a machine under a load of 10.
        assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
        assert_eq!(
            error.budget_limit(),
            Some(BudgetLimit::Duration(Duration::from_millis(700))),
            "{error:?}"
        );
        let call = error.failed_call().expect("the request the deadline ended");
        assert_eq!(call.failures.len(), 1);
        assert_eq!(
            call.failures[0].error,
            "stopped when the time budget of 700ms ran out"
        );
        let partial = call.failures[0].partial.as_ref().map(|p| p.content.len());
        assert_eq!(partial, Some(text.len()), "whole: {whole}");
        let partials: Vec<&str> = error
            .incomplete_replies()
            .iter()
            .map(|r| r.content.as_str())
            .collect();
        assert!(partials == [text.as_str()], "whole: {whole}");
    }
    assert_eq!(server.requests().len(), 2);
}
