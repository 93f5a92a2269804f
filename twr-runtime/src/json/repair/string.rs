//! Strings: quoted any way a model quotes them, written with double quotes
//! and valid escapes.

use memchr::memchr;

use super::ahead::{
    comment_at, fence_at, is_key_byte, item_at, member_at, skip_any_space, skip_blank, skip_space,
};
use super::{EndGuess, Ended, Frame, Repair, RepairError, RepairSet, Repairer};

/// Where a string would end had its closing quote been left out before a
/// comma.
struct Rewind {
    /// The comma, in the input.
    comma: usize,
    /// The length of the output before the comma.
    out: usize,
    /// The repairs before the quote after the comma was taken for text.
    repairs: RepairSet,
}

/// The brackets a string's text has opened and not closed, counted up to
/// ever later places: each byte of the text is looked at once.
#[derive(Default)]
struct TextBrackets {
    /// Where the count has reached.
    at: usize,
    /// Open `(`, `[` and `{`, in that order.
    open: [usize; 3],
}

impl TextBrackets {
    /// True when the text from `content` up to `to` leaves open a bracket
    /// that `closer` closes.
    fn leaves_open(&mut self, src: &[u8], content: usize, to: usize, closer: u8) -> bool {
        for &b in &src[self.at.max(content)..to] {
            match b {
                b'(' => self.open[0] += 1,
                b'[' => self.open[1] += 1,
                b'{' => self.open[2] += 1,
                b')' => self.open[0] = self.open[0].saturating_sub(1),
                b']' => self.open[1] = self.open[1].saturating_sub(1),
                b'}' => self.open[2] = self.open[2].saturating_sub(1),
                _ => {}
            }
        }
        self.at = self.at.max(to);
        match closer {
            b')' => self.open[0] > 0,
            b']' => self.open[1] > 0,
            b'}' => self.open[2] > 0,
            _ => false,
        }
    }
}

/// A fence line met inside a string.
enum FenceLine {
    /// With a language tag (```` ```python ````): it opens a block.
    Tagged,
    /// Bare: it closes a block.
    Bare,
}

/// What a string is in its container.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Key,
    Value,
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

