//! Code generation, from a checked model. Every path is fully qualified and
//! runtime helpers are reached only through `::twr_runtime::__private`, so
//! the generated code compiles whatever the user has in scope.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{parse_quote, Generics, Type, WherePredicate};

use crate::ast::{mentions, Container, Data, Enum, Field, Way};
use crate::attr::{Lang, Style};

/// `impl Sections` and `impl SectionSet` for a checked struct or enum.
pub(crate) fn sections(cont: &Container) -> TokenStream {
    let ident = cont.ident;
    let generics = with_field_bounds(cont);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    // The specs of an enum are its variants' one after another, as those of
    // a struct are its fields': one layout over every section field.
    let fields: Vec<&Field> = cont.sections().collect();
    let keep = keeps_values(cont);
    let layout = Layout::of(&fields).keeping(keep);
    let specs = layout.specs();
    let shapes = layout.shapes(&quote!(__twr_offset));
    let columns = layout.columns(&quote!(__twr_offset));
    let schemas = layout.schemas(&quote!(__twr_offset));
    let check = layout.header_check();
    let (all_ways, read) = match &cont.data {
        Data::Struct(all) => {
            let (reads, value) = layout.read(&quote!(__twr_offset), &quote!(Self), all);
            (layout.ways(&[]), quote!(#(#reads)* #value))
        }
        Data::Enum(ways) => {
            let (own, read) = own_ways(cont, ways, keep);
            (layout.ways(&[own]), read)
        }
    };
    let read = with_rules(cont, &layout, &fields, read);

    let lang = match (
        &cont.attrs.phrases,
        cont.attrs.lang.as_ref().map(|l| l.value),
    ) {
        (Some(phrases), _) => {
            let path = &phrases.value;
            // Spanned at the path: a value that is not a `Phrases` is
            // reported there.
            quote_spanned!(path.span()=> ::twr_runtime::sections::Lang::Custom(&#path))
        }
        (None, Some(Lang::Zh)) => quote!(::twr_runtime::sections::Lang::Zh),
        (None, Some(Lang::En) | None) => quote!(::twr_runtime::sections::Lang::En),
    };
    let style = match cont.attrs.style.as_ref().map(|s| s.value) {
        Some(Style::Xml) => Some(quote!(::twr_runtime::sections::Style::Xml)),
        Some(Style::Markdown) => Some(quote!(::twr_runtime::sections::Style::Markdown)),
        Some(Style::Brackets) | None => None,
    };
    // The guide is fixed by the type's constants: a type without type or
    // const parameters writes it once, into a static of its own (a static
    // in a generic impl would be one for every instance of the type).
    let format_guide = if cont.generics.type_params().next().is_none()
        && cont.generics.const_params().next().is_none()
    {
        quote! {
            static __TWR_GUIDE: ::twr_runtime::__private::GuideCell =
                ::twr_runtime::__private::GuideCell::new();
            ::twr_runtime::__private::format_guide_once::<Self>(&__TWR_GUIDE)
        }
    } else {
        quote!(::twr_runtime::__private::format_guide::<Self>())
    };
    let style_fn = style.map(|style| {
        quote! {
            fn style() -> ::twr_runtime::sections::Style {
                #style
            }
        }
    });

    quote! {
        #check

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::__private::SectionSet for #ident #ty_generics #where_clause {
            const SPECS: &'static [::twr_runtime::sections::SectionSpec] = #specs;
            const WAYS: &'static [::twr_runtime::sections::WaysSpec] = #all_ways;

            #[allow(unused_variables)]
            fn shapes(
                __twr_offset: usize,
                __twr_shapes: &mut ::twr_runtime::__private::std::vec::Vec<(
                    usize,
                    fn(::twr_runtime::sections::Lang) -> ::twr_runtime::__private::std::string::String,
                )>,
            ) {
                #(#shapes)*
            }

            fn read(
                __twr_reader: &mut ::twr_runtime::__private::SectionReader<'_>,
                __twr_offset: usize,
            ) -> ::core::option::Option<Self> {
                #read
            }

            #[allow(unused_variables)]
            fn columns(
                __twr_offset: usize,
                __twr_columns: &mut ::twr_runtime::__private::std::vec::Vec<(
                    usize,
                    ::twr_runtime::__private::Columns,
                )>,
            ) {
                #(#columns)*
            }

            #[allow(unused_variables)]
            fn schemas(
                __twr_offset: usize,
                __twr_schemas: &mut ::twr_runtime::__private::std::vec::Vec<(
                    usize,
                    ::twr_runtime::__private::Schema,
                )>,
            ) {
                #(#schemas)*
            }
        }

        #[automatically_derived]
        impl #impl_generics ::twr_runtime::Sections for #ident #ty_generics #where_clause {
            fn specs() -> &'static [::twr_runtime::sections::SectionSpec] {
                <Self as ::twr_runtime::__private::SectionSet>::SPECS
            }

            fn ways() -> &'static [::twr_runtime::sections::WaysSpec] {
                <Self as ::twr_runtime::__private::SectionSet>::WAYS
            }

            fn columns() -> ::twr_runtime::__private::std::vec::Vec<(
                usize,
                ::twr_runtime::__private::Columns,
            )> {
                let mut __twr_columns = ::twr_runtime::__private::std::vec::Vec::new();
                <Self as ::twr_runtime::__private::SectionSet>::columns(0, &mut __twr_columns);
                __twr_columns
            }

            fn schemas() -> ::twr_runtime::__private::std::vec::Vec<(
                usize,
                ::twr_runtime::__private::Schema,
            )> {
                let mut __twr_schemas = ::twr_runtime::__private::std::vec::Vec::new();
                <Self as ::twr_runtime::__private::SectionSet>::schemas(0, &mut __twr_schemas);
                __twr_schemas
            }

            fn format_guide() -> ::twr_runtime::__private::std::string::String {
                #format_guide
            }

            fn parse_sections(
                __twr_raw: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::Feedback> {
                ::twr_runtime::__private::parse::<Self>(__twr_raw).0
            }

            fn parse_sections_with_report(
                __twr_raw: &str,
            ) -> (
                ::core::result::Result<Self, ::twr_runtime::Feedback>,
                ::twr_runtime::__private::std::vec::Vec<::twr_runtime::json::JsonProvenance>,
            ) {
                ::twr_runtime::__private::parse::<Self>(__twr_raw)
            }

            fn parse_sections_split<'__twr>(
                __twr_raw: &'__twr str,
                __twr_sections: ::twr_runtime::parse::SectionMap<'__twr>,
            ) -> (
                ::core::result::Result<Self, ::twr_runtime::Feedback>,
                ::twr_runtime::__private::std::vec::Vec<::twr_runtime::json::JsonProvenance>,
            ) {
                ::twr_runtime::__private::parse_split::<Self>(__twr_raw, __twr_sections)
            }

            fn parse_sections_typed<'__twr>(
                __twr_raw: &'__twr str,
                __twr_sections: ::twr_runtime::parse::SectionMap<'__twr>,
                __twr_typed: &mut ::twr_runtime::__private::TypedSections,
            ) -> (
                ::core::result::Result<Self, ::twr_runtime::Feedback>,
                ::twr_runtime::__private::std::vec::Vec<::twr_runtime::json::JsonProvenance>,
            ) {
                ::twr_runtime::__private::parse_typed::<Self>(
                    __twr_raw,
                    __twr_sections,
                    __twr_typed,
                )
            }

            fn lang() -> ::twr_runtime::sections::Lang {
                #lang
            }

            #style_fn
        }
    }
}

