//! Closing brackets, of the right kind or the wrong one.

use super::ahead::{item_at, last_item_at, member_at, next, skip_space, Next};
use super::{Expect, Frame, Repair, RepairError, Repairer};

impl Repairer<'_> {
    /// True when the closer of `outer`, the outermost container, stands
    /// somewhere after the closer at `pos`: a closer of the wrong kind
    /// that would end the whole value may then be text of a string a stray
    /// quote ended (`{"a": ""]\\", "b": 1}`), and reading it as the end
    /// would drop what follows. One search, once: the value ends here
    /// either way.
    fn own_closer_later(&self, outer: Frame) -> bool {
        memchr::memchr(outer.closing_byte(), &self.src[self.pos + 1..]).is_some()
    }

    /// True when the value just written is a string whose text leaves a
    /// `{` open (`"x {y"`): a `}` after it may be that text's, its quote
    /// taken for the end. Looks back over that one string only.
    fn last_string_opens_curly(&self) -> bool {
        let out = &self.out;
        if out.last() != Some(&b'"') {
            return false;
        }
        // Read backwards: a `}` waits for its `{`, a `{` with none waiting
        // is left open. Only a quote looks at the backslashes before it,
        // and those runs never overlap: one pass over the string.
        let (mut waiting, mut open) = (0usize, false);
        let mut i = out.len() - 1;
        while i > 0 {
            i -= 1;
            match out[i] {
                b'"' => {
                    let backslashes = out[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                    if backslashes % 2 == 0 {
                        return open;
                    }
                }
                b'}' => waiting += 1,
                b'{' if waiting > 0 => waiting -= 1,
                b'{' => open = true,
                _ => {}
            }
        }
        false
    }

    /// Handles the closing bracket `byte` at `pos`.
    ///
    /// A closer of the wrong kind has two readings: it was meant for the
    /// innermost container (`{"a": [1, 2}, "n": 2}`, a `}` written for `]`),
    /// or it closes the nearest container of its own kind and the ones
    /// inside it were left open (`{"a": [1, 2}`). What follows decides: the
    /// reading under which the next closer, or the member or item after a
    /// comma, fits the container left open. When both fit, the reply could
    /// mean either and the repair refuses; when neither does, or the input
    /// ends, the closer closes its own kind (at the end of the input both
    /// readings give the same value).
    pub(super) fn close(&mut self, byte: u8) -> Result<Expect, RepairError> {
        let Some(&top) = self.stack.last() else {
            return self.error("a closing bracket with nothing open");
        };
        match top {
            Frame::BareTuple => return self.error("a closing bracket with nothing open"),
            Frame::Set if byte == b'}' => {
                self.pos += 1;
                self.pop_frame();
                return Ok(self.after_value());
            }
            Frame::Set => return self.error("expected `}` to close the set"),
            _ => {}
        }
        if byte == b')' || top == Frame::Tuple {
            return self.close_tuple(top, byte);
        }
        if top.closer() == byte {
            if top == Frame::Object
                && self.stack.len() == 1
                && !matches!(self.out.last(), Some(b'}' | b']' | b'{'))
                && !self.continued_after_closer[0]
                && next(self.src, self.pos + 1) == Next::Member
                && self.own_closer_later(Frame::Object)
                && !self.last_string_opens_curly()
            {
                // `{"a": 1}, "b": 2}`: a `}` that would close the whole
                // value, members and the value's own `}` after it, is
                // one too many. After a closer (`{"a": {"x": 1}}, "b":
                // 2}`), or once an inner object's `}` was followed by
                // more members (`{"a": {"x": 1}, "y": 2}, "b": 3}`),
                // either `}` may be the stray: refused as before.
                self.repairs.insert(Repair::MismatchedBracket);
                self.pos += 1;
                return Ok(Expect::CommaOrEnd);
            }
            self.pos += 1;
            self.pop_frame();
            return Ok(self.after_value());
        }
        if self.repairs.contains(Repair::UnescapedQuote) {
            // A quote inside a string was taken for text: this closer may
            // as well be text of a string that quote ended. Two guesses
            // about one value.
            return self.error(
                "this bracket does not close what is open, and a quote before it was read as \
                 text, so where the strings end is not known; close each string and bracket \
                 with its own kind",
            );
        }
        if self.continued_after_closer[usize::from(byte == b']')] {
            // `[{"a": {"x": 1}, "b": 2}}]`: one `}` too many, and an
            // earlier one was followed by more members of the object
            // around it: that one may be the stray, the members after it
            // the inner object's.
            return self.error(
                "this bracket does not close what is open, and an earlier bracket of its kind \
                 may be the one too many, so which container the values after it belong to is \
                 not known; close each container with its own bracket",
            );
        }
        self.repairs.insert(Repair::MismatchedBracket);
        let own = match byte {
            b'}' => self.objects.last(),
            _ => self.arrays.last(),
        };
        let Some(&own) = own else {
            // `[1, 2}`: no container of the closer's kind is open. Right
            // before the closer the innermost container wants, it is one
            // too many (`[[1}], [2]]`); before more of the value at the
            // top, which is meant is not said (`[{"a": 1}}, {"b": 2}]`).
            if next(self.src, self.pos + 1) == Next::Closer(top.closing_byte()) {
                self.pos += 1;
                return Ok(Expect::CommaOrEnd);
            }
            if self.stack.len() == 1 && self.continues_after(self.pos + 1) {
                return self.closed_early();
            }
            if self.stack.len() == 1 && self.own_closer_later(top) {
                return self.error(WRONG_CLOSER_THEN_OWN);
            }
            self.pos += 1;
            self.pop_frame();
            return Ok(self.after_value());
        };
        // The container left open by each reading.
        let len = self.stack.len();
        let left_if_meant_for_top = len.checked_sub(2).map(|i| self.stack[i]);
        let left_if_own_kind = own.checked_sub(1).map(|i| self.stack[i]);
        let meant_for_top =
            match next(self.src, self.pos + 1) {
                Next::End | Next::Other => false,
                Next::Closer(c)
                    if left_if_meant_for_top.is_some_and(|f| f.closing_byte() == c)
                        && left_if_own_kind.is_some_and(|f| f.closing_byte() == c) =>
                {
                    // `{"x": {"a": [1}}}` (a `}` for `]`) or `{"x": {"a":
                    // [1}}, "y": 2}` (the `[` a stray): the next closer
                    // fits either reading. The reading under which the
                    // closers after this one close exactly what is left
                    // open is the one the reply wrote; with neither (a
                    // reply cut off, or a closer too many), which was
                    // meant is not said.
                    let closed = self.closed_by_rest(self.pos + 1);
                    if closed == (len - 1) as isize {
                        true
                    } else if closed == own as isize {
                        false
                    } else {
                        return self.error(
                            "this closing bracket is of the wrong kind, and it could close \
                             either of two containers; close each with its own bracket",
                        );
                    }
                }
                Next::Closer(c) => left_if_meant_for_top.is_some_and(|f| f.closing_byte() == c),
                following @ (Next::Member | Next::Item) => {
                    let want = if following == Next::Member {
                        Frame::Object
                    } else {
                        Frame::Array
                    };
                    match (
                        left_if_meant_for_top == Some(want),
                        left_if_own_kind == Some(want),
                    ) {
                        (true, false) => true,
                        (true, true) => return self.error(
                            "this closing bracket is of the wrong kind, and it could close either \
                             of two containers; close each with its own bracket",
                        ),
                        _ => false,
                    }
                }
            };
        let left = if meant_for_top { len - 1 } else { own };
        if left == 0 && self.continues_after(self.pos + 1) {
            return self.closed_early();
        }
        if left == 0 && self.own_closer_later(self.stack[0]) {
            return self.error(WRONG_CLOSER_THEN_OWN);
        }
        self.pos += 1;
        if meant_for_top {
            self.pop_frame();
        } else {
            while self.stack.len() > own {
                self.pop_frame();
            }
        }
        Ok(self.after_value())
    }

    /// How many containers the input from `at` to its end closes: its
    /// closers less its openers, outside strings. `at` is a place between
    /// tokens, outside any string. The count from the place last asked is
    /// kept, so a later question reads only the bytes between: each byte
    /// is read once however many closers ask.
    fn closed_by_rest(&mut self, at: usize) -> isize {
        let (from, closed_from) = match self.closed_by_rest {
            Some((from, closed)) if from <= at => (from, closed),
            _ => (at, bracket_balance(&self.src[at..])),
        };
        let closed = closed_from - bracket_balance(&self.src[from..at]);
        self.closed_by_rest = Some((at, closed));
        closed
    }

    /// True when more of the value follows `at`: another closer, or a
    /// member or item after a comma.
    fn continues_after(&self, at: usize) -> bool {
        match next(self.src, at) {
            Next::Closer(_) | Next::Member | Next::Item => true,
            Next::End => false,
            // An item or member with its comma left out.
            Next::Other => {
                let at = skip_space(self.src, at);
                member_at(self.src, at) || item_at(self.src, at) || last_item_at(self.src, at)
            }
        }
    }

    /// A closer of the wrong kind would close the whole value while more of
    /// it follows: which container it was meant for is not said.
    fn closed_early<T>(&self) -> Result<T, RepairError> {
        self.error(
            "this closing bracket is of the wrong kind and would close the whole value, but \
             more of it follows; close each container with its own bracket",
        )
    }

    /// A `)`, or any closer while a tuple is the innermost container: a
    /// tuple closes with its own `)` only, and `(x)` is no tuple but `x`,
    /// as Python reads it.
    fn close_tuple(&mut self, top: Frame, byte: u8) -> Result<Expect, RepairError> {
        if top != Frame::Tuple {
            return self.error("a `)` with no `(` open");
        }
        if byte != b')' {
            return self.error("expected `)` to close the tuple");
        }
        let comma = self.tuple_commas.last() == Some(&true);
        let empty = self.out.last() == Some(&b'[');
        let open = self.tuple_opens.last().copied();
        self.pos += 1;
        self.pop_frame();
        if let (false, false, Some(open)) = (comma, empty, open) {
            // `(1)`: the brackets written out become white space, so the
            // value stands alone without moving what was written.
            self.out[open] = b' ';
            if let Some(close) = self.out.last_mut() {
                *close = b' ';
            }
        }
        Ok(self.after_value())
    }
}

/// A closer of the wrong kind would end the value while its own closer
/// stands later.
const WRONG_CLOSER_THEN_OWN: &str =
    "this closing bracket is of the wrong kind and would end the value, yet the value's own \
     closing bracket comes later; close each container with its own bracket";

/// Closers less openers in `text`, brackets inside double-quoted strings
/// left out (a backslash escapes the byte after it). `text` starts outside
/// any string.
fn bracket_balance(text: &[u8]) -> isize {
    let (mut balance, mut in_string, mut escaped) = (0isize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'}' | b']' => balance += 1,
            b'{' | b'[' => balance -= 1,
            _ => {}
        }
    }
    balance
}
