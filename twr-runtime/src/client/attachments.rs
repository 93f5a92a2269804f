//! [`AttachmentRules`]: which attachments a provider takes, checked before
//! anything is sent.

use serde_json::{Map, Value};

use crate::model::{Attachment, AttachmentError, AttachmentKind, LimitScope};
use crate::model::{Message, Role};

/// A JSON object of `fields`, their values moved in. For the parts of a
/// request body that hold an attachment's base64 (or hold parts that do):
/// `json!` serializes what it is given, so it would copy them, and a body
/// built of copies holds the base64 twice at its peak.
pub(crate) fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut object = Map::new();
    for (name, value) in fields {
        object.insert(name.to_string(), value);
    }
    Value::Object(object)
}

/// A mebibyte, the unit providers state their limits in.
pub(crate) const MIB: usize = 1024 * 1024;

/// A size limit of a provider: so many bytes, counted as the bytes
/// themselves or as the base64 text sent (4 characters for every 3 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeLimit {
    bytes: usize,
    base64: bool,
}

impl SizeLimit {
    /// At most `bytes` bytes.
    pub const fn bytes(bytes: usize) -> Self {
        SizeLimit {
            bytes,
            base64: false,
        }
    }

    /// At most `bytes` bytes of base64 text, as some providers count
    /// (Anthropic's 5 MiB per image is 3.75 MiB of image).
    pub const fn base64(bytes: usize) -> Self {
        SizeLimit {
            bytes,
            base64: true,
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.bytes
    }

    /// True when the limit counts the base64 text.
    pub fn counts_base64(&self) -> bool {
        self.base64
    }

    /// `raw` bytes as this limit counts them.
    fn measure(&self, raw: usize) -> usize {
        if self.base64 {
            raw.div_ceil(3).saturating_mul(4)
        } else {
            raw
        }
    }
}

/// Which images and documents an API takes, as its documentation says:
/// the media types of each kind, whether it fetches URLs, and its size
/// limits. [`HttpModel`](super::HttpModel) checks every request against
/// its provider's rules ([`Provider::attachment_rules`](super::Provider::attachment_rules))
/// before anything is sent, so a server never sees an attachment it would
/// refuse, and the error says why.
///
/// Built from [`AttachmentRules::new`], which takes nothing, with the
/// `const` builder methods:
///
/// ```
/// use twr_runtime::client::{AttachmentRules, SizeLimit};
///
/// const RULES: AttachmentRules = AttachmentRules::new("Cohere")
///     .images(&["image/png", "image/jpeg"])
///     .image_urls(true)
///     .max_image(SizeLimit::bytes(20 * 1024 * 1024));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AttachmentRules {
    provider: &'static str,
    images: KindRules,
    documents: KindRules,
    request: Option<SizeLimit>,
}

/// The rules of one kind of attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct KindRules {
    media_types: &'static [&'static str],
    urls: bool,
    each: Option<SizeLimit>,
    total: Option<SizeLimit>,
}

impl KindRules {
    const NONE: KindRules = KindRules {
        media_types: &[],
        urls: false,
        each: None,
        total: None,
    };
}

impl AttachmentRules {
    /// The rules of a provider that takes no attachment; `provider` is its
    /// name in errors, as people call it (`"Anthropic"`).
    pub const fn new(provider: &'static str) -> Self {
        AttachmentRules {
            provider,
            images: KindRules::NONE,
            documents: KindRules::NONE,
            request: None,
        }
    }

