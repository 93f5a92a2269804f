//! Derive macros for twr: `#[derive(Sections)]` and `#[derive(Choice)]`.
//! Use them through `twr_runtime`, which re-exports them; the attributes are
//! documented here and shown there with the examples (which need
//! `twr_runtime`, so they live in its documentation: a dev-dependency on it
//! here would make a cycle that no first publish resolves).
//!
//! Each derive runs three separate steps: read the input into a model
//! (`ast`, `attr`), check the rules that span keys and fields
//! (`valid`), then generate code (`expand`). Every mistake found by the
//! first two steps is reported at once, spanned at the offending token, and
//! comes with a placeholder impl (`fallback`) so it does not cascade into
//! unrelated errors.

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

use crate::ctxt::Ctxt;

/// Derives `twr_runtime::Sections` for a struct with named fields (each
/// field is one section of the reply, in declaration order), or for an enum
/// whose variants are ways to answer, each with sections of its own (see
/// [below](#enums-ways-to-answer)).
///
/// # The header
///
/// A section's header is the field name in Title Case in brackets
/// (`research_plan` gives `[Research Plan]`), or the one given with
/// `header = "..."` (brackets optional: `"Research Plan"` is shown as
/// `[Research Plan]`; `"【计划】"` keeps its full-width brackets). The
/// field's doc comment is the section's description in the format guide.
///
/// # `#[sections(...)]` on the struct
///
/// - `lang = "en"` (the default) or `lang = "zh"`: the language of the
///   format guide and the feedback.
/// - `phrases = PATH`: the words of the guide and the feedback from a
///   `static` `twr_runtime::phrases::Phrases` of your own (instead of
///   `lang`), such as a table in a third language or English with single
///   phrases changed.
/// - `validate = path::to::rule`: a rule across sections, a function
///   `fn(&Self) -> Result<(), E>` with `E: Display`, run once every section
///   has parsed (also when the type is flattened into another); its `Err`
///   text is sent to the model as written. With `concerns = [refund, items]`
///   in the same attribute, it names the fields (sections, or flattened
///   groups; in an enum, of any variant) it is about, and a patch retry asks
///   for those sections only; a rule that names none asks for the whole
///   answer. One rule per `#[sections(...)]` attribute; repeat the
///   attribute for more, each reported when it fails.
///
/// # `#[section(...)]` on a field
///
/// - `header = "[Name]"`: the header shown to the model.
/// - `aliases = ["Schedule", "Dates"]`: other names accepted for the section
///   (brackets optional); a single string works too.
/// - `example = "..."`: the example content shown in the guide and with
///   feedback about this section.
/// - `default`: an absent section gives `Default::default()`.
/// - `json`: the content is JSON read into any `serde::Deserialize` type,
///   with twr's extraction and repair.
/// - `from_str`: the content is read with the type's `FromStr`; its error
///   text goes into the feedback.
/// - `validate = path::to::check`: a function `fn(&T) -> Result<(), E>`
///   with `E: Display`, run on a value that parsed; `Err` becomes feedback.
///   `T` may be the field type or what it borrows as (`&str` for a
///   `String`, `&[T]` for a `Vec<T>`); an `Option` field's validator sees
///   the inner value when there is one.
/// - `min = 0`, `max = 1` (either or both; whole or decimal literals,
///   negative allowed): on a whole-number or decimal field (`u8` to `u64`,
///   `i8` to `i64`, `usize`, `isize`, `f32`, `f64`, an `Option` of one, or
///   a `Vec` of one, each item bounded), the smallest and largest value
///   allowed, both included. The guide says them ("A single number from 0
///   to 1."), a value outside gets feedback naming them, and a
///   constrained attempt's grammar keeps to them where a grammar can say
///   them exactly (see `twr_runtime::grammar`). A `validate` function runs
///   after, on a value within them.
/// - `skip`: not a section; the field is `Default::default()`.
/// - `table` on a `Vec<Row>` with `Row: serde::Deserialize`: the section
///   holds a table (a markdown pipe table with or without outer pipes and
///   alignment row, CSV or TSV), found among the prose around it. Columns
///   match the row's fields ignoring case, spaces, `_` and `-` (serde
///   `rename` and `alias` count); cells are read like section values
///   (`$1,200`, `yes`, `N/A` or an empty cell for an `Option`). Feedback
///   names the row and column of each bad cell and any missing column; the
///   guide shows an example table built from the row's fields.
/// - `record` on a `T: serde::Deserialize`: the section holds `Label: value`
///   lines (`- Label: value`, `**Label:** value`, `Label — value` too),
///   labels matched to fields as for a table; a missing, unknown or bad line
///   is named in the feedback.
///
/// - `flatten` on a field whose type derives `Sections`: its sections become
///   this struct's, in place, with their own headers, aliases, examples and
///   validators (the guide and feedback are in this struct's language). A
///   header of the flattened type that meets another section's is a compile
///   error. The type may be an enum of section sets (see below), which
///   gives an agent's step: shared sections, then the sections of one
///   action.
///
/// A `HashMap<String, V>` or `BTreeMap<String, V>` field (V a section value)
/// reads `Name: value` lines, each value as `V`, with feedback per name.
///
/// A field written `Option<T>` is optional: absent, empty, `N/A`, `None`
/// or `无` give `None`. Other fields must be a section value (`String`,
/// numbers, `bool`, `char`, a `Choice` enum, a `Vec` of those) unless they
/// use `json`, `from_str` or `skip`. Generic structs work; bounds such as
/// `T: SectionValue` (or `DeserializeOwned` for `json`, `FromStr` for
/// `from_str`) are added for fields that use a type parameter.
///
/// # Enums: ways to answer
///
/// On an enum, each variant is one way to answer: a struct variant, whose
/// fields are sections with every key above, or a newtype of a type that
/// derives `Sections`. Headers are unique across the variants. The guide
/// offers every way ("Answer in one of these ways"), each with its doc
/// comment as description and its own example answer; the headers of the
/// reply choose the variant. A reply with sections of no way, or of two,
/// gets feedback naming the enum and each way's
/// headers. In the loop, a patch retry stays within the chosen way, and a
/// reply that switches ways is read as a new answer.
///
/// The re-export `twr_runtime::Sections` shows it at work.
///
/// # Mistakes are compile errors
///
/// Each at the token to change, all reported at once: the derive on a
/// union, tuple or unit struct, an enum without variants or whose variants
/// carry no data (that is a `Choice`); a unit or tuple variant, or one
/// without sections; `#[section]` or `#[sections]` on a variant; an
/// unknown or repeated key (the message lists the valid ones); two sections
/// sharing a header or alias (case ignored, across variants too); an empty header, one with a line break, or one with
/// markdown the parser strips from replies (`Plan:`, `**Plan**`); `json` with
/// `from_str`; `table` or `record` with `json`, `from_str` or each other;
/// `table` on a field that is not a `Vec`; a map whose key is not a
/// `String`; `default` on an `Option`; `skip` with other keys; `flatten`
/// with other keys, on an `Option`, on a type that uses a type parameter or
/// does not derive `Sections`, or whose headers meet another section's; a
/// field type that cannot be a section; a `validate` function of the wrong
/// type; `min` or `max` on a field that is no number, a bound with a
/// fraction on a whole-number field or outside its type's range, `min`
/// above `max`.
#[proc_macro_derive(Sections, attributes(sections, section))]
pub fn derive_sections(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    sections(&input)
        .unwrap_or_else(|error| fallback::sections(&input, error))
        .into()
}

/// Derives `twr_runtime::Choice` (and the section reading) for an enum whose
/// variants carry no data. (For variants with sections of their own, derive
/// `Sections` on the enum instead.) The allowed values are the variant names; the
/// model's answer is matched ignoring case, punctuation and spacing
/// (`very high`, `**VERY-HIGH.**` and `VeryHigh` are one value), and the
/// values are listed in the guide and in the feedback.
#[proc_macro_derive(Choice)]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    choice(&input)
        .unwrap_or_else(|error| fallback::choice(&input, error))
        .into()
}

fn sections(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let cx = Ctxt::new();
    let cont = ast::Container::from_ast(&cx, input);
    if let Some(cont) = &cont {
        valid::check_sections(&cx, cont);
    }
    cx.check()?;
    // `check` returned Ok, so the input was a struct with named fields or
    // an enum of section sets.
    Ok(cont.map(|cont| expand::sections(&cont)).unwrap_or_default())
}

fn choice(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let cx = Ctxt::new();
    let model = ast::Enum::from_ast(&cx, input);
    if let Some(model) = &model {
        valid::check_choice(&cx, model);
    }
    cx.check()?;
    Ok(model
        .map(|model| expand::choice(&model))
        .unwrap_or_default())
}
