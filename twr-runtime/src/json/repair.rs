//! The repair pass: broken JSON in, valid JSON text out, in one linear pass.
//!
//! The pass reads the input once, left to right, writing into one pre-sized
//! buffer. It keeps an explicit stack of open containers (so deep nesting
//! costs heap, never call stack) and looks ahead only over white space after
//! a single quote. It fixes what models commonly get wrong and refuses
//! everything else: prose is never turned into a string, and a position it
//! cannot make sense of is an error, so the caller can say what to fix.

use memchr::{memchr, memmem};

use super::report::{Repair, RepairSet};

/// Repaired JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repaired {
    /// Valid JSON syntax (nesting depth aside: the deserializer checks that).
    pub(crate) text: String,
    /// The byte offset in the input where the value ended.
    pub(crate) end: usize,
    /// True when only white space, comments and a `;` follow the value.
    pub(crate) whole: bool,
    /// What was fixed.
    pub(crate) repairs: RepairSet,
}

/// Why the input could not be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepairError {
    /// Byte offset in the input.
    pub(crate) at: usize,
    /// What was expected there, for the model.
    pub(crate) message: &'static str,
}

/// Repairs the JSON value that starts at byte `start` of `input`.
///
/// The value ends where it ends; what follows is left alone (prose after a
/// JSON object) and [`Repaired::whole`] says whether it was only trivia.
pub(crate) fn repair(input: &str, start: usize) -> Result<Repaired, RepairError> {
    let mut r = Repairer {
        src: input.as_bytes(),
        pos: start,
        out: Vec::with_capacity(input.len() - start + 16),
        stack: Vec::new(),
        objects: 0,
        repairs: RepairSet::default(),
    };
    r.run()?;
    let end = r.pos;
    // Look past the value: white space, comments and a `;` may close the
    // input; anything else is prose after the value, and the repairs seen
    // while looking do not count.
    let before = r.repairs;
    r.skip_trivia();
    if r.peek() == Some(b';') {
        r.repairs.insert(Repair::TrailingSemicolon);
        r.pos += 1;
        r.skip_trivia();
    }
    let whole = r.at_end();
    if !whole {
        r.repairs = before;
    }
    let repairs = r.repairs;
    // The pass copies whole UTF-8 sequences and inserts only ASCII, so this
    // never fails; the check is cheap and keeps the code free of `unsafe`.
    let text = String::from_utf8(r.out).map_err(|_| RepairError {
        at: start,
        message: "the text is not valid UTF-8",
    })?;
    Ok(Repaired {
        text,
        end,
        whole,
        repairs,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
}

/// What the pass expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The top-level value.
    Top,
    /// A key or `}`; `comma` when a `,` is pending (written only when an
    /// item follows, which is how trailing commas disappear).
    KeyOrEnd { comma: bool, item_out: usize },
    /// The `:` after a key; `item_out` is where the member began in the
    /// output, to drop it if it never gets a value.
    Colon { item_out: usize },
    /// A member's value.
    MemberValue { item_out: usize },
    /// An array item or `]`.
    ItemOrEnd { comma: bool, item_out: usize },
    /// A `,` or the end of the innermost container.
    CommaOrEnd,
    /// The top-level value is complete.
    Done,
}

/// How a string or literal ended.
enum Ended {
    Complete,
    /// The input ran out inside it.
    Truncated,
}

/// The quote a string was opened with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Double,
    Single,
    /// `“…”`.
    SmartDouble,
    /// `‘…’`.
    SmartSingle,
}

const LEFT_DOUBLE: &[u8] = "\u{201C}".as_bytes();
const RIGHT_DOUBLE: &[u8] = "\u{201D}".as_bytes();
const LEFT_SINGLE: &[u8] = "\u{2018}".as_bytes();
const RIGHT_SINGLE: &[u8] = "\u{2019}".as_bytes();
const BOM: &[u8] = "\u{FEFF}".as_bytes();

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

/// Bytes of a bare key (`{name: 1}`); bytes of non-ASCII characters count.
fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-' || b >= 0x80
}

