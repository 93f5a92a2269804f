//! The per-attempt callback of [`Think::on_attempt`](crate::Think::on_attempt).

use super::outcome::Attempt;

/// A callback run after every attempt, with its ledger entry.
/// Shared, so that a `Think` and its clones call the same hook.
pub(crate) type AttemptHook<'a> = std::sync::Arc<dyn Fn(&Attempt) + Send + Sync + 'a>;