/// A quote in a string followed by what may be a comment or text.
const COMMENT_OR_TEXT: &str = "a quote inside this string is followed by what could be a comment \
                               or more of its text; write a quote inside a string as \\\"";

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
    /// follows (after white space) ends a value, starts another string, a
    /// comment or a fence, joins strings (`+`) or closes a tuple (`)`), or
    /// a line break intervenes. Otherwise it is an apostrophe (`'it's'`).
    fn closes_single(&self, at: usize) -> bool {
        let src = self.src;
        let i = skip_blank(src, at);
        match src.get(i) {
            None | Some(b'\n' | b'\r') => true,
            Some(b',' | b'}' | b']' | b')' | b':' | b'\'' | b'"' | b';' | b'+' | b'#') => true,
            Some(b'/') => matches!(src.get(i + 1), Some(b'/' | b'*')),
            Some(_) => fence_at(src, i),
        }
    }

    /// For a string in single quotes from `content` whose closing quote is
    /// just before `self.pos`, holding an unpaired `"`: true when the text
    /// also reads as structure after a stray quote. It starts with a
    /// bracket, the quote is followed by a closer, and the next quote on
    /// the line is a `"`, which would pair with the one inside
    /// (`'[1], "'] "]`). A quote in single quotes met otherwise is text
    /// (`'5" screen'`, Python's `['[a"', "b"]`).
    fn stray_single_reading(&self, content: usize) -> bool {
        let src = self.src;
        if !matches!(src.get(skip_blank(src, content)), Some(b'[' | b'{')) {
            return false;
        }
        let after = skip_blank(src, self.pos);
        if !matches!(src.get(after), Some(b']' | b'}')) {
            return false;
        }
        // Up to the next quote on the line: the text between is looked at
        // once, as the next string starts there.
        src[after..]
            .iter()
            .take_while(|&&b| b != b'\n')
            .find(|&&b| b == b'"' || b == b'\'')
            == Some(&b'"')
    }

    /// A string opened by `quote` (`len` bytes) at `pos`, written with
    /// double quotes and valid escapes.
    pub(super) fn string(
        &mut self,
        quote: Quote,
        len: usize,
        role: Role,
    ) -> Result<Ended, RepairError> {
        let opened = self.pos;
        self.text_quote_in_string = false;
        let ended = self.string_text(quote, len, role);
        // A raw line break in the text just read.
        self.string_over_lines =
            memchr(b'\n', &self.src[opened..self.pos.min(self.src.len())]).is_some();
        if role == Role::Value && self.end_guessed.is_none() && matches!(ended, Ok(Ended::Complete))
        {
            let guess = if self.out.ends_with(b",\"") {
                Some(EndGuess::Comma)
            } else if self.string_over_lines {
                Some(EndGuess::OverLines)
            } else if self.lone_double_in_single == Some(opened) {
                Some(EndGuess::LoneDouble)
            } else {
                None
            };
            self.end_guessed = guess.map(|guess| (opened, guess));
        }
        ended
    }

    /// The body of [`Repairer::string`].
    fn string_text(&mut self, quote: Quote, len: usize, role: Role) -> Result<Ended, RepairError> {
        // The repairs before this string, and where its first raw control
        // character is: text given back to the structure takes back the
        // repairs made in it.
        let before = self.repairs;
        let after_inserted_comma = self.inserted_separator;
        let mut first_control: Option<usize> = None;
        let mut holds_newline = false;
        let opened = self.pos;
        // The last quote taken for text, when a comma stood before it
        // (`"b, "c`): the string may have ended at that comma instead.
        let mut after_comma: Option<Rewind> = None;
        // A quote was taken for text.
        let mut inner_quote = false;
        // How many quotes were taken for text; whether the first one was
        // followed by a space (`"32" screen"`), and where the string would
        // end had a member followed its text with the quotes of its key
        // and the string's closing quote left out (`"first, b: "second"`).
        let mut text_quotes = 0usize;
        let mut first_quote_then_space = false;
        let mut member_after: Option<Rewind> = None;
        // The first quote taken for text came right after the opening one.
        let mut doubled_open = false;
        // Double quotes taken for text in a string of other quotes: an odd
        // number leaves one unpaired, which may open a string of its own.
        let mut lone_double = false;
        // Whether the text up to `scanned` holds a bracket.
        let (mut bracket_in_text, mut scanned) = (false, self.pos + len);
        // The brackets the text leaves open, for a quote before a closer.
        let mut text_brackets = TextBrackets::default();
        // For a key with a quote glued between its letters: where its own
        // closing quote stands, once looked for.
        let mut key_text_end: Option<Option<usize>> = None;
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
        let content = self.pos;
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
                if after_inserted_comma || inner_quote {
                    // `[null 'x, "y"]`: a comma put in, then a string
                    // never closed; or `["" {, 1]`, a quote taken for
                    // text, then no end: two guesses for one value.
                    return self.error_from(
                        opened,
                        "this string is never closed; close it with its quote",
                    );
                }
                if role == Role::Key && memchr(b':', &src[content..]).is_some() {
                    // `{"key:value}`: the key's quote left out before the
                    // colon, or a key cut off that holds one: a value
                    // either way, never the empty object.
                    return self.error_from(
                        opened,
                        "this key is never closed and holds a colon; close the key with its \
                         quote before the colon",
                    );
                }
                let closers = self.closers_at_end(content, src.len());
                let plain = closers.is_some_and(|end| self.plain_text(content, end));
                if closers == Some(content)
                    && role == Role::Value
                    && matches!(quote, Quote::Double | Quote::Single)
                    && memchr(src[opened], &src[..opened]).is_some()
                {
                    // `[["a,","]]`: a quote glued to the closers that end
                    // the reply opens an empty string only if every quote
                    // before it is paired as written; it may as well close
                    // a string whose opening quote is the one before it,
                    // an earlier quote a stray (`[[a,","]]`), and then the
                    // items read would not be the items written. One
                    // search of the text before, once, at its end.
                    return self.error_from(
                        opened,
                        "this quote stands right before the closing brackets, so it may close \
                         a string opened by an earlier quote rather than open an empty one; \
                         write \"\" for an empty string, and a quote inside a string as \\\"",
                    );
                }
                if let (Some(end), true, Role::Value) = (closers, plain, role) {
                    self.end_string_at(end, src.len(), before, first_control);
                    return Ok(Ended::Complete);
                }
                // The text ends with the outermost container's closer: the
                // reply was not cut off, but where the string ends is not
                // said (a key cut off with plain text, `{"a": 1, "b}`, is
                // dropped as cut off).
                let outer = self.stack.first().map(|frame| frame.closing_byte());
                let last = src[content..]
                    .iter()
                    .rev()
                    .find(|b| !b.is_ascii_whitespace());
                let closed = closers.is_some()
                    || (last.is_some()
                        && last == outer.as_ref()
                        && closer_then_comma(&src[content..]));
                if closed && !(plain && role == Role::Key) {
                    return self.error_from(
                        opened,
                        "this string is never closed; close it with its quote",
                    );
                }
                if holds_newline && quote != Quote::Double {
                    // Single quotes never hold a line break: the string
                    // ended on its line, where is not said.
                    return self.error_from(
                        opened,
                        "this string in single quotes does not end on its line; close it with '",
                    );
                }
                if lone_double {
                    // `{"},null,":'"]`: a string in single quotes cut off
                    // holding one double quote. The single quote may be
                    // text inside a double-quoted string that the `"` ends
                    // (`":'"`), so reading it as cut off is a second guess.
                    return self.error_from(
                        opened,
                        "this string in single quotes holds a lone double quote and is never \
                         closed, so the single quote may be text inside a string that the \
                         double quote ends; write the string in double quotes, with a quote \
                         inside it as \\\"",
                    );
                }
                self.repairs.insert(Repair::Truncated);
                self.out.push(b'"');
                return Ok(Ended::Truncated);
            };
            match b {
                b'"' if quote == Quote::Double && role == Role::Value => {
                    // `""[1]`: an empty string, then a list.
                    let empty_then_container =
                        self.pos == content && matches!(src.get(self.pos + 1), Some(b'[' | b'{'));
                    if self.comment_has_two_readings(self.pos) {
                        return self.error(COMMENT_OR_TEXT);
                    }
                    // `"six feet (72") tall"`, `"the list [1, 2"] more"`: a
                    // closer right after the quote that closes no container
                    // open here (none, or one of another kind) but closes a
                    // bracket the text opened is text, and so is the quote.
                    // On one line only: a string read over lines may have
                    // taken in structure (`""(\n ],\n [\n ")"`).
                    let next = src.get(self.pos + 1).copied();
                    let text_closer = !holds_newline
                        && matches!(next, Some(b')' | b']' | b'}'))
                        && self.stack.last().map(|frame| frame.closing_byte()) != next
                        && text_brackets.leaves_open(src, content, self.pos, next.unwrap_or(0));
                    if text_closer {
                        // Brackets the text opens and closes are its own,
                        // not structure a stray quote took in.
                        scanned = self.pos;
                    } else if (empty_then_container || self.quote_ends_string(self.pos))
                        && !self.quote_before_quote_that_ends(content)
                    {
                        if inner_quote && comment_at(src, skip_space(src, self.pos + 1)) {
                            // `"see "https://x" // more", "n": 1`: the
                            // comment may be the string's own text, its end
                            // on the line after; two readings.
                            return self.error(COMMENT_OR_TEXT);
                        }
                        if holds_newline {
                            // `[\n ["\n null,\n "//"\n ]\n]`: a string read
                            // over lines to a quote, a comment after it
                            // holding a quote: the comment may be text of a
                            // string that quote opened, the lines before
                            // it structure. So is a comment after its comma
                            // (`""...,\n ",#",`: read to the quote before
                            // `,#",`, whose comment holds the quote that
                            // opened `",#"`). Read again as a comment after:
                            // each byte twice at most.
                            let mut at = skip_space(src, self.pos + 1);
                            if src.get(at) == Some(&b',') {
                                at = skip_space(src, at + 1);
                            }
                            let line_end = memchr(b'\n', &src[at..]).map_or(src.len(), |i| at + i);
                            if comment_at(src, at) && memchr(b'"', &src[at..line_end]).is_some() {
                                return self.error_from(
                                    opened,
                                    "this string runs over lines to a quote with a comment after \
                                     it that holds a quote, so where it ends is not known; close \
                                     it on its line, or write a line break inside it as \\n",
                                );
                            }
                        }
                        // Only where the string would then close cleanly:
                        // a bracket of the wrong kind after it is refused
                        // below with what is wrong there.
                        let next = src.get(skip_any_space(src, self.pos + 1)).copied();
                        let own = self.stack.last().map(|frame| frame.closing_byte());
                        // (In a list the checks after the value say it.)
                        let in_object = self.stack.last() == Some(&Frame::Object);
                        if doubled_open
                            && in_object
                            && (next.is_none() || next == Some(b',') || next == own)
                        {
                            return self.error_from(
                                opened,
                                "this string opens with two quotes, so the second may be a stray \
                                 one or its text; write a quote inside a string as \\\"",
                            );
                        }
                        if after_inserted_comma
                            && src[content..self.pos]
                                .iter()
                                .any(|b| matches!(b, b'[' | b']' | b'{' | b'}'))
                        {
                            // `[1"000,[-1,"]#"]]`: a comma put in before a
                            // string holding brackets: its quote may be a
                            // stray one, the brackets structure.
                            return self.error_from(
                                opened,
                                "this string holds brackets and no comma stands before it; close \
                                 the value before it, or write a comma",
                            );
                        }
                        if inner_quote && holds_newline {
                            // `["", ""O\n ],\n "]"]`: a quote taken for
                            // text, then the string read over lines to a
                            // quote, with brackets between: the quote taken
                            // for text may have closed it, the brackets
                            // structure. Each byte is looked at once.
                            if bracket_in_text
                                || src[scanned..self.pos]
                                    .iter()
                                    .any(|b| matches!(b, b'[' | b']' | b'{' | b'}'))
                            {
                                return self.error_from(
                                    opened,
                                    "this string runs over lines and holds brackets and a quote \
                                     that does not end it, so where it ends is not known; write a \
                                     quote inside a string as \\\", and close it on its line",
                                );
                            }
                        }
                        let in_list =
                            matches!(self.stack.last(), Some(Frame::Array | Frame::Tuple));
                        if text_quotes == 1 && first_quote_then_space && in_list {
                            // `["value1" value2", "value3"]`: the quote
                            // taken for text may end the item, its comma
                            // and the next item's opening quote left out
                            // (two items), or be text (one): two readings.
                            return self.error_from(
                                opened,
                                "a quote inside this item is followed by a space, so it may end \
                                 the item (a comma and a quote left out after it) or be its \
                                 text; write a quote inside a string as \\\", or a comma \
                                 between items",
                            );
                        }
                        if text_quotes == 1 && in_object && after_comma.is_none() {
                            if let Some(rewind) = member_after {
                                // `{"a": "first, b: "second"}`: the one
                                // quote taken for text opens the value of
                                // a member `b:`; read that member.
                                return self.close_value_string(Some(rewind), true);
                            }
                        }
                        return self.close_value_string(after_comma, false);
                    }
                    // Brackets before a quote taken for text: the string
                    // may be opened by a stray quote, its text structure
                    // (`[1, "[2, 3], "x"]`). Each byte is looked at once.
                    if !bracket_in_text {
                        bracket_in_text = src[scanned..self.pos]
                            .iter()
                            .any(|b| matches!(b, b'[' | b']' | b'{' | b'}'));
                        scanned = self.pos;
                    }
                    if bracket_in_text || after_inserted_comma {
                        // Or the `,` or `:` before the string was put in:
                        // a second guess about the same value.
                        return self.error(
                            "a quote inside this string does not end it; close the string, or \
                             write a quote inside it as \\\"",
                        );
                    }
                    // `"abc,/*x*/"def"` and `"hello +\n "world"`: after a
                    // comment's end or a `+` the quote may open a string of
                    // its own, the one before left open (a comma or a `+`
                    // joining them), or be text: two readings.
                    let before_quote = src[content..self.pos]
                        .iter()
                        .rev()
                        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
                    if before_quote == Some(&b'+') || src[content..self.pos].ends_with(b"*/") {
                        return self.error(
                            "a quote inside this string follows a `+` or a comment, so it may \
                             open a string of its own (the one before never closed) or be text; \
                             close each string with its quote, or write a quote inside a string \
                             as \\\"",
                        );
                    }
                    // `""value"`: the opening quote written twice, or a
                    // quote starting the text: two readings, refused where
                    // the string would close.
                    doubled_open |= self.pos == content;
                    inner_quote = true;
                    self.text_quote_in_string = true;
                    text_quotes += 1;
                    if text_quotes == 1 {
                        first_quote_then_space =
                            matches!(src.get(self.pos + 1), Some(b' ' | b'\t'));
                        member_after =
                            self.rewind_to_member_before(self.pos, content, before, first_control);
                    }
                    // A quote inside the text: `"a "quoted" word"`.
                    after_comma =
                        self.rewind_to_comma_before(self.pos, content, before, first_control);
                    self.repairs.insert(Repair::UnescapedQuote);
                    self.pos += 1;
                    self.out.extend_from_slice(b"\\\"");
                }
                b'"' => {
                    if after_inserted_comma && !self.plain_text(content, self.pos) {
                        // `null"},[1, "`: a comma put in, then a string of
                        // brackets: the quote before it a stray one.
                        return self.error_from(
                            opened,
                            "this string holds brackets and no comma stands before it; close \
                             the value before it, or write a comma",
                        );
                    }
                    if quote == Quote::SmartDouble {
                        // A string opened with `“` and ended by a plain
                        // quote is one guess already: a second one about
                        // the same string (where it ends, over lines or
                        // before a comment that could be its text) is not
                        // taken. Ended at once, the `“` may as well be a
                        // stray before a plain string (`[“"]x",0]`, whose
                        // items would be lost): not taken either.
                        if self.pos == content {
                            return self.error_from(
                                opened,
                                "a plain quote follows this \u{201C} at once, so it may be a \
                                 stray one before a string; write \u{201C}\u{201D} for an empty \
                                 string, or take the \u{201C} out",
                            );
                        }
                        if holds_newline {
                            return self.error_from(
                                opened,
                                "this string opened with \u{201C} runs over lines to a plain \
                                 quote, so where it ends is not known; close it with \u{201D} \
                                 on its line",
                            );
                        }
                        if self.comment_has_two_readings(self.pos) {
                            return self.error(COMMENT_OR_TEXT);
                        }
                    }
                    if role == Role::Key && quote == Quote::Double {
                        if let Some(colon) = self.key_colon_before_value(content) {
                            // `{"key: "value"}`: the key's closing quote
                            // left out before its colon; this quote
                            // opens the value. The key ends at the colon.
                            let written: usize = src[colon..self.pos]
                                .iter()
                                .map(|&b| if b == b'\t' { 2 } else { 1 })
                                .sum();
                            self.out.truncate(self.out.len() - written);
                            self.out.push(b'"');
                            self.repairs.insert(Repair::MissingQuote);
                            self.pos = colon;
                            return Ok(Ended::Complete);
                        }
                    }
                    if role == Role::Key && quote == Quote::Double {
                        // `{"k"e"y": 1}`: a quote glued between letters of
                        // a key whose own closing quote stands before its
                        // `:` later on the line is text: ended here, the
                        // letters after it would be neither a `:` nor a
                        // value.
                        // Only letters before it: after a stray quote
                        // before a key (`"  "A": 1`) the text is spaces.
                        if key_text_end.is_none() {
                            key_text_end = Some(
                                src[content..self.pos]
                                    .iter()
                                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                                    .then(|| glued_key_end(src, self.pos))
                                    .flatten()
                                    .filter(|_| self.pos > content),
                            );
                        }
                        if key_text_end.flatten().is_some_and(|end| self.pos < end) {
                            self.repairs.insert(Repair::UnescapedQuote);
                            self.pos += 1;
                            self.out.extend_from_slice(b"\\\"");
                            continue;
                        }
                    }
                    if role == Role::Key && holds_newline {
                        // `{"ke\ny": 1}`: a key over lines; its closing
                        // quote may be missing on the first line as well.
                        return self.error_from(
                            opened,
                            "this key runs over lines, so where it ends is not known; close it \
                             with its quote on its line",
                        );
                    }
                    self.pos += 1;
                    if matches!(quote, Quote::Double | Quote::SmartDouble) {
                        if quote == Quote::SmartDouble {
                            self.smart_closed_plain.get_or_insert(opened);
                        }
                        self.out.push(b'"');
                        return Ok(Ended::Complete);
                    }
                    lone_double = !lone_double;
                    self.out.extend_from_slice(b"\\\"");
                }
                b'\'' => {
                    self.pos += 1;
                    if quote == Quote::Single && self.closes_single(self.pos) {
                        if holds_newline
                            && src[content..self.pos]
                                .iter()
                                .any(|b| matches!(b, b'"' | b'[' | b']' | b'{' | b'}'))
                        {
                            // Single quotes never hold a line break: over
                            // lines holding brackets or quotes (`1,'\n
                            // [2],\n "'#"`), the quote that opened it may be
                            // a stray one, the lines structure.
                            return self.error_from(
                                opened,
                                "this string in single quotes does not end on its line; close it \
                                 with ' on its line, or write a line break inside it as \\n",
                            );
                        }
                        if role == Role::Key && quote_then_colon(&src[content..self.pos - 1]) {
                            // `'    "": "': 1`: a key in single quotes
                            // holding `"…":`, a key and its colon of JSON:
                            // the single quote may be a stray one.
                            return self.error_from(
                                opened,
                                "this key in single quotes holds a double quote and a colon, so \
                                 it may be a stray quote before a key; write the key in double \
                                 quotes",
                            );
                        }
                        // `'"","':":"`: a value in single quotes holding a
                        // lone double quote, with no `,`, closer or end after
                        // it: the single quote may be a stray one before a
                        // string the double quotes make.
                        let ends_value = matches!(
                            src.get(skip_any_space(src, self.pos)),
                            None | Some(b',' | b'}' | b']' | b')')
                        );
                        if lone_double && role == Role::Value && !ends_value {
                            return self.error_from(
                                opened,
                                "this string in single quotes holds a lone double quote and no \
                                 comma or closing bracket follows it, so it may not be one \
                                 string; write it in double quotes, with a quote inside it as \\\"",
                            );
                        }
                        if lone_double && self.stray_single_reading(content) {
                            // `['[1], "'] "]`: the single quote may be a
                            // stray one and the text structure, the double
                            // quote the start of the string that holds it:
                            // two readings.
                            return self.error_from(
                                opened,
                                "this string in single quotes holds brackets and a lone double \
                                 quote, so it may not be one string; write it in double quotes, \
                                 with a quote inside it as \\\"",
                            );
                        }
                        if lone_double {
                            self.lone_double_in_single.get_or_insert(opened);
                        }
                        self.out.push(b'"');
                        return Ok(Ended::Complete);
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
                        return Ok(Ended::Complete);
                    }
                    self.out.push(b);
                    self.pos += 1;
                }
                b'\\' => self.escape(),
                b'\n' if after_inserted_comma => {
                    // A comma put in, then a string over lines: where it
                    // ends is a second guess.
                    return self.error_from(
                        opened,
                        "this string does not end on its line, and no comma stands before it; \
                         close it with its quote",
                    );
                }
                b'\n' => {
                    holds_newline = true;
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
                            if role == Role::Value && !inner_quote {
                                if let Some(end) = self
                                    .closers_at_end(content, self.pos)
                                    .filter(|&end| self.plain_text(content, end))
                                {
                                    self.end_string_at(end, self.pos, before, first_control);
                                    return Ok(Ended::Complete);
                                }
                            }
                            self.pos = self.skip_spaces(self.pos + 1);
                            self.repairs.insert(Repair::Truncated);
                            self.out.push(b'"');
                            return Ok(Ended::Truncated);
                        }
                        _ => {}
                    }
                    first_control.get_or_insert(self.pos);
                    self.control(b);
                }
                _ => {
                    first_control.get_or_insert(self.pos);
                    self.control(b);
                }
            }
        }
    }

    /// Strings joined with `+` after the one just written (`"a" + "b"`),
    /// written as one.
    pub(super) fn joined_strings(&mut self) -> Result<Ended, RepairError> {
        loop {
            // Comments may stand on either side of the `+` (`"a" /* c */ +
            // "b"`): skipped, and given back when no `+` and string follow
            // (the pass then reads them once more).
            let before = (
                self.pos,
                self.repairs,
                self.dropped.len(),
                self.structure_in_last_comment,
            );
            let give_back = |r: &mut Self| {
                r.pos = before.0;
                r.repairs = before.1;
                r.dropped.truncate(before.2);
                r.structure_in_last_comment = before.3;
            };
            self.skip_trivia();
            if self.peek() != Some(b'+') {
                give_back(self);
                return Ok(Ended::Complete);
            }
            self.pos += 1;
            self.skip_trivia();
            let Some((quote, len)) = self.quote_here() else {
                give_back(self);
                return Ok(Ended::Complete);
            };
            if self.string_over_lines {
                // A string read over lines to a quote, then `+`: the quote
                // may open a string of the text instead (`1,"\n 2\n ], "+",
                // 3]` would join the rest of the list into one string).
                return self.error(
                    "a string that runs over lines is joined with + to the next one, so where \
                     it ends is not known; close each string on its line",
                );
            }
            if self.text_quote_in_string {
                // The same for a string holding a quote taken for text
                // (`[""',null],"+"]`): that quote may have closed it.
                return self.error(
                    "a string holding a quote that does not end it is joined with + to the \
                     next one, so where it ends is not known; write a quote inside a string \
                     as \\\"",
                );
            }
            self.repairs.insert(Repair::StringConcatenation);
            // The first string's closing quote, then the next one's opening.
            let junction = self.out.len() - 1;
            let ended = self.string(quote, len, Role::Value)?;
            self.out.drain(junction..junction + 2);
            if let Ended::Truncated = ended {
                return Ok(Ended::Truncated);
            }
        }
    }

    /// True when the `"` at `quote` ends its string, as what follows says
    /// (on its line or the next): the end of a value (`,`, a closer, `:`,
    /// the end), another string, a `+` joining strings, a comment, a fence; or, after
    /// a space, what the container holds next with its comma left out (a
    /// bare key and its `:` in an object; a number, literal, object or
    /// list in a list). Otherwise it is a quote inside the text (`"a
    /// "quoted" word"`, `"see "https://…" first"`).
    fn quote_ends_string(&self, quote: usize) -> bool {
        let src = self.src;
        let at = quote + 1;
        // A line break counts as white space: the next line says.
        let next = skip_any_space(src, at);
        match src.get(next) {
            None => true,
            Some(b',' | b'}' | b']' | b')' | b':' | b'"' | b'+') => true,
            // `"x";` ends a bare value; in a container it is text.
            Some(b';') => self.stack.is_empty(),
            Some(b'/') => matches!(src.get(next + 1), Some(b'/' | b'*')),
            Some(_) if fence_at(src, next) => true,
            // `["a"[1]]`: an item after a comma left out.
            Some(b'[' | b'{') if self.stack.last() != Some(&Frame::Object) => true,
            Some(_) if next == at => false,
            Some(_) if self.stack.last() == Some(&Frame::Object) => member_at(src, next),
            Some(_) => item_at(src, next),
        }
    }

    /// True when the `"` at `quote`, inside a value string, is followed by
    /// a comment that could as well be the string's text, and each reading
    /// gives a value:
    ///
    /// - `//` or `/* */` (after which the quote ends the string) whose text
    ///   holds a `"`, where the string could end instead, and after which
    ///   no `,`, closer or `+` follows (`{"a": "see "//" here",\n"b": 1}`
    ///   is `see "//" here`, or `see ` and a member with its comma left
    ///   out);
    /// - `#` (text, as in `"C# "#1" lang"`) after which, on the next line, a
    ///   `,`, a closer or a `+` follows (`"abc"#c\n+"def"` is one string
    ///   over two lines, or `abc` joined to `def`).
    fn comment_has_two_readings(&mut self, quote: usize) -> bool {
        let src = self.src;
        let at = skip_any_space(src, quote + 1);
        let clean_after = |end: usize| {
            let next = skip_any_space(src, end);
            matches!(src.get(next), Some(b',' | b'}' | b']' | b')' | b'+' | b':'))
        };
        match (src.get(at), src.get(at + 1)) {
            (Some(b'/'), Some(b'/')) => {
                // Read again as a comment once the string ends here: each
                // byte twice at most.
                let end = memchr(b'\n', &src[at..]).map_or(src.len(), |i| at + i);
                memchr(b'"', &src[at..end]).is_some() && !clean_after(end)
            }
            (Some(b'/'), Some(b'*')) => {
                let end =
                    memchr::memmem::find(&src[at + 2..], b"*/").map_or(src.len(), |i| at + i + 4);
                memchr(b'"', &src[at..end]).is_some() && !clean_after(end)
            }
            (Some(b'#'), _) => {
                // The string goes on over this line: the line break found
                // is kept for the next `"#` on it.
                let newline = match self.next_newline {
                    Some(found) if found.is_none_or(|n| n >= at) => found,
                    _ => {
                        let found = memchr(b'\n', &src[at..]).map(|i| at + i);
                        self.next_newline = Some(found);
                        found
                    }
                };
                newline.is_some_and(clean_after)
            }
            _ => false,
        }
    }

    /// True when the `"` at `pos`, inside the text from `content`, is
    /// followed right away by another that ends the value (`"said "hi"",`):
    /// the first is the text's, the second the closing one.
    fn quote_before_quote_that_ends(&self, content: usize) -> bool {
        let src = self.src;
        let second = self.pos + 1;
        self.pos > content
            && src.get(second) == Some(&b'"')
            && matches!(
                src.get(skip_space(src, second + 1)),
                None | Some(b',' | b'}' | b']')
            )
    }

    /// For a quote at `quote` taken for text: where the string would end had
    /// its quote been left out before a comma (`"b, "c": 1`), when only
    /// white space stands between that comma and the quote.
    fn rewind_to_comma_before(
        &self,
        quote: usize,
        content: usize,
        before: RepairSet,
        first_control: Option<usize>,
    ) -> Option<Rewind> {
        let src = self.src;
        let mut i = quote;
        let mut written = 0;
        while i > content && matches!(src[i - 1], b' ' | b'\t' | b'\r' | b'\n') {
            written += if src[i - 1] == b' ' { 1 } else { 2 };
            i -= 1;
        }
        if i == content || src[i - 1] != b',' {
            return None;
        }
        let comma = i - 1;
        Some(Rewind {
            comma,
            out: self.out.len() - written - 1,
            repairs: self.repairs_before(comma, before, first_control),
        })
    }

    /// For the first quote taken for text, at `quote`: where the string
    /// would end had a member followed its text, written `, key: "` with
    /// the key's quotes and the string's closing quote left out (`"first,
    /// b: "second"`). Reads back over white space, the `:`, the key and
    /// white space to a comma: bytes after the previous quote, so each is
    /// read back once.
    fn rewind_to_member_before(
        &self,
        quote: usize,
        content: usize,
        before: RepairSet,
        first_control: Option<usize>,
    ) -> Option<Rewind> {
        let src = self.src;
        let blank = |b: u8| matches!(b, b' ' | b'\t');
        let mut i = quote;
        while i > content && blank(src[i - 1]) {
            i -= 1;
        }
        if i == content || src[i - 1] != b':' {
            return None;
        }
        i -= 1;
        let key_end = i;
        while i > content && is_key_byte(src[i - 1]) && src[i - 1] < 0x80 {
            i -= 1;
        }
        if i == key_end || !src[i].is_ascii_alphabetic() && src[i] != b'_' {
            return None;
        }
        while i > content && blank(src[i - 1]) {
            i -= 1;
        }
        if i == content || src[i - 1] != b',' {
            return None;
        }
        let comma = i - 1;
        // Written out from the comma on: the text is plain (no escapes,
        // tabs written as two bytes).
        let written: usize = src[comma..quote]
            .iter()
            .map(|&b| if b == b'\t' { 2 } else { 1 })
            .sum();
        Some(Rewind {
            comma,
            out: self.out.len() - written,
            repairs: self.repairs_before(comma, before, first_control),
        })
    }

    /// For a key's `"` at `pos`, with its text from `content`: the `:` the
    /// text ends with (then only spaces), when no `:` follows the quote,
    /// so that the quote opens the value and the key's closing quote was
    /// left out before its colon (`{"key: "value"}`).
    fn key_colon_before_value(&self, content: usize) -> Option<usize> {
        let src = self.src;
        let mut i = self.pos;
        while i > content && matches!(src[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i <= content + 1 || src[i - 1] != b':' {
            return None;
        }
        // The value's text right after the quote: a quote followed by a
        // space, a `:` or a closer is the key's own (`{"key:" "v"}`).
        match src.get(self.pos + 1) {
            None
            | Some(b' ' | b'\t' | b'\n' | b'\r' | b':' | b',' | b'}' | b']' | b'"' | b'\'') => None,
            Some(_) => Some(i - 1),
        }
    }

    /// The repairs made so far, less those made only for the text of the
    /// current string from `from` on (its raw control characters), which
    /// is given back to be read again.
    fn repairs_before(
        &self,
        from: usize,
        before: RepairSet,
        first_control: Option<usize>,
    ) -> RepairSet {
        let mut repairs = self.repairs;
        if !before.contains(Repair::ControlCharacter) && first_control.is_none_or(|at| at >= from) {
            repairs.remove(Repair::ControlCharacter);
        }
        repairs
    }

    /// Closes a value string at the `"` at `pos`. When the last quote taken
    /// for text stood after a comma, the string had two readings: a quote
    /// inside the text, or a closing quote left out before the comma and a
    /// new string. A `:` after this quote makes that new string a key: the
    /// second reading, the only one (`{"a": "b, "c": 1}`). In a list the
    /// new string is as good an item as the text: the reply says two
    /// things, and the repair refuses (`["a, "b"]`).
    ///
    /// `member`: the rewind is to a comma before a member whose key stands
    /// in the text (`"first, b: "second"`), so the member is the reading
    /// as a `:` after this quote would make it.
    fn close_value_string(
        &mut self,
        after_comma: Option<Rewind>,
        member: bool,
    ) -> Result<Ended, RepairError> {
        if let Some(rewind) = after_comma {
            let in_object = self.stack.last() == Some(&Frame::Object);
            let colon = member || self.src.get(skip_blank(self.src, self.pos + 1)) == Some(&b':');
            // `"b}, "c": 1`: the quote could go before the bracket (the
            // object closed early) as well as before the comma.
            let before_comma = &self.src[..rewind.comma];
            let closer_before = before_comma
                .iter()
                .rev()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .is_some_and(|b| matches!(b, b'}' | b']'));
            if in_object && colon && closer_before {
                self.pos = rewind.comma;
                return self.error(
                    "this string has no closing quote, and it could end before the bracket or \
                     before the comma; close it with \"",
                );
            }
            if in_object && colon {
                self.out.truncate(rewind.out);
                self.out.push(b'"');
                self.repairs = rewind.repairs;
                self.repairs.insert(Repair::MissingQuote);
                self.pos = rewind.comma;
                return Ok(Ended::Complete);
            }
            if !in_object {
                self.pos = rewind.comma;
                return self.error(
                    "a quote inside this string could end it here or be part of its text; \
                     write a quote inside a string as \\\"",
                );
            }
        }
        self.pos += 1;
        self.out.push(b'"');
        Ok(Ended::Complete)
    }

    /// Where a value string that runs to `limit` (the end of the input, or
    /// of a fenced reply) really ends, when the structure says: its text
    /// ends with the closing brackets of every open container, in order
    /// (then maybe white space and a fence), so the quote belongs before
    /// them (`{"a": ["x", "y]}`). Otherwise it was cut off, and what it
    /// holds is its text.
    fn closers_at_end(&self, content: usize, limit: usize) -> Option<usize> {
        let src = self.src;
        let space = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        let mut i = limit;
        let back_over_space = |mut i: usize| {
            while i > content && space(src[i - 1]) {
                i -= 1;
            }
            i
        };
        i = back_over_space(i);
        // A closing fence after the value.
        let marker = |b: u8| b == b'`' || b == b'~';
        let mut run = i;
        while run > content && marker(src[run - 1]) && src[run - 1] == src[i - 1] {
            run -= 1;
        }
        if i - run >= 3 {
            i = back_over_space(run);
        }
        if self.stack.is_empty() {
            return None;
        }
        // The innermost container's closer comes first, so last read back.
        for frame in &self.stack {
            if i == content || src[i - 1] != frame.closing_byte() {
                return None;
            }
            i = back_over_space(i - 1);
        }
        Some(i)
    }

    /// True when the text `content..end` of a string missing its closing
    /// quote could be nothing but text. Text that could be structure has a
    /// second reading, the quote that opened it a stray one (`[null, "[1,
    /// 2]]`); so has a comma in a list (`["x, y]` may be two items), and in
    /// an object a comma before a bare key and its colon (`{"a": "first, b:
    /// 1}`: the quote may be missing before the comma, a member `b` after).
    fn plain_text(&self, content: usize, end: usize) -> bool {
        let in_object = self.stack.last() == Some(&Frame::Object);
        let text = &self.src[content..end];
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                // An escaped character is text (`\"`).
                b'\\' => i += 1,
                b'"' | b'\'' | b'[' | b']' | b'{' | b'}' | b'\n' => return false,
                b',' if !in_object || bare_member_at(text, i + 1) => return false,
                _ => {}
            }
            i += 1;
        }
        true
    }

    /// Ends the current string at `end`: what was
    /// written for the bytes from `end` to `limit` (white space, closers, a
    /// fence) is taken back, to be read again as structure.
    fn end_string_at(
        &mut self,
        end: usize,
        limit: usize,
        before: RepairSet,
        first_control: Option<usize>,
    ) {
        let written: usize = self.src[end..limit]
            .iter()
            .map(|&b| {
                if matches!(b, b'\t' | b'\r' | b'\n') {
                    2
                } else {
                    1
                }
            })
            .sum();
        self.out.truncate(self.out.len() - written);
        self.out.push(b'"');
        self.repairs = self.repairs_before(end, before, first_control);
        self.repairs.insert(Repair::MissingQuote);
        self.pos = end;
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

/// True when `text` holds a closing bracket and then a comma (`null},
/// -4]`): structure, where a string cut off holds text.
/// True when `text` from `at` holds, after spaces, a bare key that starts
/// with a letter or `_` and then its `:` (a `://` is a URL's). Reads only
/// up to the first byte that cannot be in a key, never past a comma.
fn bare_member_at(text: &[u8], at: usize) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let start = at + text[at..].iter().take_while(|b| blank(b)).count();
    if !text
        .get(start)
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
    {
        return false;
    }
    let key_end = start
        + text[start..]
            .iter()
            .take_while(|&&b| is_key_byte(b) && b < 0x80)
            .count();
    let colon = key_end + text[key_end..].iter().take_while(|b| blank(b)).count();
    text.get(colon) == Some(&b':') && text.get(colon + 1) != Some(&b'/')
}

