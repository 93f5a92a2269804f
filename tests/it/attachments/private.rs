//! An attachment's bytes go only into the request body: errors and their
//! ledger show its media type and size (`Debug`, tracing and the ledger of
//! a run are checked in `tests/alone/attachment_tracing.rs`, where no other
//! test's subscriber runs beside it).

use serde_json::json;
use twr_runtime::{Message, OpenAiCompatible, Think};

use crate::support::client::{Scripted, TestServer};
use crate::support::secret_png::{holds_no_bytes, image};
use crate::support::think::Trip;

#[tokio::test]
async fn an_error_and_its_ledger_show_no_bytes_and_a_signed_url_shows_no_signature() {
    let server = TestServer::start(vec![Scripted::json(
        400,
        json!({"error": {"message": "the model does not read images"}}),
    )])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "text-only");
    let sent = Message::user("Plan a trip from this map.")
        .with_image(image(), "image/png")
        .with_image_url("https://cdn.example.com/map.png?X-Amz-Signature=0123abcd");
    let error = Think::new(&model).run::<Trip>(&sent).await.unwrap_err();
    // The server got the bytes and the whole URL; nothing else shows them.
    let body = server.only_request().body.to_string();
    assert!(body.contains("X-Amz-Signature=0123abcd"));
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        serde_json::to_string(&error).unwrap(),
        format!("{sent:?}"),
    ] {
        holds_no_bytes(&shown);
        assert!(!shown.contains("0123abcd"), "{shown}");
    }
    assert_eq!(
        serde_json::to_value(&sent).unwrap()["attachments"],
        json!([{"kind": "image", "media_type": "image/png", "bytes": 3000},
               {"kind": "image", "url": "https://cdn.example.com/map.png?[redacted]"}])
    );
}
