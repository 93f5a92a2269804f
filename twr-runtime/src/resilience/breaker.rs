//! [`CircuitBreaker`]: stop calling a model that keeps failing, then probe.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures_util::stream::StreamExt as _;

use crate::model::{BoxFuture, ChatModel, Delta, ModelError, Request, Response};

/// Transient failures in a row that open the breaker, by default.
pub const DEFAULT_THRESHOLD: u32 = 5;
/// How long an open breaker stays open, by default (longer when the server
/// asked for a longer pause).
pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(30);

/// A [`ChatModel`] wrapper that stops calling its model after `threshold`
/// transient failures in a row (connect errors, timeouts, 429, 5xx, broken
/// streams), for a cooldown or the server's `Retry-After`, whichever is
/// longer. While open, calls fail at once with [`ModelError::Unavailable`],
/// whose source is a [`CircuitOpen`] saying until when. Once the time is up, one
/// call goes through as a probe (others still fail fast while it runs): a
/// reply, or an error that says the server is up (a 400), closes the
/// breaker; a transient failure opens it again.
///
/// The state is shared by every clone and every concurrent run, so one
/// breaker protects one upstream however many tasks use it. A probe whose
/// future is dropped (a cancelled run) hands the probe to the next call.
///
/// ```
/// use std::time::Duration;
/// use twr_runtime::{CircuitBreaker, ScriptedModel};
///
/// let model = CircuitBreaker::new(ScriptedModel::new(["hi"]))
///     .threshold(3)
///     .cooldown(Duration::from_secs(10));
/// let shared = model.clone(); // the same breaker
/// ```
pub struct CircuitBreaker<M> {
    model: Arc<M>,
    state: Arc<Mutex<State>>,
    threshold: u32,
    cooldown: Duration,
}

impl<M> Clone for CircuitBreaker<M> {
    fn clone(&self) -> Self {
        CircuitBreaker {
            model: Arc::clone(&self.model),
            state: Arc::clone(&self.state),
            threshold: self.threshold,
            cooldown: self.cooldown,
        }
    }
}

/// Where the breaker is.
#[derive(Debug, Clone, Copy)]
enum State {
    /// Calls go through; `failures` transient failures in a row so far.
    Closed { failures: u32 },
    /// Calls fail fast until `until`.
    Open { until: Instant, wall: SystemTime },
    /// One probe call is in flight; others fail fast.
    Probing,
}

/// Why a call did not go through: the breaker of `model` is open. The
/// source of the [`ModelError::Unavailable`] a refused call fails with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CircuitOpen {
    /// The wrapped model's [`name()`](ChatModel::name).
    pub model: String,
    /// When the next call may go through (as a probe), in wall-clock time.
    pub until: SystemTime,
    /// How long that is from when the call was refused.
    pub retry_in: Duration,
    /// True when the time is up and a probe call is already in flight.
    pub probing: bool,
}

impl CircuitOpen {
    /// How long to wait before calling again.
    pub fn retry_in(&self) -> Duration {
        self.retry_in
    }
}

impl fmt::Display for CircuitOpen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = httpdate::fmt_http_date(self.until);
        if self.probing {
            write!(
                f,
                "the circuit breaker of {} is testing the model with one call; \
                 calls go through again once it succeeds",
                self.model
            )
        } else {
            write!(
                f,
                "the circuit breaker of {} is open after repeated failures: \
                 no calls until {at} (in {:.1}s)",
                self.model,
                self.retry_in.as_secs_f64()
            )
        }
    }
}

impl std::error::Error for CircuitOpen {}

impl From<CircuitOpen> for ModelError {
    /// [`ModelError::Unavailable`], transient, to retry after
    /// [`retry_in`](CircuitOpen::retry_in).
    fn from(open: CircuitOpen) -> Self {
        ModelError::Unavailable {
            retry_after: Some(open.retry_in),
            source: Box::new(open),
        }
    }
}

impl<M: ChatModel> CircuitBreaker<M> {
    /// Wraps `model` with a closed breaker ([`DEFAULT_THRESHOLD`] failures,
    /// [`DEFAULT_COOLDOWN`]).
    pub fn new(model: M) -> Self {
        CircuitBreaker {
            model: Arc::new(model),
            state: Arc::new(Mutex::new(State::Closed { failures: 0 })),
            threshold: DEFAULT_THRESHOLD,
            cooldown: DEFAULT_COOLDOWN,
        }
    }

    /// Transient failures in a row that open the breaker (at least 1).
    pub fn threshold(mut self, failures: u32) -> Self {
        self.threshold = failures.max(1);
        self
    }

    /// The least time an open breaker stays open.
    pub fn cooldown(mut self, cooldown: Duration) -> Self {
        self.cooldown = cooldown;
        self
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.model
    }

