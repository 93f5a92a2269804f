//! [`SectionSet`]: what the derive knows of a type at compile time, so that
//! another type can flatten it. Not an API: derived code reaches it at
//! `__private`, and only there, so compiler messages name it by that path.

use super::section_reader::SectionReader;
use crate::prompt::Shape;
use crate::vocab::{SectionSpec, WaysSpec};

/// What `#[derive(Sections)]` knows of a type at compile time, so that
/// another type can flatten it (`#[section(flatten)]`): its sections and
/// ways as constants, and the reading of its sections at any position
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
    /// The ways, as [`Sections::ways`](crate::Sections::ways) returns them.
    const WAYS: &'static [WaysSpec];

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

    /// Adds to `schemas` the function giving the JSON schema of each
    /// `#[section(json)]` section (its type's, when it gives one), at its
    /// position plus `offset`. None by default.
    fn schemas(offset: usize, schemas: &mut Vec<(usize, Schema)>) {
        let _ = (offset, schemas);
    }
}

/// The JSON schema of a `#[section(json)]` value's type, when it gives
/// one: what [`SchemaProbe`] finds.
pub type Schema = fn() -> Option<serde_json::Value>;

/// Finds the JSON schema of `T` where the generated code names `T`
/// concretely: `(&SchemaProbe::<T>::new()).json_schema()` is `T`'s schema
/// when `T` implements `schemars::JsonSchema` (the `schemars` feature),
/// and `None` otherwise. Method lookup tries the receiver as it is before
/// taking a reference to it, so [`ProbeSchema`] (on `SchemaProbe<T>`, for
/// schema types only) wins over [`NoSchema`] (on `&SchemaProbe<T>`, for
/// every type) whenever it applies: picked by the compiler per
/// type, with no trait a user must implement.
pub struct SchemaProbe<T: ?Sized>(core::marker::PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> SchemaProbe<T> {
    /// The probe of `T`.
    pub const fn new() -> Self {
        SchemaProbe(core::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for SchemaProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The schema of a type that gives one (see [`SchemaProbe`]).
pub trait ProbeSchema {
    /// The type's JSON schema.
    fn json_schema(&self) -> Option<serde_json::Value>;
}

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema + ?Sized> ProbeSchema for SchemaProbe<T> {
    fn json_schema(&self) -> Option<serde_json::Value> {
        Some(
            schemars::SchemaGenerator::default()
                .into_root_schema_for::<T>()
                .to_value(),
        )
    }
}

/// No schema: a type that gives none (see [`SchemaProbe`]).
pub trait NoSchema {
    /// `None`.
    fn json_schema(&self) -> Option<serde_json::Value> {
        None
    }
}

impl<T: ?Sized> NoSchema for &SchemaProbe<T> {}

/// The columns of a table or record section: each field's name, its name
/// as the guide writes it, and its kind (`SerdeValue::columns`).
pub type Columns = fn() -> Option<Vec<(&'static str, String, crate::vocab::ValueKind)>>;