struct Repairer<'a> {
    src: &'a [u8],
    pos: usize,
    out: Vec<u8>,
    stack: Vec<Frame>,
    /// Open objects in `stack` (arrays are the rest), to match a closing
    /// bracket against the stack in constant time.
    objects: usize,
    repairs: RepairSet,
}

impl Repairer<'_> {
    fn error<T>(&self, message: &'static str) -> Result<T, RepairError> {
        Err(RepairError {
            at: self.pos,
            message,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn rest(&self) -> &[u8] {
        &self.src[self.pos..]
    }

    /// True at the end of the input or at a code-fence marker, which ends
    /// the JSON the same way (a reply cut off inside a fence that was then
    /// closed).
    fn at_end(&self) -> bool {
        let rest = self.rest();
        rest.is_empty() || rest.starts_with(b"```") || rest.starts_with(b"~~~")
    }

    /// Skips white space, comments and byte-order marks.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.src.get(self.pos + 1) == Some(&b'/') => self.skip_line_comment(),
                b'#' => self.skip_line_comment(),
                b'/' if self.src.get(self.pos + 1) == Some(&b'*') => {
                    self.repairs.insert(Repair::Comment);
                    let body = self.pos + 2;
                    self.pos = match memmem::find(&self.src[body..], b"*/") {
                        Some(i) => body + i + 2,
                        None => self.src.len(),
                    };
                }
                0xEF if self.rest().starts_with(BOM) => {
                    self.repairs.insert(Repair::Bom);
                    self.pos += BOM.len();
                }
                // A no-break space is white space to a reader.
                0xC2 if self.src.get(self.pos + 1) == Some(&0xA0) => self.pos += 2,
                _ => return,
            }
        }
    }

    fn skip_line_comment(&mut self) {
        self.repairs.insert(Repair::Comment);
        self.pos = match memchr(b'\n', self.rest()) {
            Some(i) => self.pos + i + 1,
            None => self.src.len(),
        };
    }

    fn push_frame(&mut self, frame: Frame) {
        if frame == Frame::Object {
            self.objects += 1;
            self.out.push(b'{');
        } else {
            self.out.push(b'[');
        }
        self.stack.push(frame);
    }

    /// Closes the innermost container, writing its own closing bracket.
    fn pop_frame(&mut self) {
        match self.stack.pop() {
            Some(Frame::Object) => {
                self.objects -= 1;
                self.out.push(b'}');
            }
            Some(Frame::Array) => self.out.push(b']'),
            None => {}
        }
    }

    /// The state after a complete value.
    fn after_value(&self) -> Expect {
        if self.stack.is_empty() {
            Expect::Done
        } else {
            Expect::CommaOrEnd
        }
    }

    /// Handles `}` or `]` at `pos` closing the innermost container.
    fn close(&mut self, byte: u8) -> Expect {
        let top = self.stack.last().copied();
        let matches = match top {
            Some(Frame::Object) => byte == b'}',
            Some(Frame::Array) => byte == b']',
            None => false,
        };
        if !matches {
            self.repairs.insert(Repair::MismatchedBracket);
            let outer_matches = if byte == b'}' {
                self.objects > 0
            } else {
                self.stack.len() > self.objects
            };
            if outer_matches {
                // `{"a": [1}`: close the array and let the `}` close the object.
                self.pop_frame();
                return self.after_value_in_container();
            }
        }
        self.pos += 1;
        self.pop_frame();
        self.after_value()
    }

    /// After closing an inner container whose parent still waits for its own
    /// closer.
    fn after_value_in_container(&self) -> Expect {
        Expect::CommaOrEnd
    }

    fn run(&mut self) -> Result<(), RepairError> {
        let mut expect = Expect::Top;
        while expect != Expect::Done {
            self.skip_trivia();
            if self.at_end() {
                return self.finish_truncated(expect);
            }
            let b = self.src[self.pos];
            expect = match expect {
                Expect::Top => self.value(None)?,
                Expect::KeyOrEnd { comma, item_out } => match b {
                    b'}' | b']' => {
                        if comma {
                            self.repairs.insert(Repair::TrailingComma);
                        }
                        self.close(b)
                    }
                    b',' => {
                        self.repairs.insert(Repair::TrailingComma);
                        self.pos += 1;
                        Expect::KeyOrEnd { comma, item_out }
                    }
                    _ => {
                        if comma {
                            self.out.push(b',');
                        }
                        match self.key()? {
                            Ended::Complete => Expect::Colon { item_out },
                            Ended::Truncated => {
                                return self.finish_truncated(Expect::Colon { item_out })
                            }
                        }
                    }
                },
                Expect::Colon { item_out } => {
                    if b != b':' {
                        return self.error("expected `:` after the key");
                    }
                    self.out.push(b':');
                    self.pos += 1;
                    Expect::MemberValue { item_out }
                }
                Expect::MemberValue { item_out } => self.value(Some(item_out))?,
                Expect::ItemOrEnd { comma, item_out } => match b {
                    b']' | b'}' => {
                        if comma {
                            self.repairs.insert(Repair::TrailingComma);
                        }
                        self.close(b)
                    }
                    b',' => {
                        self.repairs.insert(Repair::TrailingComma);
                        self.pos += 1;
                        Expect::ItemOrEnd { comma, item_out }
                    }
                    _ => {
                        if comma {
                            self.out.push(b',');
                        }
                        self.value(Some(item_out))?
                    }
                },
                Expect::CommaOrEnd => {
                    let in_object = self.stack.last() == Some(&Frame::Object);
                    match b {
                        b'}' | b']' => self.close(b),
                        b',' => {
                            self.pos += 1;
                            self.next_item(in_object)
                        }
                        _ if in_object && self.starts_key(b) => {
                            self.repairs.insert(Repair::MissingComma);
                            self.next_item(true)
                        }
                        _ if !in_object && self.starts_value(b) => {
                            self.repairs.insert(Repair::MissingComma);
                            self.next_item(false)
                        }
                        _ if in_object => return self.error("expected `,` or `}`"),
                        _ => return self.error("expected `,` or `]`"),
                    }
                }
                // The loop ends before matching `Done`.
                Expect::Done => Expect::Done,
            };
        }
        Ok(())
    }

    /// The state for the item after a `,` (written when the item comes).
    fn next_item(&self, in_object: bool) -> Expect {
        let item_out = self.out.len();
        if in_object {
            Expect::KeyOrEnd {
                comma: true,
                item_out,
            }
        } else {
            Expect::ItemOrEnd {
                comma: true,
                item_out,
            }
        }
    }

    fn starts_key(&self, b: u8) -> bool {
        b == b'"' || b == b'\'' || is_key_byte(b)
    }

    fn starts_value(&self, b: u8) -> bool {
        matches!(b, b'{' | b'[' | b'"' | b'\'' | b'-' | b'0'..=b'9')
            || b.is_ascii_alphabetic()
            || self.smart_quote_here()
    }

    fn smart_quote_here(&self) -> bool {
        let rest = self.rest();
        rest.starts_with(LEFT_DOUBLE)
            || rest.starts_with(RIGHT_DOUBLE)
            || rest.starts_with(LEFT_SINGLE)
            || rest.starts_with(RIGHT_SINGLE)
    }

    /// The quote at `pos`, if any, with its length.
    fn quote_here(&self) -> Option<(Quote, usize)> {
        let rest = self.rest();
        match rest.first()? {
            b'"' => Some((Quote::Double, 1)),
            b'\'' => Some((Quote::Single, 1)),
            0xE2 if rest.starts_with(LEFT_DOUBLE) || rest.starts_with(RIGHT_DOUBLE) => {
                Some((Quote::SmartDouble, 3))
            }
            0xE2 if rest.starts_with(LEFT_SINGLE) || rest.starts_with(RIGHT_SINGLE) => {
                Some((Quote::SmartSingle, 3))
            }
            _ => None,
        }
    }

    /// An object key, quoted or bare.
    fn key(&mut self) -> Result<Ended, RepairError> {
        if let Some((quote, len)) = self.quote_here() {
            return Ok(self.string(quote, len));
        }
        let start = self.pos;
        while self.pos < self.src.len() && is_key_byte(self.src[self.pos]) {
            if self.src[self.pos] == 0xE2 && self.smart_quote_here() {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return self.error("expected a key in double quotes");
        }
        if self.pos == self.src.len() {
            return Ok(Ended::Truncated);
        }
        self.repairs.insert(Repair::UnquotedKey);
        self.out.push(b'"');
        self.out.extend_from_slice(&self.src[start..self.pos]);
        self.out.push(b'"');
        Ok(Ended::Complete)
    }

    /// A value; `item_out` is where its member or item began in the output
    /// (`None` at the top level), to drop it if the input ends before it does.
    fn value(&mut self, item_out: Option<usize>) -> Result<Expect, RepairError> {
        let b = self.src[self.pos];
        match b {
            b'{' => {
                self.pos += 1;
                self.push_frame(Frame::Object);
                return Ok(Expect::KeyOrEnd {
                    comma: false,
                    item_out: self.out.len(),
                });
            }
            b'[' => {
                self.pos += 1;
                self.push_frame(Frame::Array);
                return Ok(Expect::ItemOrEnd {
                    comma: false,
                    item_out: self.out.len(),
                });
            }
            b'-' | b'0'..=b'9' => {
                if !self.number() {
                    // Only `-` or a bare exponent before the end: no value.
                    return self.finish_without_value(item_out);
                }
            }
            _ if b.is_ascii_alphabetic() => {
                if let Ended::Truncated = self.literal()? {
                    self.repairs.insert(Repair::Truncated);
                }
            }
            _ => match self.quote_here() {
                Some((quote, len)) => {
                    if let Ended::Truncated = self.string(quote, len) {
                        // Keep the partial string; close everything.
                        return self.finish_truncated(Expect::Done).map(|()| Expect::Done);
                    }
                }
                None => {
                    return self.error(match self.stack.last() {
                        Some(Frame::Object) => "expected a value after the `:`",
                        Some(Frame::Array) => "expected a value or `]`",
                        None => "expected a JSON value",
                    })
                }
            },
        }
        Ok(self.after_value())
    }

    /// The input ended where a value should have been: drop the member or
    /// item it belonged to, close the rest.
    fn finish_without_value(&mut self, item_out: Option<usize>) -> Result<Expect, RepairError> {
        let Some(item_out) = item_out else {
            return self.error("expected a JSON value");
        };
        let expect = if self.stack.last() == Some(&Frame::Object) {
            Expect::MemberValue { item_out }
        } else {
            Expect::ItemOrEnd {
                comma: false,
                item_out,
            }
        };
        self.finish_truncated(expect).map(|()| Expect::Done)
    }

    /// A number, copied as is; at the end of the input an incomplete tail
    /// (`1.`, `2e`, `-`) is cut. Returns false when nothing was left.
    fn number(&mut self) -> bool {
        let start = self.pos;
        let src = self.src;
        let mut i = self.pos;
        if src[i] == b'-' {
            i += 1;
        }
        let digits = |mut i: usize| {
            while i < src.len() && src[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let int_end = digits(i);
        // The end of the longest complete number so far.
        let mut complete = if int_end > i { int_end } else { start };
        i = int_end;
        if complete != start && i < src.len() && src[i] == b'.' {
            let frac_end = digits(i + 1);
            if frac_end > i + 1 {
                complete = frac_end;
            }
            i = frac_end;
        }
        if complete != start && i == complete && i < src.len() && matches!(src[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < src.len() && matches!(src[j], b'+' | b'-') {
                j += 1;
            }
            let exp_end = digits(j);
            if exp_end > j {
                complete = exp_end;
            }
            i = exp_end;
        }
        if i != complete {
            // An incomplete tail: cut it only when the input ends there.
            self.pos = i;
            self.skip_trivia();
            if !self.at_end() {
                // Leave it to the deserializer to name the bad number.
                self.out.extend_from_slice(&src[start..i]);
                return true;
            }
            self.repairs.insert(Repair::Truncated);
        }
        self.pos = i;
        if complete == start {
            return false;
        }
        self.out.extend_from_slice(&src[start..complete]);
        true
    }

    /// `true`, `false`, `null`, Python's `True`, `False`, `None`, or one of
    /// them cut off by the end of the input.
    fn literal(&mut self) -> Result<Ended, RepairError> {
        let start = self.pos;
        let mut end = start;
        while end < self.src.len() && self.src[end].is_ascii_alphanumeric() {
            end += 1;
        }
        let word = &self.src[start..end];
        let (json, python): (&[u8], bool) = match word {
            b"true" | b"false" | b"null" => (word, false),
            b"True" => (b"true", true),
            b"False" => (b"false", true),
            b"None" => (b"null", true),
            _ => {
                if end == self.src.len() {
                    let full = [&b"true"[..], b"false", b"null", b"True", b"False", b"None"]
                        .into_iter()
                        .find(|full| full.starts_with(word));
                    if let Some(full) = full {
                        let json: &[u8] = match full[0] {
                            b't' | b'T' => b"true",
                            b'f' | b'F' => b"false",
                            _ => b"null",
                        };
                        self.out.extend_from_slice(json);
                        self.pos = end;
                        return Ok(Ended::Truncated);
                    }
                }
                return self.error("expected a JSON value; text must be in double quotes");
            }
        };
        if python {
            self.repairs.insert(Repair::PythonLiteral);
        }
        self.out.extend_from_slice(json);
        self.pos = end;
        Ok(Ended::Complete)
    }

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
    fn string(&mut self, quote: Quote, len: usize) -> Ended {
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
                b'\n' if self.fence_on_next_line() => {
                    // A reply cut off inside a string, then its fence closed.
                    self.pos = self.skip_spaces(self.pos + 1);
                    self.repairs.insert(Repair::Truncated);
                    self.out.push(b'"');
                    return Ended::Truncated;
                }
                _ => {
                    // A control character: escape it.
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
            }
        }
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        while at < self.src.len() && matches!(self.src[at], b' ' | b'\t' | b'\r') {
            at += 1;
        }
        at
    }

    /// True when the line after the newline at `pos` starts with a fence.
    fn fence_on_next_line(&self) -> bool {
        let next = &self.src[self.skip_spaces(self.pos + 1)..];
        next.starts_with(b"```") || next.starts_with(b"~~~")
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

    /// The input ended in state `expect`: drop a member without a value,
    /// then close every open container.
    fn finish_truncated(&mut self, expect: Expect) -> Result<(), RepairError> {
        match expect {
            Expect::Top => return self.error("expected a JSON value"),
            Expect::Colon { item_out } | Expect::MemberValue { item_out } => {
                self.repairs.insert(Repair::DanglingKey);
                self.out.truncate(item_out);
            }
            Expect::ItemOrEnd { item_out, .. } | Expect::KeyOrEnd { item_out, .. } => {
                self.out.truncate(item_out);
            }
            Expect::CommaOrEnd | Expect::Done => {}
        }
        if !self.stack.is_empty() {
            self.repairs.insert(Repair::Truncated);
        }
        while !self.stack.is_empty() {
            self.pop_frame();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `json` without white space outside strings: expected values are
    /// written readably, the pass writes them compactly.
    fn compact(json: &str) -> String {
        let mut out = String::new();
        let mut in_string = false;
        let mut escaped = false;
        for c in json.chars() {
            if in_string {
                in_string = escaped || c != '"';
                escaped = !escaped && c == '\\';
            } else if c == '"' {
                in_string = true;
            } else if c.is_whitespace() {
                continue;
            }
            out.push(c);
        }
        out
    }

    /// Repairs `input` as a whole; the text and the repairs.
    fn fix(input: &str) -> (String, Vec<Repair>) {
        let r = repair(input, 0).unwrap_or_else(|e| panic!("{input:?}: {e:?}"));
        assert!(r.whole, "{input:?} left text after the value");
        serde_json::from_str::<serde_json::Value>(&r.text)
            .unwrap_or_else(|e| panic!("{input:?} gave invalid {:?}: {e}", r.text));
        (r.text, r.repairs.to_vec())
    }

    fn fails(input: &str) -> RepairError {
        match repair(input, 0) {
            Err(e) => e,
            Ok(r) => panic!("{input:?} repaired to {:?}", r.text),
        }
    }

    #[test]
    fn valid_json_is_copied_without_white_space() {
        let input = r#"{"a": [1, -2.5e3, true, false, null, "x\"\\\u00e9"], "b": {}}"#;
        assert_eq!(fix(input), (compact(input), vec![]));
    }

    #[test]
    fn trailing_commas() {
        assert_eq!(
            fix(r#"{"a": [1, 2,], "b": 3,}"#),
            (
                compact(r#"{"a": [1, 2], "b": 3}"#),
                vec![Repair::TrailingComma]
            )
        );
        assert_eq!(
            fix("[1,,2]"),
            (compact("[1,2]"), vec![Repair::TrailingComma])
        );
    }

    #[test]
    fn comments() {
        assert_eq!(
            fix("{\n  // the total\n  \"a\": 1, /* more */ \"b\": 2 # py\n}"),
            (compact("{\"a\": 1, \"b\": 2}"), vec![Repair::Comment])
        );
        // Comment markers inside strings are text.
        assert_eq!(
            fix(r#"{"url": "http://x/#y"}"#),
            (compact(r#"{"url": "http://x/#y"}"#), vec![])
        );
    }

    #[test]
    fn unquoted_keys() {
        assert_eq!(
            fix("{name: \"Kyoto\", days_2: 3, $ref: 1}"),
            (
                compact(r#"{"name": "Kyoto", "days_2": 3, "$ref": 1}"#),
                vec![Repair::UnquotedKey]
            )
        );
    }

    #[test]
    fn single_quotes_with_apostrophes_and_double_quotes_inside() {
        assert_eq!(
            fix(r#"{'a': 'it's "fine"', 'b': 'x'}"#),
            (
                compact(r#"{"a": "it's \"fine\"", "b": "x"}"#),
                vec![Repair::SingleQuotes]
            )
        );
        assert_eq!(
            fix(r"['don\'t']"),
            (compact(r#"["don't"]"#), vec![Repair::SingleQuotes])
        );
    }

    #[test]
    fn python_literals() {
        assert_eq!(
            fix("[True, False, None, true]"),
            (
                compact("[true, false, null, true]"),
                vec![Repair::PythonLiteral]
            )
        );
    }

    #[test]
    fn smart_quotes() {
        assert_eq!(
            fix("{“city”: “Kyoto”, ‘note’: ‘it’s “old”’}"),
            (
                compact(r#"{"city": "Kyoto", "note": "it’s “old”"}"#),
                vec![Repair::SmartQuotes]
            )
        );
    }

    #[test]
    fn missing_commas_between_items_and_members() {
        assert_eq!(
            fix("{\"a\": 1\n \"b\": [1 2 \"x\" {}]\n c: 'd' 'e': 2}"),
            (
                compact("{\"a\": 1,\n \"b\": [1, 2, \"x\", {}],\n \"c\": \"d\", \"e\": 2}"),
                vec![
                    Repair::MissingComma,
                    Repair::UnquotedKey,
                    Repair::SingleQuotes
                ]
            )
        );
    }

    #[test]
    fn raw_control_characters_in_strings() {
        assert_eq!(
            fix("{\"a\": \"line 1\nline 2\tend\u{1}\"}"),
            (
                compact(r#"{"a": "line 1\nline 2\tend\u0001"}"#),
                vec![Repair::ControlCharacter]
            )
        );
    }

    #[test]
    fn invalid_escapes() {
        assert_eq!(
            fix(r#"["C:\path", "\u12"]"#),
            (
                compact(r#"["C:\\path", "\\u12"]"#),
                vec![Repair::InvalidEscape]
            )
        );
    }

    #[test]
    fn trailing_semicolon_and_bom() {
        assert_eq!(
            fix("\u{FEFF}{\"a\": 1};\n"),
            (
                compact("{\"a\": 1}"),
                vec![Repair::Bom, Repair::TrailingSemicolon]
            )
        );
    }

    #[test]
    fn mismatched_brackets() {
        assert_eq!(
            fix(r#"{"a": [1, 2}"#),
            (compact(r#"{"a": [1, 2]}"#), vec![Repair::MismatchedBracket])
        );
        assert_eq!(
            fix("[1, 2}"),
            (compact("[1, 2]"), vec![Repair::MismatchedBracket])
        );
    }

    #[test]
    fn truncated_anywhere() {
        let cases: &[(&str, &str, &[Repair])] = &[
            (r#"{"a": "hel"#, r#"{"a": "hel"}"#, &[Repair::Truncated]),
            (r#"{"a": [1, 2"#, r#"{"a": [1, 2]}"#, &[Repair::Truncated]),
            (r#"{"a": [1, 2,"#, r#"{"a": [1, 2]}"#, &[Repair::Truncated]),
            (
                r#"{"a": 1, "b"#,
                r#"{"a": 1}"#,
                &[Repair::Truncated, Repair::DanglingKey],
            ),
            (
                r#"{"a": 1, "b":"#,
                r#"{"a": 1}"#,
                &[Repair::Truncated, Repair::DanglingKey],
            ),
            (
                r#"{"a": 1, "b": "#,
                r#"{"a": 1}"#,
                &[Repair::Truncated, Repair::DanglingKey],
            ),
            (
                r#"{"a": 1, b"#,
                r#"{"a": 1}"#,
                &[Repair::Truncated, Repair::DanglingKey],
            ),
            (r#"{"a": 1.5e"#, r#"{"a": 1.5}"#, &[Repair::Truncated]),
            (
                r#"{"a": -"#,
                r#"{}"#,
                &[Repair::Truncated, Repair::DanglingKey],
            ),
            (r#"[1, 2."#, r#"[1, 2]"#, &[Repair::Truncated]),
            (r#"[true, fal"#, r#"[true, false]"#, &[Repair::Truncated]),
            (
                r#"[{"a": {"b": ["#,
                r#"[{"a": {"b": []}}]"#,
                &[Repair::Truncated],
            ),
            (r#"["a\"#, r#"["a"]"#, &[Repair::Truncated]),
            (r#"["\u00e"#, r#"[""]"#, &[Repair::Truncated]),
            (r#"{"#, r#"{}"#, &[Repair::Truncated]),
            (
                "{\"a\": 1 // cut",
                "{\"a\": 1}",
                &[Repair::Comment, Repair::Truncated],
            ),
        ];
        for &(input, want, repairs) in cases {
            assert_eq!(fix(input), (compact(want), repairs.to_vec()), "{input:?}");
        }
    }

    #[test]
    fn closing_fence_ends_a_truncated_value() {
        let r = repair("{\"a\": [1, 2\n```\nDone.", 0).unwrap();
        assert_eq!(r.text, r#"{"a":[1,2]}"#);
        // The fence counts as the end of the input.
        assert_eq!((r.end, r.whole), (12, true));
    }

    #[test]
    fn prose_is_not_turned_into_strings() {
        assert_eq!(
            fails("[see the table]").message,
            "expected a JSON value; text must be in double quotes"
        );
        assert_eq!(fails("{Budget}").at, 7);
        assert_eq!(fails("{\"a\": }").message, "expected a value after the `:`");
        assert_eq!(fails("   ").message, "expected a JSON value");
        assert_eq!(fails("{\"a\" 1}").message, "expected `:` after the key");
    }

    #[test]
    fn prose_after_the_value_is_left_alone() {
        let r = repair("{'a': 1} and that's all # really", 0).unwrap();
        assert_eq!((r.text.as_str(), r.end, r.whole), (r#"{"a":1}"#, 8, false));
        assert_eq!(r.repairs.to_vec(), [Repair::SingleQuotes]);
    }

    #[test]
    fn deep_nesting_uses_no_call_stack() {
        let input = "[".repeat(1_000_000);
        let r = repair(&input, 0).unwrap();
        assert_eq!(r.text.len(), 2_000_000);
        // serde_json refuses the depth: an error, not a stack overflow.
        assert!(serde_json::from_str::<serde_json::Value>(&r.text).is_err());
    }
}