    /// True while calls fail fast (open, or a probe in flight).
    pub fn is_open(&self) -> bool {
        match *self.lock() {
            State::Closed { .. } => false,
            State::Open { until, .. } => Instant::now() < until,
            State::Probing => true,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is a plain value always left consistent: a panic
        // elsewhere while holding the lock cannot have broken it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets a call through (`Ok(probe?)`) or refuses it.
    fn admit(&self) -> Result<bool, CircuitOpen> {
        let mut state = self.lock();
        let now = Instant::now();
        match *state {
            State::Closed { .. } => Ok(false),
            State::Open { until, wall } if now < until => Err(CircuitOpen {
                model: self.model.name().to_string(),
                until: wall,
                retry_in: until - now,
                probing: false,
            }),
            State::Open { .. } => {
                *state = State::Probing;
                Ok(true)
            }
            State::Probing => Err(CircuitOpen {
                model: self.model.name().to_string(),
                until: SystemTime::now(),
                retry_in: Duration::ZERO,
                probing: true,
            }),
        }
    }

    /// Records how a call that went through ended.
    fn record(&self, probe: bool, result: Result<(), &ModelError>) {
        let mut state = self.lock();
        let failed = matches!(result, Err(e) if e.is_transient());
        if !failed {
            *state = State::Closed { failures: 0 };
            return;
        }
        let failures = match *state {
            State::Closed { failures } if !probe => failures + 1,
            // A failed probe, or a call that started before the breaker
            // opened and ends while it is open: open (again).
            _ => self.threshold,
        };
        if failures < self.threshold {
            *state = State::Closed { failures };
            return;
        }
        if let State::Open { .. } = *state {
            if !probe {
                return; // already open; a late failure does not extend it
            }
        }
        let pause = result
            .err()
            .and_then(ModelError::retry_after)
            .map_or(self.cooldown, |asked| asked.max(self.cooldown));
        tracing::warn!(
            model = self.model.name(),
            failures,
            open_for_ms = pause.as_millis() as u64,
            "circuit breaker opened"
        );
        *state = State::Open {
            until: Instant::now() + pause,
            wall: SystemTime::now() + pause,
        };
    }
}

/// Hands the probe on when a probing call's future is dropped unfinished.
struct ProbeGuard<'a> {
    state: Option<&'a Mutex<State>>,
}

impl ProbeGuard<'_> {
    /// The call ended and was recorded: nothing to hand on.
    fn disarm(&mut self) {
        self.state = None;
    }
}

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            if let State::Probing = *state {
                *state = State::Open {
                    until: Instant::now(),
                    wall: SystemTime::now(),
                };
            }
        }
    }
}

impl<M: ChatModel> ChatModel for CircuitBreaker<M> {
    /// The model's own response, when the breaker lets the call through.
    /// A failure to start counts as a failed call; after that, the reply's
    /// `Done` counts as a success and an error item as a failure. A reply
    /// dropped before either (one the loop stopped early) counts as
    /// neither; a probe dropped so hands the probe on.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let probe = self.admit()?;
            let mut guard = ProbeGuard {
                state: probe.then_some(&*self.state),
            };
            let response = match self.model.call(request).await {
                Ok(response) => response,
                Err(error) => {
                    guard.disarm();
                    self.record(probe, Err(&error));
                    return Err(error);
                }
            };
            Ok(response.map_deltas(|deltas| {
                let watched = deltas.map(move |item| {
                    let ended = match &item {
                        Ok(Delta::Done { .. }) => Some(Ok(())),
                        Err(error) => Some(Err(error)),
                        Ok(_) => None,
                    };
                    if let Some(result) = ended {
                        // A method call, so the closure owns the whole guard
                        // (not a copy of its field) for as long as the
                        // stream lives.
                        guard.disarm();
                        self.record(probe, result);
                    }
                    item
                });
                watched.boxed()
            }))
        })
    }

    fn streams(&self) -> bool {
        self.model.streams()
    }

    fn takes_grammar(&self) -> Option<crate::grammar::Format> {
        self.model.takes_grammar()
    }

    fn answers_n(&self) -> bool {
        self.model.answers_n()
    }

    fn reply_token_limit(&self) -> Option<u32> {
        self.model.reply_token_limit()
    }

    fn name(&self) -> &str {
        self.model.name()
    }

    fn request_options(&self) -> Option<serde_json::Value> {
        self.model.request_options()
    }
}

impl<M: fmt::Debug> fmt::Debug for CircuitBreaker<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = *self.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("CircuitBreaker")
            .field("model", &self.model)
            .field("state", &state)
            .field("threshold", &self.threshold)
            .field("cooldown", &self.cooldown)
            .finish()
    }
}
