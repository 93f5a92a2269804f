//! Transport retries, the one home of the policy: whether a failed request
//! is asked again, and how long to wait first.
//!
//! Transport failures (connect errors, timeouts, 429, 5xx, broken streams,
//! empty replies) have their own budget, separate from the format attempts
//! of [`Think`](crate::Think): a flaky network never costs the model a
//! chance to fix its answer. (Format re-asks, and what they ask for, are the
//! loop's: [`RetryMode`](crate::RetryMode).)
//!
//! The pieces, each in one place:
//!
//! - what a failure is: [`ModelError::is_transient`] and
//!   [`ModelError::retry_after`], on the error that every model returns;
//! - the pause a server asks for: [`model::retry_after`](crate::model::retry_after)
//!   reads `retry-after-ms` and `Retry-After`, for twr's clients and any
//!   model over a client of its own (which hand it their headers);
//! - the policy: [`RetryPolicy`], its budget and backoff, and
//!   [`RetryPolicy::pause_after`], the decision for one failed request;
//! - the call site: the loop's transport step (`think/transport.rs`), which
//!   asks [`RetryPolicy::pause_after`], sleeps, records each failed request
//!   in the ledger and keeps the run's budgets.

use std::time::Duration;

use crate::model::ModelError;

/// How transient model errors are retried: up to `max_retries` more requests
/// per model call, waiting an exponentially growing, fully jittered delay.
///
/// The wait before retry `n` (0-based) is a random duration between zero and
/// `min(max_delay, base_delay * 2^n)` ("full jitter": concurrent clients do
/// not retry in lock-step). When the server sent `Retry-After`, that pause is
/// a floor, itself capped at `max_delay` so one odd header cannot stall a
/// program for hours.
///
/// ```
/// use std::time::Duration;
/// use twr_runtime::RetryPolicy;
///
/// let policy = RetryPolicy::default()
///     .max_retries(5)
///     .base_delay(Duration::from_millis(200))
///     .max_delay(Duration::from_secs(10));
/// assert_eq!(policy.max_retries, 5);
/// assert!(policy.delay_for(3, None) <= Duration::from_millis(1600));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Extra requests allowed per model call after a transient failure
    /// (0 disables transport retries).
    pub max_retries: u32,
    /// The delay cap of the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// The largest pause ever taken, `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 3 retries, 500 ms base delay, 30 s cap.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The default policy: 3 retries, 500 ms base delay, 30 s cap.
    pub fn new() -> Self {
        RetryPolicy::default()
    }

    /// A policy that never retries: the first transport failure ends the run.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Sets the number of extra requests per model call.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets the delay cap of the first retry.
    pub fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets the largest pause, `Retry-After` included.
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The pause before retry number `retry` (0 for the first retry), given
    /// the server's `Retry-After` if it sent one.
    pub fn delay_for(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let ceiling = self
            .base_delay
            .checked_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
            .unwrap_or(self.max_delay)
            .min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        let jittered = Duration::from_nanos(fastrand::u64(0..=nanos));
        match retry_after {
            Some(floor) => jittered.max(floor.min(self.max_delay)),
            None => jittered,
        }
    }

    /// The pause before asking again after `error`, when `retries_done`
    /// retries were already made for this call; `None` when the error is not
    /// transient or the retries are spent. The server's `Retry-After`, if it
    /// sent one, is the floor ([`delay_for`](Self::delay_for)).
    pub(crate) fn pause_after(&self, retries_done: u32, error: &ModelError) -> Option<Duration> {
        (error.is_transient() && retries_done < self.max_retries)
            .then(|| self.delay_for(retries_done, error.retry_after()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_stay_under_the_exponential_ceiling_and_the_cap() {
        let policy = RetryPolicy::new()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_millis(1000));
        for _ in 0..200 {
            assert!(policy.delay_for(0, None) <= Duration::from_millis(100));
            assert!(policy.delay_for(2, None) <= Duration::from_millis(400));
            assert!(policy.delay_for(10, None) <= Duration::from_millis(1000));
            assert!(policy.delay_for(u32::MAX, None) <= Duration::from_millis(1000));
        }
    }

    #[test]
    fn jitter_spreads_the_delays() {
        let policy = RetryPolicy::new().base_delay(Duration::from_secs(1));
        let delays: std::collections::HashSet<Duration> =
            (0..20).map(|_| policy.delay_for(3, None)).collect();
        assert!(delays.len() > 1, "full jitter gave one value 20 times");
    }

    #[test]
    fn retry_after_is_a_floor_capped_at_max_delay() {
        let policy = RetryPolicy::new()
            .base_delay(Duration::from_millis(1))
            .max_delay(Duration::from_secs(5));
        for _ in 0..50 {
            assert_eq!(
                policy.delay_for(0, Some(Duration::from_secs(2))),
                Duration::from_secs(2)
            );
            assert_eq!(
                policy.delay_for(0, Some(Duration::from_secs(3600))),
                Duration::from_secs(5)
            );
        }
    }

    /// The largest of `n` samples of the delay before retry `retry`.
    fn largest(policy: &RetryPolicy, retry: u32, retry_after: Option<Duration>) -> Duration {
        (0..400)
            .map(|_| policy.delay_for(retry, retry_after))
            .max()
            .unwrap_or_default()
    }

    #[test]
    fn delays_grow_with_each_retry() {
        // Full jitter draws from [0, base * 2^n]: the largest of 400 draws is
        // above 90% of the ceiling unless the odds are 0.9^400 (about 5e-19).
        let policy = RetryPolicy::new()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_secs(30));
        let first = largest(&policy, 0, None);
        let fourth = largest(&policy, 3, None);
        assert!(
            first > Duration::from_millis(90) && first <= Duration::from_millis(100),
            "{first:?}"
        );
        // Retry 3 waits up to 8x the base delay: well above it, so a delay
        // that stays at the base (or at zero) fails here.
        assert!(
            fourth > Duration::from_millis(720) && fourth <= Duration::from_millis(800),
            "{fourth:?}"
        );
        // The cap holds the growth once base * 2^n passes it.
        let capped = RetryPolicy::new()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_millis(300));
        let tenth = largest(&capped, 9, None);
        assert!(
            tenth > Duration::from_millis(270) && tenth <= Duration::from_millis(300),
            "{tenth:?}"
        );
    }

    #[test]
    fn retry_after_wins_over_a_shorter_backoff() {
        // The backoff ceiling at retry 3 is 800 ms; the server asked for 2 s.
        let policy = RetryPolicy::new()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_secs(30));
        for _ in 0..200 {
            assert_eq!(
                policy.delay_for(3, Some(Duration::from_secs(2))),
                Duration::from_secs(2)
            );
        }
        // A shorter Retry-After is a floor: the jittered backoff above it
        // still grows (ceiling 8 s at retry 3 with a 1 s base).
        let slow = RetryPolicy::new().base_delay(Duration::from_secs(1));
        let floor = Duration::from_millis(500);
        let delays: Vec<Duration> = (0..400).map(|_| slow.delay_for(3, Some(floor))).collect();
        assert!(delays
            .iter()
            .all(|d| *d >= floor && *d <= Duration::from_secs(8)));
        let top = delays.iter().max().copied().unwrap_or_default();
        assert!(top > Duration::from_millis(7200), "{top:?}");
    }

    #[test]
    fn pauses_only_for_transient_errors_within_the_budget() {
        let policy = RetryPolicy::new()
            .max_retries(2)
            .base_delay(Duration::from_millis(1))
            .max_delay(Duration::from_secs(5));
        let busy = ModelError::Status {
            status: 503,
            message: "busy".into(),
            retry_after: Some(Duration::from_secs(2)),
        };
        assert_eq!(policy.pause_after(0, &busy), Some(Duration::from_secs(2)));
        assert_eq!(policy.pause_after(1, &busy), Some(Duration::from_secs(2)));
        assert_eq!(policy.pause_after(2, &busy), None);
        let denied = ModelError::Status {
            status: 401,
            message: "no".into(),
            retry_after: None,
        };
        assert_eq!(policy.pause_after(0, &denied), None);
        assert_eq!(RetryPolicy::none().pause_after(0, &busy), None);
    }

    #[test]
    fn none_disables_retries() {
        assert_eq!(RetryPolicy::none().max_retries, 0);
        assert_eq!(RetryPolicy::default().max_retries, 3);
    }
}
