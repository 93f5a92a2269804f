//! [`RateLimits`]: what a response said about the server's rate limits.

use std::time::Duration;

/// What one response said about the server's rate limits; each field is
/// `None` when the server did not say. Plain data: a model reports it in
/// its [`Response`](crate::model::Response), and the `Limited` wrapper
/// (feature `limits`) pauses new calls until a reset when a remaining count
/// reaches zero.
///
/// The HTTP clients read it from the headers each provider sends (its
/// adapter's `Provider::rate_limits`: OpenAI's `x-ratelimit-*`, Anthropic's
/// `anthropic-ratelimit-*`), and from `retry-after` / `retry-after-ms`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimits {
    /// Requests left in the server's current window.
    pub remaining_requests: Option<u64>,
    /// Tokens left in the server's current window.
    pub remaining_tokens: Option<u64>,
    /// Time until the request allowance is full again.
    pub requests_reset: Option<Duration>,
    /// Time until the token allowance is full again.
    pub tokens_reset: Option<Duration>,
    /// The pause the server asked for (`retry-after`).
    pub retry_after: Option<Duration>,
}

impl RateLimits {
    /// True when the headers said nothing about rate limits.
    pub fn is_empty(&self) -> bool {
        *self == RateLimits::default()
    }

    /// How long to hold back new calls after this response: until the reset
    /// of an allowance that reached zero, or the server's `retry-after`;
    /// the longest of these. `None` when nothing is used up.
    pub fn pause(&self) -> Option<Duration> {
        let exhausted = |remaining: Option<u64>, reset: Option<Duration>| match remaining {
            // A count of zero without a reset time: wait a second, the
            // shortest window servers use, rather than not at all.
            Some(0) => Some(reset.unwrap_or(Duration::from_secs(1))),
            _ => None,
        };
        [
            exhausted(self.remaining_requests, self.requests_reset),
            exhausted(self.remaining_tokens, self.tokens_reset),
            self.retry_after,
        ]
        .into_iter()
        .flatten()
        .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_used_up_pauses_until_its_reset_or_a_second() {
        let limits = RateLimits {
            remaining_requests: Some(0),
            remaining_tokens: Some(149_984),
            requests_reset: Some(Duration::from_secs(360)),
            tokens_reset: Some(Duration::from_millis(1500)),
            retry_after: None,
        };
        assert_eq!(limits.pause(), Some(Duration::from_secs(360)));
        let zero = RateLimits {
            remaining_requests: Some(0),
            ..RateLimits::default()
        };
        assert_eq!(zero.pause(), Some(Duration::from_secs(1)));
        let asked = RateLimits {
            remaining_tokens: Some(0),
            tokens_reset: Some(Duration::from_millis(2500)),
            retry_after: Some(Duration::from_secs(1)),
            ..RateLimits::default()
        };
        assert_eq!(asked.pause(), Some(Duration::from_millis(2500)));
        let plenty = RateLimits {
            remaining_tokens: Some(12),
            ..RateLimits::default()
        };
        assert_eq!(plenty.pause(), None);
        assert!(RateLimits::default().is_empty());
        assert!(!plenty.is_empty());
    }
}
