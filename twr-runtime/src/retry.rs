//! Transport retries: how long to wait before asking the server again after
//! a transient failure.
//!
//! Transport failures (connect errors, timeouts, 429, 5xx, broken streams,
//! empty replies) have their own budget, separate from the format attempts
//! of [`Think`](crate::Think): a flaky network never costs the model a
//! chance to fix its answer.

use std::time::Duration;

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

    #[test]
    fn none_disables_retries() {
        assert_eq!(RetryPolicy::none().max_retries, 0);
        assert_eq!(RetryPolicy::default().max_retries, 3);
    }
}
