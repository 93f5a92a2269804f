//! A borrowing model of the derive input: the struct (or enum) with its
//! attributes read and its headers worked out. Built once by `from_ast`,
//! checked by `valid`, then turned into code by `expand`.

use proc_macro2::Span;
use syn::{
    Data as Data_, DataEnum, DataStruct, DeriveInput, Fields, GenericArgument, Generics, Ident,
    PathArguments, Type,
};

use crate::attr;
use crate::ctxt::Ctxt;

/// A struct or an enum deriving `Sections`.
pub(crate) struct Container<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) generics: &'a Generics,
    pub(crate) attrs: attr::Container,
    pub(crate) data: Data<'a>,
}

/// What the sections of a `Sections` type are.
pub(crate) enum Data<'a> {
    /// A struct's named fields, in order.
    Struct(Vec<Field<'a>>),
    /// An enum of section sets: each variant is one way to answer, with
    /// its own sections.
    Enum(Vec<Way<'a>>),
}

/// One variant of an enum deriving `Sections`: a way to answer.
pub(crate) struct Way<'a> {
    pub(crate) ident: &'a Ident,
    /// The variant name without `r#`.
    pub(crate) name: String,
    /// The doc comment, the guide's description of this way.
    pub(crate) doc: String,
    /// The named fields of a struct variant; for a newtype variant, its one
    /// field, flattened (its type derives `Sections`).
    pub(crate) fields: Vec<Field<'a>>,
    /// A newtype variant, `Answer(FinalAnswer)`.
    pub(crate) newtype: bool,
}

/// One field of a `Sections` struct or struct variant (or the field of a
/// newtype variant).
pub(crate) struct Field<'a> {
    /// The field's name, or for a newtype variant the variant's: where
    /// errors about the field point.
    pub(crate) ident: &'a Ident,
    /// How the value names the field: `plan`, or `0` in a newtype variant.
    pub(crate) member: syn::Member,
    /// The field name as written, without a `r#` prefix.
    pub(crate) name: String,
    /// The variant the field belongs to, in an enum.
    pub(crate) way: Option<String>,
    pub(crate) ty: &'a Type,
    /// `T` when the type is syntactically `Option<T>`: the section is optional.
    pub(crate) option: Option<&'a Type>,
    pub(crate) attrs: attr::Field,
    /// The doc comment, the section's description.
    pub(crate) doc: String,
}

/// A header or an alias: the name without brackets and where it comes from.
pub(crate) struct Name {
    /// The text shown to the model; for a header, with its brackets.
    pub(crate) shown: String,
    /// The name without brackets, trimmed.
    pub(crate) name: String,
    /// The string literal that gave it, or the field name for a default header.
    pub(crate) span: Span,
    /// Whether the user wrote it (rather than it being derived from the field name).
    pub(crate) given: bool,
}

impl<'a> Container<'a> {
    /// Every field: the struct's, or every variant's in order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &Field<'a>> {
        let (fields, ways): (&[Field<'a>], &[Way<'a>]) = match &self.data {
            Data::Struct(fields) => (fields, &[]),
            Data::Enum(ways) => (&[], ways),
        };
        fields
            .iter()
            .chain(ways.iter().flat_map(|way| way.fields.iter()))
    }

    /// The fields that are sections or flattened groups of sections (not
    /// `#[section(skip)]`), in order.
    pub(crate) fn sections(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields().filter(|f| f.is_section())
    }

    /// Reads the input; `None` when it is neither a struct with named
    /// fields nor an enum (the error is recorded).
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs);
        let data = match &input.data {
            Data_::Struct(DataStruct {
                fields: Fields::Named(named),
                ..
            }) => Data::Struct(named_fields(cx, named, None)),
            Data_::Struct(DataStruct {
                fields: Fields::Unnamed(unnamed),
                ..
            }) => {
                cx.error_spanned_by(
                    unnamed,
                    "#[derive(Sections)] needs named fields: each field is one section and its name gives the header; this is a tuple struct",
                );
                return None;
            }
            Data_::Struct(DataStruct {
                fields: Fields::Unit,
                ..
            }) => {
                cx.error_spanned_by(
                    &input.ident,
                    "#[derive(Sections)] needs named fields: each field is one section; this unit struct has none",
                );
                return None;
            }
            Data_::Enum(data) => Data::Enum(ways(cx, &input.ident, data)),
            Data_::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "#[derive(Sections)] works on structs with named fields and on enums of section sets, not unions",
                );
                return None;
            }
        };
        Some(Container {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            data,
        })
    }
}

