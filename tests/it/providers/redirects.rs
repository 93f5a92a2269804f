//! Redirects: a client follows one within its server's origin, key and all,
//! and never one to another origin, where the key would go with it.

use super::{hi, ALL};
use crate::support::client::{Scripted, TestServer};
use serde_json::Value;

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    for api in ALL {
        for stream in [false, true] {
            let row = format!("{api:?}, stream {stream}");
            let elsewhere =
                TestServer::start(vec![Scripted::json(200, api.reply("stolen", 1, 1))]).await;
            let target = elsewhere.url(api.chat_path());
            let server = TestServer::start(vec![
                Scripted::json(307, Value::Null).header("location", &target)
            ])
            .await;
            let error = api.client(&server, stream).chat(&hi()).await.unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "the model server answered HTTP 307: the server redirected the request to \
                     another origin, {}; credentials are never sent to another origin, so the \
                     redirect was not followed (use that server's URL as the base URL if you \
                     trust it)",
                    elsewhere.origin
                ),
                "{row}"
            );
            assert!(!error.is_transient(), "{row}");
            assert_eq!(server.requests().len(), 1, "{row}");
            assert_eq!(
                elsewhere.requests().len(),
                0,
                "{row}: {} reached another origin",
                api.key_header().0
            );
        }
    }
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed_with_the_key() {
    for api in ALL {
        let row = format!("{api:?}");
        // `/v1/chat/completions` moved to `/v2/chat/completions`, and so on.
        let moved = api.chat_path().replacen("/v1", "/v2", 1);
        let server = TestServer::start(vec![
            Scripted::json(308, Value::Null).header("location", &moved),
            Scripted::json(200, api.reply("moved", 1, 1)),
        ])
        .await;
        let reply = api.client(&server, false).chat(&hi()).await.unwrap();
        assert_eq!(reply.content, "moved", "{row}");
        let requests = server.requests();
        assert_eq!(requests[0].path_and_query, api.chat_path(), "{row}");
        assert_eq!(requests[1].path_and_query, moved, "{row}");
        let (header, value) = api.key_header();
        assert_eq!(requests[1].header(header), Some(value.as_str()), "{row}");
        assert_eq!(requests[1].body, requests[0].body, "{row}");
    }
}
