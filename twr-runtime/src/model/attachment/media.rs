//! Media types: how one is written, and whether bytes are what theirs says.
//!
//! The check reads a file's signature (its first bytes), the way `file`
//! does, for the formats the providers take: PNG, JPEG, GIF, WebP, PDF, and
//! HEIC/HEIF (Gemini). Written by hand rather than with a sniffing crate:
//! six fixed signatures are a few lines, and a crate that knows hundreds
//! of formats would judge none of these better.

use super::error::AttachmentError;

/// The media types whose bytes are checked, each with what a person calls
/// the format.
const CHECKED: &[(&str, &str)] = &[
    ("image/png", "a PNG image"),
    ("image/jpeg", "a JPEG image"),
    ("image/gif", "a GIF image"),
    ("image/webp", "a WebP image"),
    ("image/heic", "a HEIC image"),
    ("image/heif", "a HEIF image"),
    ("application/pdf", "a PDF document"),
];

/// Common misspellings of a media type, with the registered name.
const MISSPELLED: &[(&str, &str)] = &[
    ("image/jpg", "image/jpeg"),
    ("image/pjpeg", "image/jpeg"),
    ("image/x-png", "image/png"),
    ("application/x-pdf", "application/pdf"),
    ("application/acrobat", "application/pdf"),
    ("text/pdf", "application/pdf"),
];

/// File name extensions written where a media type belongs (`"png"`).
const BARE_EXTENSIONS: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("heic", "image/heic"),
    ("heif", "image/heif"),
    ("pdf", "application/pdf"),
];

/// A media type as given, trimmed and lower-cased (media types ignore case),
/// so that `"Image/PNG "` is `image/png`. Its form is checked later, with the
/// rest of the attachment ([`check_form`]).
pub(crate) fn normalize(media_type: &str) -> Box<str> {
    media_type.trim().to_ascii_lowercase().into()
}

/// Checks that `media_type` (normalized) is written as a media type:
/// `type/subtype`, each a token, and not a known misspelling.
pub(crate) fn check_form(media_type: &str) -> Result<(), AttachmentError> {
    let bad = |suggestion| AttachmentError::MediaType {
        given: media_type.to_string(),
        suggestion,
    };
    if let Some(&(_, right)) = MISSPELLED.iter().find(|(wrong, _)| *wrong == media_type) {
        return Err(bad(Some(right)));
    }
    let Some((kind, subtype)) = media_type.split_once('/') else {
        let guess = BARE_EXTENSIONS
            .iter()
            .find(|(ext, _)| media_type.trim_start_matches('.') == *ext)
            .map(|&(_, right)| right);
        return Err(bad(guess));
    };
    // RFC 6838 names: letters, digits and `!#$&-^_.+`.
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    if token(kind) && token(subtype) {
        Ok(())
    } else {
        Err(bad(None))
    }
}

/// The media type a URL's file name extension stands for (`.png`,
/// `.jpg`, `.pdf`, ... in its path, any case), when it is one of the
/// formats twr knows; the query and fragment are not read.
// Only Gemini, one of the clients, needs it.
#[cfg_attr(not(feature = "__client"), allow(dead_code))]
pub(crate) fn guess_from_url(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let after_host = path.split_once("://").map_or(path, |(_, rest)| rest);
    let name = after_host
        .rsplit('/')
        .next()
        .filter(|_| after_host.contains('/'))?;
    let (_, extension) = name.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    BARE_EXTENSIONS
        .iter()
        .find(|(ext, _)| *ext == extension)
        .map(|&(_, media_type)| media_type)
}

/// What a person calls the format of `media_type` (`"a PNG image"`), when
/// its bytes are checked.
pub(crate) fn describe(media_type: &str) -> Option<&'static str> {
    CHECKED
        .iter()
        .find(|(name, _)| *name == media_type)
        .map(|&(_, what)| what)
}

/// Checks that `bytes` are what `media_type` (normalized) says, for the
/// formats of [`CHECKED`]; any other media type is taken at its word (the
/// provider's list of media types decides whether it is sent).
pub(crate) fn check_bytes(media_type: &str, bytes: &[u8]) -> Result<(), AttachmentError> {
    if bytes.is_empty() {
        return Err(AttachmentError::Empty {
            media_type: media_type.to_string(),
        });
    }
    if describe(media_type).is_none() {
        return Ok(());
    }
    let found = sniff(bytes);
    let matches = match (media_type, found) {
        // One container, two names: Gemini takes either for either.
        ("image/heic" | "image/heif", Some("image/heic" | "image/heif")) => true,
        (declared, Some(found)) => declared == found,
        (_, None) => false,
    };
    if matches {
        Ok(())
    } else {
        Err(AttachmentError::NotWhatItSays {
            media_type: media_type.to_string(),
            found,
        })
    }
}

