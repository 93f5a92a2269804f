//! [`ResponseHeaders`]: a response's headers as a [`Provider`] reads its
//! rate limits from them, once per response.
//!
//! [`RateLimits`] is plain data in the core ([`crate::model`]); which
//! headers carry it is each provider's knowledge
//! ([`Provider::rate_limits`], in the provider's own file). What they
//! share, the forms the values take (a count, a Go-style duration, an
//! RFC 3339 time, `Retry-After`), is read here.
//!
//! [`Provider`]: super::Provider
//! [`Provider::rate_limits`]: super::Provider::rate_limits

use std::fmt;
use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

#[cfg(doc)]
use crate::model::RateLimits;

/// The headers of one response, with the time it arrived, for
/// [`Provider::rate_limits`](super::Provider::rate_limits): each reader
/// takes a lower-case header name and gives `None` when the header is
/// absent or its value is not of the form the reader expects (junk is
/// ignored, never an error).
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use reqwest::header::HeaderMap;
/// use twr_runtime::client::ResponseHeaders;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("x-ratelimit-remaining-requests", "0".parse().unwrap());
/// headers.insert("x-ratelimit-reset-requests", "6m0s".parse().unwrap());
/// headers.insert("retry-after", "2".parse().unwrap());
/// let read = ResponseHeaders::new(&headers, SystemTime::now());
/// assert_eq!(read.count("x-ratelimit-remaining-requests"), Some(0));
/// assert_eq!(read.duration("x-ratelimit-reset-requests"), Some(Duration::from_secs(360)));
/// assert_eq!(read.retry_after(), Some(Duration::from_secs(2)));
/// assert_eq!(read.count("x-ratelimit-remaining-tokens"), None);
/// ```
#[derive(Clone, Copy)]
pub struct ResponseHeaders<'a> {
    headers: &'a HeaderMap,
    now: SystemTime,
}

impl<'a> ResponseHeaders<'a> {
    /// `headers`, of a response that arrived at `now` (times in the headers
    /// are read relative to it).
    pub fn new(headers: &'a HeaderMap, now: SystemTime) -> Self {
        ResponseHeaders { headers, now }
    }

    /// The header's text, trimmed.
    pub fn text(&self, name: &str) -> Option<&'a str> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    }

    /// The header as a count (`"149984"`).
    pub fn count(&self, name: &str) -> Option<u64> {
        self.text(name)?.parse().ok()
    }

    /// The header as a Go-style duration (`"6m0s"`, `"1.5s"`, `"20ms"`), as
    /// OpenAI writes its resets.
    pub fn duration(&self, name: &str) -> Option<Duration> {
        humantime::parse_duration(self.text(name)?).ok()
    }

    /// The time from the response's arrival until the RFC 3339 time in the
    /// header (`"2023-11-14T22:13:30Z"`), as Anthropic writes its resets;
    /// zero for a time already past.
    pub fn until(&self, name: &str) -> Option<Duration> {
        let at = humantime::parse_rfc3339_weak(self.text(name)?).ok()?;
        Some(at.duration_since(self.now).unwrap_or(Duration::ZERO))
    }

    /// The pause the server asked for: `retry-after-ms`, else `Retry-After`
    /// as seconds or as an HTTP date (the rule every client and the retry
    /// loop share).
    pub fn retry_after(&self) -> Option<Duration> {
        super::retry_after(self.headers, self.now)
    }
}

impl fmt::Debug for ResponseHeaders<'_> {
    // Only the names: a header's value may be a credential a server echoes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseHeaders")
            .field("names", &self.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_is_none_and_past_times_are_zero() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("a", "many"),
            ("b", " 12 "),
            ("c", "soon"),
            ("d", "2023-11-14T22:13:10Z"),
            ("e", "2023-11-14T22:13:22.5Z"),
        ] {
            headers.insert(name, value.parse().unwrap());
        }
        // 2023-11-14T22:13:20Z
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let read = ResponseHeaders::new(&headers, now);
        assert_eq!(read.count("a"), None);
        assert_eq!(read.count("b"), Some(12));
        assert_eq!(read.duration("c"), None);
        assert_eq!(read.until("c"), None);
        assert_eq!(read.until("d"), Some(Duration::ZERO));
        assert_eq!(read.until("e"), Some(Duration::from_millis(2500)));
        assert_eq!(read.count("absent"), None);
        assert_eq!(read.retry_after(), None);
        assert!(!format!("{read:?}").contains("many"));
    }
}
