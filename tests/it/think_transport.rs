//! Transport failures: retried under their own budget with backoff, never
//! consuming format attempts; non-transient errors fail at once; budgets.

use std::time::{Duration, Instant};

use crate::support::think::*;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::{BudgetLimit, Ending};

use twr_runtime::{
    ChatModel, ModelError, Reply, RetryMode, RetryPolicy, ScriptedModel, Think, ThinkErrorKind,
    Usage,
};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";

fn fast() -> RetryPolicy {
    RetryPolicy::default()
        .max_retries(3)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
}

fn status(status: u16, message: &str) -> ModelError {
    ModelError::Status {
        status,
        message: message.to_string(),
        retry_after: None,
    }
}

#[tokio::test]
async fn transient_errors_are_retried_without_consuming_format_attempts() {
    let model = ScriptedModel::from_results([
        Err(status(503, "overloaded")),
        Err(ModelError::Connect("connection refused".into())),
        Ok(Reply::text("no sections")),
        Err(ModelError::Timeout(Duration::from_secs(30))),
        Ok(Reply::text(GOOD)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .retry_mode(RetryMode::Full)
        .retry_policy(fast())
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(model.calls(), 5);
    let errors = |n: usize| -> Vec<String> {
        outcome.attempts[n]
            .transport_retries
            .iter()
            .map(|r| r.error.clone())
            .collect()
    };
    assert_eq!(
        errors(0),
        vec![
            "the model server answered HTTP 503: overloaded".to_string(),
            "could not connect to the model server: connection refused".to_string(),
        ]
    );
    assert_eq!(
        errors(1),
        vec!["the model server did not answer within 30s".to_string()]
    );
    // A retried request is the same request.
    let requests = model.requests();
    assert_eq!(requests[0], requests[1]);
    assert_eq!(requests[0], requests[2]);
    assert_eq!(requests[3], requests[4]);
}

#[tokio::test]
async fn an_empty_reply_is_a_transport_failure() {
    let model = ScriptedModel::from_results([Ok(Reply::text(" \n\t")), Ok(Reply::text(GOOD))]);
    let outcome = Think::new(&model)
        .max_attempts(1)
        .retry_policy(fast())
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::FirstTry);
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(
        outcome.attempts[0].transport_retries[0].error,
        "the model sent an empty reply"
    );
}

#[tokio::test]
async fn transport_retries_have_their_own_budget() {
    let model = ScriptedModel::from_results([
        Err(status(502, "bad gateway")),
        Err(status(502, "bad gateway")),
        Err(status(500, "internal error")),
        Ok(Reply::text(GOOD)),
    ]);
    let error = Think::new(&model)
        .retry_policy(fast().max_retries(2))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert_eq!(model.calls(), 3);
    assert!(
        matches!(error.kind(), ThinkErrorKind::Model { retries: 2, .. }),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "the model call failed after 2 retries");
    assert_eq!(
        crate::support::report(&error),
        "the model call failed after 2 retries: the model server answered HTTP 500: internal error"
    );
    assert!(error.attempts().is_empty());
}

#[tokio::test]
async fn non_transient_errors_fail_at_once_with_the_servers_message() {
    for code in [400, 401, 403, 404] {
        let message = format!("server says {code}: Incorrect API key provided");
        let model =
            ScriptedModel::from_results([Err(status(code, &message)), Ok(Reply::text(GOOD))]);
        let error = Think::new(&model)
            .retry_policy(fast())
            .run::<Trip>(PROMPT)
            .await
            .unwrap_err();
        assert_eq!(model.calls(), 1, "HTTP {code} was retried");
        assert!(matches!(
            error.kind(),
            ThinkErrorKind::Model { retries: 0, .. }
        ));
        assert_eq!(error.to_string(), "the model call failed");
        assert_eq!(
            crate::support::report(&error),
            format!("the model call failed: the model server answered HTTP {code}: {message}")
        );
        // The model error is the source, read with `model_error` too; a
        // status holds no lower error, so the chain ends there.
        assert!(matches!(
            error.model_error(),
            Some(ModelError::Status { .. })
        ));
        let source = std::error::Error::source(&error).unwrap();
        assert!(matches!(
            source.downcast_ref::<ModelError>(),
            Some(ModelError::Status { .. })
        ));
        assert!(source.source().is_none());
    }
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let model = ScriptedModel::from_results([
        Err(ModelError::Status {
            status: 429,
            message: "slow down".to_string(),
            retry_after: Some(Duration::from_millis(80)),
        }),
        Ok(Reply::text(GOOD)),
    ]);
    let started = Instant::now();
    let outcome = Think::new(&model)
        .retry_policy(fast().max_delay(Duration::from_secs(1)))
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(80));
    assert_eq!(
        outcome.attempts[0].transport_retries[0].delay,
        Duration::from_millis(80)
    );
    assert!(outcome.attempts[0].latency >= Duration::from_millis(80));
}

#[tokio::test]
async fn running_out_of_script_is_a_clear_error() {
    let model = ScriptedModel::new(["no sections"]);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert_eq!(model.calls(), 2);
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Model { retries: 0, .. }
    ));
    assert_eq!(
        crate::support::report(&error),
        "the model call failed: the ScriptedModel ran out of replies: it was given 1 and all were used; \
         script more replies or expect fewer calls"
    );
    assert_eq!(error.raw_replies(), vec!["no sections"]);
}

