//! Bare words where a value goes: literals, constructor wrappers
//! (`ObjectId("…")`), placeholders (`...`), and plain words without quotes
//! (`{"city": Kyoto}`), each taken only where it has one reading.

use super::ahead::{is_key_byte, unicode_space};
use super::scalar::{cut_literal, literal};
use super::string::{LEFT_DOUBLE, LEFT_SINGLE, RIGHT_DOUBLE, RIGHT_SINGLE};
use super::{Ended, Repair, RepairError, Repairer, Role};

/// `…`, one character for three dots.
const ELLIPSIS: &[u8] = "\u{2026}".as_bytes();

/// Wrappers that hold one value, from MongoDB's shell and extended JSON
/// and Python's `Decimal`, each with whether the value is a number (a
/// string argument must then spell one: `NumberLong("2")` is 2).
const WRAPPERS: &[(&[u8], bool)] = &[
    (b"ObjectId", false),
    (b"ISODate", false),
    (b"UUID", false),
    (b"NumberLong", true),
    (b"NumberInt", true),
    (b"NumberDecimal", true),
    (b"NumberDouble", true),
    (b"Decimal128", true),
    (b"Decimal", true),
    (b"Int32", true),
    (b"Int64", true),
    (b"Long", true),
    (b"Double", true),
];

/// What a bare word may hold besides ASCII letters and digits.
fn word_punctuation(b: u8) -> bool {
    matches!(
        b,
        b'_' | b'-' | b'.' | b'/' | b'&' | b'%' | b'@' | b'!' | b'?' | b'$'
    )
}

