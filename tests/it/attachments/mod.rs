//! Images and documents in the prompt: what each provider's request body
//! carries, what is refused before any request, and the loop's features
//! with attachments.
//!
//! The files here are the first bytes of real files, enough for their
//! signature (what twr checks) and small enough that the base64 in the
//! expected bodies can be read (and was worked out apart from twr).

mod bodies;
mod private;
mod refused;
mod the_loop;

/// A PNG's signature and the start of its IHDR chunk.
pub use crate::support::secret_png::PNG;
/// `PNG` in standard base64.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUg==";
/// A PDF's header line and its end marker.
pub const PDF: &[u8] = b"%PDF-1.7\n%EOF\n";
/// `PDF` in standard base64.
pub const PDF_BASE64: &str = "JVBERi0xLjcKJUVPRgo=";
/// The start of a JFIF JPEG: SOI, then the APP0 marker.
pub const JPEG: &[u8] = b"\xff\xd8\xff\xe0\0\x10JFIF\0";
/// A GIF89a header and its logical screen size.
pub const GIF: &[u8] = b"GIF89a\x01\0\x01\0";
/// A RIFF container of WebP, up to its first chunk's name.
pub const WEBP: &[u8] = b"RIFF\x24\0\0\0WEBPVP8 ";