/// The media type the signature at the start of `bytes` belongs to, among
/// those of [`CHECKED`].
pub(crate) fn sniff(bytes: &[u8]) -> Option<&'static str> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.starts_with(PNG) {
        return Some("image/png");
    }
    // SOI, then the first marker's 0xFF.
    if bytes.starts_with(b"\xff\xd8\xff") {
        return Some("image/jpeg");
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some("image/gif");
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" && is_heif_brand(&bytes[8..12]) {
        return Some("image/heic");
    }
    // PDF readers accept the header anywhere in the first 1024 bytes (the
    // PDF reference's implementation note), and real files do start with
    // a byte-order mark or a line of junk now and then.
    let head = &bytes[..bytes.len().min(1024)];
    if memchr::memmem::find(head, b"%PDF-").is_some() {
        return Some("application/pdf");
    }
    None
}

/// The major brands of HEIF files (ISO/IEC 23008-12): HEVC-coded images
/// and sequences, and the generic image and sequence brands.
fn is_heif_brand(brand: &[u8]) -> bool {
    matches!(
        brand,
        b"heic"
            | b"heix"
            | b"hevc"
            | b"hevx"
            | b"heim"
            | b"heis"
            | b"hevm"
            | b"hevs"
            | b"mif1"
            | b"msf1"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest real file starts of each format.
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const JPEG: &[u8] = b"\xff\xd8\xff\xe0\0\x10JFIF\0";
    const GIF: &[u8] = b"GIF89a\x01\0\x01\0";
    const WEBP: &[u8] = b"RIFF\x24\0\0\0WEBPVP8 ";
    const HEIC: &[u8] = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic";
    const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";

    #[test]
    fn each_signature_is_recognized() {
        assert_eq!(sniff(PNG), Some("image/png"));
        assert_eq!(sniff(JPEG), Some("image/jpeg"));
        assert_eq!(sniff(GIF), Some("image/gif"));
        assert_eq!(sniff(b"GIF87a\x01\0"), Some("image/gif"));
        assert_eq!(sniff(WEBP), Some("image/webp"));
        assert_eq!(sniff(HEIC), Some("image/heic"));
        assert_eq!(sniff(PDF), Some("application/pdf"));
        assert_eq!(sniff(b"\xef\xbb\xbf%PDF-1.4\n"), Some("application/pdf"));
        assert_eq!(sniff(b"hello"), None);
        // A RIFF file that is not WebP (a WAV), an MP4 (ftyp, brand isom).
        assert_eq!(sniff(b"RIFF\x24\0\0\0WAVEfmt "), None);
        assert_eq!(sniff(b"\0\0\0\x18ftypisom\0\0\0\0"), None);
        // Cut-off signatures are no signature, never a panic.
        assert_eq!(sniff(b"\x89PN"), None);
        assert_eq!(sniff(b"RIFF"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn a_pdf_header_past_the_first_kilobyte_is_not_one() {
        let mut late = vec![b' '; 1024];
        late.extend_from_slice(b"%PDF-1.7");
        assert_eq!(sniff(&late), None);
        let mut early = vec![b' '; 1019];
        early.extend_from_slice(b"%PDF-1.7");
        assert_eq!(sniff(&early), Some("application/pdf"));
    }

    #[test]
    fn bytes_must_be_what_the_media_type_says() {
        assert_eq!(check_bytes("image/png", PNG), Ok(()));
        assert_eq!(check_bytes("image/heif", HEIC), Ok(()));
        assert_eq!(
            check_bytes("image/png", JPEG),
            Err(AttachmentError::NotWhatItSays {
                media_type: "image/png".into(),
                found: Some("image/jpeg"),
            })
        );
        assert_eq!(
            check_bytes("application/pdf", b"<html>"),
            Err(AttachmentError::NotWhatItSays {
                media_type: "application/pdf".into(),
                found: None,
            })
        );
        assert_eq!(
            check_bytes("image/gif", b""),
            Err(AttachmentError::Empty {
                media_type: "image/gif".into()
            })
        );
        // Unchecked types are taken at their word.
        assert_eq!(check_bytes("image/bmp", b"BM"), Ok(()));
    }

    #[test]
    fn a_url_s_extension_names_its_media_type() {
        assert_eq!(
            guess_from_url("https://example.com/r.JPG"),
            Some("image/jpeg")
        );
        assert_eq!(
            guess_from_url("https://example.com/a/b.pdf?sig=x.png#p.gif"),
            Some("application/pdf")
        );
        assert_eq!(guess_from_url("https://example.com/receipt"), None);
        assert_eq!(guess_from_url("https://example.png"), None);
        assert_eq!(guess_from_url("https://example.com/archive.tar"), None);
    }

    #[test]
    fn media_types_are_written_type_slash_subtype() {
        assert_eq!(&*normalize(" Image/PNG\n"), "image/png");
        assert_eq!(check_form("image/png"), Ok(()));
        assert_eq!(check_form("application/vnd.ms-excel"), Ok(()));
        let error = |given: &str, suggestion| {
            Err(AttachmentError::MediaType {
                given: given.into(),
                suggestion,
            })
        };
        assert_eq!(
            check_form("image/jpg"),
            error("image/jpg", Some("image/jpeg"))
        );
        assert_eq!(check_form("png"), error("png", Some("image/png")));
        assert_eq!(check_form(".pdf"), error(".pdf", Some("application/pdf")));
        assert_eq!(check_form("image/"), error("image/", None));
        assert_eq!(check_form("image/png; q=1"), error("image/png; q=1", None));
        assert_eq!(check_form(""), error("", None));
    }
}