    /// Takes images of these media types (lower case).
    pub const fn images(mut self, media_types: &'static [&'static str]) -> Self {
        self.images.media_types = media_types;
        self
    }

    /// Takes documents of these media types (lower case).
    pub const fn documents(mut self, media_types: &'static [&'static str]) -> Self {
        self.documents.media_types = media_types;
        self
    }

    /// Whether it fetches an image from a URL.
    pub const fn image_urls(mut self, takes: bool) -> Self {
        self.images.urls = takes;
        self
    }

    /// Whether it fetches a document from a URL.
    pub const fn document_urls(mut self, takes: bool) -> Self {
        self.documents.urls = takes;
        self
    }

    /// The most one image may have.
    pub const fn max_image(mut self, limit: SizeLimit) -> Self {
        self.images.each = Some(limit);
        self
    }

    /// The most the images of one request may have together.
    pub const fn max_images_per_request(mut self, limit: SizeLimit) -> Self {
        self.images.total = Some(limit);
        self
    }

    /// The most one document may have.
    pub const fn max_document(mut self, limit: SizeLimit) -> Self {
        self.documents.each = Some(limit);
        self
    }

    /// The most the documents of one request may have together.
    pub const fn max_documents_per_request(mut self, limit: SizeLimit) -> Self {
        self.documents.total = Some(limit);
        self
    }

    /// The most the attachments of one request may have together.
    pub const fn max_request(mut self, limit: SizeLimit) -> Self {
        self.request = Some(limit);
        self
    }

    /// The provider's name in errors.
    pub fn provider(&self) -> &'static str {
        self.provider
    }

    fn of(&self, kind: AttachmentKind) -> &KindRules {
        match kind {
            AttachmentKind::Image => &self.images,
            AttachmentKind::Document => &self.documents,
        }
    }

    /// Checks every attachment of `messages`: only user messages carry
    /// them, each passes [`Attachment::check`] (its bytes are what its
    /// media type says, ...), is of a media type this provider takes, is a
    /// URL only where it fetches URLs, and is within its limits, alone and
    /// with the others of the request. The first problem, in message order.
    pub fn check(&self, messages: &[Message]) -> Result<(), AttachmentError> {
        let mut kind_totals = [0usize; 2];
        let mut request_total = 0usize;
        for message in messages {
            let attachments = message.content.attachments();
            if attachments.is_empty() {
                continue;
            }
            if message.role != Role::User {
                return Err(AttachmentError::NotFromUser { role: message.role });
            }
            for attachment in attachments {
                attachment.check()?;
                let size = self.check_one(attachment)?;
                let slot = match attachment.kind() {
                    AttachmentKind::Image => 0,
                    AttachmentKind::Document => 1,
                };
                kind_totals[slot] = kind_totals[slot].saturating_add(size);
                request_total = request_total.saturating_add(size);
            }
        }
        for (kind, total) in [AttachmentKind::Image, AttachmentKind::Document]
            .into_iter()
            .zip(kind_totals)
        {
            if let Some(limit) = self.of(kind).total {
                self.within(limit, total, LimitScope::AllOfKind(kind))?;
            }
        }
        if let Some(limit) = self.request {
            self.within(limit, request_total, LimitScope::Request)?;
        }
        Ok(())
    }

    /// Checks one attachment against the rules of its kind; its size in
    /// bytes (zero for a URL).
    fn check_one(&self, attachment: &Attachment) -> Result<usize, AttachmentError> {
        let kind = attachment.kind();
        let rules = self.of(kind);
        let Some(data) = attachment.data() else {
            return if rules.urls {
                Ok(0)
            } else {
                Err(AttachmentError::NoUrls {
                    provider: self.provider,
                    kind,
                })
            };
        };
        let media_type = attachment.media_type().unwrap_or_default();
        if !rules.media_types.contains(&media_type) {
            return Err(AttachmentError::Unsupported {
                provider: self.provider,
                kind,
                media_type: media_type.to_string(),
                accepted: rules.media_types,
            });
        }
        if let Some(limit) = rules.each {
            let scope = LimitScope::Each {
                kind,
                media_type: media_type.to_string(),
            };
            self.within(limit, data.len(), scope)?;
        }
        Ok(data.len())
    }

    fn within(
        &self,
        limit: SizeLimit,
        raw: usize,
        scope: LimitScope,
    ) -> Result<(), AttachmentError> {
        let size = limit.measure(raw);
        if size <= limit.bytes {
            return Ok(());
        }
        Err(AttachmentError::TooLarge {
            provider: self.provider,
            scope,
            size,
            limit: limit.bytes,
            base64: limit.base64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::anthropic::ATTACHMENTS as ANTHROPIC;
    use crate::client::gemini::ATTACHMENTS as GEMINI;
    use crate::client::openai::ATTACHMENTS as OPENAI;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn png_of(size: usize) -> Vec<u8> {
        let mut bytes = PNG.to_vec();
        bytes.resize(size, 0);
        bytes
    }

    #[test]
    fn a_limit_counts_what_the_provider_counts() {
        assert_eq!(SizeLimit::bytes(10).measure(10), 10);
        assert_eq!(SizeLimit::base64(10).measure(3), 4);
        assert_eq!(SizeLimit::base64(10).measure(4), 8);
        // Anthropic: 3 MiB + 3/4 MiB of image is exactly 5 MiB of base64.
        let at_limit = 5 * MIB / 4 * 3;
        let one = |size| vec![Message::user("x").with_image(png_of(size), "image/png")];
        assert_eq!(ANTHROPIC.check(&one(at_limit)), Ok(()));
        assert_eq!(
            ANTHROPIC.check(&one(at_limit + 1)),
            Err(AttachmentError::TooLarge {
                provider: "Anthropic",
                scope: LimitScope::Each {
                    kind: AttachmentKind::Image,
                    media_type: "image/png".into()
                },
                size: 5 * MIB + 4,
                limit: 5 * MIB,
                base64: true,
            })
        );
    }

    #[test]
    fn totals_count_every_attachment_of_the_request() {
        let image = || png_of(15 * MIB);
        let messages = [
            Message::user("a").with_image(image(), "image/png"),
            Message::assistant("ok"),
            Message::user("b")
                .with_image(image(), "image/png")
                .with_image(image(), "image/png")
                .with_image(image(), "image/png"),
        ];
        assert_eq!(
            OPENAI.check(&messages),
            Err(AttachmentError::TooLarge {
                provider: "the OpenAI-compatible API",
                scope: LimitScope::AllOfKind(AttachmentKind::Image),
                size: 60 * MIB,
                limit: 50 * MIB,
                base64: false,
            })
        );
        assert_eq!(OPENAI.check(&messages[..2]), Ok(()));
    }

    #[test]
    fn kinds_media_types_urls_and_roles() {
        let gif = b"GIF89a\x01\0\x01\0".to_vec();
        let gif_message = [Message::user("x").with_image(gif, "image/gif")];
        assert_eq!(OPENAI.check(&gif_message), Ok(()));
        assert!(matches!(
            GEMINI.check(&gif_message),
            Err(AttachmentError::Unsupported {
                provider: "Gemini",
                ..
            })
        ));
        let pdf_url = [Message::user("x").with_document_url("https://example.com/a.pdf")];
        assert_eq!(ANTHROPIC.check(&pdf_url), Ok(()));
        assert_eq!(GEMINI.check(&pdf_url), Ok(()));
        assert_eq!(
            OPENAI.check(&pdf_url),
            Err(AttachmentError::NoUrls {
                provider: "the OpenAI-compatible API",
                kind: AttachmentKind::Document,
            })
        );
        let none = AttachmentRules::new("cohere");
        assert!(matches!(
            none.check(&gif_message),
            Err(AttachmentError::Unsupported { accepted: [], .. })
        ));
        assert_eq!(none.check(&[Message::user("plain text")]), Ok(()));
        let from_system = [Message::system("x").with_image(png_of(20), "image/png")];
        assert_eq!(
            OPENAI.check(&from_system),
            Err(AttachmentError::NotFromUser { role: Role::System })
        );
        // The bytes are checked before the provider's list.
        let lying = [Message::user("x").with_image(b"GIF89a".to_vec(), "image/heic")];
        assert!(matches!(
            GEMINI.check(&lying),
            Err(AttachmentError::NotWhatItSays { .. })
        ));
    }
}
