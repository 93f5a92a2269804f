//! The vocabulary every layer shares: what a section is ([`SectionSpec`],
//! [`ValueKind`], [`Presence`], [`Style`]), the ways of an enum
//! ([`WaysSpec`], [`WaySpec`]) and what a value was expected to be
//! ([`Expected`]), and the constants the derive builds of them (a type's
//! specs joined from its parts, the check that flattened headers differ).
//!
//! The leaf of the crate: it imports nothing of it, so the parser, the
//! feedback, the guide, the phrase tables and the loop can all name these
//! types without naming each other. Users reach them at
//! [`sections`](crate::sections) and [`parse::Expected`](crate::parse::Expected).

mod concat;
mod expected;
mod headers;
mod spec;

pub use concat::{concat_specs, concat_ways};
pub use expected::Expected;
pub use headers::{check_headers, Names};
pub use spec::{Bounds, Presence, SectionSpec, Style, ValueKind, WaySpec, WaysSpec};