/// The reading of the type (`read`, giving an `Option<Self>`), followed by
/// its rules across sections (`#[sections(validate = ...)]`): each runs on
/// a value whose every section parsed, and a failing one is recorded with
/// the sections it concerns, so the reading gives `None`.
fn with_rules(
    cont: &Container,
    layout: &Layout,
    fields: &[&Field],
    read: TokenStream,
) -> TokenStream {
    if cont.attrs.rules.is_empty() {
        return read;
    }
    let positions = layout.positions();
    let rules = cont.attrs.rules.iter().map(|rule| {
        // Every field of that name (in an enum, of any variant): its first
        // section's position and how many sections it has.
        let concerns = rule.concerns.iter().flat_map(|name| {
            fields
                .iter()
                .zip(&positions)
                .filter(move |(field, _)| name == &field.name)
                .map(|(field, position)| {
                    let len = Layout::len_of(field);
                    quote!((#position, #len))
                })
        });
        let path = &rule.path.value;
        // Through twr's `Rule`, spanned at the path: a function that does
        // not fit is reported there in twr's words.
        let check = quote_spanned! {path.span()=>
            <_ as ::twr_runtime::parse::Rule<Self, _>>::check(&#path, &__twr_value)
                .map_err(|__twr_error| {
                    <_ as ::twr_runtime::parse::ValidatorError>::feedback(&__twr_error)
                })
        };
        quote! {
            __twr_kept &= __twr_reader.rule(__twr_offset, &[#(#concerns),*], #check);
        }
    });
    quote! {
        let __twr_read: ::core::option::Option<Self> = { #read };
        let __twr_value = __twr_read?;
        let mut __twr_kept = true;
        #(#rules)*
        __twr_kept.then_some(__twr_value)
    }
}

/// The `WaysSpec` of an enum of section sets (its sections at position
/// 0), and the reading of the way the reply takes.
fn own_ways(cont: &Container, ways: &[Way], keep: bool) -> (TokenStream, TokenStream) {
    let raw = cont.ident.to_string();
    let name = raw.strip_prefix("r#").unwrap_or(&raw);
    let mut way_specs = Vec::new();
    let mut arms = Vec::new();
    // The lengths of the ways before the current one.
    let mut before: Vec<TokenStream> = Vec::new();
    for (number, way) in ways.iter().enumerate() {
        let fields: Vec<&Field> = way.fields.iter().filter(|f| f.is_section()).collect();
        let layout = Layout::of(&fields).keeping(keep);
        let len = layout.len();
        let (way_name, doc) = (&way.name, &way.doc);
        way_specs.push(quote!(::twr_runtime::__private::way_spec(#way_name, #doc, #len)));
        let start = quote!((__twr_offset #(+ #before)*));
        let variant = way.ident;
        let (reads, value) = layout.read(&start, &quote!(Self::#variant), &way.fields);
        arms.push(quote! {
            ::core::option::Option::Some(#number) => {
                #(#reads)*
                #value
            }
        });
        before.push(len);
    }
    let own = quote!(::twr_runtime::__private::ways_spec(#name, &[#(#way_specs),*]));
    // The enum's own ways come first among its ways.
    let read = quote! {
        match __twr_reader.choose(
            &<Self as ::twr_runtime::__private::SectionSet>::WAYS[0],
            __twr_offset,
        ) {
            #(#arms)*
            _ => ::core::option::Option::None,
        }
    };
    (own, read)
}

/// The sections of a list of fields (a struct's, or a struct variant's),
/// one after another: each plain field is one section, each flattened
/// field the sections of its type. Positions are token expressions, since
/// a flattened type's length is a constant only the compiler knows.
pub(crate) struct Layout<'f, 'a> {
    fields: &'f [&'f Field<'a>],
    /// Whether the values of sections read are kept for the next reading
    /// of the run when the type as a whole is not read (see
    /// [`keeps_values`]).
    keep: bool,
}

impl<'f, 'a> Layout<'f, 'a> {
    pub(crate) fn of(fields: &'f [&'f Field<'a>]) -> Self {
        Layout {
            fields,
            keep: false,
        }
    }

    /// The layout, keeping the values of sections read when `keep`.
    pub(crate) fn keeping(self, keep: bool) -> Self {
        Layout { keep, ..self }
    }

    /// How many sections a field gives.
    pub(crate) fn len_of(field: &Field) -> TokenStream {
        if field.is_flatten() {
            let ty = field.ty;
            quote_spanned!(ty_span(ty)=> <#ty as ::twr_runtime::__private::SectionSet>::SPECS.len())
        } else {
            quote!(1usize)
        }
    }

    /// The position of each field's first section, from the layout's start.
    pub(crate) fn positions(&self) -> Vec<TokenStream> {
        let mut positions = Vec::with_capacity(self.fields.len());
        let mut own = 0usize;
        let mut flattened: Vec<TokenStream> = Vec::new();
        for field in self.fields {
            positions.push(quote!((#own #(+ #flattened)*)));
            if field.is_flatten() {
                flattened.push(Self::len_of(field));
            } else {
                own += 1;
            }
        }
        positions
    }

    /// The number of sections, as a constant expression.
    pub(crate) fn len(&self) -> TokenStream {
        let lens = self.fields.iter().map(|field| Self::len_of(field));
        quote!((0usize #(+ #lens)*))
    }

    /// Whether a field is flattened (the layout is then built by the
    /// compiler).
    fn has_flatten(&self) -> bool {
        self.fields.iter().any(|field| field.is_flatten())
    }

    /// The pieces of the specs: runs of plain fields' specs and flattened
    /// types' specs, in order.
    pub(crate) fn spec_parts(&self) -> Vec<TokenStream> {
        let mut parts = Vec::new();
        let mut run: Vec<TokenStream> = Vec::new();
        for field in self.fields {
            if field.is_flatten() {
                if !run.is_empty() {
                    parts.push(quote!(&[#(#run),*]));
                    run.clear();
                }
                let ty = field.ty;
                parts.push(quote_spanned!(ty_span(ty)=> <#ty as ::twr_runtime::__private::SectionSet>::SPECS));
            } else {
                run.push(spec(field));
            }
        }
        if !run.is_empty() {
            parts.push(quote!(&[#(#run),*]));
        }
        parts
    }

    /// The specs, as a constant expression of type `&'static [SectionSpec]`.
    fn specs(&self) -> TokenStream {
        let own = self.fields.iter().map(|field| spec(field));
        if !self.has_flatten() {
            return quote!(&[#(#own),*]);
        }
        let parts = self.spec_parts();
        let len = self.len();
        quote!(&::twr_runtime::__private::concat_specs::<{ #len }>(&[#(#parts),*]))
    }

    /// The parts of the ways: for each field, its number of sections and
    /// its ways (a flattened type's; none for a plain field).
    pub(crate) fn ways_parts(&self) -> Vec<TokenStream> {
        self.fields
            .iter()
            .map(|field| {
                let len = Self::len_of(field);
                if field.is_flatten() {
                    let ty = field.ty;
                    quote!((#len, <#ty as ::twr_runtime::__private::SectionSet>::WAYS))
                } else {
                    quote!((#len, &[]))
                }
            })
            .collect()
    }

    /// The number of ways (one per enum) of the flattened types, as a
    /// constant.
    pub(crate) fn ways_len(&self) -> TokenStream {
        let lens = self
            .fields
            .iter()
            .filter(|field| field.is_flatten())
            .map(|field| {
                let ty = field.ty;
                quote!(<#ty as ::twr_runtime::__private::SectionSet>::WAYS.len())
            });
        quote!((0usize #(+ #lens)*))
    }

    /// The ways, as a constant expression of type `&'static
    /// [WaysSpec]`: `own` (the type's own, at position 0) first.
    fn ways(&self, own: &[TokenStream]) -> TokenStream {
        if !self.has_flatten() {
            return quote!(&[#(#own),*]);
        }
        let parts = self.ways_parts();
        let len = self.ways_len();
        let own_len = own.len();
        quote!(&::twr_runtime::__private::concat_ways::<{ #own_len + #len }>(
            &[(0usize, &[#(#own),*]), #(#parts),*]
        ))
    }

    /// Statements filling one per-section table of `SectionSet` (`method`,
    /// its vector `list`), the layout starting at `start`: a flattened
    /// field hands its type's own table the offset of its sections; any
    /// other field adds the entry `entry` makes of it, if any.
    fn registrations(
        &self,
        start: &TokenStream,
        method: &str,
        list: &str,
        entry: impl Fn(&Field<'_>) -> Option<TokenStream>,
    ) -> Vec<TokenStream> {
        let method = Ident::new(method, Span::call_site());
        let list = Ident::new(list, Span::call_site());
        self.fields
            .iter()
            .zip(self.positions())
            .filter_map(|(field, position)| {
                if field.is_flatten() {
                    let ty = field.ty;
                    return Some(quote! {
                        <#ty as ::twr_runtime::__private::SectionSet>::#method(#start + #position, #list);
                    });
                }
                let entry = entry(field)?;
                Some(quote! {
                    #list.push((#start + #position, #entry));
                })
            })
            .collect()
    }

    /// Statements registering the examples built from the types of table
    /// and record sections, the layout starting at `start`.
    pub(crate) fn shapes(&self, start: &TokenStream) -> Vec<TokenStream> {
        self.registrations(start, "shapes", "__twr_shapes", |field| {
            if field.attrs.example.is_some() {
                return None;
            }
            shape(field)
        })
    }

    /// Statements registering the columns of table and record sections
    /// (their row or record type's fields), the layout starting at `start`.
    pub(crate) fn columns(&self, start: &TokenStream) -> Vec<TokenStream> {
        self.registrations(start, "columns", "__twr_columns", |field| {
            let ty = field.value_ty();
            let function = if let (Some(_), Some(row)) = (field.attrs.table, field.row_ty()) {
                quote_spanned!(ty_span(row)=> <#row as ::twr_runtime::parse::SerdeValue>::columns)
            } else if field.attrs.record.is_some() {
                quote_spanned!(ty_span(ty)=> <#ty as ::twr_runtime::parse::SerdeValue>::columns)
            } else {
                return None;
            };
            Some(quote!(#function as ::twr_runtime::__private::Columns))
        })
    }

    /// Statements registering the JSON schema of `json` sections (their
    /// type's, found by `SchemaProbe` where the type is concrete), the
    /// layout starting at `start`.
    pub(crate) fn schemas(&self, start: &TokenStream) -> Vec<TokenStream> {
        self.registrations(start, "schemas", "__twr_schemas", |field| {
            field.attrs.json?;
            let ty = field.value_ty();
            // A closure, not a function: it may name the type's generic
            // parameters, and coerces to a function pointer all the same.
            Some(quote! {
                (|| {
                    #[allow(unused_imports)]
                    use ::twr_runtime::__private::{NoSchema as _, ProbeSchema as _};
                    (&::twr_runtime::__private::SchemaProbe::<#ty>::new()).json_schema()
                }) as ::twr_runtime::__private::Schema
            })
        })
    }

    /// Statements reading every field, the layout starting at `start`, and
    /// the expression of the value, `Option<#build>`: `all` are every field
    /// of the struct or variant, the skipped ones included (they are
    /// `Default::default()`).
    pub(crate) fn read(
        &self,
        start: &TokenStream,
        build: &TokenStream,
        all: &[Field],
    ) -> (Vec<TokenStream>, TokenStream) {
        let mut reads = Vec::new();
        let mut locals = Vec::new();
        // What the arm of a type not read does with each value: keeps a
        // plain section's, leaves a flattened type's (its own reading kept
        // its sections' values when it was not read itself).
        let mut unread = Vec::new();
        let mut keeps = Vec::new();
        let positions = self.positions();
        let mut inits = Vec::new();
        let mut section = 0;
        for (number, field) in all.iter().enumerate() {
            let member = &field.member;
            if !field.is_section() {
                let ty = field.ty;
                inits.push(quote_spanned! {ty_span(ty)=>
                    #member: <#ty as ::core::default::Default>::default()
                });
                continue;
            }
            let local = format_ident!("__twr_field_{}", number);
            let position = &positions[section];
            section += 1;
            let index = format_ident!("__twr_at_{}", number);
            reads.push(quote!(let #index = #start + #position;));
            if field.is_flatten() {
                let ty = field.ty;
                reads.push(quote_spanned! {ty_span(ty)=>
                    let #local = <#ty as ::twr_runtime::__private::SectionSet>::read(__twr_reader, #index);
                });
                unread.push(quote!(_));
            } else {
                let keeper = format_ident!("__twr_keep_{}", number);
                reads.push(self.keeper(field, &keeper));
                reads.push(read(field, &index, &local, &keeper));
                let value = if field.option.is_some() {
                    quote!(#local.flatten())
                } else {
                    quote!(#local)
                };
                keeps.push(quote!(__twr_reader.keep(#index, #value, #keeper);));
                unread.push(quote!(#local));
            }
            inits.push(quote!(#member: #local));
            locals.push(local);
        }
        // Without sections, the first arm matches every reading.
        let unread_arm = (!locals.is_empty()).then(|| {
            quote! {
                (#(#unread,)*) => {
                    #(#keeps)*
                    ::core::option::Option::None
                }
            }
        });
        let value = quote! {
            // Every section gave a value, or the reader recorded why not.
            match (#(#locals,)*) {
                (#(::core::option::Option::Some(#locals),)*) => {
                    ::core::option::Option::Some(#build { #(#inits),* })
                }
                #unread_arm
            }
        };
        (reads, value)
    }

    /// `let #keeper = ...;`: how the value of `field`'s section is kept
    /// across the readings of a run, `None` when it is not (a type with
    /// parameters, or a value type that is not `Send`).
    fn keeper(&self, field: &Field, keeper: &Ident) -> TokenStream {
        if !self.keep {
            return quote!(let #keeper = ::core::option::Option::None;);
        }
        let value = field.value_ty();
        let ty = match (field.attrs.table, field.row_ty()) {
            (Some(_), Some(row)) => quote!(::twr_runtime::__private::std::vec::Vec<#row>),
            _ => quote!(#value),
        };
        // Spanned at the field's type, as its codec is: the section's type
        // is known from both, and an error about it points there.
        quote_spanned! {ty_span(value)=>
            let #keeper = {
                #[allow(unused_imports)]
                use ::twr_runtime::__private::{CanKeep as _, CannotKeep as _};
                (&::twr_runtime::__private::KeepProbe::<#ty>::new()).keeper()
            };
        }
    }

    /// Constants that fail compilation when a flattened type's headers
    /// meet this type's or an earlier flattened type's, one per flattened
    /// field and spanned at its `flatten`: the derive knows its own names
    /// only.
    fn header_check(&self) -> TokenStream {
        let group = |field: &Field| {
            if field.is_flatten() {
                let ty = field.ty;
                let ty_name = quote!(#ty).to_string().replace(' ', "");
                let owner = match (&field.member, &field.way) {
                    (syn::Member::Unnamed(_), _) => {
                        format!("`{ty_name}` (variant `{}`)", field.name)
                    }
                    (_, Some(way)) => format!(
                        "the flattened `{ty_name}` (field `{}` of `{way}`)",
                        field.name
                    ),
                    (_, None) => format!("the flattened `{ty_name}` (field `{}`)", field.name),
                };
                quote_spanned! {ty_span(ty)=>
                    ::twr_runtime::__private::Names::Flattened(
                        #owner,
                        <#ty as ::twr_runtime::__private::SectionSet>::SPECS,
                    )
                }
            } else {
                let owner = match &field.way {
                    Some(way) => format!("field `{}` of `{way}`", field.name),
                    None => format!("field `{}`", field.name),
                };
                let names = std::iter::once(field.header().name)
                    .chain(field.aliases().into_iter().map(|alias| alias.name));
                quote!(::twr_runtime::__private::Names::Own(#owner, &[#(#names),*]))
            }
        };
        let mut checks = TokenStream::new();
        for (position, field) in self.fields.iter().enumerate() {
            let Some(span) = field.attrs.flatten else {
                continue;
            };
            // Against every plain field, and the flattened ones before it.
            let others = self
                .fields
                .iter()
                .enumerate()
                .filter(|(other, f)| *other != position && (!f.is_flatten() || *other < position))
                .map(|(_, f)| group(f));
            let this = group(field);
            checks.extend(quote_spanned! {span=>
                const _: () = ::twr_runtime::__private::check_headers(&[#this, #(#others),*]);
            });
        }
        checks
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
        quote!(::twr_runtime::sections::Presence::Optional)
    } else if field.attrs.default.is_some() {
        quote!(::twr_runtime::sections::Presence::Default)
    } else {
        quote!(::twr_runtime::sections::Presence::Required)
    };
    let min = field.attrs.min.as_ref().map(|min| {
        let text = &min.value.text;
        quote!(.with_min(#text))
    });
    let max = field.attrs.max.as_ref().map(|max| {
        let text = &max.value.text;
        quote!(.with_max(#text))
    });
    // A signed whole-number type (by its spelling) takes numbers below 0.
    let signed = field
        .number_ty()
        .and_then(|number| number.range)
        .filter(|(low, _)| *low < 0)
        .map(|_| quote!(.with_signed()));
    // The numbers the type holds, so that a grammar offers no others.
    let type_range = field
        .number_ty()
        .and_then(|number| number.range)
        .map(|(low, high)| {
            let (low, high) = (low.to_string(), high.to_string());
            quote!(.with_type_range(#low, #high))
        });
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
        ) #min #max #signed #type_range
    }
}

/// The `ValueKind` of a section; for a plain type it comes from its
/// `SectionValue` impl, spanned at the type so that a type that cannot be a
/// section is reported there.
fn kind(field: &Field) -> TokenStream {
    if field.attrs.table.is_some() {
        quote!(::twr_runtime::sections::ValueKind::Table)
    } else if field.attrs.record.is_some() {
        quote!(::twr_runtime::sections::ValueKind::Record)
    } else if field.attrs.json.is_some() {
        quote!(::twr_runtime::sections::ValueKind::Json)
    } else if field.attrs.from_str.is_some() {
        quote!(::twr_runtime::sections::ValueKind::Custom)
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
        #function as fn(::twr_runtime::sections::Lang) -> ::twr_runtime::__private::std::string::String
    })
}

/// Reads one section, at the position held by `index`, into `local`, then
/// runs its validator if any.
fn read(field: &Field, index: &Ident, local: &Ident, keeper: &Ident) -> TokenStream {
    let ty = field.value_ty();
    // Spanned at the field's type, so that a type the codec cannot read is
    // reported there. JSON is `Noted`: it also tells how its JSON was read.
    let codec = if let (Some(_), Some(row)) = (field.attrs.table, field.row_ty()) {
        quote_spanned!(ty_span(row)=>
            ::twr_runtime::__private::Codec::Worded(<#row as ::twr_runtime::parse::SerdeValue>::table))
    } else if field.attrs.record.is_some() {
        quote_spanned!(ty_span(ty)=>
            ::twr_runtime::__private::Codec::Worded(<#ty as ::twr_runtime::parse::SerdeValue>::record))
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
        ::twr_runtime::__private::Codec::Worded(
            <#ty as ::twr_runtime::parse::SectionValue>::parse_section_with
        ))
    };
    // With how its values are kept, in the one argument of the field's type.
    let codec = quote_spanned!(ty_span(ty)=> #codec.kept(#keeper));
    let method = if field.option.is_some() {
        quote!(optional)
    } else if field.attrs.default.is_some() {
        quote!(or_default)
    } else {
        quote!(required)
    };
    // An Option field's bounds and validator see the value only when there
    // is one.
    let value = if field.option.is_some() {
        quote!(#local.as_ref().and_then(::core::option::Option::as_ref))
    } else {
        quote!(#local.as_ref())
    };
    let bounded = field.attrs.min.is_some() || field.attrs.max.is_some();
    let read = if bounded {
        // The validator runs on a value within the bounds only: one
        // problem per section.
        quote! {
            let #local = __twr_reader.#method(#index, #codec);
            let #local = if __twr_reader.bounds(#index, #value) {
                #local
            } else {
                ::core::option::Option::None
            };
        }
    } else {
        quote! {
            let #local = __twr_reader.#method(#index, #codec);
        }
    };
    let Some(validate) = &field.attrs.validate else {
        return read;
    };
    let check = &validate.value;
    // Through twr's `Validator`, which takes the field's type and lets the
    // function take what it borrows as (`&str` for a String, `&[T]` for a
    // Vec), and `ValidatorError` for the error's text: spanned at the path,
    // a function that does not fit is reported there in twr's words.
    let call = quote_spanned! {check.span()=>
        __twr_reader.validate(
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

/// Whether the values of a type's sections are kept across the readings of
/// a run: only for a type without type, lifetime or const parameters,
/// whose fields' types are all `'static` (a value is kept as `dyn Any`).
fn keeps_values(cont: &Container) -> bool {
    cont.generics.params.is_empty()
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
    for field in cont.fields() {
        if !mentions(field.ty, &params) {
            continue;
        }
        let ty = field.ty;
        let value = field.value_ty();
        if !field.is_section() || field.attrs.default.is_some() {
            bounds.push(parse_quote!(#ty: ::core::default::Default));
        }
        if !field.is_section() || field.is_flatten() {
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
            const KIND: ::twr_runtime::sections::ValueKind =
                ::twr_runtime::sections::ValueKind::Choice(<Self as ::twr_runtime::Choice>::VARIANTS);

            fn parse_section(
                content: &str,
            ) -> ::core::result::Result<Self, ::twr_runtime::parse::ValueError> {
                ::twr_runtime::parse::choice::<Self>(content)
            }

            fn parse_section_with(
                content: &str,
                phrases: &::twr_runtime::phrases::Phrases,
            ) -> ::core::result::Result<Self, ::twr_runtime::parse::ValueError> {
                ::twr_runtime::__private::choice_in::<Self>(content, phrases)
            }
        }
    }
}
