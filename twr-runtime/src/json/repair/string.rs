//! Strings: quoted any way a model quotes them, written with double quotes
//! and valid escapes.

use memchr::memchr;

use super::ahead::{fence_at, skip_blank};
use super::{Ended, Repair, Repairer};

/// A fence line met inside a string.
enum FenceLine {
    /// With a language tag (```` ```python ````): it opens a block.
    Tagged,
    /// Bare: it closes a block.
    Bare,
}

/// The quote a string was opened with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    Double,
    Single,
    /// `“…”`.
    SmartDouble,
    /// `‘…’`.
    SmartSingle,
}

pub(super) const LEFT_DOUBLE: &[u8] = "\u{201C}".as_bytes();
pub(super) const RIGHT_DOUBLE: &[u8] = "\u{201D}".as_bytes();
pub(super) const LEFT_SINGLE: &[u8] = "\u{2018}".as_bytes();
pub(super) const RIGHT_SINGLE: &[u8] = "\u{2019}".as_bytes();
pub(super) const BOM: &[u8] = "\u{FEFF}".as_bytes();

/// Bytes that need attention inside a double-quoted string.
const SPECIAL_DOUBLE: [bool; 256] = special_table(false);
/// Bytes that need attention inside other strings (quotes of any kind and
/// the first byte of a typographic quote as well).
const SPECIAL_OTHER: [bool; 256] = special_table(true);

const fn special_table(other: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = true;
        i += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    if other {
        table[b'\'' as usize] = true;
        table[0xE2] = true;
    }
    table
}

