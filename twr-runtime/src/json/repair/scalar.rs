//! Numbers and literals, copied or translated to their JSON spelling.

use super::{Ended, Repair, RepairError, Repairer};

impl Repairer<'_> {
    /// A number, copied as is; at the end of the input an incomplete tail
    /// (`1.`, `2e`, `-`) is cut. Returns false when nothing was left.
    pub(super) fn number(&mut self) -> bool {
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
    pub(super) fn literal(&mut self) -> Result<Ended, RepairError> {
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
}
