//! [`RateLimits`]: what a server's response headers say about its rate
//! limits, read once per response by the HTTP clients.
//!
//! The type is part of every build (it is in [`ChatModel`](crate::ChatModel)'s
//! signatures, and a model of your own may fill it in); reading it from
//! headers is part of the HTTP clients (feature `client` or `native-tls`).

use std::time::Duration;
#[cfg(feature = "__client")]
use std::time::SystemTime;

#[cfg(feature = "__client")]
use reqwest::header::HeaderMap;

/// What one response's headers said about the server's rate limits; each
/// field is `None` when the server did not say.
///
/// Read from OpenAI's `x-ratelimit-remaining-requests`,
/// `x-ratelimit-remaining-tokens`, `x-ratelimit-reset-requests` and
/// `x-ratelimit-reset-tokens` (durations such as `6m0s` or `20ms`),
/// Anthropic's `anthropic-ratelimit-requests-remaining`,
/// `anthropic-ratelimit-tokens-remaining` (else the smaller of its
/// `input-tokens` and `output-tokens` counts) and the matching `-reset`
/// times (RFC 3339), and `retry-after` / `retry-after-ms`.
/// [`Limited`](crate::Limited) pauses new calls until a reset when a
/// remaining count reaches zero.
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

    /// The limits in `headers`, reset times taken relative to `now`.
    #[cfg(feature = "__client")]
    pub(crate) fn from_headers(headers: &HeaderMap, now: SystemTime) -> RateLimits {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        let count = |name: &str| text(name).and_then(|v| v.parse::<u64>().ok());
        // OpenAI: a Go-style duration ("6m0s", "1.5s", "20ms").
        let after = |name: &str| text(name).and_then(|v| humantime::parse_duration(v).ok());
        // Anthropic: an RFC 3339 time.
        let until = |name: &str| {
            let at = humantime::parse_rfc3339_weak(text(name)?).ok()?;
            Some(at.duration_since(now).unwrap_or(Duration::ZERO))
        };
        let anthropic_tokens = count("anthropic-ratelimit-tokens-remaining").or_else(|| {
            let input = count("anthropic-ratelimit-input-tokens-remaining");
            let output = count("anthropic-ratelimit-output-tokens-remaining");
            input.into_iter().chain(output).min()
        });
        let anthropic_tokens_reset = until("anthropic-ratelimit-tokens-reset").or_else(|| {
            let input = until("anthropic-ratelimit-input-tokens-reset");
            let output = until("anthropic-ratelimit-output-tokens-reset");
            input.into_iter().chain(output).max()
        });
        RateLimits {
            remaining_requests: count("x-ratelimit-remaining-requests")
                .or_else(|| count("anthropic-ratelimit-requests-remaining")),
            remaining_tokens: count("x-ratelimit-remaining-tokens").or(anthropic_tokens),
            requests_reset: after("x-ratelimit-reset-requests")
                .or_else(|| until("anthropic-ratelimit-requests-reset")),
            tokens_reset: after("x-ratelimit-reset-tokens").or(anthropic_tokens_reset),
            retry_after: crate::client::retry_after(headers, now),
        }
    }
}

#[cfg(all(test, feature = "__client"))]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn openai_headers() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let limits = RateLimits::from_headers(
            &headers(&[
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-remaining-tokens", "149984"),
                ("x-ratelimit-reset-requests", "6m0s"),
                ("x-ratelimit-reset-tokens", "1.5s"),
            ]),
            now,
        );
        assert_eq!(
            limits,
            RateLimits {
                remaining_requests: Some(0),
                remaining_tokens: Some(149_984),
                requests_reset: Some(Duration::from_secs(360)),
                tokens_reset: Some(Duration::from_millis(1500)),
                retry_after: None,
            }
        );
        assert_eq!(limits.pause(), Some(Duration::from_secs(360)));
    }

    #[test]
    fn anthropic_headers() {
        // 2023-11-14T22:13:20Z
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let limits = RateLimits::from_headers(
            &headers(&[
                ("anthropic-ratelimit-requests-remaining", "49"),
                ("anthropic-ratelimit-requests-reset", "2023-11-14T22:13:30Z"),
                ("anthropic-ratelimit-input-tokens-remaining", "0"),
                (
                    "anthropic-ratelimit-input-tokens-reset",
                    "2023-11-14T22:13:22.5Z",
                ),
                ("anthropic-ratelimit-output-tokens-remaining", "8000"),
                (
                    "anthropic-ratelimit-output-tokens-reset",
                    "2023-11-14T22:13:21Z",
                ),
                ("retry-after", "1"),
            ]),
            now,
        );
        assert_eq!(
            limits,
            RateLimits {
                remaining_requests: Some(49),
                remaining_tokens: Some(0),
                requests_reset: Some(Duration::from_secs(10)),
                tokens_reset: Some(Duration::from_millis(2500)),
                retry_after: Some(Duration::from_secs(1)),
            }
        );
        assert_eq!(limits.pause(), Some(Duration::from_millis(2500)));
    }

    #[test]
    fn nothing_used_up_is_no_pause_and_junk_is_ignored() {
        let now = SystemTime::UNIX_EPOCH;
        let limits = RateLimits::from_headers(
            &headers(&[
                ("x-ratelimit-remaining-requests", "many"),
                ("x-ratelimit-remaining-tokens", "12"),
                ("x-ratelimit-reset-tokens", "soon"),
            ]),
            now,
        );
        assert_eq!(
            limits,
            RateLimits {
                remaining_tokens: Some(12),
                ..RateLimits::default()
            }
        );
        assert_eq!(limits.pause(), None);
        assert!(RateLimits::from_headers(&HeaderMap::new(), now).is_empty());
        let zero = RateLimits {
            remaining_requests: Some(0),
            ..RateLimits::default()
        };
        assert_eq!(zero.pause(), Some(Duration::from_secs(1)));
    }
}
