//! The pause a server asks for before the next request: one reading of
//! `retry-after-ms` and `Retry-After`, for twr's own clients and for any
//! [`ChatModel`](crate::ChatModel) over a client of its own.

use std::time::{Duration, SystemTime};

/// The pause a failed response's headers ask for, to put in
/// [`ModelError::Status`](crate::ModelError::Status)'s `retry_after` (the
/// loop then waits at least that long before asking again).
///
/// `header` looks a header up by its lower-case name and gives its value,
/// if the response has it; `now` is the time an HTTP date is measured from.
/// Read, first found wins:
///
/// - `retry-after-ms` (OpenAI, Azure): milliseconds, fractions allowed;
/// - `Retry-After` as seconds (`7`, `1.5`);
/// - `Retry-After` as an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`): the
///   time from `now` until then, zero for a date already past.
///
/// White space around a value is ignored. A value that is none of these, or
/// negative, or too large for a [`Duration`], counts as absent: `None` when
/// no header gives a pause.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use twr_runtime::model::retry_after;
/// use twr_runtime::ModelError;
///
/// // A 429's headers, in whatever type the client keeps them: an
/// // `http::HeaderMap` is read with `|name| headers.get(name)?.to_str().ok()`.
/// let headers = [("content-type", "application/json"), ("retry-after", "7")];
/// let header = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
/// let error = ModelError::Status {
///     status: 429,
///     message: "Rate limit reached.".into(),
///     retry_after: retry_after(header, SystemTime::now()),
/// };
/// assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
/// assert!(error.is_transient());
/// ```
pub fn retry_after<'h>(
    header: impl Fn(&str) -> Option<&'h str>,
    now: SystemTime,
) -> Option<Duration> {
    let header = |name: &str| header(name).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if let Some(pause) = seconds(ms / 1000.0) {
            return Some(pause);
        }
    }
    let value = header("retry-after")?;
    if let Ok(whole) = value.parse::<u64>() {
        return Some(Duration::from_secs(whole));
    }
    if let Ok(fraction) = value.parse::<f64>() {
        return seconds(fraction);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A number of seconds as a duration: `None` when negative, not a number,
/// or too large (`Duration::from_secs_f64` would panic).
fn seconds(value: f64) -> Option<Duration> {
    if value < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pause `headers` ask for at 2023-11-14 22:13:20 UTC (`now`).
    fn pause(headers: &[(&str, &str)]) -> Option<Duration> {
        retry_after(
            |name| {
                headers
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, value)| *value)
            },
            now(),
        )
    }

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    #[test]
    fn seconds_whole_and_fractional() {
        assert_eq!(pause(&[]), None);
        assert_eq!(pause(&[("retry-after", "7")]), Some(Duration::from_secs(7)));
        assert_eq!(pause(&[("retry-after", "0")]), Some(Duration::ZERO));
        assert_eq!(
            pause(&[("retry-after", " 1.5 ")]),
            Some(Duration::from_millis(1500))
        );
    }

    #[test]
    fn an_http_date_from_now_and_a_past_one_is_zero() {
        let later = httpdate::fmt_http_date(now() + Duration::from_secs(30));
        assert_eq!(
            pause(&[("retry-after", &later)]),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            pause(&[("retry-after", "Tue, 14 Nov 2023 22:13:27 GMT")]),
            Some(Duration::from_secs(7))
        );
        let earlier = httpdate::fmt_http_date(now() - Duration::from_secs(30));
        assert_eq!(pause(&[("retry-after", &earlier)]), Some(Duration::ZERO));
    }

    #[test]
    fn milliseconds_first_then_retry_after() {
        assert_eq!(
            pause(&[("retry-after-ms", "250")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            pause(&[("retry-after", "9"), ("retry-after-ms", "2500")]),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(
            pause(&[("retry-after", "soon"), ("retry-after-ms", "250")]),
            Some(Duration::from_millis(250))
        );
        // A milliseconds value that is no pause leaves Retry-After to say.
        assert_eq!(
            pause(&[("retry-after-ms", "-1"), ("retry-after", "3")]),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            pause(&[("retry-after-ms", "later"), ("retry-after", "3")]),
            Some(Duration::from_secs(3))
        );
    }

    #[test]
    fn what_is_no_pause_is_absent_never_a_panic() {
        for junk in ["soon", "-1", "-0.5", "NaN", "inf", "1e300", "", "7 s"] {
            assert_eq!(pause(&[("retry-after", junk)]), None, "{junk:?}");
            assert_eq!(pause(&[("retry-after-ms", junk)]), None, "{junk:?}");
        }
    }
}
