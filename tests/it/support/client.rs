//! A real HTTP server for client tests: axum on 127.0.0.1:0, answering with
//! scripted responses in order and recording every request it received.
//! Bodies are written in small pieces with a pause between them, so the
//! client really sees lines and tags split across network chunks.
#![allow(dead_code)] // each test crate uses a different subset

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::Router;
use serde_json::Value;

/// One scripted response.
#[derive(Clone, Debug)]
pub struct Scripted {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    piece_size: usize,
    pause: Duration,
    delay: Duration,
    /// Break the connection after this many body bytes.
    break_after: Option<usize>,
    /// Send nothing more after this many body bytes, without closing.
    stall_after: Option<usize>,
    /// Replace every `{KEY}` in the body with the credential the request
    /// carried (a bearer token, `x-goog-api-key` or `x-api-key`), as a server or proxy that
    /// quotes the key back would.
    echo_key: bool,
}

impl Scripted {
    /// A JSON body (sent whole, with a Content-Length).
    pub fn json(status: u16, body: Value) -> Self {
        Scripted {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            piece_size: usize::MAX,
            pause: Duration::ZERO,
            delay: Duration::ZERO,
            break_after: None,
            stall_after: None,
            echo_key: false,
        }
    }

    /// A plain-text body.
    pub fn text(status: u16, body: &str) -> Self {
        Scripted {
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.as_bytes().to_vec(),
            ..Scripted::json(status, Value::Null)
        }
    }

    /// An event stream of `data:` events, written 5 bytes at a time (so
    /// lines, JSON and tags are split mid-way), with LF line ends.
    pub fn sse(events: &[&str]) -> Self {
        let mut body = String::new();
        for event in events {
            if event.starts_with(':') {
                body.push_str(event);
                body.push_str("\n\n");
            } else {
                body.push_str("data: ");
                body.push_str(event);
                body.push_str("\n\n");
            }
        }
        Scripted::raw_sse(&body)
    }

    /// An event stream with exactly this text.
    pub fn raw_sse(body: &str) -> Self {
        Scripted {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.as_bytes().to_vec(),
            piece_size: 5,
            pause: Duration::from_millis(1),
            delay: Duration::ZERO,
            break_after: None,
            stall_after: None,
            echo_key: false,
        }
    }

    /// Echoes the request's credential: every `{KEY}` in the body and in
    /// header values becomes the key the client sent.
    pub fn echoing_key(mut self) -> Self {
        self.echo_key = true;
        self
    }

    /// A body of exactly these bytes (UTF-8 or not), sent in 7-byte pieces.
    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Self {
        Scripted {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body,
            ..Scripted::raw_sse("")
        }
        .pieces(7)
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Writes the body `size` bytes at a time (streamed, no Content-Length).
    pub fn pieces(mut self, size: usize) -> Self {
        self.piece_size = size;
        self.pause = Duration::from_millis(1);
        self
    }

    /// Pauses this long before each piece of the body.
    pub fn pause(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sends `bytes` bytes of the body, then nothing more, never closing
    /// (a server that stalls mid-stream).
    pub fn stall_after(mut self, bytes: usize) -> Self {
        self.stall_after = Some(bytes);
        self
    }

    /// Drops the connection after `bytes` bytes of the body.
    pub fn break_after(mut self, bytes: usize) -> Self {
        self.break_after = Some(bytes);
        self
    }

    fn echo(mut self, credential: &str) -> Self {
        if self.echo_key {
            let body = String::from_utf8_lossy(&self.body).replace("{KEY}", credential);
            self.body = body.into_bytes();
            for (_, value) in &mut self.headers {
                *value = value.replace("{KEY}", credential);
            }
        }
        self
    }

    fn into_response(self) -> Response {
        let streamed = self.piece_size != usize::MAX
            || self.break_after.is_some()
            || self.stall_after.is_some();
        let body = if streamed {
            let piece = self.piece_size.min(self.body.len().max(1));
            let end = self
                .break_after
                .or(self.stall_after)
                .unwrap_or(self.body.len())
                .min(self.body.len());
            let pieces: VecDeque<Bytes> = self.body[..end]
                .chunks(piece)
                .map(Bytes::copy_from_slice)
                .collect();
            let broken = self.break_after.is_some();
            let stalls = self.stall_after.is_some();
            let pause = self.pause;
            let stream = futures_util::stream::unfold(
                (pieces, broken, pause),
                move |(mut pieces, broken, pause)| async move {
                    match pieces.pop_front() {
                        Some(piece) => {
                            if !pause.is_zero() {
                                tokio::time::sleep(pause).await;
                            }
                            Some((Ok(piece), (pieces, broken, pause)))
                        }
                        None if stalls => {
                            // Longer than any test's time limit.
                            tokio::time::sleep(Duration::from_secs(600)).await;
                            None
                        }
                        None if broken => {
                            // Give the client time to read what was sent.
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            let error = std::io::Error::new(
                                std::io::ErrorKind::ConnectionReset,
                                "scripted connection drop",
                            );
                            Some((Err(error), (pieces, false, pause)))
                        }
                        None => None,
                    }
                },
            );
            Body::from_stream(stream)
        } else {
            Body::from(self.body)
        };
        let mut response = Response::new(body);
        *response.status_mut() = StatusCode::from_u16(self.status).expect("a valid status");
        for (name, value) in self.headers {
            response.headers_mut().insert(
                HeaderName::try_from(name).expect("a valid header name"),
                HeaderValue::try_from(value).expect("a valid header value"),
            );
        }
        response
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Path and query, e.g. `/v1/chat/completions`.
    pub path_and_query: String,
    /// Header values by lower-case name.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
}

impl Recorded {
    /// The value of header `name`, if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Default)]
struct Shared {
    script: Arc<Mutex<VecDeque<Scripted>>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

/// A running server; it lives as long as the test's runtime.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    shared: Shared,
}

impl TestServer {
    /// Starts a server answering with `script`, one response per request,
    /// in order. A request beyond the script gets a 599 that no test expects.
    pub async fn start(script: Vec<Scripted>) -> TestServer {
        let shared = Shared::default();
        shared.script.lock().unwrap().extend(script);
        let router = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("serve");
        });
        TestServer { origin, shared }
    }

    /// `origin` + `path`, e.g. `url("/v1")`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.origin, path)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The only request received; panics if there were more or none.
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "expected exactly one request");
        requests.into_iter().next().unwrap()
    }
}

async fn handle(State(shared): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    shared.requests.lock().unwrap().push(Recorded {
        path_and_query: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    v.to_str().unwrap_or("<binary>").to_string(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    });
    let credential = parts
        .headers
        .get("x-goog-api-key")
        .or_else(|| parts.headers.get("x-api-key"))
        .or_else(|| parts.headers.get("authorization"))
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim_start_matches("Bearer ").to_string())
        .unwrap_or_default();
    let next = shared.script.lock().unwrap().pop_front();
    match next {
        Some(scripted) => {
            let scripted = scripted.echo(&credential);
            if !scripted.delay.is_zero() {
                tokio::time::sleep(scripted.delay).await;
            }
            scripted.into_response()
        }
        None => Scripted::text(599, "the test script has no more responses").into_response(),
    }
}

/// A local address nothing listens on (bound, then released).
pub fn refused_origin() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// Collects everything a tracing subscriber writes (`with_writer(move ||
/// captured.clone())`), to check what the logs say.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}
