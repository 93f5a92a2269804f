//! Derive macros for twr: `#[derive(Sections)]` and `#[derive(Choice)]`.
//! Use them through `twr_runtime`, which re-exports them and documents every
//! attribute.
//!
//! Each derive runs three separate steps: read the input into a model
//! ([`ast`], [`attr`]), check the rules that span keys and fields
//! ([`valid`]), then generate code ([`expand`]). Every mistake found by the
//! first two steps is reported at once, spanned at the offending token, and
//! comes with a placeholder impl ([`fallback`]) so it does not cascade into
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

/// `#[derive(Sections)]`: see `twr_runtime::Sections`.
#[proc_macro_derive(Sections, attributes(sections, section))]
pub fn derive_sections(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    sections(&input)
        .unwrap_or_else(|error| fallback::sections(&input, error))
        .into()
}

/// `#[derive(Choice)]`: see `twr_runtime::Choice`.
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
    // `check` returned Ok, so the input was a struct with named fields.
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