impl Repairer<'_> {
    /// The length of a placeholder at `pos` (`...` or `…`), 0 if none.
    pub(super) fn placeholder_len(&self) -> usize {
        let rest = self.rest();
        if rest.starts_with(ELLIPSIS) {
            ELLIPSIS.len()
        } else if rest.starts_with(b"...") && rest.get(3) != Some(&b'.') {
            3
        } else {
            0
        }
    }

    /// A placeholder where an item or member goes (`[1, 2, ...]`,
    /// `{"a": 1, …}`): left out, and listed in what was dropped. It must
    /// stand alone, before a `,` or the closer. Returns false when there is
    /// none at `pos`.
    pub(super) fn placeholder(&mut self) -> Result<bool, RepairError> {
        let len = self.placeholder_len();
        if len == 0 {
            return Ok(false);
        }
        let start = self.pos;
        self.pos += len;
        self.skip_trivia();
        match self.peek() {
            Some(b',') => self.pos += 1,
            Some(b'}' | b']' | b')') => {}
            _ if self.at_end() => {}
            _ => {
                self.pos = start;
                return self.error("`...` stands for items left out; write them, or leave it out");
            }
        }
        self.repairs.insert(Repair::Placeholder);
        self.dropped
            .push(String::from_utf8_lossy(&self.src[start..start + len]).into_owned());
        Ok(true)
    }

    /// True when a non-ASCII character that may be part of a word starts
    /// at `pos` (not a typographic quote, a Unicode space or `…`).
    pub(super) fn word_char_here(&self) -> bool {
        let rest = self.rest();
        rest.first().is_some_and(|&b| b >= 0x80)
            && unicode_space(rest) == 0
            && !rest.starts_with(ELLIPSIS)
            && ![LEFT_DOUBLE, RIGHT_DOUBLE, LEFT_SINGLE, RIGHT_SINGLE]
                .iter()
                .any(|quote| rest.starts_with(quote))
    }

    /// A value that starts with a letter: a literal, a wrapper, or plain
    /// words without quotes.
    pub(super) fn words(&mut self) -> Result<Ended, RepairError> {
        let src = self.src;
        let start = self.pos;
        let alnum_end = start
            + src[start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
        let word = &src[start..alnum_end];
        if src.get(alnum_end) == Some(&b'(') {
            return self.wrapper(word, alnum_end + 1);
        }
        let glued = src.get(alnum_end).is_some_and(|&b| is_key_byte(b));
        if !glued {
            if let Some((json, repair)) = literal(word) {
                if let Some(repair) = repair {
                    self.repairs.insert(repair);
                }
                self.out.extend_from_slice(json);
                self.pos = alnum_end;
                return Ok(Ended::Complete);
            }
            if let Some(json) = cut_literal(word).filter(|_| self.ends_after(alnum_end)) {
                // `tr` cut off: `true`, unless words without quotes may
                // stand here (`{"a": tr` may as well be `{"a": trip}`).
                if self.plain_words_allowed() {
                    return self.error(
                        "this value is cut off where the reply ends: it may begin true, false \
                         or null, or text without quotes; write the whole value",
                    );
                }
                self.out.extend_from_slice(json);
                self.pos = alnum_end;
                return Ok(Ended::Truncated);
            }
        }
        self.plain_words()
    }

    /// Plain words without quotes as a value (`{"city": Kyoto}`, `{"tags":
    /// [red, dark blue]}`): the words from the `:` or `,` to the end of the
    /// value. Only after a `:` or `,` the model wrote (`[1 apples]` is not
    /// two items), inside an object (`[see the table]` is prose), and
    /// only when a `,`, a closer, a line break or a comment ends them.
    fn plain_words(&mut self) -> Result<Ended, RepairError> {
        const PROSE: &str = "expected a JSON value; text must be in double quotes";
        let in_object = self.plain_words_allowed();
        let listed_before = self.listed_before();
        if !in_object && listed_before.is_none() {
            return self.error(PROSE);
        }
        let src = self.src;
        let start = self.pos;
        let mut i = start;
        let mut end = start;
        while i < src.len() {
            let b = src[i];
            if b == b':'
                && src[i..].starts_with(b"://")
                && src[start..i].iter().all(u8::is_ascii_alphabetic)
                && i > start
            {
                // `https://example.com/a?b=1#c`: a URL is one word up to
                // white space, a comma, a quote or a closer.
                i += 3;
                while i < src.len()
                    && !matches!(
                        src[i],
                        b' ' | b'\t' | b'\r' | b'\n' | b',' | b'"' | b'}' | b']'
                    )
                {
                    i += 1;
                }
                end = i;
            } else if b.is_ascii_alphanumeric()
                || (word_punctuation(b)
                    && !(b == b'/' && matches!(src.get(i + 1), Some(b'/' | b'*'))))
                || (b == b'\'' && i > start && src.get(i + 1).is_some_and(u8::is_ascii_alphabetic))
            {
                i += 1;
                end = i;
            } else if b == b' ' || b == b'\t' {
                i += 1;
            } else if b >= 0x80 {
                self.pos = i;
                if !self.word_char_here() {
                    break;
                }
                i += 1;
                end = i;
            } else {
                break;
            }
        }
        self.pos = i;
        // `{"a": foo", "b": 1}`: a quote glued to the words, then the end
        // of the value, is their closing quote, the opening one left out.
        // A closer after it must end the text or be followed by more
        // structure: in `{"a": O"}x", "b": 1}` the quote may as well open a
        // string holding the closer.
        let after_quote = super::ahead::skip_blank(src, i + 1);
        let closer_then_structure = |at: usize| {
            let next = super::ahead::skip_any_space(src, at + 1);
            matches!(src.get(next), None | Some(b',' | b'}' | b']'))
        };
        if src.get(i) == Some(&b'"')
            && end == i
            && end > start
            && match src.get(after_quote) {
                Some(b',' | b'\n' | b'\r') => true,
                Some(b'}' | b']') => closer_then_structure(after_quote),
                _ => false,
            }
        {
            let listed_after = matches!(src.get(after_quote), Some(b',' | b'\n' | b'\r'));
            if !(in_object || listed_before == Some(true) || listed_after) {
                self.pos = start;
                return self.error(PROSE);
            }
            self.repairs.insert(Repair::MissingQuote);
            self.write_words(start, end);
            self.pos = i + 1;
            return Ok(Ended::Complete);
        }
        // `{"a": big "b": 2}`: words, then a member on the same line,
        // its comma left out: the words end before it.
        if in_object && end < i && src.get(i) == Some(&b'"') && super::ahead::member_at(src, i) {
            self.write_words(start, end);
            self.pos = end;
            return Ok(Ended::Complete);
        }
        let ends = match src.get(i) {
            None => {
                // Cut off: listed before them, or in an object, or prose
                // (`[see the table` is no list either).
                if !(in_object || listed_before == Some(true)) {
                    self.pos = start;
                    return self.error(PROSE);
                }
                self.write_words(start, end);
                return Ok(Ended::Truncated);
            }
            Some(b',' | b'}' | b']' | b')' | b'\n' | b'\r') => true,
            Some(b'/') => matches!(src.get(i + 1), Some(b'/' | b'*')),
            Some(_) => unicode_space(&src[i..]) > 0,
        };
        // In a list outside an object, the words must be listed: a `,`
        // or a line break before or after them (`[red, blue]`, one item
        // a line); `[see the table]` is prose.
        let listed_after = matches!(src.get(i), Some(b',' | b'\n' | b'\r'));
        if !ends {
            return self.error(PROSE);
        }
        if !(in_object || listed_before == Some(true) || listed_after) {
            self.pos = start;
            return self.error(PROSE);
        }
        self.write_words(start, end);
        self.pos = end;
        Ok(Ended::Complete)
    }

    /// True when words without quotes may be a value here: after a `:`
    /// or `,` the model wrote, inside an object.
    fn plain_words_allowed(&self) -> bool {
        !self.inserted_separator && !self.objects.is_empty()
    }

    /// For words as an item of a list: `Some(true)` when a `,` or a line
    /// break stands right before them (spaces aside), `Some(false)` when
    /// they may still be listed by what follows them, `None` when they
    /// cannot be an item (not in a list, or after a comma the pass put in
    /// on the same line: `[1 apples]` is not two items).
    fn listed_before(&self) -> Option<bool> {
        if !matches!(self.stack.last(), Some(super::Frame::Array)) {
            return None;
        }
        let blank = self.src[..self.pos]
            .iter()
            .rev()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
            .count();
        let before = self.pos.checked_sub(blank + 1).map(|at| self.src[at]);
        match before {
            Some(b'\n') => Some(true),
            Some(b',') if !self.inserted_separator => Some(true),
            _ if self.inserted_separator => None,
            _ => Some(false),
        }
    }

    fn write_words(&mut self, start: usize, end: usize) {
        self.repairs.insert(Repair::UnquotedString);
        self.out.push(b'"');
        self.out.extend_from_slice(&self.src[start..end]);
        self.out.push(b'"');
    }

    /// `ObjectId("5f1")`, `NumberLong(2)`: a known wrapper around one
    /// string or number, read as the value it wraps. `open` is just past
    /// the `(`.
    fn wrapper(&mut self, name: &[u8], open: usize) -> Result<Ended, RepairError> {
        let Some(&(_, numeric)) = WRAPPERS.iter().find(|(known, _)| *known == name) else {
            return self.error("expected a JSON value; a call is no value, write what it gives");
        };
        self.repairs.insert(Repair::Wrapper);
        self.pos = open;
        self.skip_trivia();
        if self.at_end() || self.src[self.pos] == b')' {
            return self.error("expected the value inside the wrapper");
        }
        if self.number_here() {
            if !self.number()? {
                return self.error("expected the value inside the wrapper");
            }
        } else if let Some((quote, len)) = self.quote_here() {
            let written = self.out.len();
            if let Ended::Truncated = self.string(quote, len, Role::Value)? {
                return Ok(Ended::Truncated);
            }
            if numeric {
                // The string's text must spell a number: it is written
                // bare (`NumberLong("2")` is 2).
                let text = &self.out[written + 1..self.out.len() - 1];
                if serde_json::from_slice::<serde_json::Number>(text).is_err() {
                    self.pos = open;
                    return self.error("this wrapper holds a number; write the number");
                }
                self.out.remove(written);
                self.out.pop();
            }
        } else {
            return self.error("a wrapper such as ObjectId(…) should hold one string or number");
        }
        self.skip_trivia();
        match self.peek() {
            Some(b')') => {
                self.pos += 1;
                Ok(Ended::Complete)
            }
            None => {
                self.repairs.insert(Repair::Truncated);
                Ok(Ended::Truncated)
            }
            Some(_) => self.error("expected `)`: a wrapper such as ObjectId(…) holds one value"),
        }
    }
}
