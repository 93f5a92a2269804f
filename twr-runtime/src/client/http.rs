//! The HTTP side every provider shares: request options, the shared client
//! and its redirect rule, sending under a deadline, and reading a body that
//! is capped in size and checked to be UTF-8.

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, CONTENT_TYPE, RETRY_AFTER};
use reqwest::Response;
use serde_json::Value;
use tokio::time::Instant;

use super::fault;
use super::secret::{redact_url, Secrets};
use crate::model::{ErrorDetail, ModelError};

/// Default time limit for one whole request, body included. Generous because
/// a local model on a CPU can take minutes for a long answer.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Default cap on a response body: far above any chat reply, far below
/// anything that could hurt the process.
pub(crate) const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// Redirects followed within one origin before giving up (reqwest's default).
const MAX_REDIRECTS: usize = 10;

/// The request options every provider accepts.
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) stream: bool,
    pub(crate) temperature: Option<f32>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) seed: Option<u64>,
    /// Extra JSON fields merged into the request body (a JSON object).
    pub(crate) extra: Option<Value>,
    pub(crate) timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) http_client: Option<reqwest::Client>,
}

impl fmt::Debug for Options {
    // By hand: a caller's reqwest client may carry default headers (an
    // `Authorization` among them), so only whether there is one is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("stream", &self.stream)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("seed", &self.seed)
            .field("extra", &self.extra)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field(
                "http_client",
                &if self.http_client.is_some() {
                    "custom"
                } else {
                    "shared"
                },
            )
            .finish()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stream: false,
            temperature: None,
            max_tokens: None,
            seed: None,
            extra: None,
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            http_client: None,
        }
    }
}

impl Options {
    /// Adds `extra` to the extra fields; a later call wins over an earlier one.
    pub(crate) fn add_extra(&mut self, extra: Value) {
        match &mut self.extra {
            Some(existing) => merge_json(existing, extra),
            None => self.extra = Some(extra),
        }
    }

    /// Merges the extra fields into `body`; they win over the client's own.
    pub(crate) fn apply_extra(&self, body: &mut Value) -> Result<(), ModelError> {
        match &self.extra {
            None => Ok(()),
            Some(extra @ Value::Object(_)) => {
                merge_json(body, extra.clone());
                Ok(())
            }
            Some(other) => Err(ModelError::Config(
                format!(
                    "extra request fields must be a JSON object, got {}",
                    json_kind(other)
                )
                .into(),
            )),
        }
    }

    /// The HTTP client to use: the caller's, or one shared by every model
    /// client of the process (so connections are pooled).
    pub(crate) fn client(&self) -> Result<reqwest::Client, ModelError> {
        if let Some(client) = &self.http_client {
            return Ok(client.clone());
        }
        static SHARED: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                reqwest::Client::builder()
                    .redirect(same_origin_redirects())
                    .build()
                    .map_err(|e| error_chain(&e))
            })
            .clone()
            .map_err(|e| ModelError::Config(format!("could not build the HTTP client: {e}").into()))
    }
}

/// Follows redirects only within the origin (scheme, host and port) of the
/// request. reqwest's default policy strips `Authorization` and cookies on a
/// cross-host redirect but keeps every other header, so a provider's own key
/// header (`x-goog-api-key`) would reach the other host. Stopping instead
/// hands the 3xx back, and it becomes a clear error naming where the server
/// wanted to send the request.
fn same_origin_redirects() -> reqwest::redirect::Policy {
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

/// Deep-merges `extra` into `base`: objects merge key by key, anything else
/// replaces. `null` removes a key, so `.extra(json!({"seed": null}))` drops it.
pub(crate) fn merge_json(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                if value.is_null() {
                    base.remove(&key);
                } else if let Some(slot) = base.get_mut(&key) {
                    merge_json(slot, value);
                } else {
                    base.insert(key, value);
                }
            }
        }
        (base, extra) => *base = extra,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks a base URL at call time, so the builder can stay infallible.
