//! No API key leaves the process. For every path where server text reaches
//! an error, a real axum server on 127.0.0.1 echoes the key the client sent,
//! and the key (or any 6-character piece of it) must be absent from the
//! error's Display, Debug, every error in its source chain, the `ThinkError`
//! a run ends with, and everything a tracing subscriber captured at TRACE.
//! The client's own Debug output, credentials in its base URL, a key that
//! cannot be a header, a missing key and what tracing records are checked
//! for every provider too.

use super::{hi, Api, Client, ALL};
use crate::support::client::{Captured, Scripted, TestServer};
use serde_json::json;
use twr_runtime::{ModelError, OpenAiCompatible, RetryPolicy, Think};

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

/// The paths of `api` where text from its server reaches an error.
fn echoing_paths(api: Api) -> Vec<Path> {
    match api {
        Api::OpenAi => vec![
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
        ],
        Api::Gemini => vec![
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
            path(
                "reply blocked after text, the text kept",
                Scripted::raw_sse(
                    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"use {KEY}\"}]}}]}\r\n\r\n\
                     data: {\"candidates\": [{\"finishReason\": \"SAFETY\", \"finishMessage\": \"not {KEY}\"}]}\r\n\r\n",
                ),
                true,
            ),
            path(
                "stream cut in the middle of an event",
                Scripted::raw_sse("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"{KEY}"),
                true,
            ),
        ],
        Api::Anthropic => vec![
            path("html body", html(), false),
            path(
                "no content",
                Scripted::json(200, json!({"type": "message", "echo": "{KEY}"})),
                false,
            ),
            path(
                "wrong shape (serde quotes the value)",
                Scripted::json(200, json!({"content": "{KEY}"})),
                false,
            ),
            path(
                "SSE data line not JSON",
                Scripted::raw_sse("event: content_block_delta\ndata: not json {KEY}\n\n"),
                true,
            ),
            path("500 key across the cut", key_across_the_cut(), false),
            path(
                "200 error member",
                Scripted::json(
                    200,
                    json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key {KEY}"}}),
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
                    json!({"type": "message", "content": [{"type": "text", "text": "I won't use {KEY}"}], "stop_reason": "refusal"}),
                ),
                false,
            ),
        ],
    }
}

/// Runs every path of `api` through its client (each call and one `Think`
/// run per path) under a TRACE subscriber; returns the paths that leaked,
/// with where.
async fn leaks(api: Api) -> Vec<String> {
    let key = api.key();
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut leaked = Vec::new();
    for path in echoing_paths(api) {
        let server = TestServer::start(vec![path.response.clone(), path.response]).await;
        let model = api.client(&server, path.stream);
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
async fn keys_echoed_by_the_server_never_leak() {
    for api in ALL {
        let leaked = leaks(api).await;
        assert!(
            leaked.is_empty(),
            "{api:?}: {} leaks:\n{}",
            leaked.len(),
            leaked.join("\n")
        );
    }
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
    let key = Api::OpenAi.key();
    let error = Wrapper(std::io::Error::other("x"));
    assert_eq!(visible_texts(&error)[0], "clean");
    let deep = Wrapper(std::io::Error::other(format!("deep {}", &key[3..11])));
    let found: Vec<_> = visible_texts(&deep)
        .iter()
        .filter_map(|t| key_piece_in(t, key))
        .collect();
    assert_eq!(found[0], &key[3..11]);
    assert_eq!(key_piece_in("sk-liv", key).as_deref(), Some("sk-liv"));
    assert_eq!(key_piece_in("sk-li", key), None);
}

#[test]
fn debug_output_shows_the_client_but_never_the_key() {
    // What each client's Debug output starts with, and the base URL it
    // shows when none was set.
    let rows = [
        (Api::OpenAi, "OpenAiCompatible {", "http://127.0.0.1:1/v1"),
        (
            Api::Gemini,
            "Gemini {",
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        (Api::Anthropic, "Anthropic {", "https://api.anthropic.com"),
    ];
    for (api, starts, base_url) in rows {
        let model: Box<dyn Client> = match api {
            // OpenAI-compatible servers have no default URL.
            Api::OpenAi => api.client_at(base_url, api.key(), true),
            Api::Gemini => Box::new(twr_runtime::Gemini::new(api.key(), api.model())),
            Api::Anthropic => Box::new(twr_runtime::Anthropic::new(api.key(), api.model())),
        };
        for debug in [format!("{model:?}"), format!("{model:#?}")] {
            assert!(
                key_piece_in(&debug, api.key()).is_none(),
                "{api:?}: {debug}"
            );
            assert!(debug.starts_with(starts), "{api:?}: {debug}");
            assert!(debug.contains("[redacted]"), "{api:?}: {debug}");
            assert!(debug.contains(&format!("{base_url:?}")), "{api:?}: {debug}");
        }
    }
}

#[tokio::test]
async fn credentials_in_the_base_url_are_redacted() {
    for api in ALL {
        let server = TestServer::start(vec![Scripted::json(
            401,
            api.error(401, "bad login for scott:tiger-SECRET-pw"),
        )])
        .await;
        let url = server
            .url(api.base_path())
            .replace("http://", "http://scott:tiger-SECRET-pw@");
        let model: Box<dyn Client> = match api {
            // Without a key, so the user info is the only credential.
            Api::OpenAi => Box::new(OpenAiCompatible::new(&url, api.model())),
            Api::Gemini | Api::Anthropic => api.client_at(&url, api.key(), false),
        };
        let debug = format!("{model:?}");
        assert!(!debug.contains("tiger-SECRET-pw"), "{api:?}: {debug}");
        assert!(
            debug.contains(&format!(
                "base_url: \"http://[redacted]@{}{}\"",
                &server.origin[7..],
                api.base_path()
            )),
            "{api:?}: {debug}"
        );
        let error = model.chat(&hi()).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "the model server answered HTTP 401: bad login for [redacted]:[redacted]",
            "{api:?}"
        );
        // reqwest sends the user info as Basic auth.
        let request = server.only_request();
        assert!(
            request
                .header("authorization")
                .unwrap()
                .starts_with("Basic "),
            "{api:?}"
        );
    }
}

#[tokio::test]
async fn a_key_that_cannot_be_a_header_fails_before_sending() {
    let rows = [
        (Api::OpenAi, "sk-abc\u{1}def"),
        (Api::Gemini, "AIza\nInjected: header"),
        (Api::Anthropic, "sk-ant\r\nInjected: header"),
    ];
    for (api, key) in rows {
        let server = TestServer::start(vec![]).await;
        let model = api.client_at(&server.url(api.base_path()), key, false);
        let error = model.chat(&hi()).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid model configuration: the API key has characters an HTTP header cannot carry \
             (a control character, a line break, or a non-ASCII character)",
            "{api:?}"
        );
        assert!(
            matches!(&error, ModelError::Config(_)),
            "{api:?}: {error:?}"
        );
        assert!(!error.is_transient(), "{api:?}");
        let source = std::error::Error::source(&error).expect("the header error");
        assert!(
            source
                .downcast_ref::<reqwest::header::InvalidHeaderValue>()
                .is_some(),
            "{api:?}"
        );
        for text in visible_texts(&error) {
            assert!(
                !text.contains(key) && !text.contains("Injected"),
                "{api:?}: {text}"
            );
        }
        assert_eq!(server.requests().len(), 0, "{api:?}");
    }
}

#[tokio::test]
async fn a_missing_key_fails_before_sending() {
    // An OpenAI-compatible server may need no key; these two always do.
    let rows = [
        (Api::Gemini, "", "the Gemini API key is empty"),
        (Api::Anthropic, " ", "the Anthropic API key is empty"),
    ];
    for (api, key, expected) in rows {
        let server = TestServer::start(vec![]).await;
        let error = api
            .client_at(&server.url(api.base_path()), key, false)
            .chat(&hi())
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("invalid model configuration: {expected}"),
            "{api:?}"
        );
        assert!(!error.is_transient(), "{api:?}");
        assert_eq!(server.requests().len(), 0, "{api:?}");
    }
}

#[tokio::test]
async fn tracing_names_the_model_and_never_the_key() {
    let rows = [
        (Api::OpenAi, "openai-compatible"),
        (Api::Gemini, "gemini"),
        (Api::Anthropic, "anthropic"),
    ];
    for (api, provider) in rows {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let server = TestServer::start(vec![
            Scripted::json(200, api.reply("fine", 5, 1)),
            Scripted::json(401, api.error(401, "bad key {KEY}")).echoing_key(),
        ])
        .await;
        let model = api.client(&server, false);
        model.chat(&hi()).await.unwrap();
        model.chat(&hi()).await.unwrap_err();
        let logs = captured.text();
        assert!(key_piece_in(&logs, api.key()).is_none(), "{api:?}: {logs}");
        assert!(
            logs.contains(&format!(
                "gen_ai.request.model=\"{}\" twr.provider=\"{provider}\" \
                 twr.stream=false twr.messages=2",
                api.model()
            )),
            "{api:?}: {logs}"
        );
        assert!(logs.contains("model replied"), "{api:?}: {logs}");
        assert!(
            logs.contains("prompt_tokens=5 completion_tokens=1"),
            "{api:?}: {logs}"
        );
        assert!(
            logs.contains("HTTP 401: bad key [redacted]"),
            "{api:?}: {logs}"
        );
    }
}
