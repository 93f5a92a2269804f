//! Streams that go wrong: one that ends before its finish, a connection
//! that drops, a server that stalls, a byte that is not UTF-8. The text
//! that arrived before is kept in the error, and the error says what broke.

use std::time::{Duration, Instant};

use super::{hi, Api};
use crate::support::client::{Scripted, TestServer};
use serde_json::json;
use twr_runtime::{ModelError, Reply, Usage};

/// Anthropic's replies below start with a `message_start` counting 5
/// prompt tokens and 1 reply token.
fn anthropic_reply(text: &str) -> Reply {
    Reply::text(text).with_usage(Usage::new(5, 1))
}

#[tokio::test]
async fn a_stream_that_ends_before_its_finish_keeps_its_text() {
    let rows = [
        (
            Api::OpenAi,
            vec!["Half an ", "ans"],
            ("(no finish_reason, no [DONE])", 11),
            Reply::text("Half an ans"),
        ),
        (
            Api::Gemini,
            vec!["Ro"],
            ("(no finishReason)", 2),
            Reply::text("Ro"),
        ),
        (
            Api::Anthropic,
            vec!["Ro"],
            ("(no stop_reason, no message_stop)", 2),
            anthropic_reply("Ro"),
        ),
    ];
    for (api, pieces, (ending, arrived), partial) in rows {
        let body = api.stream_without_finish(&pieces);
        let server = TestServer::start(vec![Scripted::raw_sse(&body)]).await;
        let error = api.client(&server, true).chat(&hi()).await.unwrap_err();
        assert_eq!(
            crate::support::report(&error),
            format!(
                "the reply was cut off ({arrived} bytes of it had arrived and are kept): \
                 the reply broke off: the stream ended before the reply was complete {ending}"
            ),
            "{api:?}"
        );
        assert_eq!(error.partial(), Some(&partial), "{api:?}");
        assert!(
            matches!(&error, ModelError::Incomplete { source, .. }
                if matches!(**source, ModelError::Interrupted(_))),
            "{api:?}: {error:?}"
        );
        assert!(error.is_transient(), "{api:?}");
    }
}

#[tokio::test]
async fn a_connection_that_drops_mid_stream_is_interrupted() {
    // What was under way, then hyper's words when the connection drops
    // between two chunks (the source chain).
    const DROPPED: &str = "the reply broke off: the connection failed while reading the response";
    const HYPER: &str = "error decoding response body: error reading a body from connection: \
                         unexpected EOF during chunk size line";
    let rows = [
        // Cut inside the first event: nothing arrived.
        (
            Api::OpenAi,
            Api::OpenAi.stream_without_finish(&["Hello there, this reply ", "will never finish"]),
            60,
            None,
        ),
        (
            Api::Gemini,
            Api::Gemini.stream_without_finish(&["Ro"]),
            30,
            None,
        ),
        // Cut inside the second text event: the first is kept.
        (
            Api::Anthropic,
            Api::Anthropic.stream_without_finish(&["Ro", "me"]),
            400,
            Some(anthropic_reply("Ro")),
        ),
    ];
    for (api, body, cut, partial) in rows {
        assert!(cut < body.len(), "{api:?}");
        let server = TestServer::start(vec![Scripted::raw_sse(&body).break_after(cut)]).await;
        let error = api.client(&server, true).chat(&hi()).await.unwrap_err();
        let expected = match &partial {
            Some(reply) => format!(
                "the reply was cut off ({} bytes of it had arrived and are kept): {DROPPED}: {HYPER}",
                reply.content.len()
            ),
            None => format!("{DROPPED}: {HYPER}"),
        };
        assert_eq!(crate::support::report(&error), expected, "{api:?}");
        assert_eq!(error.partial(), partial.as_ref(), "{api:?}");
        assert!(error.is_transient(), "{api:?}");
    }
}

