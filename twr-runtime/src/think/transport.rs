//! One model call with its transport retries: transient failures and empty
//! replies are retried with backoff, under the run's budgets.
//!
//! Every request made is written down: the failed ones as
//! [`FailedRequest`] records (with the error and the pause after it), the
//! last one as the reply. A call that gets no reply returns its records too,
//! so the run's ledger always accounts for every request.

use std::time::Duration;

use tokio::time::Instant;

use super::budget::{sum, Budget};
use super::error::BudgetLimit;
use super::outcome::{FailedCall, FailedRequest};
use futures_util::StreamExt as _;

use super::stream::Listener;
use crate::feedback::Problem;
use crate::model::{ChatModel, Gathered, ModelError, Reply, Request, Response, Served, Usage};
use crate::retry::RetryPolicy;

/// A reply and what it took to get it.
pub(crate) struct Call {
    pub(crate) reply: Reply,
    /// The failed requests before the reply.
    pub(crate) retries: Vec<FailedRequest>,
    pub(crate) latency: Duration,
    /// Tokens of the failed requests (empty replies that were retried); already
    /// counted in the budget.
    pub(crate) wasted: Usage,
    /// For a streamed reply stopped early: the invalid section's problem.
    pub(crate) aborted: Option<Problem>,
    /// Where the reply came from.
    pub(crate) served: Served,
    /// The model that answered, when not the one called.
    pub(crate) model: Option<String>,
    /// The reply's cost, when it is known already (a stored reply).
    pub(crate) cost: Option<f64>,
    /// The other replies of a request for several
    /// ([`Request::n`](crate::model::Request::n)), in order after `reply`,
    /// which carries the call's usage and cost.
    pub(crate) others: Vec<Reply>,
}

impl Call {
    /// The call as one call per reply, in order: the first with everything
    /// the call had (its failed requests, its usage and cost, which are
    /// the whole call's), each other with the reply alone (no usage: the
    /// server counted it in the call's, so a sum counts the call once).
    pub(crate) fn split(mut self) -> Vec<Call> {
        let others = std::mem::take(&mut self.others);
        let mut calls = Vec::with_capacity(1 + others.len());
        let rest = others.into_iter().map(|reply| Call {
            reply,
            retries: Vec::new(),
            latency: self.latency,
            wasted: Usage::default(),
            aborted: None,
            served: self.served.clone(),
            model: self.model.clone(),
            // Known to be nothing when the call's cost is known.
            cost: self.cost.map(|_| 0.0),
            others: Vec::new(),
        });
        let rest: Vec<Call> = rest.collect();
        calls.push(self);
        calls.extend(rest);
        calls
    }
}

/// A reply as one request got it, read whole or stopped early, with what
/// its response said of it.
struct Received {
    /// The reply; for a stopped one, what arrived (no usage, no finish).
    reply: Reply,
    /// Why it was stopped, when it was.
    aborted: Option<Problem>,
    served: Served,
    model: Option<String>,
    cost: Option<f64>,
    /// The replies after the first, of a request for several.
    others: Vec<Reply>,
}

/// A call that got no reply: why, and every request it made.
pub(crate) struct CallFailure {
    pub(crate) stop: Stop,
    /// The requests made, all failed; `None` when the budget refused the
    /// first one.
    pub(crate) call: Option<FailedCall>,
}

/// Why a call ended without a reply.
pub(crate) enum Stop {
    /// A budget of the run ran out.
    Budget(BudgetLimit),
    /// The model failed and retrying was not allowed or not worth it.
    Model(ModelError),
}

