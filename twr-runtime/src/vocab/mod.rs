//! The vocabulary every layer shares: what a section is ([`SectionSpec`],
//! [`ValueKind`], [`Presence`], [`Style`]), the ways of an enum
//! ([`ChoiceSpec`], [`VariantSpec`]) and what a value was expected to be
//! ([`Expected`]).
//!
//! The leaf of the crate: it imports nothing of it, so the parser, the
//! feedback, the guide, the phrase tables and the loop can all name these
//! types without naming each other. Users reach them at
//! [`sections`](crate::sections) and [`parse::Expected`](crate::parse::Expected).

mod expected;
mod spec;

pub(crate) use expected::english;
pub use expected::Expected;
pub use spec::{Bounds, ChoiceSpec, Presence, SectionSpec, Style, ValueKind, VariantSpec};