/// The named fields of a struct, or of a struct variant `way`.
fn named_fields<'a>(cx: &Ctxt, named: &'a syn::FieldsNamed, way: Option<&str>) -> Vec<Field<'a>> {
    named
        .named
        .iter()
        .filter_map(|field| {
            // Named fields always have an ident.
            let ident = field.ident.as_ref()?;
            let name = ident.to_string();
            Some(Field {
                ident,
                member: syn::Member::Named(ident.clone()),
                name: name.strip_prefix("r#").unwrap_or(&name).to_owned(),
                way: way.map(str::to_owned),
                ty: &field.ty,
                option: option_inner(&field.ty),
                attrs: attr::field(cx, &field.attrs),
                doc: attr::doc(&field.attrs),
            })
        })
        .collect()
}

/// The variants of an enum deriving `Sections`, each a way to answer: a
/// struct variant, or a newtype of a type deriving `Sections`. Other
/// variants are reported and left out.
fn ways<'a>(cx: &Ctxt, ident: &Ident, data: &'a DataEnum) -> Vec<Way<'a>> {
    if data.variants.is_empty() {
        cx.error_spanned_by(
            ident,
            "#[derive(Sections)] on an enum needs at least one variant: each variant is one way to answer, with sections of its own",
        );
    }
    if !data.variants.is_empty()
        && data
            .variants
            .iter()
            .all(|variant| matches!(variant.fields, Fields::Unit))
    {
        cx.error_spanned_by(
            data.enum_token,
            "#[derive(Sections)] on an enum makes each variant a way to answer with sections of its own, and no variant here has any: for a value picked from a fixed set of words, such as this one, use #[derive(Choice)]",
        );
        return Vec::new();
    }
    let mut ways = Vec::with_capacity(data.variants.len());
    for variant in &data.variants {
        attr::variant(cx, &variant.attrs);
        let raw = variant.ident.to_string();
        let name = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
        let (fields, newtype) = match &variant.fields {
            Fields::Named(named) => (named_fields(cx, named, Some(&name)), false),
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                let field = &unnamed.unnamed[0];
                if !attr::field(cx, &field.attrs).given_keys().is_empty() {
                    cx.error_spanned_by(
                        field,
                        "a newtype variant takes its sections, headers and checks from its type's own attributes; remove #[section(...)] here",
                    );
                }
                let field = Field {
                    ident: &variant.ident,
                    member: syn::Member::Unnamed(syn::Index::from(0)),
                    name: name.clone(),
                    way: Some(name.clone()),
                    ty: &field.ty,
                    option: None,
                    attrs: attr::Field {
                        flatten: Some(variant.ident.span()),
                        ..attr::Field::default()
                    },
                    doc: String::new(),
                };
                (vec![field], true)
            }
            Fields::Unnamed(unnamed) => {
                cx.error_spanned_by(
                    unnamed,
                    format!("a tuple variant of a Sections enum holds one type that derives Sections, such as `{name}(Final{name})`; for several sections give `{name}` named fields"),
                );
                continue;
            }
            Fields::Unit => {
                cx.error_spanned_by(
                    &variant.ident,
                    format!("each variant of a Sections enum is a way to answer with sections of its own, and `{name}` has none: give it named fields (`{name} {{ query: String }}`) or a type that derives Sections (`{name}({name}Answer)`); for a value picked from a fixed set of words, use #[derive(Choice)] on the enum instead"),
                );
                continue;
            }
        };
        ways.push(Way {
            ident: &variant.ident,
            name,
            doc: attr::doc(&variant.attrs),
            fields,
            newtype,
        });
    }
    ways
}