/// One model call for attempt `attempt`, asking `request` (its messages,
/// grammar, shared prefix, log-probabilities and sample), with transport
/// retries under `policy`; streamed through `listener` when there is one,
/// and waited for until the run's time is up.
pub(crate) async fn call<M: ChatModel + ?Sized>(
    model: &M,
    policy: &RetryPolicy,
    request: Request<'_>,
    budget: &mut Budget,
    attempt: usize,
    mut listener: Option<&mut Listener<'_>>,
) -> Result<Call, CallFailure> {
    let mut log = RequestLog {
        attempt,
        started: Instant::now(),
        failures: Vec::new(),
        wasted: Usage::default(),
    };
    loop {
        if let Err(limit) = budget.take_request() {
            return Err(log.stop(Stop::Budget(limit)));
        }
        let sent = Instant::now();
        let result = match send(model, request, budget, listener.as_deref_mut()).await {
            // The run's time is up: the model ended the request at its time
            // limit (keeping the text that arrived, when it could), or the
            // request was dropped.
            Some(Err(error)) if out_of_time(budget) && timed_out(&error) => {
                return Err(log.out_of_time(budget, Some(error)));
            }
            None => return Err(log.out_of_time(budget, None)),
            Some(result) => result,
        };
        let error = match result {
            // What arrived before a stream broke is counted like any reply.
            Err(error) if error.partial().is_some() => {
                let usage = error.partial().map(|p| p.usage).unwrap_or_default();
                log.wasted = sum(log.wasted, usage);
                budget.add_usage(usage);
                error
            }
            // A reply stopped early is judged by the loop, as it is.
            Ok(
                received @ Received {
                    aborted: Some(_), ..
                },
            ) => return Ok(log.reply(received)),
            // An empty reply cut off by the limit (a reasoning model that
            // spent every token thinking) is a truncation, not a transport
            // failure: asking again unchanged would fail the same way.
            Ok(Received { reply, .. })
                if reply.content.trim().is_empty() && !reply.is_truncated() =>
            {
                log.wasted = sum(log.wasted, reply.usage);
                budget.add_usage(reply.usage);
                ModelError::EmptyReply
            }
            Ok(received) => return Ok(log.reply(received)),
            Err(error) => error,
        };
        let done = log.failures.len() as u32;
        // A retry is a new request of about the same length: when the failed
        // one took longer than the run has left (a stream that ran until the
        // client's timeout), the retry would only be cut off by the deadline.
        let hopeless = budget
            .time_left()
            .is_some_and(|left| sent.elapsed() >= left);
        let pause = if hopeless {
            None
        } else {
            policy.pause_after(done, &error)
        };
        let Some(delay) = pause else {
            log.last_failed(&error);
            return Err(log.stop(Stop::Model(error)));
        };
        if budget.time_left().is_some_and(|left| left <= delay) {
            log.failed(error, Duration::ZERO);
            return Err(log.stop(Stop::Budget(budget.duration_limit())));
        }
        tracing::warn!(
            attempt,
            retry = done + 1,
            delay_ms = delay.as_millis() as u64,
            error = %error,
            partial_bytes = error.partial().map_or(0, |p| p.content.len()),
            "twr transport retry"
        );
        if let Some(listener) = listener.as_deref() {
            listener.transport_retry(&error);
        }
        log.failed(error, delay);
        tokio::time::sleep(delay).await;
    }
}

/// Sends one request, with the end of the run's time as its deadline, and
/// reads its reply: streamed and watched by `listener` when there is one,
/// else read whole. A model that ignores the deadline is cut short a moment
/// after it (`None`), losing what it read.
async fn send<M: ChatModel + ?Sized>(
    model: &M,
    request: Request<'_>,
    budget: &Budget,
    listener: Option<&mut Listener<'_>>,
) -> Option<Result<Received, ModelError>> {
    let deadline = budget.deadline();
    let mut request = request.with_stream(listener.is_some());
    if let Some(deadline) = deadline {
        request = request.with_deadline(deadline);
    }
    let several = request.n > 1 && listener.is_none();
    let request = async { read(model.call(request).await?, listener, several).await };
    match deadline.and_then(|deadline| deadline.checked_add(DEADLINE_GRACE)) {
        // The grace lets a model that honours the deadline end the request
        // itself, with the text it read: the timeout polls the request
        // before its own clock, so the model's deadline wins even when both
        // have passed by the time the task runs.
        Some(cut) => tokio::time::timeout_at(cut, request).await.ok(),
        None => Some(request.await),
    }
}

