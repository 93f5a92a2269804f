//! The per-attempt callback of [`Think::on_attempt`](crate::Think::on_attempt).

use super::outcome::Attempt;

/// A callback run after every attempt, with its ledger entry.
pub(crate) type AttemptHook<'a> = Box<dyn Fn(&Attempt) + Send + Sync + 'a>;
