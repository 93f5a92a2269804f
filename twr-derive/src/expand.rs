//! Code generation, from a checked model. Every path is fully qualified and
//! runtime helpers are reached only through `::twr_runtime::__private`, so
//! the generated code compiles whatever the user has in scope.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{parse_quote, Generics, Type, WherePredicate};

use crate::ast::{Container, Enum, Field};
use crate::attr::{Lang, Style};

/// `impl Sections` for a checked struct.
pub(crate) fn sections(cont: &Container) -> TokenStream {
    let ident = cont.ident;
    let generics = with_field_bounds(cont);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let specs = cont.sections().map(spec);
    let lang = match cont.attrs.lang.as_ref().map(|l| l.value) {
        Some(Lang::Zh) => quote!(::twr_runtime::Lang::Zh),
        Some(Lang::En) | None => quote!(::twr_runtime::Lang::En),
    };

    // One local per section, read in declaration order; `index` is the
    // position in `specs()`.
    let mut reads = Vec::new();
    let mut locals = Vec::new();
    let mut inits = Vec::new();
    // Sections whose example is built from their type at run time.
    let mut shapes = Vec::new();
    let mut index = 0usize;
    for (position, field) in cont.fields.iter().enumerate() {
        let member = field.ident;
        if !field.is_section() {
            let ty = field.ty;
            inits.push(quote_spanned! {ty_span(ty)=>
                #member: <#ty as ::core::default::Default>::default()
            });
            continue;
        }
        let local = format_ident!("__twr_field_{}", position);
        if field.attrs.example.is_none() {
            if let Some(shape) = shape(field) {
                shapes.push(quote!((#index, #shape)));
            }
        }
        reads.push(read(field, index, &local));
        inits.push(quote!(#member: #local));
        locals.push(local);
        index += 1;
    }

    let style = match cont.attrs.style.as_ref().map(|s| s.value) {
        Some(Style::Xml) => Some(quote!(::twr_runtime::Style::Xml)),
        Some(Style::Markdown) => Some(quote!(::twr_runtime::Style::Markdown)),
        Some(Style::Brackets) | None => None,
    };
    // Without tables or records, the trait's provided guide (built from the
    // specs, in the type's language and style) is the whole guide.
    let guide = (!shapes.is_empty()).then(|| {
        quote! {
            fn format_guide() -> ::twr_runtime::__private::std::string::String {
                ::twr_runtime::__private::format_guide_styled(
                    <Self as ::twr_runtime::Sections>::specs(),
                    <Self as ::twr_runtime::Sections>::lang(),
                    <Self as ::twr_runtime::Sections>::style(),
                    &[#(#shapes),*],
                )
            }
        }
    });
    let style_fn = style.map(|style| {
        quote! {
            fn style() -> ::twr_runtime::Style {
                #style
            }
        }
    });
    let register = shapes.iter().map(|shape| {
        quote! {
            let (__twr_index, __twr_shape) = #shape;
            __twr_collector.shape(__twr_index, __twr_shape);
        }
    });

    quote! {
        #[automatically_derived]
        impl #impl_generics ::twr_runtime::Sections for #ident #ty_generics #where_clause {
            fn specs() -> &'static [::twr_runtime::SectionSpec] {
                const { &[#(#specs),*] }
            }

            #guide

            fn parse_sections(
                __twr_raw: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::Feedback> {
                <Self as ::twr_runtime::Sections>::parse_sections_with_report(__twr_raw).0
            }

            fn parse_sections_with_report(
                __twr_raw: &str,
            ) -> (
                ::core::result::Result<Self, ::twr_runtime::Feedback>,
                ::twr_runtime::__private::std::vec::Vec<::twr_runtime::json::JsonProvenance>,
            ) {
                <Self as ::twr_runtime::Sections>::parse_sections_split(
                    __twr_raw,
                    ::twr_runtime::parse::split_sections(
                        __twr_raw,
                        <Self as ::twr_runtime::Sections>::specs(),
                    ),
                )
            }

            fn parse_sections_split<'__twr>(
                __twr_raw: &'__twr str,
                __twr_sections: ::twr_runtime::parse::SectionMap<'__twr>,
            ) -> (
                ::core::result::Result<Self, ::twr_runtime::Feedback>,
                ::twr_runtime::__private::std::vec::Vec<::twr_runtime::json::JsonProvenance>,
            ) {
                let mut __twr_collector = ::twr_runtime::__private::Collector::with_sections(
                    __twr_raw,
                    <Self as ::twr_runtime::Sections>::specs(),
                    <Self as ::twr_runtime::Sections>::lang(),
                    __twr_sections,
                );
                #(#register)*
                #(#reads)*
                // Every section gave a value, or the collector recorded why not.
                let __twr_value = match (#(#locals,)*) {
                    (#(::core::option::Option::Some(#locals),)*) => {
                        ::core::option::Option::Some(Self { #(#inits),* })
                    }
                    _ => ::core::option::Option::None,
                };
                __twr_collector.finish(__twr_value)
            }

            fn lang() -> ::twr_runtime::Lang {
                #lang
            }

            #style_fn
        }
    }
}

/// The `SectionSpec` of one section.
fn spec(field: &Field) -> TokenStream {
    let header = field.header();
    let shown = &header.shown;
    let name = &header.name;
    let aliases = field.aliases().into_iter().map(|a| a.name);
    let field_name = &field.name;
    let description = &field.doc;
    let example = field
        .attrs
        .example
        .as_ref()
        .map(|e| e.value.value())
        .unwrap_or_default();
    let kind = kind(field);
    let presence = if field.option.is_some() {
        quote!(::twr_runtime::Presence::Optional)
    } else if field.attrs.default.is_some() {
        quote!(::twr_runtime::Presence::Default)
    } else {
        quote!(::twr_runtime::Presence::Required)
    };
    // Through a constructor, not a struct literal: `SectionSpec` may gain
    // fields without breaking code generated by this version of the derive.
    quote! {
        ::twr_runtime::__private::spec(
            #field_name,
            #shown,
            #name,
            &[#(#aliases),*],
            #description,
            #example,
            #kind,
            #presence,
        )
    }
}

/// The `ValueKind` of a section; for a plain type it comes from its
/// `SectionValue` impl, spanned at the type so that a type that cannot be a
/// section is reported there.
fn kind(field: &Field) -> TokenStream {
    if field.attrs.table.is_some() {
        quote!(::twr_runtime::ValueKind::Table)
    } else if field.attrs.record.is_some() {
        quote!(::twr_runtime::ValueKind::Record)
    } else if field.attrs.json.is_some() {
        quote!(::twr_runtime::ValueKind::Json)
    } else if field.attrs.from_str.is_some() {
        quote!(::twr_runtime::ValueKind::Custom)
    } else {
        let ty = field.value_ty();
        quote_spanned! {ty_span(ty)=>
            <#ty as ::twr_runtime::parse::SectionValue>::KIND
        }
    }
}

/// The function that builds the example of a table or record section from
/// its type, as a `fn(Lang) -> String`.
fn shape(field: &Field) -> Option<TokenStream> {
    let ty = field.value_ty();
    let function = if let (Some(_), Some(row)) = (field.attrs.table, field.row_ty()) {
        quote_spanned!(ty_span(row)=> <#row as ::twr_runtime::parse::SerdeValue>::table_example)
    } else if field.attrs.record.is_some() {
        quote_spanned!(ty_span(ty)=> <#ty as ::twr_runtime::parse::SerdeValue>::record_example)
    } else {
        return None;
    };
    Some(quote! {
        #function as fn(::twr_runtime::Lang) -> ::twr_runtime::__private::std::string::String
    })
}

/// Reads one section into `local`, then runs its validator if any.
fn read(field: &Field, index: usize, local: &Ident) -> TokenStream {
    let ty = field.value_ty();
    // Spanned at the field's type, so that a type the codec cannot read is
    // reported there. JSON is `Noted`: it also tells how its JSON was read.
    let codec = if let (Some(_), Some(row)) = (field.attrs.table, field.row_ty()) {
        quote_spanned!(ty_span(row)=>
            ::twr_runtime::__private::Codec::Plain(<#row as ::twr_runtime::parse::SerdeValue>::table))
    } else if field.attrs.record.is_some() {
        quote_spanned!(ty_span(ty)=>
            ::twr_runtime::__private::Codec::Plain(<#ty as ::twr_runtime::parse::SerdeValue>::record))
    } else if field.attrs.json.is_some() {
        quote_spanned!(ty_span(ty)=>
            ::twr_runtime::__private::Codec::Noted(<#ty as ::twr_runtime::parse::SerdeValue>::json))
    } else if field.attrs.from_str.is_some() {
        quote_spanned!(ty_span(ty)=>
            ::twr_runtime::__private::Codec::Plain(::twr_runtime::__private::from_str::<#ty>))
    } else {
        // The same path as the `KIND` in `specs()`, so that a type that is not
        // a section value gets one error (rustc merges identical ones), not two.
        quote_spanned!(ty_span(ty)=>
        ::twr_runtime::__private::Codec::Plain(
            <#ty as ::twr_runtime::parse::SectionValue>::parse_section
        ))
    };
    let method = if field.option.is_some() {
        quote!(optional)
    } else if field.attrs.default.is_some() {
        quote!(or_default)
    } else {
        quote!(required)
    };
    let read = quote! {
        let #local = __twr_collector.#method(#index, #codec);
    };
    let Some(validate) = &field.attrs.validate else {
        return read;
    };
    let check = &validate.value;
    // An Option field's validator sees the value only when there is one.
    let value = if field.option.is_some() {
        quote!(#local.as_ref().and_then(::core::option::Option::as_ref))
    } else {
        quote!(#local.as_ref())
    };
    // Through twr's `Validator`, which takes the field's type and lets the
    // function take what it borrows as (`&str` for a String, `&[T]` for a
    // Vec), and `ValidatorError` for the error's text: spanned at the path,
    // a function that does not fit is reported there in twr's words.
    let call = quote_spanned! {check.span()=>
        __twr_collector.validate(
            #index,
            #value.map(|__twr_value| {
                <_ as ::twr_runtime::parse::Validator<#ty, _, _>>::check(&#check, __twr_value)
                    .map_err(|__twr_error| {
                        <_ as ::twr_runtime::parse::ValidatorError>::feedback(&__twr_error)
                    })
            }),
        );
    };
    quote! {
        #read
        #call
    }
}

/// The input's generics plus, for every field whose type uses a type
/// parameter, the bounds that reading it needs (`Vec<T>: SectionValue`).
fn with_field_bounds(cont: &Container) -> Generics {
    let mut generics = cont.generics.clone();
    let params: Vec<&Ident> = cont.generics.type_params().map(|p| &p.ident).collect();
    if params.is_empty() {
        return generics;
    }
    let mut bounds: Vec<WherePredicate> = Vec::new();
    for field in &cont.fields {
        if !mentions(field.ty, &params) {
            continue;
        }
        let ty = field.ty;
        let value = field.value_ty();
        if !field.is_section() || field.attrs.default.is_some() {
            bounds.push(parse_quote!(#ty: ::core::default::Default));
        }
        if !field.is_section() {
            continue;
        }
        if let (Some(_), Some(row)) = (field.attrs.table, field.row_ty()) {
            bounds.push(parse_quote!(#row: ::twr_runtime::__private::DeserializeOwned));
        } else if field.attrs.json.is_some() || field.attrs.record.is_some() {
            // Through the runtime's re-export: the user's crate may not
            // depend on serde under that name.
            bounds.push(parse_quote!(#value: ::twr_runtime::__private::DeserializeOwned));
        } else if field.attrs.from_str.is_some() {
            bounds.push(parse_quote!(#value: ::core::str::FromStr));
            bounds.push(parse_quote!(
                <#value as ::core::str::FromStr>::Err: ::core::fmt::Display
            ));
        } else {
            bounds.push(parse_quote!(#value: ::twr_runtime::parse::SectionValue));
        }
    }
    generics.make_where_clause().predicates.extend(bounds);
    generics
}

/// Whether `ty` names one of `params` anywhere.
fn mentions(ty: &Type, params: &[&Ident]) -> bool {
    fn walk(tokens: TokenStream, params: &[&Ident]) -> bool {
        tokens.into_iter().any(|tree| match tree {
            TokenTree::Ident(ident) => params.iter().any(|p| **p == ident),
            TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    walk(quote!(#ty), params)
}

/// The span to report a type's errors at: the whole type when the compiler
/// can join spans, else its first token.
fn ty_span(ty: &Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

/// `impl Choice` and `impl SectionValue` for a checked enum.
pub(crate) fn choice(input: &Enum) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let names: Vec<&str> = input.variants.iter().map(|v| v.name.as_str()).collect();
    let variants: Vec<&Ident> = input.variants.iter().map(|v| v.ident).collect();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::twr_runtime::Choice for #ident #ty_generics #where_clause {
            const VARIANTS: &'static [&'static str] = &[#(#names),*];

            fn from_choice(text: &str) -> ::core::option::Option<Self> {
                #(
                    if ::twr_runtime::__private::choice_matches(text, #names) {
                        return ::core::option::Option::Some(Self::#variants);
                    }
                )*
                ::core::option::Option::None
            }

            fn as_choice(&self) -> &'static str {
                match self {
                    #(Self::#variants => #names,)*
                }
            }
        }

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::parse::SectionValue for #ident #ty_generics #where_clause {
            const KIND: ::twr_runtime::ValueKind =
                ::twr_runtime::ValueKind::Choice(<Self as ::twr_runtime::Choice>::VARIANTS);

            fn parse_section(
                content: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::parse::ValueError> {
                ::twr_runtime::__private::choice::<Self>(content)
            }
        }
    }
}
