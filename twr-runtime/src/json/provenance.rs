//! Which JSON sections of a reply needed more than a plain parse, for the
//! retry loop's ledger.
//!
//! The record travels as data: the section reader returns it beside the
//! value (`Sections::parse_sections_with_report`, which the derive
//! implements), and the loop copies it into the attempt.

use super::report::Report;

/// How the JSON of one section (or of a whole reply read with
/// [`Think::run_json`](crate::Think::run_json)) was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct JsonProvenance {
    /// The section's header (`[Budget]`); empty when the JSON was read from
    /// the reply as a whole.
    pub header: &'static str,
    /// The layer that found the value and the repairs applied.
    pub report: Report,
}

impl JsonProvenance {
    /// The JSON of section `header` (empty: the whole reply) was obtained as
    /// `report` says.
    pub fn new(header: &'static str, report: Report) -> Self {
        JsonProvenance { header, report }
    }
}
