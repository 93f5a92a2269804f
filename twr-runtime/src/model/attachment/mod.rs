//! Images and documents in a message: [`Attachment`], the [`Content`] of a
//! message (its text and its attachments), and [`AttachmentError`].
//!
//! An attachment's bytes are a [`bytes::Bytes`]: every copy of a message
//! (the retry conversation, each request, the transcript, what a
//! [`ScriptedModel`](crate::ScriptedModel) records) shares the one buffer.
//! Only the request body a client writes holds them again, base64-encoded,
//! for as long as that request is being sent.
//!
//! Nothing prints the bytes: `Debug`, errors, tracing and the serialized
//! ledger show an attachment's kind, media type and size (and a URL
//! without its query, which may hold a signature).

mod content;
mod error;
pub(crate) mod media;

use std::fmt;

use bytes::Bytes;
use serde::ser::{Serialize, SerializeStruct, Serializer};

pub use content::Content;
pub use error::{AttachmentError, LimitScope};

/// What an attachment is to the model: an image to look at, or a
/// document to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttachmentKind {
    /// An image ([`Message::with_image`](crate::Message::with_image)).
    Image,
    /// A document, such as a PDF
    /// ([`Message::with_document`](crate::Message::with_document)).
    Document,
}

impl AttachmentKind {
    /// `"image"` or `"document"`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttachmentKind::Image => "image",
            AttachmentKind::Document => "document",
        }
    }

    pub(crate) fn singular(self) -> &'static str {
        self.as_str()
    }

    pub(crate) fn plural(self) -> &'static str {
        match self {
            AttachmentKind::Image => "images",
            AttachmentKind::Document => "documents",
        }
    }
}

impl fmt::Display for AttachmentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An image or a document sent with a message: its bytes and media type,
/// or a URL the provider fetches.
///
/// Made by [`Message::with_image`](crate::Message::with_image),
/// [`with_image_url`](crate::Message::with_image_url),
/// [`with_document`](crate::Message::with_document) and
/// [`with_document_url`](crate::Message::with_document_url), or by the
/// constructors here and [`Message::with_attachment`](crate::Message::with_attachment).
/// Building one never fails; what is wrong with it (bytes that are not
/// what the media type says, a media type or a size the provider does not
/// take, a URL that is not one) is an [`AttachmentError`] before anything is
/// sent.
///
/// Cloning one copies no bytes. `Debug` shows the kind, media type and
/// size, never the bytes:
///
/// ```
/// use twr_runtime::model::{Attachment, AttachmentKind};
///
/// let png = b"\x89PNG\r\n\x1a\n...".to_vec();
/// let image = Attachment::image(png, "image/png");
/// assert_eq!(image.kind(), AttachmentKind::Image);
/// assert_eq!(image.media_type(), Some("image/png"));
/// assert_eq!(image.size(), Some(11));
/// assert_eq!(format!("{image:?}"), r#"Attachment { kind: Image, media_type: "image/png", bytes: 11 }"#);
///
/// let url = Attachment::image_url("https://example.com/r.jpg?X-Amz-Signature=abc");
/// assert_eq!(format!("{url:?}"), r#"Attachment { kind: Image, url: "https://example.com/r.jpg?[redacted]" }"#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Attachment {
    kind: AttachmentKind,
    source: Source,
}

/// Where an attachment's content is.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Source {
    /// The bytes themselves, with their media type (normalized).
    Inline { data: Bytes, media_type: Box<str> },
    /// A URL the provider fetches.
    Url(Box<str>),
}

impl Attachment {
    /// An image: its bytes (a `Vec<u8>`, a `&'static [u8]`, a
    /// [`Bytes`], ... moved, never copied) and its media type
    /// (`"image/png"`, `"image/jpeg"`, `"image/gif"`, `"image/webp"`, ...).
    pub fn image(data: impl Into<Bytes>, media_type: &str) -> Self {
        Attachment::from_bytes(AttachmentKind::Image, data.into(), media_type)
    }

    /// An image the provider fetches from `url` (`http` or `https`); twr
    /// never downloads it.
    pub fn image_url(url: impl Into<String>) -> Self {
        Attachment::from_url(AttachmentKind::Image, url.into())
    }

    /// A document: its bytes and its media type (`"application/pdf"`).
    pub fn document(data: impl Into<Bytes>, media_type: &str) -> Self {
        Attachment::from_bytes(AttachmentKind::Document, data.into(), media_type)
    }

    /// A document the provider fetches from `url` (`http` or `https`);
    /// twr never downloads it.
    pub fn document_url(url: impl Into<String>) -> Self {
        Attachment::from_url(AttachmentKind::Document, url.into())
    }

