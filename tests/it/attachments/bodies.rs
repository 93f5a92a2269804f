//! Each provider's request body for each kind of part, as its API documents
//! it, asserted whole against a real axum server through the real client:
//!
//! - OpenAI-compatible: `image_url` parts (a `data:` URL, or the URL given),
//!   a PDF as a `file` part with `file_data`;
//! - Anthropic: `image` and `document` blocks with a `base64` or `url`
//!   source;
//! - Gemini: `inlineData` parts, and `fileData` for a URL.
//!
//! Attachments go before the text, in the order added (the order Anthropic
//! and Gemini advise for images).

use serde_json::{json, Value};
use twr_runtime::{Anthropic, ChatModel, Gemini, Message, OpenAiCompatible};

use super::{PDF, PDF_BASE64, PNG, PNG_BASE64};
use crate::support::client::{Scripted, TestServer};

fn openai_reply() -> Scripted {
    Scripted::json(
        200,
        json!({"choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": "ok"}}]}),
    )
}

fn anthropic_reply() -> Scripted {
    Scripted::json(
        200,
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

fn gemini_reply() -> Scripted {
    Scripted::json(
        200,
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                               "finishReason": "STOP", "index": 0}]}),
    )
}

/// The body `model` sent for one call with `messages`, as the server read it.
async fn sent(
    reply: Scripted,
    model: impl Fn(&TestServer) -> Box<dyn ChatModel>,
    messages: &[Message],
) -> Value {
    let server = TestServer::start(vec![reply]).await;
    model(&server).chat(messages).await.expect("the call");
    server.only_request().body
}

async fn openai(messages: &[Message]) -> Value {
    let model = |server: &TestServer| -> Box<dyn ChatModel> {
        Box::new(OpenAiCompatible::new(server.url("/v1"), "vision-test"))
    };
    sent(openai_reply(), model, messages).await
}

async fn anthropic(messages: &[Message]) -> Value {
    let model = |server: &TestServer| -> Box<dyn ChatModel> {
        Box::new(Anthropic::new("sk-ant-test", "claude-test").base_url(server.url("/anthropic")))
    };
    sent(anthropic_reply(), model, messages).await
}

async fn gemini(messages: &[Message]) -> Value {
    let model = |server: &TestServer| -> Box<dyn ChatModel> {
        Box::new(Gemini::new("AIza-test", "gemini-test").base_url(server.url("/v1beta")))
    };
    sent(gemini_reply(), model, messages).await
}

fn image() -> Message {
    Message::user("Read this receipt.").with_image(PNG, "image/png")
}

fn image_url() -> Message {
    Message::user("Read this receipt.").with_image_url("https://example.com/receipt.jpg")
}

fn pdf() -> Message {
    Message::user("Read this invoice.").with_document(PDF, "application/pdf")
}

fn pdf_url() -> Message {
    Message::user("Read this invoice.").with_document_url("https://example.com/invoice.pdf")
}

#[tokio::test]
async fn openai_an_image_is_an_image_url_part_with_a_data_url() {
    assert_eq!(
        openai(&[Message::system("Be exact."), image()]).await,
        json!({
            "model": "vision-test",
            "messages": [
                {"role": "system", "content": "Be exact."},
                {"role": "user", "content": [
                    {"type": "image_url",
                     "image_url": {"url": format!("data:image/png;base64,{PNG_BASE64}")}},
                    {"type": "text", "text": "Read this receipt."},
                ]},
            ],
            "stream": false,
        })
    );
}

#[tokio::test]
async fn openai_an_image_url_is_sent_as_given() {
    assert_eq!(
        openai(&[image_url()]).await["messages"],
        json!([{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/receipt.jpg"}},
            {"type": "text", "text": "Read this receipt."},
        ]}])
    );
}

#[tokio::test]
async fn openai_a_pdf_is_a_file_part_with_file_data() {
    assert_eq!(
        openai(&[pdf()]).await["messages"],
        json!([{"role": "user", "content": [
            {"type": "file", "file": {
                "filename": "document-1.pdf",
                "file_data": format!("data:application/pdf;base64,{PDF_BASE64}"),
            }},
            {"type": "text", "text": "Read this invoice."},
        ]}])
    );
}

