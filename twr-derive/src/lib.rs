//! Derive macros for twr. Use them through `twr_runtime`, which re-exports them.

use proc_macro::TokenStream;

/// `#[derive(Sections)]`: see `twr_runtime::Sections`.
#[proc_macro_derive(Sections, attributes(sections, section))]
pub fn derive_sections(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}

/// `#[derive(Choice)]`: see `twr_runtime::Choice`.
#[proc_macro_derive(Choice)]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