fn closer_then_comma(text: &[u8]) -> bool {
    text.windows(2)
        .any(|pair| matches!(pair[0], b'}' | b']') && pair[1] == b',')
}

/// True when `text` holds a `"` followed, after spaces, by a `:`.
fn quote_then_colon(text: &[u8]) -> bool {
    text.iter().enumerate().any(|(i, &b)| {
        b == b'"' && text[i + 1..].iter().find(|&&c| c != b' ' && c != b'\t') == Some(&b':')
    })
}

/// For a key's quote at `quote` glued to the letters after it (`"k"e"y":`):
/// the key's own closing quote, the last quote before the first `:` on the
/// line with only spaces between, when only letters, digits, `_`, `-` and
/// quotes stand between; `None` otherwise. One look along the line.
fn glued_key_end(src: &[u8], quote: usize) -> Option<usize> {
    if !src.get(quote + 1).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    // The last quote, while only spaces have followed it.
    let mut quote_before = None;
    for (i, &b) in src.iter().enumerate().skip(quote + 1) {
        match b {
            b'"' => quote_before = Some(i),
            b':' => return quote_before,
            // Spaces only between the key's closing quote and its colon.
            b' ' | b'\t' if quote_before.is_some() => {}
            b'_' | b'-' => quote_before = None,
            b if b.is_ascii_alphanumeric() => quote_before = None,
            _ => return None,
        }
    }
    None
}
