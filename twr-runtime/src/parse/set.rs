//! [`SectionSet`]: what the derive knows of a type at compile time, so that
//! another type can flatten it. Not an API: derived code reaches it at
//! `__private`, and only there, so compiler messages name it by that path.

use super::section_reader::SectionReader;
use crate::prompt::Shape;
use crate::vocab::{ChoiceSpec, SectionSpec};

/// What `#[derive(Sections)]` knows of a type at compile time, so that
/// another type can flatten it (`#[section(flatten)]`): its sections and
/// choices as constants, and the reading of its sections at any position
/// of the flattening type's specs. Implemented by the derive only.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be flattened: it does not derive `Sections`",
    label = "#[section(flatten)] needs a type with #[derive(Sections)]",
    note = "a flattened field's sections become the parent's, so its type must derive Sections (a hand-written `impl Sections` cannot be flattened)"
)]
pub trait SectionSet: Sized {
    /// The sections, as [`Sections::specs`](crate::Sections::specs) returns them.
    const SPECS: &'static [SectionSpec];
    /// The choices, as [`Sections::choices`](crate::Sections::choices) returns them.
    const CHOICES: &'static [ChoiceSpec];

    /// Adds to `shapes` the examples built from the type of each table or
    /// record section without an example of its own, at its position plus
    /// `offset`.
    fn shapes(offset: usize, shapes: &mut Vec<(usize, Shape)>);

    /// Reads the type's sections, which start at position `offset` of the
    /// reader's specs; `None` when a problem was recorded.
    fn read(reader: &mut SectionReader<'_>, offset: usize) -> Option<Self>;

    /// Adds to `columns` the function giving the columns of each table or
    /// record section (the fields of its row or record type), at its
    /// position plus `offset`: what a grammar writes for it. None by
    /// default.
    fn columns(offset: usize, columns: &mut Vec<(usize, Columns)>) {
        let _ = (offset, columns);
    }
}

/// The columns of a table or record section: each field's name, its name
/// as the guide writes it, and its kind (`SerdeValue::columns`).
pub type Columns = fn() -> Option<Vec<(&'static str, String, crate::vocab::ValueKind)>>;