    fn from_bytes(kind: AttachmentKind, data: Bytes, media_type: &str) -> Self {
        let media_type = media::normalize(media_type);
        Attachment {
            kind,
            source: Source::Inline { data, media_type },
        }
    }

    fn from_url(kind: AttachmentKind, url: String) -> Self {
        Attachment {
            kind,
            source: Source::Url(url.trim().into()),
        }
    }

    /// An image or a document.
    pub fn kind(&self) -> AttachmentKind {
        self.kind
    }

    /// The media type, trimmed and lower-cased; `None` for a URL.
    pub fn media_type(&self) -> Option<&str> {
        match &self.source {
            Source::Inline { media_type, .. } => Some(media_type),
            Source::Url(_) => None,
        }
    }

    /// The bytes; `None` for a URL. A clone of the returned [`Bytes`]
    /// shares them.
    pub fn data(&self) -> Option<&Bytes> {
        match &self.source {
            Source::Inline { data, .. } => Some(data),
            Source::Url(_) => None,
        }
    }

    /// The URL the provider fetches; `None` for bytes.
    pub fn url(&self) -> Option<&str> {
        match &self.source {
            Source::Inline { .. } => None,
            Source::Url(url) => Some(url),
        }
    }

    /// The number of bytes; `None` for a URL.
    pub fn size(&self) -> Option<usize> {
        self.data().map(Bytes::len)
    }

    /// The bytes in standard base64, as the providers take them (a new
    /// string at each call: a client writes it into one request body);
    /// `None` for a URL.
    pub fn to_base64(&self) -> Option<String> {
        use base64::Engine as _;
        self.data()
            .map(|data| base64::engine::general_purpose::STANDARD.encode(data))
    }

    /// The bytes as a `data:` URL (`data:image/png;base64,...`), as the
    /// OpenAI-compatible API takes them; `None` for a URL.
    pub fn to_data_url(&self) -> Option<String> {
        use base64::Engine as _;
        let (media_type, data) = (self.media_type()?, self.data()?);
        // Encoded in place, after the prefix: one buffer of the final size,
        // not the base64 and then a copy of it.
        let mut url = String::with_capacity(13 + media_type.len() + data.len().div_ceil(3) * 4);
        url.push_str("data:");
        url.push_str(media_type);
        url.push_str(";base64,");
        base64::engine::general_purpose::STANDARD.encode_string(data, &mut url);
        Some(url)
    }

    /// Checks what can be known without a provider: the media type is
    /// written as one and is of the attachment's kind, the bytes are there
    /// and are what the media type says (for PNG, JPEG, GIF, WebP,
    /// HEIC/HEIF and PDF, by their signature), a URL is an `http` or
    /// `https` one.
    pub fn check(&self) -> Result<(), AttachmentError> {
        match &self.source {
            Source::Inline { data, media_type } => {
                media::check_form(media_type)?;
                let is_image = media_type.starts_with("image/");
                if is_image != (self.kind == AttachmentKind::Image) {
                    return Err(AttachmentError::WrongKind {
                        kind: self.kind,
                        media_type: media_type.to_string(),
                    });
                }
                media::check_bytes(media_type, data)
            }
            Source::Url(url) => check_url(url),
        }
    }

    /// The URL as it may be shown: without a password and without its
    /// query or fragment (a signed URL's signature is a credential).
    pub(crate) fn shown_url(url: &str) -> String {
        let cut = url.find(['?', '#']);
        let (base, rest) = cut.map_or((url, ""), |at| url.split_at(at));
        let base = match base.split_once("://") {
            Some((scheme, tail)) => {
                let host_end = tail.find('/').unwrap_or(tail.len());
                match tail[..host_end].rfind('@') {
                    Some(at) => format!("{scheme}://[redacted]{}", &tail[at..]),
                    None => base.to_string(),
                }
            }
            None => base.to_string(),
        };
        if rest.is_empty() {
            base
        } else {
            format!("{base}{}[redacted]", &rest[..1])
        }
    }
}

/// Checks that `url` is an absolute `http` or `https` URL with a host and
/// no white space.
fn check_url(url: &str) -> Result<(), AttachmentError> {
    let fail = |reason| {
        Err(AttachmentError::Url {
            url: Attachment::shown_url(url),
            reason,
        })
    };
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("data:") {
        return fail("is a data: URL, which carries the bytes themselves");
    }
    let Some(rest) = ["https://", "http://"]
        .iter()
        .find(|scheme| lower.starts_with(**scheme))
        .map(|scheme| &url[scheme.len()..])
    else {
        return fail("is not an http or https URL");
    };
    if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
        return fail("has no host");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail("has white space or a control character in it");
    }
    Ok(())
}

