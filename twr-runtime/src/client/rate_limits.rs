//! Reading [`RateLimits`] from a response's headers, once per response.
//!
//! The type is plain data in the core ([`crate::model`]); reading it from
//! HTTP headers is the clients' part, and lives with them.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::model::RateLimits;

/// The limits in `headers`, reset times taken relative to `now`.
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

#[cfg(test)]
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
        let limits = from_headers(
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
        let limits = from_headers(
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
        let limits = from_headers(
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
        assert!(from_headers(&HeaderMap::new(), now).is_empty());
        let zero = RateLimits {
            remaining_requests: Some(0),
            ..RateLimits::default()
        };
        assert_eq!(zero.pause(), Some(Duration::from_secs(1)));
    }
}
