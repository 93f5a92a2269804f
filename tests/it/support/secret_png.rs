//! A PNG whose bytes no output may show, and the check that one does not:
//! shared by the attachment tests of `tests/it` and of `tests/alone`.

use base64::Engine as _;

/// A PNG's signature and the start of its IHDR chunk.
pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// A 3000-byte PNG whose bytes after the signature spell a phrase that no
/// output may contain, in any form.
pub fn image() -> Vec<u8> {
    let mut png = PNG.to_vec();
    while png.len() < 3000 {
        png.extend_from_slice(b"SECRET-PIXELS-");
    }
    png.truncate(3000);
    png
}

/// Checks that `shown` holds none of `image()`'s content: not its text, not
/// its base64, not its bytes as a list of numbers.
pub fn holds_no_bytes(shown: &str) {
    let bytes = image();
    let base64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    assert!(!shown.contains("SECRET-PIXELS"), "{shown}");
    assert!(!shown.contains(&base64[24..64]), "base64 in {shown}");
    assert!(!shown.contains("137, 80, 78, 71"), "a byte list in {shown}");
}
