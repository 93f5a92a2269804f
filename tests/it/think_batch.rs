//! `Think::run_many`: bounded concurrency, results in input order whatever
//! order the runs end in, a failure that stops nothing else, a progress
//! hook with exact counts, and a dropped batch leaves no call running.
//! `Think::run_each`: the same runs handed out as they end, in a window
//! that takes each prompt only when its run starts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt as _;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::RunsProgress;
use twr_runtime::{ChatModel, ModelError, Reply, Sections, Think, ThinkErrorKind, Usage};

/// Twice the item's number.
#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// Answers "item N" with 2N after a pause that is longest for the first
/// items, so runs end in the reverse of their order; fails item 3 with an
/// error no retry can fix; counts the calls in flight.
#[derive(Default)]
struct Doubler {
    in_flight: AtomicUsize,
    most: AtomicUsize,
    pause_ms: u64,
}

/// Decrements the in-flight count however the call ends, dropped included.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ChatModel for Doubler {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let messages = request.messages;
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            let _guard = InFlight(&self.in_flight);
            self.most.fetch_max(now, Ordering::SeqCst);
            let prompt = messages.last().unwrap().content.as_str();
            let n: u64 = prompt
                .strip_prefix("item ")
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .expect("an item number");
            tokio::time::sleep(Duration::from_millis(self.pause_ms * (20 - n.min(19)))).await;
            if n == 3 {
                return Err(ModelError::Config("item 3 cannot be asked".into()));
            }
            let mut reply = Reply::text(format!("[Number]\n{}", 2 * n));
            reply.usage = Usage::new(10, 2);
            Ok(Response::from_reply(reply))
        })
    }
}

fn prompts() -> Vec<String> {
    (0..20).map(|n| format!("item {n}")).collect()
}

#[tokio::test]
async fn twenty_prompts_five_at_a_time_in_input_order_with_progress() {
    let model = Doubler {
        pause_ms: 2,
        ..Doubler::default()
    };
    let seen: Mutex<Vec<RunsProgress>> = Mutex::default();
    let results = Think::new(&model)
        .max_attempts(1)
        .concurrency(5)
        .on_progress(|p| seen.lock().unwrap().push(*p))
        .run_many::<Doubled>(prompts())
        .await;
    assert_eq!(results.len(), 20);
    for (n, result) in results.iter().enumerate() {
        match (n, result) {
            (3, Err(error)) => assert!(
                matches!(
                    error.kind(),
                    ThinkErrorKind::Model {
                        source: ModelError::Config(_),
                        ..
                    }
                ),
                "{error:?}"
            ),
            (n, Ok(outcome)) => assert_eq!(
                outcome.value,
                Doubled {
                    number: 2 * n as u32
                }
            ),
            (n, other) => panic!("item {n}: {other:?}"),
        }
    }
    assert_eq!(model.most.load(Ordering::SeqCst), 5);
    let seen = seen.into_inner().unwrap();
    let done: Vec<usize> = seen.iter().map(|p| p.done).collect();
    assert_eq!(done, (1..=20).collect::<Vec<_>>());
    assert!(seen.iter().all(|p| p.total == 20));
    let last = seen.last().unwrap();
    assert_eq!(last.failed, 1);
    assert_eq!(last.usage, Usage::new(190, 38));
    // The failure is counted when it ends, not before.
    let first_failed = seen.iter().position(|p| p.failed == 1).unwrap();
    assert!(seen[..first_failed].iter().all(|p| p.failed == 0));
}

#[tokio::test]
async fn a_dropped_batch_leaves_no_call_running() {
    let model = Doubler {
        pause_ms: 50,
        ..Doubler::default()
    };
    let think = Think::new(&model).max_attempts(1).concurrency(4);
    let batch = think.run_many::<Doubled>(prompts());
    let cut = tokio::time::timeout(Duration::from_millis(100), batch).await;
    assert!(cut.is_err(), "the batch could not have finished");
    assert_eq!(model.most.load(Ordering::SeqCst), 4);
    assert_eq!(model.in_flight.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_empty_batch_is_an_empty_result() {
    let model = Doubler::default();
    let results = Think::new(&model)
        .run_many::<Doubled>(Vec::<String>::new())
        .await;
    assert!(results.is_empty());
}

#[tokio::test]
async fn run_each_hands_out_each_run_as_it_ends_from_a_window_over_lazy_prompts() {
    let model = Doubler {
        pause_ms: 2,
        ..Doubler::default()
    };
    let taken = AtomicUsize::new(0);
    let seen: Mutex<Vec<RunsProgress>> = Mutex::default();
    let think = Think::new(&model)
        .max_attempts(1)
        .concurrency(5)
        .on_progress(|p| seen.lock().unwrap().push(*p));
    // A source that cannot tell its length (as lines read from a file).
    let prompts = (0..20)
        .inspect(|_| {
            taken.fetch_add(1, Ordering::SeqCst);
        })
        .filter(|_| true)
        .map(|n| format!("item {n}"));
    let mut ended = Box::pin(think.run_each::<Doubled>(prompts));
    let mut order = Vec::new();
    while let Some((n, result)) = ended.next().await {
        if order.is_empty() {
            // Five runs in flight, and no prompt taken beyond them.
            assert_eq!(taken.load(Ordering::SeqCst), 5);
        }
        match result {
            Ok(outcome) => assert_eq!(outcome.value.number, 2 * n as u32),
            Err(error) => assert_eq!(n, 3, "{error}"),
        }
        order.push(n);
    }
    assert_eq!(model.most.load(Ordering::SeqCst), 5);
    order.sort();
    assert_eq!(order, (0..20).collect::<Vec<_>>());
    drop(ended);
    drop(think);
    let seen = seen.into_inner().unwrap();
    // The total is the prompts started so far, until the source ends.
    assert_eq!(seen[0].total, 5);
    assert_eq!(
        (seen[19].done, seen[19].total, seen[19].failed),
        (20, 20, 1)
    );
}
