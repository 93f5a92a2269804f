//! [`Lang`]: which phrase table a type's guide and feedback are written
//! from.

use super::Phrases;

/// The language of the format guide, the feedback and the loop's messages.
///
/// Its `Debug` names the table, `Custom(..)` for one of your own, rather
/// than printing every phrase of it: a `Lang` sits in each
/// [`Feedback`](crate::Feedback) of a ledger, so a failed run's `Debug`
/// would print the whole table once per attempt.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// Chinese.
    Zh,
    /// A table of your own ([`Phrases`]):
    /// `#[sections(phrases = PATH)]` on a type.
    Custom(&'static Phrases),
}

impl std::fmt::Debug for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lang::En => f.write_str("En"),
            Lang::Zh => f.write_str("Zh"),
            Lang::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}
