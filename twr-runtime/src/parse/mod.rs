//! The section parser: finds loose headers in a reply and reads each
//! section's content as a typed value.
//!
//! Formats are loose, validation is strict: see the crate README for the
//! rules. Parsing is one linear pass over the reply.

mod split;
mod value;

pub use split::{split_sections, SectionMap};
pub use value::{SectionValue, ValueError};