pub(crate) fn endpoint(base_url: &str, path: &str) -> Result<reqwest::Url, ModelError> {
    let url = format!("{}/{}", base_url.trim_end_matches('/'), path);
    let shown = redact_url(base_url);
    let parsed = reqwest::Url::parse(&url).map_err(|e| {
        ModelError::Config(ErrorDetail::with_source(
            format!("the base URL {shown:?} is not a valid URL ({e})"),
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
    limit: Duration,
}

impl Deadline {
    /// `limit` from now.
    pub(crate) fn after(limit: Duration) -> Self {
        Deadline {
            at: Instant::now() + limit,
            limit,
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
                .map_err(|e| transport_error(e, deadline.limit, secrets))
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

/// Maps a reqwest failure (before or while reading the body); the reqwest
/// error, without its URL (which may carry credentials), is the source.
pub(crate) fn transport_error(
    error: reqwest::Error,
    timeout: Duration,
    secrets: &Secrets,
) -> ModelError {
    if error.is_timeout() {
        return ModelError::Timeout(timeout);
    }
    // Only the host and port: a URL may carry credentials in its user info.
    let host = error.url().and_then(|url| {
        let host = url.host_str()?;
        Some(match url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        })
    });
    let error = error.without_url();
    let message = secrets.scrub(&error_chain(&error));
    if error.is_builder() {
        // The request could not even be built: retrying cannot help.
        ModelError::Config(ErrorDetail::with_source(
            format!("the request could not be built: {message}"),
            error,
        ))
    } else if error.is_connect() {
        let message = match host {
            Some(host) => format!("{host} ({message})"),
            None => message,
        };
        ModelError::Connect(ErrorDetail::with_source(message, error))
    } else {
        // The request went out but the connection failed before a whole
        // response arrived (reset, closed early): retrying may well work.
        ModelError::Interrupted(ErrorDetail::with_source(message, error))
    }
}

/// An error with its sources: reqwest's top-level message alone ("error
/// sending request") does not say what went wrong.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// The pause a server asked for: `retry-after-ms` (OpenAI, Azure), else
/// `Retry-After` as seconds or as an HTTP date (a date in the past is zero).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        if seconds.is_finite() && seconds >= 0.0 {
            return Some(Duration::from_secs_f64(seconds));
        }
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
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

/// Reads a reply body piece by piece under the call's deadline, failing once
/// it passes the cap, and checking that it is UTF-8.
///
/// One rule for whole bodies and streams alike: bytes that are not UTF-8 are
/// a [`ModelError::Decode`] naming the byte offset in the body, never
/// replaced silently. Not transient: a server or proxy that sends another
/// encoding does so again when asked again. The valid bytes before the
/// offset are still handed out first, so a stream keeps the text it sent.
pub(crate) struct BodyReader<'a> {
    response: Response,
    read: usize,
    limit: usize,
    deadline: Deadline,
    utf8: Utf8Check,
    /// An error found in the last piece, reported after its valid prefix.
    failed: Option<ModelError>,
    secrets: &'a Secrets,
}

impl<'a> BodyReader<'a> {
    /// Starts reading `response`; a declared length over the cap fails at once.
    pub(crate) fn new(
        response: Response,
        limit: usize,
        deadline: Deadline,
        secrets: &'a Secrets,
    ) -> Result<Self, ModelError> {
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(ModelError::TooLarge { limit });
        }
        Ok(BodyReader {
            response,
            read: 0,
            limit,
            deadline,
            utf8: Utf8Check::default(),
            failed: None,
            secrets,
        })
    }

    /// The next piece of the body, `None` at its end.
    pub(crate) async fn next(&mut self) -> Result<Option<bytes::Bytes>, ModelError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let (deadline, secrets) = (self.deadline, self.secrets);
        let response = &mut self.response;
        let chunk = deadline
            .run(async {
                response.chunk().await.map_err(|e| {
                    match transport_error(e, deadline.limit, secrets) {
                        ModelError::Interrupted(detail) | ModelError::Connect(detail) => {
                            ModelError::Interrupted(prefixed(
                                "the connection failed while reading the response: ",
                                detail,
                            ))
                        }
                        other => other,
                    }
                })
            })
            .await?;
        let Some(chunk) = chunk else {
            return match self.utf8.finish() {
                Ok(()) => Ok(None),
                Err(at) => Err(not_utf8(at, "the body ends inside a character")),
            };
        };
        self.read += chunk.len();
        if self.read > self.limit {
            return Err(ModelError::TooLarge { limit: self.limit });
        }
        match self.utf8.check(&chunk) {
            Ok(()) => Ok(Some(chunk)),
            Err(bad) => {
                self.failed = Some(not_utf8(
                    bad.offset,
                    &format!("byte 0x{:02X} is not part of a valid character", bad.byte),
                ));
                Ok(Some(chunk.slice(..bad.in_piece)))
            }
        }
    }

    /// The whole body.
    pub(crate) async fn read_all(&mut self) -> Result<Vec<u8>, ModelError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next().await? {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn prefixed(prefix: &str, detail: ErrorDetail) -> ErrorDetail {
    let message = format!("{prefix}{detail}");
    match detail.into_source() {
        Some(source) => ErrorDetail::with_source(message, source),
        None => message.into(),
    }
}

fn not_utf8(offset: u64, what: &str) -> ModelError {
    ModelError::Decode(
        format!("the response is not valid UTF-8 at byte offset {offset} of the body: {what}")
            .into(),
    )
}

/// Where the bytes stop being UTF-8.
#[derive(Debug, PartialEq)]
struct BadByte {
    /// Offset in the whole body.
    offset: u64,
    /// The byte there.
    byte: u8,
    /// How many bytes of the current piece come before it (0 when the bad
    /// character started in an earlier piece).
    in_piece: usize,
}

/// Checks UTF-8 across pieces split anywhere, a character included: at most
/// three bytes of an unfinished character are carried to the next piece, and
/// each byte is checked once. By hand because `std::str::from_utf8` works on
/// whole buffers only and the crates that do this also decode, which the
/// JSON parser does anyway.
#[derive(Default)]
struct Utf8Check {
    /// Bytes checked and complete so far (where `carry` starts).
    offset: u64,
    carry: [u8; 4],
    carry_len: usize,
}

impl Utf8Check {
    /// Checks the next piece.
    fn check(&mut self, piece: &[u8]) -> Result<(), BadByte> {
        let mut rest = piece;
        if self.carry_len > 0 {
            let need = utf8_width(self.carry[0]);
            let take = (need - self.carry_len).min(rest.len());
            self.carry[self.carry_len..self.carry_len + take].copy_from_slice(&rest[..take]);
            self.carry_len += take;
            rest = &rest[take..];
            match std::str::from_utf8(&self.carry[..self.carry_len]) {
                Ok(_) => {
                    self.offset += self.carry_len as u64;
                    self.carry_len = 0;
                }
                Err(e) if e.error_len().is_none() => return Ok(()),
                Err(e) => {
                    return Err(BadByte {
                        offset: self.offset + e.valid_up_to() as u64,
                        byte: self.carry[e.valid_up_to()],
                        in_piece: 0,
                    })
                }
            }
        }
        match std::str::from_utf8(rest) {
            Ok(_) => {
                self.offset += rest.len() as u64;
                Ok(())
            }
            Err(e) => {
                let valid = e.valid_up_to();
                self.offset += valid as u64;
                match e.error_len() {
                    Some(_) => Err(BadByte {
                        offset: self.offset,
                        byte: rest[valid],
                        in_piece: piece.len() - rest.len() + valid,
                    }),
                    None => {
                        let tail = &rest[valid..];
                        self.carry[..tail.len()].copy_from_slice(tail);
                        self.carry_len = tail.len();
                        Ok(())
                    }
                }
            }
        }
    }

    /// At the end of the body: an unfinished character is an error.
    fn finish(&self) -> Result<(), u64> {
        if self.carry_len == 0 {
            Ok(())
        } else {
            Err(self.offset)
        }
    }
}

/// How many bytes the character starting with `lead` has (1 for a byte that
/// cannot start one; `from_utf8` then reports it).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use serde_json::json;

    #[test]
    fn merge_is_deep_and_null_removes() {
        let mut base = json!({"a": 1, "g": {"t": 0.5, "m": 10}, "s": 3});
        merge_json(
            &mut base,
            json!({"g": {"m": 20, "x": true}, "s": null, "n": [1]}),
        );
        assert_eq!(
            base,
            json!({"a": 1, "g": {"t": 0.5, "m": 20, "x": true}, "n": [1]})
        );
    }

    #[test]
    fn retry_after_in_every_form() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("1.5"));
        assert_eq!(
            retry_after(&headers, now),
            Some(Duration::from_millis(1500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&later).unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(30)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&earlier).unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_millis(250)));
    }

    #[test]
    fn endpoints_tolerate_a_trailing_slash_and_reject_junk() {
        assert_eq!(
            endpoint("http://127.0.0.1:8088/v1/", "chat/completions")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8088/v1/chat/completions"
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

    /// Checks `body` in pieces of `size`; the first bad byte, if any.
    fn check_in_pieces(body: &[u8], size: usize) -> Option<(u64, u8, usize, usize)> {
        let mut check = Utf8Check::default();
        for (n, piece) in body.chunks(size).enumerate() {
            if let Err(bad) = check.check(piece) {
                return Some((bad.offset, bad.byte, n, bad.in_piece));
            }
        }
        check
            .finish()
            .err()
            .map(|offset| (offset, 0, usize::MAX, 0))
    }

    #[test]
    fn utf8_is_checked_across_any_split() {
        let good = "aé€😀 [Plan]\n中文".as_bytes();
        for size in 1..=good.len() {
            assert_eq!(check_in_pieces(good, size), None, "piece size {size}");
        }
        // 0xFF never occurs in UTF-8: found at its offset whatever the split.
        let mut bad = "aé€".as_bytes().to_vec();
        let at = bad.len();
        bad.push(0xFF);
        bad.extend_from_slice("tail".as_bytes());
        for size in 1..=bad.len() {
            let (offset, byte, piece, in_piece) = check_in_pieces(&bad, size).unwrap();
            assert_eq!((offset, byte), (at as u64, 0xFF), "piece size {size}");
            assert_eq!(piece * size + in_piece, at, "piece size {size}");
        }
        // A character cut short by the next one: reported at its start.
        let cut = [b'x', 0xE2, 0x82, b'y'];
        for size in 1..=cut.len() {
            assert_eq!(
                check_in_pieces(&cut, size).unwrap().0,
                1,
                "piece size {size}"
            );
        }
        // A body that ends inside a character.
        let end = [b'o', b'k', 0xF0, 0x9F];
        for size in 1..=end.len() {
            assert_eq!(
                check_in_pieces(&end, size),
                Some((2, 0, usize::MAX, 0)),
                "piece size {size}"
            );
        }
    }
}