#[tokio::test]
async fn openai_several_parts_keep_their_order_and_text_alone_stays_a_string() {
    let message = Message::user("Compare them.")
        .with_document(PDF, "application/pdf")
        .with_image(PNG, "image/png")
        .with_document(PDF, "application/pdf");
    let messages = [Message::user("Hello."), Message::assistant("Hi."), message];
    let data = |media_type: &str, base64: &str| format!("data:{media_type};base64,{base64}");
    assert_eq!(
        openai(&messages).await["messages"],
        json!([
            {"role": "user", "content": "Hello."},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": [
                {"type": "file", "file": {"filename": "document-1.pdf",
                                          "file_data": data("application/pdf", PDF_BASE64)}},
                {"type": "image_url", "image_url": {"url": data("image/png", PNG_BASE64)}},
                {"type": "file", "file": {"filename": "document-2.pdf",
                                          "file_data": data("application/pdf", PDF_BASE64)}},
                {"type": "text", "text": "Compare them."},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_an_image_is_an_image_block_with_a_base64_source() {
    assert_eq!(
        anthropic(&[Message::system("Be exact."), image()]).await,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": [{"type": "text", "text": "Be exact.",
                        "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": PNG_BASE64}},
                {"type": "text", "text": "Read this receipt.",
                 "cache_control": {"type": "ephemeral"}},
            ]}],
        })
    );
}

#[tokio::test]
async fn anthropic_an_image_url_is_a_url_source() {
    let model = |server: &TestServer| -> Box<dyn ChatModel> {
        Box::new(
            Anthropic::new("sk-ant-test", "claude-test")
                .base_url(server.url("/anthropic"))
                .prompt_caching(false),
        )
    };
    let body = sent(anthropic_reply(), model, &[image_url()]).await;
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.com/receipt.jpg"}},
            {"type": "text", "text": "Read this receipt."},
        ]}])
    );
}

#[tokio::test]
async fn anthropic_a_pdf_is_a_document_block_with_a_base64_or_url_source() {
    assert_eq!(
        anthropic(&[pdf()]).await["messages"],
        json!([{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                            "data": PDF_BASE64}},
            {"type": "text", "text": "Read this invoice.", "cache_control": {"type": "ephemeral"}},
        ]}])
    );
    assert_eq!(
        anthropic(&[pdf_url()]).await["messages"],
        json!([{"role": "user", "content": [
            {"type": "document", "source": {"type": "url",
                                            "url": "https://example.com/invoice.pdf"}},
            {"type": "text", "text": "Read this invoice.", "cache_control": {"type": "ephemeral"}},
        ]}])
    );
}

#[tokio::test]
async fn anthropic_attachments_with_no_text_carry_the_cache_breakpoint_on_the_last_block() {
    let message = Message::user("").with_image(PNG, "image/png");
    assert_eq!(
        anthropic(&[message]).await["messages"],
        json!([{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": PNG_BASE64},
             "cache_control": {"type": "ephemeral"}},
        ]}])
    );
}

#[tokio::test]
async fn gemini_an_image_is_an_inline_data_part() {
    assert_eq!(
        gemini(&[Message::system("Be exact."), image()]).await,
        json!({
            "contents": [{"role": "user", "parts": [
                {"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}},
                {"text": "Read this receipt."},
            ]}],
            "systemInstruction": {"parts": [{"text": "Be exact."}]},
        })
    );
}

#[tokio::test]
async fn gemini_a_pdf_is_an_inline_data_part_and_a_url_a_file_data_part() {
    assert_eq!(
        gemini(&[pdf()]).await["contents"],
        json!([{"role": "user", "parts": [
            {"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}},
            {"text": "Read this invoice."},
        ]}])
    );
    assert_eq!(
        gemini(&[pdf_url(), Message::assistant("Done."), image_url()]).await["contents"],
        json!([
            {"role": "user", "parts": [
                {"fileData": {"mimeType": "application/pdf",
                              "fileUri": "https://example.com/invoice.pdf"}},
                {"text": "Read this invoice."},
            ]},
            {"role": "model", "parts": [{"text": "Done."}]},
            {"role": "user", "parts": [
                {"fileData": {"mimeType": "image/jpeg",
                              "fileUri": "https://example.com/receipt.jpg"}},
                {"text": "Read this receipt."},
            ]},
        ])
    );
    // An image URL whose name says no format goes without a media type.
    let unnamed = Message::user("Read it.").with_image_url("https://example.com/scan?id=7");
    assert_eq!(
        gemini(&[unnamed]).await["contents"][0]["parts"][0],
        json!({"fileData": {"fileUri": "https://example.com/scan?id=7"}})
    );
}

#[tokio::test]
async fn the_bytes_sent_are_the_bytes_given() {
    // The receipt of the example, through base64 and back, byte for byte.
    use base64::Engine as _;
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/assets/receipt.png"
    ))
    .unwrap();
    let message = Message::user("Read this receipt.").with_image(png.clone(), "image/png");
    let body = gemini(&[message]).await;
    let data = body["contents"][0]["parts"][0]["inlineData"]["data"]
        .as_str()
        .unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(decoded, png);
}
