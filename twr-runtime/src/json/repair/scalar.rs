//! Numbers and literals, copied or translated to their JSON spelling.

use super::{Repair, RepairError, Repairer};

/// The JSON spelling of a literal word, and the repair its spelling needs:
/// `true`, `false`, `null` as they are; Python's `True`, `False`, `None`;
/// JavaScript's `undefined` and `NaN` (no value; `null`, as
/// `JSON.stringify` writes them).
pub(super) fn literal(word: &[u8]) -> Option<(&'static [u8], Option<Repair>)> {
    Some(match word {
        b"true" => (b"true", None),
        b"false" => (b"false", None),
        b"null" => (b"null", None),
        b"True" => (b"true", Some(Repair::PythonLiteral)),
        b"False" => (b"false", Some(Repair::PythonLiteral)),
        b"None" => (b"null", Some(Repair::PythonLiteral)),
        b"undefined" | b"NaN" => (b"null", Some(Repair::JsLiteral)),
        _ => return None,
    })
}

/// The literal that a cut-off `word` at the end of the input begins.
pub(super) fn cut_literal(word: &[u8]) -> Option<&'static [u8]> {
    let full = [&b"true"[..], b"false", b"null", b"True", b"False", b"None"]
        .into_iter()
        .find(|full| full.starts_with(word))?;
    Some(match full[0] {
        b't' | b'T' => b"true",
        b'f' | b'F' => b"false",
        _ => b"null",
    })
}

/// Where the word that starts like a number at `start` ends: letters,
/// digits, `.`, `_`, `-` and `:` glued together (`1.2.3`, `10-20`, a UUID,
/// a time of day), a `/` before a letter or digit (`1/3`; `//` and `/*`
/// open comments), a `+` only in an exponent (`1e+5`; `1+2` is no word).
pub(super) fn number_token_end(src: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(&b) = src.get(i) {
        let glued = b.is_ascii_alphanumeric()
            || matches!(b, b'.' | b'_' | b'-' | b':')
            || (b == b'/' && src.get(i + 1).is_some_and(u8::is_ascii_alphanumeric))
            || (b == b'+' && matches!(src[i - 1], b'e' | b'E'));
        if !glued {
            break;
        }
        i += 1;
    }
    i
}

/// The JSON number a token of digits grouped by `_` spells (`1_234.5_6`
/// is `1234.56`): each `_` between two digits, the rest a JSON number.
fn grouped_number(token: &[u8]) -> Option<Vec<u8>> {
    let digit = |i: usize| token.get(i).is_some_and(u8::is_ascii_digit);
    let mut number = Vec::with_capacity(token.len());
    for (i, &b) in token.iter().enumerate() {
        if b == b'_' {
            if i == 0 || !digit(i - 1) || !digit(i + 1) {
                return None;
            }
        } else {
            number.push(b);
        }
    }
    serde_json::from_slice::<serde_json::Number>(&number)
        .is_ok()
        .then_some(number)
}

