//! What a section is made of ([`SectionSpec`], [`ValueKind`],
//! [`Presence`], [`Lang`], [`Style`]) and the ways to answer of an enum,
//! each a set of sections ([`WaysSpec`], [`WaySpec`]), for a hand-written
//! [`Sections`] or a look at the specs; and the [`Sections`] trait itself.
//!
//! Only paths: the types are defined in the crate's leaf vocabulary, the
//! language with the phrase tables and the trait with the parser, so that
//! none of them needs this module.

pub use crate::parse::sections::Sections;
pub use crate::phrases::lang::Lang;
pub use crate::vocab::{Bounds, Presence, SectionSpec, Style, ValueKind, WaySpec, WaysSpec};
