//! No API key leaves the process: for every path where server text reaches
//! an error, a real axum server on 127.0.0.1 echoes the key the client sent,
//! and the key (or any 6-character piece of it) must be absent from the
//! error's Display, Debug, every error in its source chain, the `ThinkError`
//! a run ends with, and everything a tracing subscriber captured at TRACE.

use crate::support::client::{Captured, Scripted, TestServer};
use serde_json::json;
use twr_runtime::{ChatModel, Gemini, Message, OpenAiCompatible, RetryPolicy, Think};

const OPENAI_KEY: &str = "sk-live-Q7vT2mXw9LpR4nZs";
const GEMINI_KEY: &str = "AIzaSyD-k3Jf8Hq2Wm5Xv9Ze";

/// Every text a person or a log could see of `error`: Display and Debug
/// (plain and pretty) of the error and of each error in its source chain.
fn visible_texts(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut texts = Vec::new();
    let mut current = Some(error);
    while let Some(e) = current {
        texts.push(e.to_string());
        texts.push(format!("{e:?}"));
        texts.push(format!("{e:#?}"));
        current = e.source();
    }
    texts
}

/// The first piece (6 characters or more) of `key` found in `text`.
fn key_piece_in(text: &str, key: &str) -> Option<String> {
    let chars: Vec<char> = key.chars().collect();
    for len in (6..=chars.len()).rev() {
        for start in 0..=chars.len() - len {
            let piece: String = chars[start..start + len].iter().collect();
            if text.contains(&piece) {
                return Some(piece);
            }
        }
    }
    None
}

fn hi() -> Vec<Message> {
    vec![Message::user("Say hi")]
}

/// One path: a scripted response echoing the key, sent to a client in
/// streaming mode or not.
struct Path {
    name: &'static str,
    response: Scripted,
    stream: bool,
}

fn path(name: &'static str, response: Scripted, stream: bool) -> Path {
    Path {
        name,
        response: response.echoing_key(),
        stream,
    }
}

/// A 500 whose text puts the key across the 1,000-character cut of error
/// messages: 8 characters of it before the cut, the rest after.
fn key_across_the_cut() -> Scripted {
    Scripted::text(500, &format!("{}{{KEY}} and more", "x".repeat(992)))
}

fn html() -> Scripted {
    Scripted::text(
        200,
        "<html><body>Signed in as {KEY}. Proxy login</body></html>",
    )
    .header("content-type", "text/html")
}

fn openai_paths() -> Vec<Path> {
    vec![
        path("html body", html(), false),
        path(
            "no choices",
            Scripted::json(200, json!({"choices": [], "echo": "{KEY}"})),
            false,
        ),
        path(
            "wrong shape (serde quotes the value)",
            Scripted::json(200, json!({"choices": "{KEY}"})),
            false,
        ),
        path(
            "SSE data line not JSON",
            Scripted::raw_sse("data: not json {KEY}\n\n"),
            true,
        ),
        path("500 key across the cut", key_across_the_cut(), false),
        path(
            "200 error member",
            Scripted::json(
                200,
                json!({"error": {"message": "Incorrect API key {KEY}", "code": "invalid_api_key"}}),
            ),
            false,
        ),
        path(
            "error event",
            Scripted::raw_sse("event: error\ndata: key {KEY} rejected\n\n"),
            true,
        ),
        path(
            "refusal",
            Scripted::json(
                200,
                json!({"choices": [{"message": {"content": null, "refusal": "I won't use {KEY}"}, "finish_reason": "stop"}]}),
            ),
            false,
        ),
    ]
}

