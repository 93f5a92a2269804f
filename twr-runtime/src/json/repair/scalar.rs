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
    /// At the end of the input, a number whose tail is incomplete (`1.`,
    /// `2e`, `1.5e-`): the digits that were cut off are not known, so no
    /// value can be read (`1.` is 1 in Python, but as likely the start of
    /// 1.5; `2e` is never 2).
    pub(super) fn number(&mut self) -> Result<bool, RepairError> {
        let src = self.src;
        let digits = |mut i: usize| {
            while i < src.len() && src[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
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
            } else if !self.ends_after(frac_end) {
                // `1.` before more of the value: the dot says nothing.
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
