//! What is emitted next to the compile errors: impls with the right shape
//! and empty bodies, so that one mistake in the derive input does not
//! cascade into "trait not implemented" errors wherever the type is used.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// The errors plus placeholder `impl Sections` and `impl SectionSet`, so
/// that a type flattening this one still type-checks.
pub(crate) fn sections(input: &DeriveInput, error: syn::Error) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let error = error.to_compile_error();
    quote! {
        #error

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::__private::SectionSet for #ident #ty_generics #where_clause {
            const SPECS: &'static [::twr_runtime::sections::SectionSpec] = &[];
            const WAYS: &'static [::twr_runtime::sections::WaysSpec] = &[];

            fn shapes(
                _: usize,
                _: &mut ::twr_runtime::__private::std::vec::Vec<(
                    usize,
                    fn(::twr_runtime::sections::Lang) -> ::twr_runtime::__private::std::string::String,
                )>,
            ) {
            }

            fn read(
                _: &mut ::twr_runtime::__private::SectionReader<'_>,
                _: usize,
            ) -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }
        }

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::Sections for #ident #ty_generics #where_clause {
            fn specs() -> &'static [::twr_runtime::sections::SectionSpec] {
                &[]
            }

            fn parse_sections(
                _: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::Feedback> {
                ::core::unreachable!()
            }
        }
    }
}

/// The errors plus placeholder `impl Choice` and `impl SectionValue`, so a
/// `Sections` struct using the enum still type-checks.
pub(crate) fn choice(input: &DeriveInput, error: syn::Error) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let error = error.to_compile_error();
    quote! {
        #error

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::Choice for #ident #ty_generics #where_clause {
            const VARIANTS: &'static [&'static str] = &[];

            fn from_choice(_: &str) -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }

            fn as_choice(&self) -> &'static str {
                ::core::unreachable!()
            }
        }

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::parse::SectionValue for #ident #ty_generics #where_clause {
            const KIND: ::twr_runtime::sections::ValueKind = ::twr_runtime::sections::ValueKind::Choice(&[]);

            fn parse_section(
                _: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::parse::ValueError> {
                ::core::unreachable!()
            }
        }
    }
}
