//! [`AttachmentError`]: an attachment that cannot be sent, found before
//! anything is.

use std::fmt;

use super::AttachmentKind;
use crate::model::message::Role;

/// Why an attachment cannot be sent: found before any request, so a server
/// never sees it. It names the media type or the limit, never the bytes.
///
/// A run of [`Think`](crate::Think) ends with it at once (in
/// [`ModelError::Attachment`](crate::ModelError::Attachment), as
/// [`ThinkErrorKind::Model`](crate::ThinkErrorKind::Model)): asking again
/// sends the same attachment.
///
/// ```
/// use twr_runtime::model::AttachmentError;
/// use twr_runtime::Message;
///
/// let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0".to_vec();
/// let message = Message::user("Read this receipt.").with_image(jpeg, "image/png");
/// let error = message.check_attachments().unwrap_err();
/// assert!(matches!(error, AttachmentError::NotWhatItSays { .. }));
/// assert_eq!(
///     error.to_string(),
///     "the attachment says it is image/png, but its bytes are a JPEG image (image/jpeg): \
///      give the media type of the bytes"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttachmentError {
    /// The bytes are not what the media type says: their signature (the
    /// first bytes of a PNG, JPEG, GIF, WebP, HEIC/HEIF or PDF file) is
    /// another format's, or none.
    NotWhatItSays {
        /// The media type given.
        media_type: String,
        /// The media type the bytes' signature belongs to, when it is one
        /// of the formats checked.
        found: Option<&'static str>,
    },
    /// What was given is not written as a media type (`type/subtype`), or
    /// is a known misspelling of one (`image/jpg`).
    MediaType {
        /// What was given, trimmed and lower-cased.
        given: String,
        /// The media type probably meant.
        suggestion: Option<&'static str>,
    },
    /// [`with_image`](crate::Message::with_image) was given a media type
    /// that is not an image's, or
    /// [`with_document`](crate::Message::with_document) an image's.
    WrongKind {
        /// What the attachment was added as.
        kind: AttachmentKind,
        /// The media type given.
        media_type: String,
    },
    /// The attachment has no bytes.
    Empty {
        /// The media type given.
        media_type: String,
    },
    /// A URL that is not an `http` or `https` one. twr sends a URL to the
    /// provider as it is and never fetches it.
    Url {
        /// The URL, with any password and query left out.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An attachment in a system or assistant message: the providers take
    /// them only in what the user says.
    NotFromUser {
        /// The role of the message that carries it.
        role: Role,
    },
    /// The provider does not take this media type (or no attachment of
    /// this kind at all, when `accepted` is empty).
    Unsupported {
        /// The provider, as people call it (`"Anthropic"`).
        provider: &'static str,
        /// What the attachment is.
        kind: AttachmentKind,
        /// The media type given.
        media_type: String,
        /// The media types of this kind it takes.
        accepted: &'static [&'static str],
    },
    /// The provider takes no URL for this kind of attachment: send the
    /// bytes instead (twr never downloads a URL itself).
    NoUrls {
        /// The provider, as people call it.
        provider: &'static str,
        /// What the attachment is.
        kind: AttachmentKind,
    },
    /// Over one of the provider's documented size limits.
    TooLarge {
        /// The provider, as people call it.
        provider: &'static str,
        /// What the limit counts: one attachment, all of a kind in a
        /// request, or all of a request's attachments.
        scope: LimitScope,
        /// The size counted, in bytes (encoded when `base64` is true).
        size: usize,
        /// The limit, in bytes.
        limit: usize,
        /// True when the provider counts the base64 text sent, not the
        /// bytes themselves (4 characters for every 3 bytes).
        base64: bool,
    },
}

/// What a size limit of a provider counts ([`AttachmentError::TooLarge`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitScope {
    /// One attachment of this kind and media type.
    Each {
        /// What the attachment is.
        kind: AttachmentKind,
        /// Its media type.
        media_type: String,
    },
    /// Every attachment of this kind in one request, together.
    AllOfKind(AttachmentKind),
    /// Every attachment of one request, together.
    Request,
}

