//! The section parser: finds loose headers in a reply and reads each
//! section's content as a typed value.
//!
//! Formats are loose, validation is strict. A header line is a line that,
//! after trimming and removing markdown decoration (leading `#`s, surrounding
//! `**`/`__`/`*`, a trailing `:` or `：`), names a section, ignoring case,
//! brackets optional: `[Plan]`, `## Plan`, `## 1. Plan`, `**Plan:**`, `【计划】`, and
//! `[Budget]: $500` with content on the header line. DSPy's field markers
//! (`[[ ## plan ## ]]`, with `[[ ## completed ## ]]` ending the last
//! section) and numbered lines that only name a section (`1. Plan`,
//! `2) Budget`) are header lines too; inside a list section, a numbered line
//! is one of its items unless its number follows the header before it and
//! does not continue the list's own numbering (when both fit, it is an
//! item). A section runs to the next header line; the last occurrence of a
//! header wins; `<think>` blocks and a code fence around the whole reply are
//! ignored. A line naming a missing section in a style that is not read
//! (`- **Plan:** go`, `{plan}`, `Section: Plan`) gets feedback quoting it.
//!
//! Parsing is one pass over the reply's lines, and each line is looked at
//! only as far as the longest header could reach.

mod bounds;
mod checks;
mod choice_word;
mod divider;
mod header;
mod hints;
mod list;
mod multi;
mod number;
mod prepare;
pub(crate) mod rows;
pub(crate) mod section_reader;
pub(crate) mod sections;
pub(crate) mod set;
mod split;
mod stream;
pub(crate) mod typed;
mod value;
mod value_error;

pub use bounds::Bounded;
pub use checks::{Rule, SerdeValue, Validator, ValidatorError};
pub use choice_word::{choice, choice_in, choice_matches};
pub use divider::divider_parser;
pub use multi::{multi_section_parser, MatchMode};
pub use split::{split_sections, SectionMap, UnknownHeader};
pub(crate) use stream::StreamReader;
pub use stream::{ClosedSection, OpenedSection, SectionStream, StreamEvent};
pub use value::SectionValue;
pub use value_error::{Expected, ValueError};

pub(crate) use prepare::without_reasoning;
pub(crate) use value_error::excerpt;
