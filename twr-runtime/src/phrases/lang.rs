//! [`Lang`]: which phrase table a type's guide and feedback are written
//! from.

use super::Phrases;

/// The language of the format guide, the feedback and the loop's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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