impl Field<'_> {
    /// True unless `#[section(skip)]`: the field is a section, or with
    /// `#[section(flatten)]` a group of sections.
    pub(crate) fn is_section(&self) -> bool {
        self.attrs.skip.is_none()
    }

    /// True with `#[section(flatten)]`: the field's type gives sections of
    /// its own, in place.
    pub(crate) fn is_flatten(&self) -> bool {
        self.attrs.flatten.is_some()
    }

    /// The type a section's content is parsed into: `T` for `Option<T>`.
    pub(crate) fn value_ty(&self) -> &Type {
        self.option.unwrap_or(self.ty)
    }

    /// The row type of a `#[section(table)]` field: `Row` for `Vec<Row>`.
    pub(crate) fn row_ty(&self) -> Option<&Type> {
        generic_args(self.value_ty(), &["Vec"]).and_then(|args| match args.as_slice() {
            [row] => Some(*row),
            _ => None,
        })
    }

    /// The number type a section's bounds apply to: the field's type, the
    /// type in its `Option`, or the item type of its `Vec`, when that is a
    /// whole-number or decimal type (by its spelling: an alias is not
    /// recognised).
    pub(crate) fn number_ty(&self) -> Option<NumberTy> {
        let ty = self.value_ty();
        let ty = match generic_args(ty, &["Vec"]) {
            Some(args) => match args.as_slice() {
                [item] => *item,
                _ => return None,
            },
            None => ty,
        };
        let Type::Path(path) = ty else {
            return None;
        };
        if path.qself.is_some() || path.path.segments.len() != 1 {
            return None;
        }
        let segment = &path.path.segments[0];
        if !matches!(segment.arguments, PathArguments::None) {
            return None;
        }
        let name = segment.ident.to_string();
        NUMBER_TYS
            .iter()
            .find(|number| number.name == name)
            .copied()
    }

    /// The key type of a map section: `K` for `HashMap<K, V>` or
    /// `BTreeMap<K, V>`.
    pub(crate) fn map_key_ty(&self) -> Option<&Type> {
        generic_args(self.value_ty(), &["HashMap", "BTreeMap"])
            .and_then(|args| args.first().copied())
    }

    /// The header: the one given with `header = "..."`, or the field name
    /// in Title Case in brackets.
    pub(crate) fn header(&self) -> Name {
        match &self.attrs.header {
            Some(given) => {
                let text = given.value.value();
                let (open, name, close) = split_brackets(text.trim());
                let name = name.trim().to_owned();
                Name {
                    shown: format!("{open}{name}{close}"),
                    name,
                    span: given.value.span(),
                    given: true,
                }
            }
            None => {
                let name = title_case(&self.name);
                Name {
                    shown: format!("[{name}]"),
                    name,
                    span: self.ident.span(),
                    given: false,
                }
            }
        }
    }

    /// The aliases, brackets removed.
    pub(crate) fn aliases(&self) -> Vec<Name> {
        let Some(aliases) = &self.attrs.aliases else {
            return Vec::new();
        };
        aliases
            .value
            .iter()
            .map(|lit| {
                let text = lit.value();
                let (_, name, _) = split_brackets(text.trim());
                let name = name.trim().to_owned();
                Name {
                    shown: name.clone(),
                    name,
                    span: lit.span(),
                    given: true,
                }
            })
            .collect()
    }
}

/// A number type a section's bounds may apply to.
#[derive(Clone, Copy)]
pub(crate) struct NumberTy {
    pub(crate) name: &'static str,
    /// The smallest and largest value of a whole-number type; `None` for
    /// a decimal one. `usize` and `isize` as on 64-bit targets.
    pub(crate) range: Option<(i128, i128)>,
}

/// Every number type `min` and `max` apply to.
pub(crate) const NUMBER_TYS: &[NumberTy] = &[
    NumberTy {
        name: "u8",
        range: Some((0, u8::MAX as i128)),
    },
    NumberTy {
        name: "u16",
        range: Some((0, u16::MAX as i128)),
    },
    NumberTy {
        name: "u32",
        range: Some((0, u32::MAX as i128)),
    },
    NumberTy {
        name: "u64",
        range: Some((0, u64::MAX as i128)),
    },
    NumberTy {
        name: "usize",
        range: Some((0, u64::MAX as i128)),
    },
    NumberTy {
        name: "i8",
        range: Some((i8::MIN as i128, i8::MAX as i128)),
    },
    NumberTy {
        name: "i16",
        range: Some((i16::MIN as i128, i16::MAX as i128)),
    },
    NumberTy {
        name: "i32",
        range: Some((i32::MIN as i128, i32::MAX as i128)),
    },
    NumberTy {
        name: "i64",
        range: Some((i64::MIN as i128, i64::MAX as i128)),
    },
    NumberTy {
        name: "isize",
        range: Some((i64::MIN as i128, i64::MAX as i128)),
    },
    NumberTy {
        name: "f32",
        range: None,
    },
    NumberTy {
        name: "f64",
        range: None,
    },
];

/// An enum deriving `Choice`.
pub(crate) struct Enum<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) generics: &'a Generics,
    pub(crate) variants: Vec<Variant<'a>>,
    /// How many variants were written, those with data included.
    pub(crate) declared: usize,
}

/// One variant of a `Choice` enum.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a Ident,
    /// The value shown to the model: the variant name without `r#`.
    pub(crate) name: String,
}