#[tokio::test]
async fn a_stream_that_stalls_keeps_its_text_in_the_timeout() {
    let line = |n: usize| format!("{n:04} {}\n", "w".repeat(994));
    let openai_lines: Vec<String> = (0..3).map(line).collect();
    let openai_text: String = openai_lines.concat();
    let gemini = format!(
        "data: {}\r\n\r\n",
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Rom"}, {"text": "e is", "thought": true}]}}]})
    );
    let rows = [
        (
            Api::OpenAi,
            Api::OpenAi.stream_without_finish(
                &openai_lines.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            400,
            Reply::text(openai_text),
        ),
        (
            Api::Gemini,
            gemini,
            300,
            Reply::text("Rom").with_reasoning("e is"),
        ),
        (
            Api::Anthropic,
            Api::Anthropic.stream_without_finish(&["Ro"]),
            300,
            anthropic_reply("Ro"),
        ),
    ];
    for (api, body, millis, partial) in rows {
        let timeout = Duration::from_millis(millis);
        let server = TestServer::start(vec![Scripted::raw_sse(&body)
            .pieces(4096)
            .stall_after(body.len())])
        .await;
        let started = Instant::now();
        let error = api
            .client_timing_out(&server, timeout)
            .chat(&hi())
            .await
            .unwrap_err();
        // The stream stalls for ever: only the timeout ends it. The bound
        // leaves room for a machine under a load of 10.
        assert!(started.elapsed() < Duration::from_secs(30), "{api:?}");
        assert_eq!(error.partial(), Some(&partial), "{api:?}");
        assert!(
            matches!(&error, ModelError::Incomplete { source, .. }
                if matches!(**source, ModelError::Timeout(d) if d == timeout)),
            "{api:?}: {error:?}"
        );
        assert!(error.is_transient(), "{api:?}");
    }
}

#[tokio::test]
async fn a_byte_that_is_not_utf8_is_one_error_whole_or_streamed() {
    // `café` written in Latin-1: 0xE9 cannot start or continue a UTF-8
    // character. `{bad}` in a body is where it goes.
    let rows = [
        (
            Api::OpenAi,
            false,
            r#"{"choices":[{"message":{"content":"caf{bad} au lait"},"finish_reason":"stop"}]}"#
                .to_string(),
            None,
        ),
        (
            Api::OpenAi,
            true,
            Api::OpenAi.stream_without_finish(&["Bon", "caf{bad}"]),
            Some(Reply::text("Bon")),
        ),
        (
            Api::Gemini,
            false,
            r#"{"candidates":[{"content":{"parts":[{"text":"M{bad}nchen"}]},"finishReason":"STOP"}]}"#
                .to_string(),
            None,
        ),
        (
            Api::Gemini,
            true,
            Api::Gemini.stream_without_finish(&["M{bad}nchen"]),
            None,
        ),
        (
            Api::Anthropic,
            false,
            r#"{"type":"message","content":[{"type":"text","text":"caf{bad}"}],"stop_reason":"end_turn"}"#
                .to_string(),
            None,
        ),
        (
            Api::Anthropic,
            true,
            Api::Anthropic.stream_without_finish(&["Bon", "caf{bad}"]),
            Some(anthropic_reply("Bon")),
        ),
    ];
    for (api, stream, body, partial) in rows {
        let row = format!("{api:?}, stream {stream}");
        let (before, after) = body.split_once("{bad}").unwrap();
        let at = before.len();
        let bytes = [before.as_bytes(), b"\xE9", after.as_bytes()].concat();
        let content_type = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        let server = TestServer::start(vec![Scripted::bytes(200, content_type, bytes)]).await;
        let error = api.client(&server, stream).chat(&hi()).await.unwrap_err();
        // Same rule, same words, whole or streamed; the text before the
        // bad byte is kept.
        let cause = match &error {
            ModelError::Incomplete { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        assert_eq!(
            cause,
            format!(
                "could not read the model server's response: the response is not valid UTF-8 \
                 at byte offset {at} of the body: byte 0xE9 is not part of a valid character"
            ),
            "{row}"
        );
        assert_eq!(error.partial(), partial.as_ref(), "{row}");
        assert!(!error.is_transient(), "{row}");
    }
}
