//! Closing brackets, of the right kind or the wrong one.

use super::ahead::{next, Next};
use super::{Expect, Frame, Repair, RepairError, Repairer};

impl Repairer<'_> {
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
        if top.closer() == byte {
            self.pos += 1;
            self.pop_frame();
            return Ok(self.after_value());
        }
        self.repairs.insert(Repair::MismatchedBracket);
        let own = match byte {
            b'}' => self.objects.last(),
            _ => self.arrays.last(),
        };
        let Some(&own) = own else {
            // `[1, 2}`: no container of the closer's kind is open; a
            // closer too many (`[{"a": 1}}, {"b": 2}]`) when more follows.
            if self.stack.len() == 1 && self.continues_after(self.pos + 1) {
                return self.closed_early();
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
                Next::Closer(c) => left_if_meant_for_top.is_some_and(|f| f.closer() == c),
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

    /// True when more of the value follows `at`: another closer, or a
    /// member or item after a comma.
    fn continues_after(&self, at: usize) -> bool {
        matches!(
            next(self.src, at),
            Next::Closer(_) | Next::Member | Next::Item
        )
    }

    /// A closer of the wrong kind would close the whole value while more of
    /// it follows: which container it was meant for is not said.
    fn closed_early<T>(&self) -> Result<T, RepairError> {
        self.error(
            "this closing bracket is of the wrong kind and would close the whole value, but \
             more of it follows; close each container with its own bracket",
        )
    }
}
