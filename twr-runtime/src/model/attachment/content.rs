//! [`Content`]: what a message says, its text and its attachments.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Attachment, AttachmentError};
use crate::text::SharedText;

/// What a [`Message`](crate::Message) says: its text and, in a user
/// message, any images and documents ([`Attachment`]s).
///
/// It reads as its text, which it derefs to (a [`SharedText`], which derefs
/// to `str`): `m.content.as_str()`, `m.content.len()`, `&*m.content`,
/// `m.content.to_string()`. It is built from text as before
/// (`Message { role, content: "hi".into() }`), and compares equal to a
/// string when it is that text and has no attachment.
///
/// ```
/// use twr_runtime::{Message, Role};
///
/// let png = b"\x89PNG\r\n\x1a\n".to_vec();
/// let message = Message::user("Read this receipt.").with_image(png, "image/png");
/// assert_eq!(message.content.as_str(), "Read this receipt.");
/// assert_eq!(message.content.attachments().len(), 1);
/// assert_ne!(message.content, "Read this receipt."); // it has an image too
///
/// let plain = Message { role: Role::User, content: "hi".into() };
/// assert_eq!(plain.content, "hi");
/// ```
///
/// It serializes as its text alone (a client writes attachments in its
/// provider's own shape); a [`Message`](crate::Message) serializes its
/// attachments' kind, media type and size beside it.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Content {
    text: SharedText,
    attachments: Vec<Attachment>,
}

impl Content {
    /// Text with no attachment.
    pub fn new(text: impl Into<SharedText>) -> Self {
        Content {
            text: text.into(),
            attachments: Vec::new(),
        }
    }

    /// The text (shared: cloning it copies nothing).
    pub fn text(&self) -> &SharedText {
        &self.text
    }

    /// The attachments, in the order they were added.
    pub fn attachments(&self) -> &[Attachment] {
        &self.attachments
    }

    /// True when there is at least one attachment.
    pub fn has_attachments(&self) -> bool {
        !self.attachments.is_empty()
    }

    /// The same content with `attachment` added after the others.
    pub fn with_attachment(mut self, attachment: Attachment) -> Self {
        self.attachments.push(attachment);
        self
    }

    /// The same attachments with `text` instead of this text.
    pub fn with_text(self, text: impl Into<SharedText>) -> Self {
        Content {
            text: text.into(),
            attachments: self.attachments,
        }
    }

    /// The text, and the attachments.
    pub fn into_parts(self) -> (SharedText, Vec<Attachment>) {
        (self.text, self.attachments)
    }

    /// [`Attachment::check`] for each attachment, in order: the first
    /// problem.
    pub fn check_attachments(&self) -> Result<(), AttachmentError> {
        self.attachments.iter().try_for_each(Attachment::check)
    }
}

impl Deref for Content {
    type Target = SharedText;
    fn deref(&self) -> &SharedText {
        &self.text
    }
}

impl AsRef<str> for Content {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Content {
    /// The text (attachments are not text).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.text, f)
    }
}

impl fmt::Debug for Content {
    /// The text, as a string, when there is no attachment (so a message
    /// prints as it always did); else the text and each attachment's kind,
    /// media type and size, never its bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.attachments.is_empty() {
            return fmt::Debug::fmt(&self.text, f);
        }
        f.debug_struct("Content")
            .field("text", &self.text)
            .field("attachments", &self.attachments)
            .finish()
    }
}

impl Serialize for Content {
    /// The text, as a string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Content {
    /// Text (attachments are not read back: a ledger keeps only their
    /// kind, media type and size).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        SharedText::deserialize(deserializer).map(Content::new)
    }
}

/// Text becomes content with no attachment; one impl per type that
/// `SharedText` is made from (a blanket impl over `Into<SharedText>` would
/// also catch `Content` itself).
macro_rules! content_from_text {
    ($($text:ty),+ $(,)?) => {$(
        impl From<$text> for Content {
            fn from(text: $text) -> Self {
                Content::new(text)
            }
        }
    )+};
}

content_from_text!(
    String,
    &str,
    &String,
    Cow<'_, str>,
    Box<str>,
    SharedText,
    &SharedText
);

impl From<Content> for String {
    /// The text (moved out when this was its only holder); the
    /// attachments are dropped.
    fn from(content: Content) -> Self {
        content.text.into()
    }
}

impl PartialEq<str> for Content {
    /// True when this is exactly `other`: that text and no attachment.
    fn eq(&self, other: &str) -> bool {
        self.attachments.is_empty() && self.text == *other
    }
}

impl PartialEq<&str> for Content {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Content {
    fn eq(&self, other: &String) -> bool {
        *self == *other.as_str()
    }
}

impl PartialEq<SharedText> for Content {
    fn eq(&self, other: &SharedText) -> bool {
        *self == *other.as_str()
    }
}

impl PartialEq<Content> for str {
    fn eq(&self, other: &Content) -> bool {
        *other == *self
    }
}

impl PartialEq<Content> for &str {
    fn eq(&self, other: &Content) -> bool {
        *other == **self
    }
}

impl PartialEq<Content> for String {
    fn eq(&self, other: &Content) -> bool {
        *other == *self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_compares_and_prints_as_its_text_when_it_has_no_attachment() {
        let content = Content::from("hi");
        assert_eq!(content, "hi");
        assert_eq!("hi", content);
        assert_eq!(content, String::from("hi"));
        assert_eq!(content.len(), 2);
        assert_eq!(format!("{content:?}"), "\"hi\"");
        assert_eq!(content.to_string(), "hi");
        assert_eq!(serde_json::to_string(&content).unwrap(), "\"hi\"");
        let read: Content = serde_json::from_str("\"hi\"").unwrap();
        assert_eq!(read, content);
    }

    #[test]
    fn with_an_attachment_it_is_more_than_its_text() {
        let content =
            Content::from("Read it.").with_attachment(Attachment::image(vec![0u8; 3], "image/png"));
        assert_ne!(content, "Read it.");
        assert_eq!(content.text(), "Read it.");
        assert_eq!(
            format!("{content:?}"),
            r#"Content { text: "Read it.", attachments: [Attachment { kind: Image, media_type: "image/png", bytes: 3 }] }"#
        );
        let swapped = content.clone().with_text("Read it, please.");
        assert_eq!(swapped.attachments(), content.attachments());
        assert_eq!(String::from(swapped), "Read it, please.");
    }
}
