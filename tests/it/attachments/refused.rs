//! Bad attachments fail before any request, with a typed error that names
//! the media type or the limit: the server sees zero requests, and twr
//! never fetches a URL itself.

use twr_runtime::model::{AttachmentError, AttachmentKind, LimitScope};
use twr_runtime::{
    Anthropic, ChatModel, Gemini, Message, ModelError, OpenAiCompatible, ScriptedModel, Think,
    ThinkError,
};

use super::{GIF, JPEG, PDF, PNG, WEBP};
use crate::support::client::{Scripted, TestServer};
use crate::support::think::{Trip, GOOD};

/// A server with one good answer ready, which no test here may reach.
async fn server() -> TestServer {
    TestServer::start(vec![Scripted::text(200, "unused")]).await
}

fn openai(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "vision-test")
}

/// The attachment error of a run that ended with one.
fn attachment_error(error: &ThinkError) -> &AttachmentError {
    match error.model_error() {
        Some(ModelError::Attachment(error)) => error,
        other => panic!("expected an attachment error, got {other:?} ({error})"),
    }
}

#[tokio::test]
async fn bytes_that_are_not_what_their_media_type_says_are_refused_for_each_format() {
    let server = server().await;
    let model = openai(&server);
    // Each format's bytes under each other format's name.
    let formats: [(&[u8], &str, &str); 5] = [
        (PNG, "image/png", "a PNG image"),
        (JPEG, "image/jpeg", "a JPEG image"),
        (GIF, "image/gif", "a GIF image"),
        (WEBP, "image/webp", "a WebP image"),
        (PDF, "application/pdf", "a PDF document"),
    ];
    for (bytes, found, what) in formats {
        for (_, claimed, _) in formats.iter().filter(|(_, other, _)| *other != found) {
            let message = if claimed.starts_with("image/") {
                Message::user("Read it.").with_image(bytes, claimed)
            } else {
                Message::user("Read it.").with_document(bytes, claimed)
            };
            let error = Think::new(&model)
                .run::<Trip>(message)
                .await
                .expect_err("refused");
            assert_eq!(
                attachment_error(&error),
                &AttachmentError::NotWhatItSays {
                    media_type: claimed.to_string(),
                    found: Some(found),
                }
            );
            assert_eq!(
                attachment_error(&error).to_string(),
                format!(
                    "the attachment says it is {claimed}, but its bytes are {what} ({found}): \
                     give the media type of the bytes"
                )
            );
            assert!(error.attempts().is_empty());
        }
    }
    // Text, not an image at all.
    let error = Think::new(&model)
        .run::<Trip>(Message::user("Read it.").with_image(b"<html>".as_slice(), "image/png"))
        .await
        .unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "the model call failed: an attachment cannot be sent: the attachment says it is \
         image/png, but its bytes are not a PNG image: they do not start as such a file does"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_media_type_the_provider_does_not_take_is_refused_naming_what_it_takes() {
    let server = server().await;
    let gif = Message::user("Read it.").with_image(GIF, "image/gif");
    let gemini = Gemini::new("AIza-test", "gemini-test").base_url(server.url("/v1beta"));
    let error = gemini.chat(&[gif]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: Gemini does not take image/gif images; it takes \
         image/png, image/jpeg, image/webp, image/heic and image/heif"
    );
    assert!(!error.is_transient());
    // A well-formed type no provider here takes, as an image and as a document.
    let bmp = Message::user("Read it.").with_image(b"BM6\0\0\0".as_slice(), "image/bmp");
    let error = openai(&server).chat(&[bmp]).await.unwrap_err();
    assert!(matches!(
        error,
        ModelError::Attachment(AttachmentError::Unsupported {
            kind: AttachmentKind::Image,
            ..
        })
    ));
    let docx = Message::user("Read it.").with_document(
        b"PK\x03\x04".as_slice(),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    let anthropic = Anthropic::new("sk-ant-test", "claude-test").base_url(server.url("/a"));
    let error = anthropic.chat(&[docx]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: Anthropic does not take \
         application/vnd.openxmlformats-officedocument.wordprocessingml.document documents; \
         it takes application/pdf"
    );
    // A misspelled media type gets the right spelling.
    let jpg = Message::user("Read it.").with_image(JPEG, "image/jpg");
    let error = openai(&server).chat(&[jpg]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: \"image/jpg\" is not a media type; write image/jpeg"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_part_over_the_documented_size_limit_is_refused_naming_the_limit() {
    let server = server().await;
    // Anthropic counts an image's base64: 5 MiB of it is 3,932,160 bytes.
    let mut png = PNG.to_vec();
    png.resize(3_932_161, 0);
    let anthropic = Anthropic::new("sk-ant-test", "claude-test").base_url(server.url("/a"));
    let message = Message::user("Read it.").with_image(png, "image/png");
    let error = Think::new(&anthropic)
        .run::<Trip>(message)
        .await
        .unwrap_err();
    assert_eq!(
        attachment_error(&error),
        &AttachmentError::TooLarge {
            provider: "Anthropic",
            scope: LimitScope::Each {
                kind: AttachmentKind::Image,
                media_type: "image/png".into()
            },
            size: 5_242_884,
            limit: 5_242_880,
            base64: true,
        }
    );
    assert_eq!(
        attachment_error(&error).to_string(),
        "the image/png image is 5242884 bytes once base64-encoded, over Anthropic's limit of \
         5242880 bytes (5 MiB) per image"
    );
    // OpenAI: 32 MiB of PDFs per request, in two documents.
    let mut pdf = PDF.to_vec();
    pdf.resize(17 * 1024 * 1024, b' ');
    let message = Message::user("Compare them.")
        .with_document(pdf.clone(), "application/pdf")
        .with_document(pdf, "application/pdf");
    let error = openai(&server).chat(&[message]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: the documents of this request are 35651584 bytes, over \
         the OpenAI-compatible API's limit of 33554432 bytes (32 MiB) of documents per request"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_url_goes_only_to_a_provider_that_takes_urls_and_is_never_fetched() {
    // The URL points at a live local server: were it ever fetched, that
    // server would see the request.
    let elsewhere = server().await;
    let url = elsewhere.url("/invoice.pdf");
    let model_server = server().await;
    let message = Message::user("Read it.").with_document_url(url.clone());
    let error = openai(&model_server).chat(&[message]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: the OpenAI-compatible API takes no document URL: attach \
         the document's bytes (twr never downloads a URL itself)"
    );
    assert!(model_server.requests().is_empty());
    // Anthropic takes it, as a URL: the model server gets it, the address
    // in it gets nothing.
    let answering = TestServer::start(vec![Scripted::json(
        200,
        serde_json::json!({"id": "m", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )])
    .await;
    let anthropic = Anthropic::new("sk-ant-test", "claude-test").base_url(answering.url("/a"));
    let message = Message::user("Read it.").with_document_url(url.clone());
    anthropic.chat(&[message]).await.unwrap();
    let body = answering.only_request().body;
    assert_eq!(
        body["messages"][0]["content"][0]["source"]["url"],
        url.as_str()
    );
    assert!(elsewhere.requests().is_empty());
    // Not an http(s) URL: refused before anything, by every provider.
    let local = Message::user("Read it.").with_image_url("file:///etc/passwd");
    let error = anthropic.chat(&[local]).await.unwrap_err();
    assert_eq!(
        crate::support::report(&error),
        "an attachment cannot be sent: the attachment URL \"file:///etc/passwd\" is not an http \
         or https URL: twr sends a URL to the provider as it is and never downloads it; attach \
         the bytes instead"
    );
    assert_eq!(answering.requests().len(), 1);
}

#[tokio::test]
async fn a_scripted_model_is_never_asked_and_bad_roles_and_empty_bytes_are_refused() {
    let model = ScriptedModel::new([GOOD]);
    let empty = Message::user("Read it.").with_image(Vec::new(), "image/png");
    let error = Think::new(&model).run::<Trip>(empty).await.unwrap_err();
    assert_eq!(
        attachment_error(&error),
        &AttachmentError::Empty {
            media_type: "image/png".into()
        }
    );
    // An attachment in the history's assistant message.
    let history = [Message::assistant("Here it is.").with_image(PNG, "image/png")];
    let error = Think::new(&model)
        .history(&history)
        .run::<Trip>("Plan a trip.")
        .await
        .unwrap_err();
    assert_eq!(
        attachment_error(&error).to_string(),
        "an assistant message cannot carry attachments: put them in a user message"
    );
    assert_eq!(model.calls(), 0);
    assert_eq!(model.remaining(), 1);
}