fn gemini_paths() -> Vec<Path> {
    vec![
        path("html body", html(), false),
        path(
            "no candidates",
            Scripted::json(200, json!({"candidates": [], "echo": "{KEY}"})),
            false,
        ),
        path(
            "wrong shape (serde quotes the value)",
            Scripted::json(200, json!({"candidates": "{KEY}"})),
            false,
        ),
        path(
            "SSE data line not JSON",
            Scripted::raw_sse("data: not json {KEY}\r\n\r\n"),
            true,
        ),
        path("500 key across the cut", key_across_the_cut(), false),
        path(
            "200 error member",
            Scripted::json(
                200,
                json!({"error": {"code": 400, "message": "API key not valid: {KEY}", "status": "INVALID_ARGUMENT"}}),
            ),
            false,
        ),
        path(
            "blocked prompt message",
            Scripted::json(
                200,
                json!({"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": "blocked for {KEY}"}}),
            ),
            false,
        ),
    ]
}

/// Runs every path through `model` (each call and one `Think` run per path)
/// under a TRACE subscriber; returns the paths that leaked, with where.
async fn leaks<M: ChatModel + Clone>(
    paths: Vec<Path>,
    key: &str,
    model: impl Fn(&TestServer, bool) -> M,
) -> Vec<String> {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut leaked = Vec::new();
    for path in paths {
        let server = TestServer::start(vec![path.response.clone(), path.response]).await;
        let model = model(&server, path.stream);
        let error = model.chat(&hi()).await.expect_err(path.name);
        for text in visible_texts(&error) {
            if let Some(piece) = key_piece_in(&text, key) {
                leaked.push(format!("{}: {piece:?} in {text}", path.name));
                break;
            }
        }
        let run = Think::new(&model)
            .max_attempts(1)
            .retry_policy(RetryPolicy::none())
            .run_with("Say hi", |raw: &str| {
                Ok::<_, twr_runtime::Feedback>(raw.to_string())
            })
            .await
            .expect_err(path.name);
        for text in visible_texts(&run) {
            if let Some(piece) = key_piece_in(&text, key) {
                leaked.push(format!("{} (ThinkError): {piece:?} in {text}", path.name));
                break;
            }
        }
        assert_eq!(server.requests().len(), 2, "{}", path.name);
    }
    let logs = captured.text();
    assert!(logs.contains("model call failed"), "{logs}");
    for line in logs.lines() {
        if let Some(piece) = key_piece_in(line, key) {
            leaked.push(format!("tracing: {piece:?} in {line}"));
        }
    }
    leaked
}

#[tokio::test]
async fn openai_keys_echoed_by_the_server_never_leak() {
    let leaked = leaks(openai_paths(), OPENAI_KEY, |server, stream| {
        OpenAiCompatible::new(server.url("/v1"), "m")
            .api_key(OPENAI_KEY)
            .stream(stream)
    })
    .await;
    assert!(
        leaked.is_empty(),
        "{} leaks:\n{}",
        leaked.len(),
        leaked.join("\n")
    );
}

#[tokio::test]
async fn gemini_keys_echoed_by_the_server_never_leak() {
    let leaked = leaks(gemini_paths(), GEMINI_KEY, |server, stream| {
        Gemini::new(GEMINI_KEY, "gemini-test")
            .base_url(server.url("/v1beta"))
            .stream(stream)
    })
    .await;
    assert!(
        leaked.is_empty(),
        "{} leaks:\n{}",
        leaked.len(),
        leaked.join("\n")
    );
}

/// An error whose own text is clean and whose source holds the key.
#[derive(Debug)]
struct Wrapper(std::io::Error);

impl std::fmt::Display for Wrapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("clean")
    }
}

impl std::error::Error for Wrapper {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[test]
fn the_checker_walks_the_source_chain_and_finds_pieces() {
    let error = Wrapper(std::io::Error::other("x"));
    assert_eq!(visible_texts(&error)[0], "clean");
    let deep = Wrapper(std::io::Error::other(format!(
        "deep {}",
        &OPENAI_KEY[3..11]
    )));
    let found: Vec<_> = visible_texts(&deep)
        .iter()
        .filter_map(|t| key_piece_in(t, OPENAI_KEY))
        .collect();
    assert_eq!(found[0], &OPENAI_KEY[3..11]);
    assert_eq!(
        key_piece_in("sk-liv", OPENAI_KEY).as_deref(),
        Some("sk-liv")
    );
    assert_eq!(key_piece_in("sk-li", OPENAI_KEY), None);
}