impl<'a> Enum<'a> {
    /// Reads the input; `None` when it is not an enum (the error is recorded).
    /// Variants with data are reported and left out.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        const NEEDS: &str = "#[derive(Choice)] needs an enum whose variants carry no data, such as `enum Priority { Low, Medium, High }`";
        let data = match &input.data {
            Data_::Enum(data) => data,
            Data_::Struct(data) => {
                cx.error_spanned_by(data.struct_token, format!("{NEEDS}; this is a struct"));
                return None;
            }
            Data_::Union(data) => {
                cx.error_spanned_by(data.union_token, format!("{NEEDS}; this is a union"));
                return None;
            }
        };
        let mut variants = Vec::with_capacity(data.variants.len());
        for variant in &data.variants {
            match &variant.fields {
                Fields::Unit => {
                    let name = variant.ident.to_string();
                    variants.push(Variant {
                        ident: &variant.ident,
                        name: name.strip_prefix("r#").unwrap_or(&name).to_owned(),
                    });
                }
                fields => cx.error_spanned_by(
                    fields,
                    format!(
                        "`{}` carries data, but a Choice is one word the model picks from a fixed set, such as `enum Priority {{ Low, Medium, High }}`; for ways to answer, each variant with sections of its own, use #[derive(Sections)] on this enum instead",
                        variant.ident
                    ),
                ),
            }
        }
        Some(Enum {
            ident: &input.ident,
            generics: &input.generics,
            variants,
            declared: data.variants.len(),
        })
    }
}

/// `T` when `ty` is written `Option<T>` (or `std::option::Option<T>`,
/// `core::option::Option<T>`). Purely syntactic: a type alias of `Option`
/// is not recognised, which is why the attribute docs say "an `Option` field".
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let segments = &path.path.segments;
    let last = segments.last()?;
    let prefix_ok = match segments.len() {
        1 => true,
        3 => {
            let root = segments[0].ident.to_string();
            (root == "std" || root == "core") && segments[1].ident == "option"
        }
        _ => false,
    };
    if !prefix_ok || last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    if args.args.len() != 1 {
        return None;
    }
    match args.args.first()? {
        GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// The type arguments of `ty` when its last path segment is one of `names`
/// (`Vec<Row>`, `std::collections::HashMap<K, V, S>`). Purely syntactic.
fn generic_args<'t>(ty: &'t Type, names: &[&str]) -> Option<Vec<&'t Type>> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if !names.iter().any(|name| last.ident == name) {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
    )
}

/// Whether `ty` names one of `params` anywhere.
pub(crate) fn mentions(ty: &Type, params: &[&Ident]) -> bool {
    fn walk(tokens: proc_macro2::TokenStream, params: &[&Ident]) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => params.iter().any(|p| **p == ident),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    walk(quote::quote!(#ty), params)
}

/// Whether `ty` is written `String` (or `std::string::String`).
pub(crate) fn is_string(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.last().is_some_and(|s| {
                    s.ident == "String" && matches!(s.arguments, PathArguments::None)
                })
        }
        _ => false,
    }
}

/// Splits `[Name]` or `【Name】` into its brackets and name; text without
/// brackets gets square ones.
fn split_brackets(text: &str) -> (&'static str, &str, &'static str) {
    for (open, close) in [("[", "]"), ("【", "】")] {
        if let Some(inner) = text
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
        {
            return (open, inner, close);
        }
    }
    ("[", text, "]")
}

/// `research_plan` → `Research Plan`.
pub(crate) fn title_case(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    for word in field.split('_').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_case_splits_on_underscores() {
        assert_eq!(title_case("research_plan"), "Research Plan");
        assert_eq!(title_case("weeks"), "Weeks");
        assert_eq!(title_case("step_2"), "Step 2");
        assert_eq!(title_case("_private__name_"), "Private Name");
        assert_eq!(title_case("über_plan"), "Über Plan");
        assert_eq!(title_case("预算"), "预算");
        assert_eq!(title_case("__"), "");
    }

    #[test]
    fn brackets_are_split_off() {
        assert_eq!(split_brackets("[Plan]"), ("[", "Plan", "]"));
        assert_eq!(split_brackets("【计划】"), ("【", "计划", "】"));
        assert_eq!(split_brackets("Plan"), ("[", "Plan", "]"));
        assert_eq!(split_brackets("[Plan"), ("[", "[Plan", "]"));
        assert_eq!(split_brackets("[]"), ("[", "", "]"));
    }

    #[test]
    fn option_is_recognised_by_its_spelling() {
        let inner = |ty: Type| option_inner(&ty).map(|t| quote::quote!(#t).to_string());
        assert_eq!(
            inner(syn::parse_quote!(Option<String>)),
            Some("String".to_owned())
        );
        assert_eq!(
            inner(syn::parse_quote!(std::option::Option<Vec<u8>>)),
            Some("Vec < u8 >".to_owned())
        );
        assert_eq!(
            inner(syn::parse_quote!(::core::option::Option<u8>)),
            Some("u8".to_owned())
        );
        assert_eq!(inner(syn::parse_quote!(Vec<Option<u8>>)), None);
        assert_eq!(inner(syn::parse_quote!(my::Option<u8>)), None);
        assert_eq!(inner(syn::parse_quote!(Option)), None);
        assert_eq!(inner(syn::parse_quote!(<T as Trait>::Option<u8>)), None);
    }
}
