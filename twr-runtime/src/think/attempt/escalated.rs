//! An attempt asked of the stronger model
//! ([`Think::escalate_to`](crate::Think::escalate_to)): whatever it asks,
//! the trace names it `escalated`.

/// Its name as the trace's `twr.attempt.kind` gives it.
pub(super) const NAME: &str = "escalated";

/// Whether attempt `number` goes to the stronger model, which takes over
/// after `after` failed attempts: every earlier attempt failed (else the
/// run would have ended), so `number - 1` failed attempts were made.
pub(crate) fn escalates(after: usize, number: usize) -> bool {
    number > after
}
