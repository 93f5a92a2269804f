//! Sending a request: the redirect rule of the shared client, the base URL
//! check, one deadline per call, and reqwest failures as `ModelError`s.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, CONTENT_TYPE};
use reqwest::Response;
use tokio::time::Instant;

use super::fault;
use super::secret::{redact_url, Secrets};
use crate::model::{ErrorDetail, ModelError};

/// Redirects followed within one origin before giving up (reqwest's default).
const MAX_REDIRECTS: usize = 10;

/// Follows redirects only within the origin (scheme, host and port) of the
/// request. reqwest's default policy strips `Authorization` and cookies on a
/// cross-host redirect but keeps every other header, so a provider's own key
/// header (`x-goog-api-key`) would reach the other host. Stopping instead
/// hands the 3xx back, and it becomes a clear error naming where the server
/// wanted to send the request.
pub(crate) fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// Checks a base URL at call time, so the builder can stay infallible, and
/// appends `path` to it with one slash (an empty path: the base URL itself).
pub(crate) fn endpoint(base_url: &str, path: &str) -> Result<reqwest::Url, ModelError> {
    let url = if path.is_empty() {
        base_url.to_string()
    } else {
        let path = path.trim_start_matches('/');
        format!("{}/{}", base_url.trim_end_matches('/'), path)
    };
    let shown = redact_url(base_url);
    let parsed = reqwest::Url::parse(&url).map_err(|e| {
        ModelError::Config(ErrorDetail::with_source(
            format!("the base URL {shown:?} is not a valid URL"),
            e,
        ))
    })?;
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        return Err(ModelError::Config(
            format!("the base URL {shown:?} must start with http:// or https://").into(),
        ));
    }
    Ok(parsed)
}

/// A call's time limit: one deadline for connecting, the status and every
/// piece of the body, so a stream that stalls is cut off with what it sent.
#[derive(Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    /// The limit, for the error.
    pub(crate) limit: Duration,
}

impl Deadline {
    /// `limit` from now.
    pub(crate) fn after(limit: Duration) -> Self {
        Deadline {
            at: Instant::now() + limit,
            limit,
        }
    }

    /// The same deadline, or `until` when that comes first (the caller's
    /// own deadline, [`Request::deadline`](crate::model::Request::deadline)):
    /// the error then names the time the call had.
    pub(crate) fn until(self, until: Option<Instant>) -> Self {
        match until {
            Some(until) if until < self.at => Deadline {
                at: until,
                limit: until.saturating_duration_since(Instant::now()),
            },
            _ => self,
        }
    }

    /// Runs `step`, or fails with [`ModelError::Timeout`] at the deadline.
    pub(crate) async fn run<T>(
        &self,
        step: impl std::future::Future<Output = Result<T, ModelError>>,
    ) -> Result<T, ModelError> {
        tokio::time::timeout_at(self.at, step)
            .await
            .unwrap_or(Err(ModelError::Timeout(self.limit)))
    }
}

/// Sends the request; a non-success status becomes [`ModelError::Status`].
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    deadline: Deadline,
    secrets: &Secrets,
) -> Result<Response, ModelError> {
    let response = deadline
        .run(async {
            request
                .send()
                .await
                .map_err(|e| transport_error(e, false, deadline.limit, secrets))
        })
        .await?;
    if response.status().is_success() {
        Ok(response)
    } else {
        Err(deadline
            .run(async { Ok(fault::status_error(response, secrets).await) })
            .await
            .unwrap_or_else(|timeout| timeout))
    }
}

/// Maps a reqwest failure (before the response, or while `reading_body`);
/// the reqwest error, without its URL (which may carry credentials), is the
/// source.
pub(crate) fn transport_error(
    error: reqwest::Error,
    reading_body: bool,
    timeout: Duration,
    secrets: &Secrets,
) -> ModelError {
    if error.is_timeout() {
        return ModelError::Timeout(timeout);
    }
    // The URL without what may carry a credential: no user name or
    // password, no query (Gemini's key travels in it).
    let endpoint = error.url().and_then(|url| {
        let host = url.host_str()?;
        let port = url.port_or_known_default().map(|port| format!(":{port}"));
        Some(format!(
            "{}://{host}{}{}",
            url.scheme(),
            port.unwrap_or_default(),
            url.path()
        ))
    });
    let error = error.without_url();
    enum Kind {
        Config,
        Connect,
        Interrupted,
    }
    let (kind, message) = if reading_body {
        // Whatever broke, the response had begun: the reply broke off.
        (
            Kind::Interrupted,
            "the connection failed while reading the response".to_string(),
        )
    } else if error.is_builder() {
        // The request could not even be built: retrying cannot help.
        (Kind::Config, "the request could not be built".to_string())
    } else if error.is_connect() {
        // What was asked for, and what to check: the person reading this
        // has a URL to try and a setting to look at.
        let at = endpoint.unwrap_or_else(|| "the server".to_string());
        (
            Kind::Connect,
            format!(
                "{at} (is a model server running there? check the client's base URL, \
                 which from_env() reads from TWR_BASE_URL)"
            ),
        )
    } else {
        // The request went out but the connection failed before a whole
        // response arrived (reset, closed early): retrying may well work.
        (Kind::Interrupted, "the connection failed".to_string())
    };
    // The message says what reqwest's error does not (the host, what was
    // under way) and the error is the source, which a chain prints next:
    // reqwest's own text holds no URL once `without_url` dropped it. Should
    // it quote a secret all the same, its scrubbed text goes into the
    // message instead and the error is dropped.
    let said = crate::model::error::report(&error);
    let scrubbed = secrets.scrub(&said);
    let detail = if scrubbed == said {
        ErrorDetail::with_source(message, error)
    } else {
        format!("{message} ({scrubbed})").into()
    };
    match kind {
        Kind::Config => ModelError::Config(detail),
        Kind::Connect => ModelError::Connect(detail),
        Kind::Interrupted => ModelError::Interrupted(detail),
    }
}

/// The pause a server asked for, read from the response's headers by the
/// rule of [`crate::model::retry_after`].
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    crate::model::retry_after(|name| headers.get(name)?.to_str().ok(), now)
}

/// True when the response is an event stream (a server may ignore a
/// request to stream and answer with one JSON document).
pub(crate) fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_tolerate_a_trailing_slash_and_reject_junk() {
        assert_eq!(
            endpoint("http://127.0.0.1:8088/v1/", "chat/completions")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8088/v1/chat/completions"
        );
        assert_eq!(
            endpoint("http://h:1/v2/", "/chat").unwrap().as_str(),
            "http://h:1/v2/chat"
        );
        assert_eq!(
            endpoint("http://h:1/gw/complete", "").unwrap().as_str(),
            "http://h:1/gw/complete"
        );
        assert!(matches!(
            endpoint("not a url", "x"),
            Err(ModelError::Config(_))
        ));
        assert!(matches!(
            endpoint("ftp://h/v1", "x"),
            Err(ModelError::Config(_))
        ));
        let error = endpoint("http://user:sk-pw@ho st/v1", "x").unwrap_err();
        assert!(!error.to_string().contains("sk-pw"), "{error}");
        assert!(
            error.to_string().contains("http://[redacted]@ho st/v1"),
            "{error}"
        );
    }
}