#[tokio::test]
async fn the_request_budget_counts_transport_retries() {
    let model = ScriptedModel::from_results([
        Err(status(503, "busy")),
        Ok(Reply::text("no sections")),
        Ok(Reply::text(GOOD)),
    ]);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .retry_policy(fast())
        .max_requests(2)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert_eq!(model.calls(), 2);
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Budget {
            limit: BudgetLimit::Requests(2),
        }
    ));
    assert_eq!(error.raw_replies(), vec!["no sections"]);
    assert_eq!(
        error.to_string(),
        "the budget of 2 requests ran out after 1 reply (0 tokens) before a valid answer; \
         the last reply still had 3 problems, the first: \
         The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, then its content."
    );
}

#[tokio::test]
async fn the_token_budget_stops_before_another_request() {
    let model = ScriptedModel::from_replies([
        reply_with_usage("no sections", 100, 50),
        reply_with_usage("still none", 100, 50),
        reply_with_usage(GOOD, 100, 50),
    ]);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .max_total_tokens(250)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert_eq!(model.calls(), 2);
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Budget {
            limit: BudgetLimit::Tokens(250),
        }
    ));
    assert_eq!(error.usage().total_tokens, 300);
}

#[tokio::test]
async fn a_reply_that_parses_is_kept_even_past_the_token_budget() {
    let model = ScriptedModel::from_replies([reply_with_usage(GOOD, 900, 300)]);
    let outcome = Think::new(&model)
        .max_total_tokens(100)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
}

/// A model that takes its time.
struct Slow(Duration);

impl ChatModel for Slow {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            Ok(Response::from_reply(Reply::text(GOOD)))
        })
    }
}

#[tokio::test]
async fn the_time_budget_cuts_a_slow_request_short() {
    let started = Instant::now();
    let error = Think::new(&Slow(Duration::from_secs(5)))
        .max_duration(Duration::from_millis(50))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Budget { limit: BudgetLimit::Duration(d) } if *d == Duration::from_millis(50)
    ));
}

#[tokio::test]
async fn the_time_budget_does_not_sleep_past_its_end() {
    let model = ScriptedModel::from_results([
        Err(ModelError::Status {
            status: 429,
            message: "slow down".to_string(),
            retry_after: Some(Duration::from_secs(10)),
        }),
        Ok(Reply::text(GOOD)),
    ]);
    let started = Instant::now();
    let error = Think::new(&model)
        .retry_policy(fast().max_delay(Duration::from_secs(30)))
        .max_duration(Duration::from_secs(1))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(500));
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Budget {
            limit: BudgetLimit::Duration(_),
        }
    ));
    assert_eq!(model.calls(), 1);
}

#[tokio::test]
async fn tokens_of_retried_empty_replies_count_once() {
    let model = ScriptedModel::from_replies([
        reply_with_usage(" \n", 60, 40),
        reply_with_usage("no sections", 30, 20),
        reply_with_usage(GOOD, 30, 20),
    ]);
    // 100 tokens for the empty reply, 50 for the rejected one: 150 of 200
    // used, so the third request is allowed.
    let outcome = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .retry_policy(fast())
        .max_total_tokens(200)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(model.calls(), 3);
    assert_eq!(outcome.attempts[0].usage, Usage::new(90, 60));
    assert_eq!(outcome.attempts[1].usage, Usage::new(30, 20));
    assert_eq!(outcome.usage, Usage::new(120, 80));
}

#[tokio::test]
async fn a_failed_call_keeps_its_tokens_and_every_request() {
    let model = ScriptedModel::from_results([
        Ok(reply_with_usage("no sections", 30, 20)),
        Ok(reply_with_usage("", 7, 3)),
        Err(status(503, "busy")),
        Err(ModelError::Connect("connection refused".into())),
    ]);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .retry_policy(fast().max_retries(2))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.kind(),
            ThinkErrorKind::Model {
                source: ModelError::Connect(_),
                retries: 2
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.raw_replies(), vec!["no sections"]);
    let call = error.failed_call().expect("the call that got no reply");
    assert_eq!(call.number, 2);
    let failures: Vec<&str> = call.failures.iter().map(|f| f.error.as_str()).collect();
    assert_eq!(
        failures,
        vec![
            "the model sent an empty reply",
            "the model server answered HTTP 503: busy",
            "could not connect to the model server: connection refused",
        ]
    );
    // The run ended after the last one: no pause was taken.
    assert_eq!(call.failures[2].delay, Duration::ZERO);
    assert_eq!(call.usage, Usage::new(7, 3));
    assert_eq!(error.usage(), Usage::new(37, 23));
    assert_eq!(error.requests(), 4);
    assert_eq!(model.calls(), 4);
}

#[tokio::test]
async fn a_request_cut_by_the_time_budget_is_in_the_ledger() {
    let error = Think::new(&Slow(Duration::from_secs(5)))
        .max_duration(Duration::from_millis(50))
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    let call = error.failed_call().expect("the request in flight");
    assert_eq!(call.number, 1);
    assert_eq!(call.failures.len(), 1);
    assert_eq!(
        call.failures[0].error,
        "stopped when the time budget of 50ms ran out"
    );
    assert_eq!(call.failures[0].delay, Duration::ZERO);
    assert_eq!(error.requests(), 1);
}
