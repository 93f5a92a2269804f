//! What `#[derive(Sections)]` asks of the types and functions a struct
//! names, as twr's own traits: when one does not fit, the compiler says so
//! in twr's words (what to write), at the field or the validator, instead of
//! naming serde's internals or a mismatched function pointer.
//!
//! Each trait is implemented for everything that fits, by one blanket impl
//! marked `#[diagnostic::do_not_recommend]`: an error is then reported
//! against the trait and its `#[diagnostic::on_unimplemented]` text, not
//! against the impl's inner bound. Generated code names them by path
//! (`<T as SerdeValue>::...`), so no "required by a bound" note points into
//! twr.

use std::borrow::Borrow;
use std::fmt::Display;

use serde::de::DeserializeOwned;

use super::section_reader::CodecNotes;
use crate::parse::ValueError;
use crate::phrases::{Lang, Phrases};
use crate::vocab::ValueKind;

/// A type read through serde: the field of `#[section(json)]` or
/// `#[section(record)]`, the row of `#[section(table)]`. Every type that
/// implements `serde::Deserialize` (and owns its data) is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read by serde: it does not implement `serde::Deserialize`",
    label = "derive `serde::Deserialize` on `{Self}`",
    note = "a #[section(json)], #[section(table)] or #[section(record)] field holds a type with `#[derive(serde::Deserialize)]`",
    note = "serde comes from your own Cargo.toml: serde = {{ version = \"1\", features = [\"derive\"] }}"
)]
pub trait SerdeValue: Sized {
    /// Codec of `#[section(json)]`, through [`crate::json`]; notes the layer
    /// and repairs that gave the value.
    #[doc(hidden)]
    fn json(content: &str, notes: &mut CodecNotes) -> Result<Self, ValueError>;

    /// Codec of `#[section(record)]`: the `Label: value` lines.
    #[doc(hidden)]
    fn record(content: &str, phrases: &'static Phrases) -> Result<Self, ValueError>;

    /// The example lines of a record of this type.
    #[doc(hidden)]
    fn record_example(lang: Lang) -> String;

    /// Codec of `#[section(table)]` with rows of this type.
    #[doc(hidden)]
    fn table(content: &str, phrases: &'static Phrases) -> Result<Vec<Self>, ValueError>;

    /// The example table with rows of this type.
    #[doc(hidden)]
    fn table_example(lang: Lang) -> String;

    /// The fields of this type as a table's columns or a record's labels:
    /// each field's name, its name as the guide writes it, and its kind;
    /// `None` when the type is not a struct with named fields.
    #[doc(hidden)]
    fn columns() -> Option<Vec<(&'static str, String, ValueKind)>>;
}

// No supertrait: the only bound is on this impl, so a type that is not
// `Deserialize` fails `SerdeValue` itself, and the error is this trait's.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> SerdeValue for T {
    fn json(content: &str, notes: &mut CodecNotes) -> Result<Self, ValueError> {
        super::section_reader::json::<Self>(content, notes)
    }

    fn record(content: &str, phrases: &'static Phrases) -> Result<Self, ValueError> {
        super::rows::record::<Self>(content, phrases)
    }

    fn record_example(lang: Lang) -> String {
        super::rows::record_example::<Self>(lang)
    }

    fn table(content: &str, phrases: &'static Phrases) -> Result<Vec<Self>, ValueError> {
        super::rows::table::<Self>(content, phrases)
    }

    fn columns() -> Option<Vec<(&'static str, String, ValueKind)>> {
        super::rows::columns::<Self>()
    }

    fn table_example(lang: Lang) -> String {
        super::rows::table_example::<Self>(lang)
    }
}

/// A validator of a field of type `Field` (`#[section(validate = f)]`): a
/// function `fn(&T) -> Result<(), E>` where `E: Display`, taking the field
/// by reference (`&Field`) or as what it borrows as (`&str` for a `String`,
/// `&[T]` for a `Vec<T>`). Its `Err` text becomes the feedback for the
/// section. `Borrowed` is the type the function takes, told by its
/// signature.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a validator of a `{Field}` field",
    label = "a validator of this field is `fn(&{Field}) -> Result<(), impl Display>`",
    note = "a validator is `fn(&T) -> Result<(), impl Display>`: it takes the field by reference (`&{Field}`, or what it borrows as: `&str` for a String, `&[T]` for a Vec<T>) and returns Ok(()) or an error whose text tells the model what to fix"
)]
pub trait Validator<Field: ?Sized, Borrowed: ?Sized, Error> {
    /// Runs the validator on the field's value.
    #[doc(hidden)]
    fn check(&self, value: &Field) -> Result<(), Error>;
}

#[diagnostic::do_not_recommend]
impl<Field, Borrowed, Error, F> Validator<Field, Borrowed, Error> for F
where
    Field: Borrow<Borrowed> + ?Sized,
    Borrowed: ?Sized,
    F: Fn(&Borrowed) -> Result<(), Error>,
{
    fn check(&self, value: &Field) -> Result<(), Error> {
        self(value.borrow())
    }
}

/// The error type of a validator: its text is the feedback sent to the
/// model, so it implements `Display` (a `String`, or your error type).
#[diagnostic::on_unimplemented(
    message = "the error `{Self}` of this validator cannot become feedback: it does not implement `std::fmt::Display`",
    label = "the validator's error type must implement `Display`",
    note = "a validator is `fn(&T) -> Result<(), impl Display>`: return `Result<(), String>`, or implement `std::fmt::Display` for `{Self}` (its text is what the model is told to fix)"
)]
pub trait ValidatorError {
    /// The text sent to the model.
    #[doc(hidden)]
    fn feedback(&self) -> String;
}

#[diagnostic::do_not_recommend]
impl<E: Display> ValidatorError for E {
    fn feedback(&self) -> String {
        self.to_string()
    }
}

/// A rule across sections of a type `T` (`#[sections(validate = f)]`): a
/// function `fn(&T) -> Result<(), E>` where `E: Display`, run once every
/// section has parsed. Its `Err` text is sent to the model as written.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a rule of `{T}`",
    label = "a rule across sections is `fn(&{T}) -> Result<(), impl Display>`",
    note = "a rule takes the whole value by reference and returns Ok(()) or an error whose text tells the model what to fix"
)]
pub trait Rule<T: ?Sized, Error> {
    /// Runs the rule on the value.
    #[doc(hidden)]
    fn check(&self, value: &T) -> Result<(), Error>;
}

#[diagnostic::do_not_recommend]
impl<T, Error, F> Rule<T, Error> for F
where
    T: ?Sized,
    F: Fn(&T) -> Result<(), Error>,
{
    fn check(&self, value: &T) -> Result<(), Error> {
        self(value)
    }
}
