//! Reading a reply body: capped in size, under the call's deadline, and
//! checked to be UTF-8 by one rule for whole bodies and streams.

use std::sync::Arc;

use reqwest::Response;

use super::http::{transport_error, Deadline};
use super::secret::Secrets;
use crate::model::ModelError;

/// Reads a reply body piece by piece under the call's deadline, failing once
/// it passes the cap, and checking that it is UTF-8.
///
/// One rule for whole bodies and streams alike: bytes that are not UTF-8 are
/// a [`ModelError::Decode`] naming the byte offset in the body, never
/// replaced silently. Not transient: a server or proxy that sends another
/// encoding does so again when asked again. The valid bytes before the
/// offset are still handed out first, so a stream keeps the text it sent.
pub(crate) struct BodyReader {
    response: Response,
    read: usize,
    limit: usize,
    deadline: Deadline,
    utf8: Utf8Check,
    /// An error found in the last piece, reported after its valid prefix.
    failed: Option<ModelError>,
    secrets: Arc<Secrets>,
    /// Whether the body is an event stream.
    stream: bool,
}

impl BodyReader {
    /// Starts reading `response`; a declared length over the cap fails at once.
    pub(crate) fn new(
        response: Response,
        limit: usize,
        deadline: Deadline,
        secrets: Arc<Secrets>,
    ) -> Result<Self, ModelError> {
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(ModelError::TooLarge { limit });
        }
        let stream = super::http::is_event_stream(&response);
        Ok(BodyReader {
            stream,
            response,
            read: 0,
            limit,
            deadline,
            utf8: Utf8Check::default(),
            failed: None,
            secrets,
        })
    }

    /// The next piece of the body, `None` at its end.
    pub(crate) async fn next(&mut self) -> Result<Option<bytes::Bytes>, ModelError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let (deadline, secrets) = (self.deadline, &*self.secrets);
        let response = &mut self.response;
        let chunk = deadline
            .run(async {
                response
                    .chunk()
                    .await
                    .map_err(|e| transport_error(e, true, deadline.limit, secrets))
            })
            .await?;
        let Some(chunk) = chunk else {
            return match self.utf8.finish() {
                Ok(()) => Ok(None),
                // A stream closed in the middle of a character was cut off
                // there (the server or a proxy closed mid-event): the reply
                // broke off, as when the connection drops.
                Err(at) if self.stream => Err(ModelError::Interrupted(
                    format!("the stream ended inside a character, at byte offset {at} of the body")
                        .into(),
                )),
                Err(at) => Err(not_utf8(at, "the body ends inside a character")),
            };
        };
        self.read += chunk.len();
        if self.read > self.limit {
            return Err(ModelError::TooLarge { limit: self.limit });
        }
        match self.utf8.check(&chunk) {
            Ok(()) => Ok(Some(chunk)),
            Err(bad) => {
                self.failed = Some(not_utf8(
                    bad.offset,
                    &format!("byte 0x{:02X} is not part of a valid character", bad.byte),
                ));
                Ok(Some(chunk.slice(..bad.in_piece)))
            }
        }
    }

    /// The whole body.
    pub(crate) async fn read_all(&mut self) -> Result<Vec<u8>, ModelError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next().await? {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn not_utf8(offset: u64, what: &str) -> ModelError {
    ModelError::Decode(
        format!("the response is not valid UTF-8 at byte offset {offset} of the body: {what}")
            .into(),
    )
}

/// Where the bytes stop being UTF-8.
#[derive(Debug, PartialEq)]
struct BadByte {
    /// Offset in the whole body.
    offset: u64,
    /// The byte there.
    byte: u8,
    /// How many bytes of the current piece come before it (0 when the bad
    /// character started in an earlier piece).
    in_piece: usize,
}

/// Checks UTF-8 across pieces split anywhere, a character included: at most
/// three bytes of an unfinished character are carried to the next piece, and
/// each byte is checked once. By hand because `std::str::from_utf8` works on
/// whole buffers only and the crates that do this also decode, which the
/// JSON parser does anyway.
#[derive(Default)]
struct Utf8Check {
    /// Bytes checked and complete so far (where `carry` starts).
    offset: u64,
    carry: [u8; 4],
    carry_len: usize,
}

impl Utf8Check {
    /// Checks the next piece.
    fn check(&mut self, piece: &[u8]) -> Result<(), BadByte> {
        let mut rest = piece;
        if self.carry_len > 0 {
            let need = utf8_width(self.carry[0]);
            let take = (need - self.carry_len).min(rest.len());
            self.carry[self.carry_len..self.carry_len + take].copy_from_slice(&rest[..take]);
            self.carry_len += take;
            rest = &rest[take..];
            match std::str::from_utf8(&self.carry[..self.carry_len]) {
                Ok(_) => {
                    self.offset += self.carry_len as u64;
                    self.carry_len = 0;
                }
                Err(e) if e.error_len().is_none() => return Ok(()),
                Err(e) => {
                    return Err(BadByte {
                        offset: self.offset + e.valid_up_to() as u64,
                        byte: self.carry[e.valid_up_to()],
                        in_piece: 0,
                    })
                }
            }
        }
        match std::str::from_utf8(rest) {
            Ok(_) => {
                self.offset += rest.len() as u64;
                Ok(())
            }
            Err(e) => {
                let valid = e.valid_up_to();
                self.offset += valid as u64;
                match e.error_len() {
                    Some(_) => Err(BadByte {
                        offset: self.offset,
                        byte: rest[valid],
                        in_piece: piece.len() - rest.len() + valid,
                    }),
                    None => {
                        let tail = &rest[valid..];
                        self.carry[..tail.len()].copy_from_slice(tail);
                        self.carry_len = tail.len();
                        Ok(())
                    }
                }
            }
        }
    }

    /// At the end of the body: an unfinished character is an error.
    fn finish(&self) -> Result<(), u64> {
        if self.carry_len == 0 {
            Ok(())
        } else {
            Err(self.offset)
        }
    }
}

/// How many bytes the character starting with `lead` has (1 for a byte that
/// cannot start one; `from_utf8` then reports it).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `body` in pieces of `size`; the first bad byte, if any.
    fn check_in_pieces(body: &[u8], size: usize) -> Option<(u64, u8, usize, usize)> {
        let mut check = Utf8Check::default();
        for (n, piece) in body.chunks(size).enumerate() {
            if let Err(bad) = check.check(piece) {
                return Some((bad.offset, bad.byte, n, bad.in_piece));
            }
        }
        check
            .finish()
            .err()
            .map(|offset| (offset, 0, usize::MAX, 0))
    }

    #[test]
    fn utf8_is_checked_across_any_split() {
        let good = "aé€😀 [Plan]\n中文".as_bytes();
        for size in 1..=good.len() {
            assert_eq!(check_in_pieces(good, size), None, "piece size {size}");
        }
        // 0xFF never occurs in UTF-8: found at its offset whatever the split.
        let mut bad = "aé€".as_bytes().to_vec();
        let at = bad.len();
        bad.push(0xFF);
        bad.extend_from_slice("tail".as_bytes());
        for size in 1..=bad.len() {
            let (offset, byte, piece, in_piece) = check_in_pieces(&bad, size).unwrap();
            assert_eq!((offset, byte), (at as u64, 0xFF), "piece size {size}");
            assert_eq!(piece * size + in_piece, at, "piece size {size}");
        }
        // A character cut short by the next one: reported at its start.
        let cut = [b'x', 0xE2, 0x82, b'y'];
        for size in 1..=cut.len() {
            assert_eq!(
                check_in_pieces(&cut, size).unwrap().0,
                1,
                "piece size {size}"
            );
        }
        // A body that ends inside a character.
        let end = [b'o', b'k', 0xF0, 0x9F];
        for size in 1..=end.len() {
            assert_eq!(
                check_in_pieces(&end, size),
                Some((2, 0, usize::MAX, 0)),
                "piece size {size}"
            );
        }
    }
}
