//! [`RequestKey`]: the identity of a request, for the journal and the cache.

use std::fmt;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::grammar::{Format, Rendering};
use crate::model::{Message, Request};
use crate::sections::{SectionSpec, WaysSpec};

/// The options that make a request's key (a model's
/// [`request_options`](crate::ChatModel::request_options)), with what the
/// request itself adds: the grammar it carries, if any (a constrained
/// request is another request), in the rendering the model sends
/// ([`takes_grammar`](crate::ChatModel::takes_grammar)), GBNF for a model
/// that takes none; and which sample it asks for, past the first
/// ([`Request::sample`](crate::model::Request::sample)): each sample is a
/// reply of its own. A request with neither has the key it always had.
pub(crate) fn options_of(
    options: Option<Value>,
    request: &Request<'_>,
    format: Option<Format>,
) -> Option<Value> {
    let options = match request.grammar() {
        None => options,
        Some(grammar) => {
            let rendered = match grammar.render(format.unwrap_or(Format::Gbnf)) {
                Rendering::Gbnf(text) | Rendering::Lark(text) => Value::String(text),
                Rendering::JsonSchema(schema) => schema,
            };
            Some(serde_json::json!({"options": options, "grammar": rendered}))
        }
    };
    match request.sample() {
        0 => options,
        sample => Some(serde_json::json!({"options": options, "sample": sample})),
    }
}

/// The SHA-256 of an exact request: the model's name, its request options
/// and every message (role, text, and each attachment's kind, media type
/// and bytes, or URL). Two requests have the same key exactly when a model
/// would be asked the same thing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestKey([u8; 32]);

impl RequestKey {
    /// The key of asking `model` (its [`name()`](crate::ChatModel::name))
    /// with `options` (its [`request_options()`](crate::ChatModel::request_options))
    /// for a reply to `messages`.
    pub fn new(model: &str, options: Option<&Value>, messages: &[Message]) -> Self {
        let mut hash = Sha256::new();
        // Each part is length-prefixed, so no two requests hash the same
        // bytes ("ab" + "c" is not "a" + "bc").
        let mut part = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        part(b"twr request 1");
        part(model.as_bytes());
        match options {
            Some(options) => part(options.to_string().as_bytes()),
            None => part(b""),
        }
        for message in messages {
            part(message.role.to_string().as_bytes());
            part(message.content.as_bytes());
            // After a message's text comes a role or, for each attachment,
            // this marker (never a role), so a message of text alone has
            // the key it had before attachments existed.
            for attachment in message.attachments() {
                part(b"attachment");
                part(attachment.kind().as_str().as_bytes());
                match (attachment.data(), attachment.url()) {
                    (Some(data), _) => {
                        part(attachment.media_type().unwrap_or_default().as_bytes());
                        part(data);
                    }
                    (None, url) => {
                        part(b"url");
                        part(url.unwrap_or_default().as_bytes());
                    }
                }
            }
        }
        RequestKey(hash.finalize().into())
    }

    /// The 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key in hexadecimal.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The identity of a `Sections` type for its typed runs: the SHA-256, in
/// hexadecimal, of each section's field, header and kind of value, and of
/// each enum's ways. Types that ask for the same sections, with the same
/// kinds, share their typed runs: an answer to one is an answer to the
/// other. A type's name is not used: it changes when code moves between
/// modules, and the same name may mean another type in another program.
pub(crate) fn shape_of(specs: &[SectionSpec], ways: &[WaysSpec]) -> String {
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(b"twr shape 1");
    for spec in specs {
        part(spec.field.as_bytes());
        part(spec.header.as_bytes());
        part(format!("{:?}", spec.kind).as_bytes());
    }
    for enum_ways in ways {
        // The tag is hashed into the shapes journals already hold, so it
        // keeps the word these specs had when it was chosen: a new tag would
        // orphan every typed run recorded of a type with ways.
        part(b"choice");
        part(enum_ways.name.as_bytes());
        part(&(enum_ways.start as u64).to_le_bytes());
        for variant in enum_ways.ways {
            part(variant.name.as_bytes());
            part(&(variant.len as u64).to_le_bytes());
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl fmt::Debug for RequestKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RequestKey({})", self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_part_of_the_request_changes_the_key() {
        let messages = [Message::system("Be brief."), Message::user("Hi")];
        let key = RequestKey::new("m", None, &messages);
        assert_eq!(key, RequestKey::new("m", None, &messages));
        assert_ne!(key, RequestKey::new("m2", None, &messages));
        let options = json!({"temperature": 0.0});
        assert_ne!(key, RequestKey::new("m", Some(&options), &messages));
        assert_ne!(key, RequestKey::new("m", None, &messages[1..]));
        let moved = [Message::system("Be brief.H"), Message::user("i")];
        assert_ne!(key, RequestKey::new("m", None, &moved));
        let role = [Message::system("Be brief."), Message::assistant("Hi")];
        assert_ne!(key, RequestKey::new("m", None, &role));
        assert_eq!(key.to_hex().len(), 64);
    }

    #[test]
    fn attachments_change_the_key_and_text_alone_keeps_its_old_one() {
        // The key of these two messages before attachments existed.
        let text_alone = [Message::system("Be brief."), Message::user("Hi")];
        assert_eq!(
            RequestKey::new("m", None, &text_alone).to_hex(),
            "bdc4ffd9c328589d11e7be4a92b8d4a528efd40d3e6405360631ea396f99bf16"
        );
        let with = |attachment: crate::model::Attachment| {
            let user = Message::user("Hi").with_attachment(attachment);
            RequestKey::new("m", None, &[Message::system("Be brief."), user])
        };
        let png = || crate::model::Attachment::image(b"\x89PNG\r\n\x1a\n1".to_vec(), "image/png");
        let key = with(png());
        assert_ne!(key, RequestKey::new("m", None, &text_alone));
        assert_eq!(key, with(png()));
        let other_bytes =
            crate::model::Attachment::image(b"\x89PNG\r\n\x1a\n2".to_vec(), "image/png");
        assert_ne!(key, with(other_bytes));
        let other_type =
            crate::model::Attachment::document(b"\x89PNG\r\n\x1a\n1".to_vec(), "image/png");
        assert_ne!(key, with(other_type));
        let url = |u: &str| with(crate::model::Attachment::image_url(u));
        assert_ne!(
            url("https://a.example/1.png"),
            url("https://a.example/2.png")
        );
    }
}