impl Repairer<'_> {
    /// True when the single quote just before `at` closes a string: what
    /// follows (after white space) ends a value, or a line break intervenes.
    /// Otherwise it is an apostrophe (`'it's'`).
    fn closes_single(&self, at: usize) -> bool {
        let mut i = at;
        while i < self.src.len() {
            match self.src[i] {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' => return true,
                b',' | b'}' | b']' | b':' | b'\'' | b'"' | b';' => return true,
                b'`' | b'~' => {
                    return self.src[i..].starts_with(b"```") || self.src[i..].starts_with(b"~~~")
                }
                _ => return false,
            }
        }
        true
    }

    /// A string opened by `quote` (`len` bytes) at `pos`, written with
    /// double quotes and valid escapes.
    pub(super) fn string(&mut self, quote: Quote, len: usize) -> Ended {
        match quote {
            Quote::Double => {}
            Quote::Single => self.repairs.insert(Repair::SingleQuotes),
            Quote::SmartDouble | Quote::SmartSingle => self.repairs.insert(Repair::SmartQuotes),
        }
        let special = if quote == Quote::Double {
            &SPECIAL_DOUBLE
        } else {
            &SPECIAL_OTHER
        };
        self.pos += len;
        self.out.push(b'"');
        let src = self.src;
        // Inside a code block the string holds (see `fence_line_after`).
        let mut inner_block = false;
        loop {
            let run = self.pos;
            while self.pos < src.len() && !special[src[self.pos] as usize] {
                self.pos += 1;
            }
            self.out.extend_from_slice(&src[run..self.pos]);
            let Some(&b) = src.get(self.pos) else {
                self.repairs.insert(Repair::Truncated);
                self.out.push(b'"');
                return Ended::Truncated;
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    if matches!(quote, Quote::Double | Quote::SmartDouble) {
                        self.out.push(b'"');
                        return Ended::Complete;
                    }
                    self.out.extend_from_slice(b"\\\"");
                }
                b'\'' => {
                    self.pos += 1;
                    if quote == Quote::Single && self.closes_single(self.pos) {
                        self.out.push(b'"');
                        return Ended::Complete;
                    }
                    self.out.push(b'\'');
                }
                0xE2 => {
                    let rest = &src[self.pos..];
                    let closes = match quote {
                        Quote::SmartDouble => rest.starts_with(RIGHT_DOUBLE),
                        Quote::SmartSingle => {
                            rest.starts_with(RIGHT_SINGLE) && self.closes_single(self.pos + 3)
                        }
                        _ => false,
                    };
                    if closes {
                        self.pos += 3;
                        self.out.push(b'"');
                        return Ended::Complete;
                    }
                    self.out.push(b);
                    self.pos += 1;
                }
                b'\\' => self.escape(),
                b'\n' => {
                    // A fence line inside a string is one of a code block
                    // the string holds (```` ```python ```` opens one, a
                    // bare fence closes it), or, in fenced JSON, the fence
                    // closing a reply cut off inside the string.
                    match self.fence_line_after(self.pos) {
                        Some(FenceLine::Tagged) => inner_block = true,
                        Some(FenceLine::Bare) if inner_block => inner_block = false,
                        // The string goes on after the fence: a block it holds.
                        Some(FenceLine::Bare) if self.string_goes_on() => inner_block = true,
                        Some(FenceLine::Bare) if self.fenced => {
                            self.pos = self.skip_spaces(self.pos + 1);
                            self.repairs.insert(Repair::Truncated);
                            self.out.push(b'"');
                            return Ended::Truncated;
                        }
                        _ => {}
                    }
                    self.control(b);
                }
                _ => self.control(b),
            }
        }
    }

    /// A raw control character at `pos` inside a string: escaped.
    fn control(&mut self, b: u8) {
        self.repairs.insert(Repair::ControlCharacter);
        self.pos += 1;
        match b {
            b'\n' => self.out.extend_from_slice(b"\\n"),
            b'\t' => self.out.extend_from_slice(b"\\t"),
            b'\r' => self.out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.extend_from_slice(b"\\u00");
                self.out.push(HEX[usize::from(b >> 4)]);
                self.out.push(HEX[usize::from(b & 0xF)]);
            }
        }
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        while at < self.src.len() && matches!(self.src[at], b' ' | b'\t' | b'\r') {
            at += 1;
        }
        at
    }

    /// True when the next `"` after `pos` ends a string, as far as what
    /// follows it says (`,`, a closer or `:`): the string goes on to there.
    /// The quote found is kept, so that many fence lines before it cost one
    /// search.
    fn string_goes_on(&mut self) -> bool {
        let quote = match self.next_quote {
            Some(q) if q.is_none_or(|q| q >= self.pos) => q,
            _ => {
                let found = memchr(b'"', &self.src[self.pos..]).map(|i| self.pos + i);
                self.next_quote = Some(found);
                found
            }
        };
        quote.is_some_and(|q| {
            matches!(
                self.src.get(skip_blank(self.src, q + 1)),
                Some(b',' | b'}' | b']' | b':')
            )
        })
    }

    /// The fence on the line after the newline at `newline`, if any.
    fn fence_line_after(&self, newline: usize) -> Option<FenceLine> {
        let start = self.skip_spaces(newline + 1);
        let marker = *self.src.get(start)?;
        if !fence_at(self.src, start) {
            return None;
        }
        let rest = &self.src[start..];
        let info = rest
            .iter()
            .position(|&b| b != marker)
            .map_or(&[][..], |i| &rest[i..]);
        let line = info
            .iter()
            .position(|&b| b == b'\n')
            .map_or(info, |i| &info[..i]);
        Some(if line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r')) {
            FenceLine::Bare
        } else {
            FenceLine::Tagged
        })
    }

    /// A backslash inside a string at `pos`.
    fn escape(&mut self) {
        let src = self.src;
        let Some(&next) = src.get(self.pos + 1) else {
            // The input ends after the backslash: drop it.
            self.pos += 1;
            return;
        };
        match next {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.out.extend_from_slice(&src[self.pos..self.pos + 2]);
                self.pos += 2;
            }
            b'u' => {
                let hex = &src[self.pos + 2..src.len().min(self.pos + 6)];
                if hex.len() == 4 && hex.iter().all(u8::is_ascii_hexdigit) {
                    self.out.extend_from_slice(&src[self.pos..self.pos + 6]);
                    self.pos += 6;
                } else if self.pos + 2 + hex.len() == src.len()
                    && hex.iter().all(u8::is_ascii_hexdigit)
                {
                    // Cut off inside the escape: drop it.
                    self.pos = src.len();
                } else {
                    self.repairs.insert(Repair::InvalidEscape);
                    self.out.extend_from_slice(b"\\\\");
                    self.pos += 1;
                }
            }
            b'\'' => {
                // `\'` in a single-quoted string: a plain apostrophe.
                self.out.push(b'\'');
                self.pos += 2;
            }
            _ => {
                self.repairs.insert(Repair::InvalidEscape);
                self.out.extend_from_slice(b"\\\\");
                self.pos += 1;
            }
        }
    }
}