/// Reads `response` to its end, showing each piece to `listener`; stops
/// where the listener finds a section definitely wrong (dropping the
/// stream closes the connection: the server stops writing the rest). With
/// `several`, every reply of a response to a request for several, read
/// whole.
async fn read(
    response: Response<'_>,
    mut listener: Option<&mut Listener<'_>>,
    several: bool,
) -> Result<Received, ModelError> {
    if several {
        let (served, model, cost) = (
            response.served.clone(),
            response.model.clone(),
            response.cost,
        );
        let mut replies = response.into_replies().await?.into_iter();
        let reply = replies
            .next()
            .expect("into_replies gives one reply or more");
        return Ok(Received {
            reply,
            aborted: None,
            served,
            model,
            cost,
            others: replies.collect(),
        });
    }
    let received = |reply, aborted| Received {
        reply,
        aborted,
        served: response.served.clone(),
        model: response.model.clone(),
        cost: response.cost,
        others: Vec::new(),
    };
    if let Some(listener) = listener.as_deref_mut() {
        listener.begin();
    }
    let mut deltas = response.deltas;
    let mut gathered = Gathered::default();
    while let Some(item) = deltas.next().await {
        let stop = match (&item, listener.as_deref_mut()) {
            (Ok(delta), Some(listener)) => listener.observe(delta),
            _ => None,
        };
        let ended = gathered.push(item);
        if let Some(problem) = stop {
            drop(deltas);
            return Ok(received(streamed(gathered.into_partial()), Some(problem)));
        }
        match ended {
            None => continue,
            Some(Err(error)) => return Err(error),
            Some(Ok(reply)) => {
                if let Some(listener) = listener {
                    listener.finish();
                    return Ok(received(streamed(reply), None));
                }
                return Ok(received(reply, None));
            }
        }
    }
    Err(gathered.cut_short())
}

/// A streamed reply as the loop keeps it: reasoning that was announced
/// but said nothing is no reasoning.
fn streamed(mut reply: Reply) -> Reply {
    reply.reasoning = reply.reasoning.filter(|r| !r.is_empty());
    reply
}

/// How long after the run's time is up a request that ignores its deadline
/// is dropped.
const DEADLINE_GRACE: Duration = Duration::from_millis(50);

/// Whether the run's time is up.
fn out_of_time(budget: &Budget) -> bool {
    budget.time_left().is_some_and(|left| left.is_zero())
}

/// Whether `error` is a request that ran out of time (with or without the
/// text that arrived).
fn timed_out(error: &ModelError) -> bool {
    match error {
        ModelError::Timeout(_) => true,
        ModelError::Incomplete { source, .. } => timed_out(source),
        _ => false,
    }
}

/// The requests of one call so far.
struct RequestLog {
    attempt: usize,
    started: Instant,
    failures: Vec<FailedRequest>,
    wasted: Usage,
}

impl RequestLog {
    /// Records a failed request and the pause taken after it; a partial
    /// reply moves from the error into the record.
    fn failed(&mut self, error: ModelError, delay: Duration) {
        let text = crate::model::error::report(&error);
        let partial = match error {
            ModelError::Incomplete { partial, .. } => Some(*partial),
            _ => None,
        };
        self.failures.push(FailedRequest {
            error: text,
            delay,
            partial,
        });
    }

    /// Records the failure that ends the run; `error` itself goes into the
    /// `ThinkError`, so the record gets a copy of its partial reply.
    fn last_failed(&mut self, error: &ModelError) {
        self.failures.push(FailedRequest {
            error: crate::model::error::report(error),
            delay: Duration::ZERO,
            partial: error.partial().cloned(),
        });
    }

    /// The call succeeded with `received`'s reply (stopped early when it
    /// says so).
    fn reply(self, received: Received) -> Call {
        Call {
            served: received.served,
            model: received.model,
            cost: received.cost,
            reply: received.reply,
            others: received.others,
            retries: self.failures,
            latency: self.started.elapsed(),
            wasted: self.wasted,
            aborted: received.aborted,
        }
    }

    /// The run's time ran out during a request: recorded with the text
    /// that arrived, if the request ended with it (`error`), and its tokens
    /// counted.
    fn out_of_time(mut self, budget: &mut Budget, error: Option<ModelError>) -> CallFailure {
        let partial = match error {
            Some(ModelError::Incomplete { partial, .. }) => Some(*partial),
            _ => None,
        };
        let usage = partial.as_ref().map(|p| p.usage).unwrap_or_default();
        self.wasted = sum(self.wasted, usage);
        budget.add_usage(usage);
        let limit = budget.duration_limit();
        self.failures.push(FailedRequest {
            error: format!("stopped when the {limit} ran out"),
            delay: Duration::ZERO,
            partial,
        });
        self.stop(Stop::Budget(limit))
    }

    /// The call ends without a reply.
    fn stop(self, stop: Stop) -> CallFailure {
        let call = (!self.failures.is_empty()).then(|| FailedCall {
            number: self.attempt,
            failures: self.failures,
            latency: self.started.elapsed(),
            usage: self.wasted,
            // Priced by the run, which knows the model called.
            cost: None,
        });
        CallFailure { stop, call }
    }
}