impl Repairer<'_> {
    /// True when a number starts at `pos`: a digit or `-` (a lone `-` is
    /// a number cut off), or `+` or `.` before a digit (`+1`, `.25`).
    pub(super) fn number_here(&self) -> bool {
        let digit = |i: usize| self.src.get(i).is_some_and(u8::is_ascii_digit);
        match self.src[self.pos] {
            b'-' | b'0'..=b'9' => true,
            b'+' => {
                digit(self.pos + 1)
                    || (self.src.get(self.pos + 1) == Some(&b'.') && digit(self.pos + 2))
            }
            b'.' => digit(self.pos + 1),
            _ => false,
        }
    }

    /// True when `Infinity`, `-Infinity` or `+Infinity` starts at `pos`:
    /// no number JSON can hold.
    pub(super) fn infinity_here(&self) -> bool {
        let rest = self.rest();
        let word = rest
            .strip_prefix(b"-")
            .or_else(|| rest.strip_prefix(b"+"))
            .unwrap_or(rest);
        word.starts_with(b"Infinity")
            && !word
                .get(b"Infinity".len())
                .is_some_and(|&b| super::ahead::is_key_byte(b))
    }

    /// A number, in JSON's spelling: `+1` is `1`, `.25` is `0.25` and `1.`
    /// is `1` (`number_spelling`). Returns false when the input ends after
    /// a sign alone (`-`): no value was written.
    ///
    /// # Errors
    ///
    /// At the end of the input inside an open container, a number whose
    /// tail is incomplete (`[1.`, `2e`, `1.5e-`): the digits that were cut
    /// off are not known, so no value can be read (`1.` is 1 in Python,
    /// but in a value the text cut off as likely the start of 1.5; `2e` is
    /// never 2). A whole reply `2.` is 2.
    pub(super) fn number(&mut self) -> Result<bool, RepairError> {
        let src = self.src;
        let digits = |mut i: usize| {
            while i < src.len() && src[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let token_end = number_token_end(src, self.pos);
        let token = &src[self.pos..token_end];
        if token.contains(&b'_') {
            // `82_461_110`, `1_234.5_6`: digits grouped by `_` as Python,
            // Rust and JavaScript write them are that number; any other
            // `_` makes the token a word as written.
            match grouped_number(token) {
                Some(number) => {
                    self.repairs.insert(Repair::NumberSpelling);
                    self.out.extend_from_slice(&number);
                    self.pos = token_end;
                }
                None => self.token_as_text(token_end)?,
            }
            return Ok(true);
        }
        let unsigned = token
            .strip_prefix(b"-")
            .or(token.strip_prefix(b"+"))
            .unwrap_or(token);
        if unsigned.len() > 1 && unsigned[0] == b'0' && unsigned[1].is_ascii_digit() {
            // `0789`, `-05`: no JSON number has a leading zero; the digits
            // as written are a code (a postcode, an ID), and read as a
            // number they would lose the zeros. The text is the value.
            self.token_as_text(token_end)?;
            return Ok(true);
        }
        let mut i = self.pos;
        let mut out: Vec<u8> = Vec::new();
        let mut spelled = false;
        match src[i] {
            b'-' => {
                out.push(b'-');
                i += 1;
            }
            b'+' => {
                spelled = true;
                i += 1;
            }
            _ => {}
        }
        let int_end = digits(i);
        if int_end == i
            && src.get(i) == Some(&b'.')
            && src.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            // `.25`
            spelled = true;
            out.push(b'0');
        }
        out.extend_from_slice(&src[i..int_end]);
        i = int_end;
        let has_int = out.last().is_some_and(u8::is_ascii_digit);
        // Where the last complete number ends, in the input and the output.
        let mut complete = if has_int { Some((i, out.len())) } else { None };
        if has_int && src.get(i) == Some(&b'.') {
            let frac_end = digits(i + 1);
            if frac_end > i + 1 {
                out.extend_from_slice(&src[i..frac_end]);
                complete = Some((frac_end, out.len()));
            } else if self.stack.is_empty() || !self.ends_after(frac_end) {
                // `1.` before more of the value: the dot says nothing. So
                // it does at the end of a whole reply that is the number
                // (`2.`): nothing open says the text was cut (a reply the
                // length limit cut, the loop asks for again), and a point
                // after a number that ends a reply is Python's and
                // JavaScript's spelling of it, or a sentence's full stop.
                spelled = true;
                complete = Some((frac_end, out.len()));
            }
            i = frac_end;
        }
        if complete.is_some_and(|(end, _)| end == i) && matches!(src.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(src.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            let exp_end = digits(j);
            if exp_end > j {
                out.extend_from_slice(&src[i..exp_end]);
                complete = Some((exp_end, out.len()));
            }
            i = exp_end;
        }
        if token_end > i && has_int {
            // `1/3`, `10-20`, `1.1.1`, a UUID or a date: a word that starts
            // with digits, more than a number, read as the text written
            // (as `{"city": Kyoto}` is), never cut to the number it starts
            // with.
            self.token_as_text(token_end)?;
            return Ok(true);
        }
        if complete.is_none_or(|(end, _)| end != i) {
            if !self.ends_after(i) {
                // Leave it to the deserializer to name the bad number.
                self.out.extend_from_slice(&src[self.pos..i]);
                self.pos = i;
                return Ok(true);
            }
            if complete.is_some() {
                // `1.`, `2e`, `1.5e-` cut off: the value has two readings
                // or none; dropping the tail would be a guess.
                return self.error(
                    "this number is cut off where the reply ends, so its value is not known; \
                     write the whole number",
                );
            }
            // A sign alone: no value; the item or member is dropped.
            self.repairs.insert(Repair::Truncated);
        }
        self.pos = i;
        let Some((_, len)) = complete else {
            return Ok(false);
        };
        if spelled {
            self.repairs.insert(Repair::NumberSpelling);
        }
        self.out.extend_from_slice(&out[..len]);
        Ok(true)
    }

    /// The word from `pos` to `end` that starts like a number, written as
    /// the string it spells; refused after a `,` or `:` the pass put in,
    /// as words without quotes are (`[2 0.0.1 2]` may be one item or
    /// three).
    fn token_as_text(&mut self, end: usize) -> Result<(), RepairError> {
        if self.in_values_only() {
            return self.error(
                "this word that starts with digits stands among values with commas between and \
                 no keys, where a word is a name, not a value; write text in double quotes",
            );
        }
        if self.inserted_separator {
            return self.error(
                "this word without quotes follows a value with no `,` between them; write \
                 text in double quotes, and a comma between items",
            );
        }
        self.repairs.insert(Repair::UnquotedString);
        self.out.push(b'"');
        self.out.extend_from_slice(&self.src[self.pos..end]);
        self.out.push(b'"');
        self.pos = end;
        Ok(())
    }

    /// True when only trivia stands between `at` and the end of the input
    /// (or a fence).
    pub(super) fn ends_after(&mut self, at: usize) -> bool {
        let (pos, repairs, dropped) = (self.pos, self.repairs, self.dropped.len());
        self.pos = at;
        self.skip_trivia();
        let end = self.at_end();
        self.pos = pos;
        self.repairs = repairs;
        self.dropped.truncate(dropped);
        end
    }
}
