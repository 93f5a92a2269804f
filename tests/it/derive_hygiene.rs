//! The generated code names everything by its full path, so it compiles
//! whatever the user's module has shadowed, and it triggers no lints under
//! strict settings.
#![no_implicit_prelude]
#![deny(
    warnings,
    unused_qualifications,
    missing_docs,
    clippy::all,
    clippy::pedantic
)]

// Names the generated code must not pick up from this module.
#[allow(dead_code)]
mod shadows {
    pub struct Option;
    pub struct Some;
    pub struct None;
    pub struct Result;
    pub struct Ok;
    pub struct Err;
    pub struct String;
    pub struct Default;
    pub struct Vec;
    pub mod core {}
    pub mod std {}
}

#[allow(unused_imports)]
use self::shadows::*;

/// A plan, in a module where the prelude is gone and common names are
/// shadowed.
#[derive(::std::fmt::Debug, ::twr_runtime::Sections)]
pub struct Plan {
    /// The steps.
    pub steps: ::std::vec::Vec<::std::string::String>,
    /// Optional notes.
    pub notes: ::std::option::Option<::std::string::String>,
    /// Validated.
    #[section(validate = check, default)]
    pub weeks: u32,
    /// Not a section.
    #[section(skip)]
    pub cache: u8,
}

// Validators take a reference, whatever the size of the value.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn check(weeks: &u32) -> ::std::result::Result<(), &'static str> {
    if *weeks > 52 {
        ::std::result::Result::Err("at most 52 weeks")
    } else {
        ::std::result::Result::Ok(())
    }
}

/// A choice under the same conditions.
#[derive(::std::fmt::Debug, ::std::cmp::PartialEq, ::twr_runtime::Choice)]
pub enum Pace {
    /// Slow.
    Relaxed,
    /// Fast.
    Packed,
}

/// An enum of section sets under the same conditions, with a newtype
/// variant of a struct that flattens another.
#[derive(::std::fmt::Debug, ::twr_runtime::Sections)]
pub enum Step {
    /// Look something up.
    Search {
        /// What to look up.
        query: ::std::string::String,
    },
    /// Answer with the plan.
    Answer(Trip),
}

/// A struct with a flattened field.
#[derive(::std::fmt::Debug, ::twr_runtime::Sections)]
pub struct Trip {
    /// Where to.
    pub destination: ::std::string::String,
    /// The plan itself.
    #[section(flatten)]
    pub plan: Plan,
}

#[test]
fn derives_compile_without_the_prelude() {
    use ::twr_runtime::{Choice as _, Sections as _};
    let plan = Plan::parse_sections("[Steps]\n- a\n- b\n[Weeks]\n3").unwrap();
    ::std::assert_eq!(plan.steps, ["a", "b"]);
    ::std::assert_eq!(plan.weeks, 3);
    ::std::assert_eq!(plan.cache, 0);
    ::std::assert_eq!(
        Pace::from_choice("packed"),
        ::std::option::Option::Some(Pace::Packed)
    );
    let step = Step::parse_sections("[Destination]\nKyoto\n[Steps]\n- a\n[Weeks]\n2").unwrap();
    ::std::assert!(
        ::std::matches!(step, Step::Answer(Trip { ref destination, .. }) if destination == "Kyoto")
    );
}
