//! An attachment's bytes go only into the request body: `Debug`, tracing
//! and the serialized ledger of a run show its media type and size.
//!
//! Here, not in `tests/it`: tracing keeps one interest per call site for
//! the whole process, and in `tests/it` a test on another thread, with a
//! subscriber of its own, could leave the run's span unwanted while this
//! one's subscriber wants it (seen there, about one full run in three).

use serde_json::json;
use twr_runtime::{Message, ScriptedModel, Think};

use crate::client_support::Captured;
use crate::secret_png::{holds_no_bytes, image};
use crate::think_support::Trip;

#[tokio::test]
async fn debug_tracing_and_the_serialized_ledger_show_media_type_and_size() {
    let _alone = crate::ALONE.lock().await;
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

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
