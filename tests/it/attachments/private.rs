//! An attachment's bytes go only into the request body: `Debug`, errors,
//! tracing and the serialized ledger show its media type and size.

use base64::Engine as _;
use serde_json::json;
use twr_runtime::{Message, OpenAiCompatible, ScriptedModel, Think};

use super::PNG;
use crate::support::client::{Captured, Scripted, TestServer};
use crate::support::think::Trip;

/// A 3000-byte PNG whose bytes after the signature spell a phrase that no
/// output may contain, in any form.
fn image() -> Vec<u8> {
    let mut png = PNG.to_vec();
    while png.len() < 3000 {
        png.extend_from_slice(b"SECRET-PIXELS-");
    }
    png.truncate(3000);
    png
}

/// Checks that `shown` holds none of `image()`'s content: not its text, not
/// its base64, not its bytes as a list of numbers.
fn holds_no_bytes(shown: &str) {
    let bytes = image();
    let base64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    assert!(!shown.contains("SECRET-PIXELS"), "{shown}");
    assert!(!shown.contains(&base64[24..64]), "base64 in {shown}");
    assert!(!shown.contains("137, 80, 78, 71"), "a byte list in {shown}");
}

#[tokio::test]
async fn debug_tracing_and_the_serialized_ledger_show_media_type_and_size() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // Another test thread may have cached this binary's call sites as
    // unwanted while no subscriber of theirs wanted TRACE: ask again, so
    // this thread's subscriber sees the run's span.
    tracing::callsite::rebuild_interest_cache();

    let model = ScriptedModel::new(["[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500", "[Days]\n3"]);
    let sent = Message::user("Plan a trip from this map.").with_image(image(), "image/png");
    let outcome = Think::new(&model).run::<Trip>(&sent).await.unwrap();

    assert_eq!(
        format!("{sent:?}"),
        "Message { role: User, content: Content { text: \"Plan a trip from this map.\", \
         attachments: [Attachment { kind: Image, media_type: \"image/png\", bytes: 3000 }] } }"
    );
    holds_no_bytes(&format!("{:?}", model.requests()));
    holds_no_bytes(&format!("{outcome:?}"));

    let log = captured.text();
    assert!(
        log.contains("twr.attachments=image/png 3000 bytes"),
        "{log}"
    );
    holds_no_bytes(&log);

    let ledger = json!({
        "attempts": serde_json::to_value(&outcome.attempts).unwrap(),
        "transcript": serde_json::to_value(&outcome.transcript).unwrap(),
    });
    holds_no_bytes(&ledger.to_string());
    let [prompt, _] = outcome.final_exchange();
    assert_eq!(
        serde_json::to_value(&prompt).unwrap(),
        json!({"role": "user", "content": "Plan a trip from this map.",
               "attachments": [{"kind": "image", "media_type": "image/png", "bytes": 3000}]})
    );
    assert_eq!(
        ledger["transcript"][0]["attachments"],
        json!([{"kind": "image", "media_type": "image/png", "bytes": 3000}])
    );
    // A ledger cannot be read back into an attachment it no longer holds.
    let error = serde_json::from_value::<Message>(serde_json::to_value(&prompt).unwrap())
        .unwrap_err()
        .to_string();
    assert!(error.contains("attachments cannot be read back"), "{error}");
}

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