impl fmt::Display for AttachmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachmentError::NotWhatItSays { media_type, found } => {
                write!(
                    f,
                    "the attachment says it is {media_type}, but its bytes are "
                )?;
                match found.and_then(|found| Some((found, super::media::describe(found)?))) {
                    Some((found, what)) => {
                        write!(f, "{what} ({found}): give the media type of the bytes")
                    }
                    None => write!(
                        f,
                        "not {}: they do not start as such a file does",
                        super::media::describe(media_type).unwrap_or("that format")
                    ),
                }
            }
            AttachmentError::MediaType { given, suggestion } => {
                write!(f, "{given:?} is not a media type")?;
                match suggestion {
                    Some(right) => write!(f, "; write {right}"),
                    None => f.write_str(" (type/subtype, such as image/png or application/pdf)"),
                }
            }
            AttachmentError::WrongKind { kind, media_type } => match kind {
                AttachmentKind::Image => write!(
                    f,
                    "{media_type} is not an image type: attach a document with with_document"
                ),
                AttachmentKind::Document => write!(
                    f,
                    "{media_type} is an image type: attach an image with with_image"
                ),
            },
            AttachmentError::Empty { media_type } => {
                write!(f, "the {media_type} attachment has no bytes")
            }
            AttachmentError::Url { url, reason } => write!(
                f,
                "the attachment URL {url:?} {reason}: twr sends a URL to the provider as it is \
                 and never downloads it; attach the bytes instead"
            ),
            AttachmentError::NotFromUser { role } => {
                let article = match role {
                    Role::Assistant => "an",
                    _ => "a",
                };
                write!(
                    f,
                    "{article} {role} message cannot carry attachments: put them in a user message"
                )
            }
            AttachmentError::Unsupported {
                provider,
                kind,
                media_type,
                accepted,
            } => {
                let kinds = kind.plural();
                if accepted.is_empty() {
                    return write!(f, "{provider} takes no {kinds} (this one is {media_type})");
                }
                write!(
                    f,
                    "{provider} does not take {media_type} {kinds}; it takes {}",
                    join(accepted)
                )
            }
            AttachmentError::NoUrls { provider, kind } => write!(
                f,
                "{provider} takes no {} URL: attach the {}'s bytes (twr never downloads a URL \
                 itself)",
                kind.singular(),
                kind.singular()
            ),
            AttachmentError::TooLarge {
                provider,
                scope,
                size,
                limit,
                base64,
            } => {
                let counted = if *base64 { " once base64-encoded" } else { "" };
                let (what, per) = match scope {
                    LimitScope::Each { kind, media_type } => (
                        format!("the {media_type} {} is", kind.singular()),
                        format!("per {}", kind.singular()),
                    ),
                    LimitScope::AllOfKind(kind) => (
                        format!("the {} of this request are", kind.plural()),
                        format!("of {} per request", kind.plural()),
                    ),
                    LimitScope::Request => (
                        "the attachments of this request are".to_string(),
                        "of attachments per request".to_string(),
                    ),
                };
                write!(
                    f,
                    "{what} {} bytes{counted}, over {provider}'s limit of {} {per}",
                    size,
                    bytes(*limit)
                )
            }
        }
    }
}

impl std::error::Error for AttachmentError {}

/// `5242880 bytes (5 MiB)`, or just the bytes when not whole MiB.
fn bytes(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{n} bytes ({} MiB)", n / MIB)
    } else {
        format!("{n} bytes")
    }
}

/// `a, b and c`.
fn join(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_names_the_media_type_or_the_limit() {
        let cases = [
            (
                AttachmentError::NotWhatItSays {
                    media_type: "application/pdf".into(),
                    found: None,
                },
                "the attachment says it is application/pdf, but its bytes are not a PDF \
                 document: they do not start as such a file does",
            ),
            (
                AttachmentError::MediaType {
                    given: "image/jpg".into(),
                    suggestion: Some("image/jpeg"),
                },
                "\"image/jpg\" is not a media type; write image/jpeg",
            ),
            (
                AttachmentError::MediaType {
                    given: "picture".into(),
                    suggestion: None,
                },
                "\"picture\" is not a media type (type/subtype, such as image/png or \
                 application/pdf)",
            ),
            (
                AttachmentError::WrongKind {
                    kind: AttachmentKind::Image,
                    media_type: "application/pdf".into(),
                },
                "application/pdf is not an image type: attach a document with with_document",
            ),
            (
                AttachmentError::NotFromUser { role: Role::System },
                "a system message cannot carry attachments: put them in a user message",
            ),
            (
                AttachmentError::Unsupported {
                    provider: "Gemini",
                    kind: AttachmentKind::Image,
                    media_type: "image/gif".into(),
                    accepted: &["image/png", "image/jpeg", "image/webp"],
                },
                "Gemini does not take image/gif images; it takes image/png, image/jpeg and \
                 image/webp",
            ),
            (
                AttachmentError::Unsupported {
                    provider: "cohere",
                    kind: AttachmentKind::Document,
                    media_type: "application/pdf".into(),
                    accepted: &[],
                },
                "cohere takes no documents (this one is application/pdf)",
            ),
            (
                AttachmentError::NoUrls {
                    provider: "the OpenAI-compatible API",
                    kind: AttachmentKind::Document,
                },
                "the OpenAI-compatible API takes no document URL: attach the document's bytes \
                 (twr never downloads a URL itself)",
            ),
            (
                AttachmentError::TooLarge {
                    provider: "Anthropic",
                    scope: LimitScope::Each {
                        kind: AttachmentKind::Image,
                        media_type: "image/png".into(),
                    },
                    size: 5_242_884,
                    limit: 5_242_880,
                    base64: true,
                },
                "the image/png image is 5242884 bytes once base64-encoded, over Anthropic's \
                 limit of 5242880 bytes (5 MiB) per image",
            ),
            (
                AttachmentError::TooLarge {
                    provider: "the OpenAI-compatible API",
                    scope: LimitScope::AllOfKind(AttachmentKind::Document),
                    size: 40_000_000,
                    limit: 33_554_432,
                    base64: false,
                },
                "the documents of this request are 40000000 bytes, over the OpenAI-compatible \
                 API's limit of 33554432 bytes (32 MiB) of documents per request",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
