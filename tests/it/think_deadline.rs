//! With every default a run ends within `DEFAULT_MAX_DURATION` (15 minutes),
//! and a request that ran into the client's timeout is not retried when the
//! retry could not finish in the time left. On tokio's paused clock, so the
//! minutes pass at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support::think::*;
use tokio::time::Instant;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::{BudgetLimit, DEFAULT_MAX_DURATION};
use twr_runtime::{ChatModel, ModelError, Reply, Think, ThinkErrorKind};

/// The client's default timeout.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(600);

/// A server that streams forever, as the client reports it: after its
/// timeout, the text so far and a timeout.
#[derive(Default)]
struct StreamsForever {
    calls: AtomicUsize,
}

impl ChatModel for StreamsForever {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            tokio::time::sleep(CLIENT_TIMEOUT).await;
            Err(ModelError::Incomplete {
                partial: Box::new(Reply::text("[Plan]\nla la la la")),
                source: Box::new(ModelError::Timeout(CLIENT_TIMEOUT)),
            })
        })
    }
}

/// A model that never answers (and has no timeout of its own).
struct Silent;

impl ChatModel for Silent {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(std::future::pending())
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_that_streams_forever_holds_a_run_for_one_client_timeout() {
    let model = StreamsForever::default();
    let started = Instant::now();
    let error = Think::new(&model).run::<Trip>("Plan").await.unwrap_err();
    assert_eq!(started.elapsed(), CLIENT_TIMEOUT);
    assert_eq!(model.calls.load(Ordering::SeqCst), 1);
    assert!(
        matches!(
            error.kind(),
            ThinkErrorKind::Model {
                source: ModelError::Incomplete { .. },
                retries: 0
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.incomplete_replies()[0].content, "[Plan]\nla la la la");
}

#[tokio::test(start_paused = true)]
async fn every_run_ends_within_the_default_deadline() {
    assert_eq!(DEFAULT_MAX_DURATION, Duration::from_secs(15 * 60));
    let started = Instant::now();
    let think = Think::new(&Silent);
    let run = think.run::<Trip>("Plan");
    let error = tokio::time::timeout(Duration::from_secs(24 * 3600), run)
        .await
        .expect("the run ended by itself")
        .unwrap_err();
    // A model that ignores the run's deadline is dropped 50 ms after it
    // (one that honours it ends the request itself, keeping its text).
    assert_eq!(
        started.elapsed(),
        DEFAULT_MAX_DURATION + Duration::from_millis(50)
    );
    assert!(
        matches!(error.kind(), ThinkErrorKind::Budget { limit: BudgetLimit::Duration(d) } if *d == DEFAULT_MAX_DURATION),
        "{error:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_deadline_is_overridable() {
    // No time limit: the request is retried as the policy says, 4 requests
    // of 600 s each (the 40 minutes of the old defaults).
    let model = StreamsForever::default();
    let started = Instant::now();
    let error = Think::new(&model)
        .max_duration(Duration::MAX)
        .run::<Trip>("Plan")
        .await
        .unwrap_err();
    assert_eq!(model.calls.load(Ordering::SeqCst), 4);
    assert!(started.elapsed() >= CLIENT_TIMEOUT * 4);
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Model { retries: 3, .. }
    ));
    assert_eq!(error.incomplete_replies().len(), 4);

    // A longer deadline leaves room for one retry: 600 s, then 600 s more
    // with 900 s left, then under 300 s left is too little for a third.
    let model = StreamsForever::default();
    let started = Instant::now();
    let error = Think::new(&model)
        .max_duration(Duration::from_secs(1500))
        .run::<Trip>("Plan")
        .await
        .unwrap_err();
    assert_eq!(model.calls.load(Ordering::SeqCst), 2);
    assert!(started.elapsed() < Duration::from_secs(1300));
    assert!(matches!(
        error.kind(),
        ThinkErrorKind::Model { retries: 1, .. }
    ));
}