/// Attachments as a tracing field shows them: `image/png 1238 bytes,
/// image URL, application/pdf 5120 bytes`.
pub(crate) struct Summary<'a>(pub(crate) &'a [Attachment]);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, attachment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match &attachment.source {
                Source::Inline { data, media_type } => {
                    write!(f, "{media_type} {} bytes", data.len())?
                }
                Source::Url(_) => write!(f, "{} URL", attachment.kind)?,
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Attachment");
        out.field("kind", &self.kind);
        match &self.source {
            Source::Inline { data, media_type } => out
                .field("media_type", media_type)
                .field("bytes", &data.len()),
            Source::Url(url) => out.field("url", &Attachment::shown_url(url)),
        };
        out.finish()
    }
}

impl Serialize for Attachment {
    /// `{kind, media_type, bytes}` for bytes (their size, never them),
    /// `{kind, url}` for a URL (without its query): what the ledger shows.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Attachment", 3)?;
        s.serialize_field("kind", self.kind.as_str())?;
        match &self.source {
            Source::Inline { data, media_type } => {
                s.serialize_field("media_type", &**media_type)?;
                s.serialize_field("bytes", &data.len())?;
            }
            Source::Url(url) => {
                s.serialize_field("url", &Attachment::shown_url(url))?;
                s.skip_field("bytes")?;
            }
        }
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn checks_kind_media_type_bytes_and_url() {
        assert_eq!(Attachment::image(PNG, "Image/PNG").check(), Ok(()));
        assert_eq!(
            Attachment::document(PNG, "image/png").check(),
            Err(AttachmentError::WrongKind {
                kind: AttachmentKind::Document,
                media_type: "image/png".into()
            })
        );
        assert_eq!(
            Attachment::image(b"%PDF-1.4".as_slice(), "application/pdf").check(),
            Err(AttachmentError::WrongKind {
                kind: AttachmentKind::Image,
                media_type: "application/pdf".into()
            })
        );
        assert!(matches!(
            Attachment::image(PNG, "image/jpg").check(),
            Err(AttachmentError::MediaType { .. })
        ));
        assert_eq!(
            Attachment::image_url("https://example.com/r.png").check(),
            Ok(())
        );
        assert_eq!(
            Attachment::document_url(" HTTP://example.com/r.pdf ").check(),
            Ok(())
        );
        let url_error = |url: &str| match Attachment::image_url(url).check() {
            Err(AttachmentError::Url { url, reason }) => format!("{url} {reason}"),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            url_error("file:///etc/passwd"),
            "file:///etc/passwd is not an http or https URL"
        );
        assert_eq!(
            url_error("data:image/png;base64,iVBOR"),
            "data:image/png;base64,iVBOR is a data: URL, which carries the bytes themselves"
        );
        assert_eq!(url_error("https://"), "https:// has no host");
        assert_eq!(
            url_error("https://example.com/a b.png"),
            "https://example.com/a b.png has white space or a control character in it"
        );
        assert_eq!(
            url_error("receipt.png"),
            "receipt.png is not an http or https URL"
        );
    }

    #[test]
    fn urls_are_shown_without_passwords_or_queries() {
        let shown = Attachment::shown_url;
        assert_eq!(
            shown("https://example.com/r.jpg"),
            "https://example.com/r.jpg"
        );
        assert_eq!(
            shown("https://u:pw@example.com/r.jpg?sig=1#x"),
            "https://[redacted]@example.com/r.jpg?[redacted]"
        );
        assert_eq!(
            shown("https://example.com/#frag"),
            "https://example.com/#[redacted]"
        );
        assert_eq!(shown("weird"), "weird");
    }

    #[test]
    fn data_urls_and_base64_are_made_on_demand() {
        let image = Attachment::image(b"\x89PNG".as_slice(), "image/png");
        assert_eq!(image.to_base64().as_deref(), Some("iVBORw=="));
        assert_eq!(
            image.to_data_url().as_deref(),
            Some("data:image/png;base64,iVBORw==")
        );
        let url = Attachment::image_url("https://example.com/r.png");
        assert_eq!(url.to_base64(), None);
        assert_eq!(url.media_type(), None);
        assert_eq!(url.url(), Some("https://example.com/r.png"));
    }

    #[test]
    fn clones_share_the_bytes() {
        let image = Attachment::image(vec![7u8; 1000], "image/png");
        let copy = image.clone();
        assert_eq!(
            image.data().unwrap().as_ptr(),
            copy.data().unwrap().as_ptr()
        );
    }
}
