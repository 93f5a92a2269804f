//! The `#[sections(...)]` and `#[section(...)]` attributes, read into one
//! typed field per key. Every value keeps the span of its key so later checks
//! can point at the exact token the user wrote.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprArray, ExprLit, ExprPath, Lit, LitStr, Meta, Token};

use crate::ctxt::Ctxt;

/// The container attribute: `#[sections(...)]`.
pub(crate) const SECTIONS: &str = "sections";
/// The field attribute: `#[section(...)]`.
pub(crate) const SECTION: &str = "section";

/// `#[sections(lang = "zh")]`.
pub(crate) const LANG: &str = "lang";
/// `#[sections(style = "xml")]`.
pub(crate) const STYLE: &str = "style";
/// `#[sections(validate = check_refund)]`, a rule across sections (also a
/// key of `#[section(...)]`, [`VALIDATE`]).
/// `#[sections(validate = check_refund, concerns = [refund, items])]`: the
/// fields the rule of the same attribute is about.
pub(crate) const CONCERNS: &str = "concerns";
/// `#[sections(phrases = GERMAN)]`: a `twr_runtime::phrases::Phrases` of
/// the user's own.
pub(crate) const PHRASES: &str = "phrases";
/// Every key of `#[sections(...)]`.
pub(crate) const CONTAINER_KEYS: &[&str] = &[LANG, STYLE, VALIDATE, CONCERNS, PHRASES];

/// `#[section(header = "[Research Plan]")]`.
pub(crate) const HEADER: &str = "header";
/// `#[section(aliases = ["Schedule"])]`.
pub(crate) const ALIASES: &str = "aliases";
/// `#[section(example = "...")]`.
pub(crate) const EXAMPLE: &str = "example";
/// `#[section(default)]`.
pub(crate) const DEFAULT: &str = "default";
/// `#[section(json)]`.
pub(crate) const JSON: &str = "json";
/// `#[section(from_str)]`.
pub(crate) const FROM_STR: &str = "from_str";
/// `#[section(validate = path)]`.
pub(crate) const VALIDATE: &str = "validate";
/// `#[section(skip)]`.
pub(crate) const SKIP: &str = "skip";
/// `#[section(table)]`.
pub(crate) const TABLE: &str = "table";
/// `#[section(record)]`.
pub(crate) const RECORD: &str = "record";
/// `#[section(flatten)]`.
pub(crate) const FLATTEN: &str = "flatten";
/// `#[section(min = 0)]`.
pub(crate) const MIN: &str = "min";
/// `#[section(max = 1)]`.
pub(crate) const MAX: &str = "max";
/// Every key of `#[section(...)]`.
pub(crate) const FIELD_KEYS: &[&str] = &[
    HEADER, ALIASES, EXAMPLE, DEFAULT, JSON, FROM_STR, VALIDATE, SKIP, TABLE, RECORD, FLATTEN, MIN,
    MAX,
];

/// A value together with the span of the key that set it.
pub(crate) struct Spanned<T> {
    pub(crate) key: Span,
    pub(crate) value: T,
}

/// The languages of `#[sections(lang = "...")]`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    En,
    Zh,
}

/// The header styles of `#[sections(style = "...")]`, by name.
pub(crate) const STYLES: &[(&str, Style)] = &[
    ("brackets", Style::Brackets),
    ("xml", Style::Xml),
    ("markdown", Style::Markdown),
];

/// How the guide asks for section boundaries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Brackets,
    Xml,
    Markdown,
}

/// What `#[sections(...)]` says.
#[derive(Default)]
pub(crate) struct Container {
    pub(crate) lang: Option<Spanned<Lang>>,
    pub(crate) style: Option<Spanned<Style>>,
    /// The path of a `static` phrase table of the user's own.
    pub(crate) phrases: Option<Spanned<ExprPath>>,
    /// The rules across sections, one per `#[sections(validate = ...)]`
    /// attribute, in order.
    pub(crate) rules: Vec<Rule>,
}

/// A rule across sections: `#[sections(validate = path)]`, with the fields
/// it concerns when the same attribute says `concerns = [...]`.
pub(crate) struct Rule {
    pub(crate) path: Spanned<ExprPath>,
    /// The fields named, each as written; empty: the whole answer.
    pub(crate) concerns: Vec<syn::Ident>,
}

/// What `#[section(...)]` says about one field.
#[derive(Default)]
pub(crate) struct Field {
    pub(crate) header: Option<Spanned<LitStr>>,
    pub(crate) aliases: Option<Spanned<Vec<LitStr>>>,
    pub(crate) example: Option<Spanned<LitStr>>,
    pub(crate) default: Option<Span>,
    pub(crate) json: Option<Span>,
    pub(crate) from_str: Option<Span>,
    pub(crate) validate: Option<Spanned<ExprPath>>,
    pub(crate) skip: Option<Span>,
    pub(crate) table: Option<Span>,
    pub(crate) record: Option<Span>,
    pub(crate) flatten: Option<Span>,
    pub(crate) min: Option<Spanned<Bound>>,
    pub(crate) max: Option<Spanned<Bound>>,
}

/// A number literal of `min = ...` or `max = ...`, negative or not.
pub(crate) struct Bound {
    /// As the spec carries it: the digits as written, without `_` or a
    /// type suffix, `-` before them when negative (`-2.5`, `1e3`).
    pub(crate) text: String,
    /// Written with a fraction or an exponent (`0.5`, `1.0`, `1e3`).
    pub(crate) float: bool,
    /// The value, for comparing two bounds.
    pub(crate) value: f64,
    /// The value of a whole literal, exactly; `None` for a float, or one
    /// beyond every integer type.
    pub(crate) whole: Option<i128>,
}

impl Field {
    /// The keys that were given, with their spans, in the order of
    /// [`FIELD_KEYS`].
    pub(crate) fn given_keys(&self) -> Vec<(&'static str, Span)> {
        let mut keys = Vec::new();
        let mut push = |name: &'static str, span: Option<Span>| {
            if let Some(span) = span {
                keys.push((name, span));
            }
        };
        push(HEADER, self.header.as_ref().map(|a| a.key));
        push(ALIASES, self.aliases.as_ref().map(|a| a.key));
        push(EXAMPLE, self.example.as_ref().map(|a| a.key));
        push(DEFAULT, self.default);
        push(JSON, self.json);
        push(FROM_STR, self.from_str);
        push(VALIDATE, self.validate.as_ref().map(|a| a.key));
        push(SKIP, self.skip);
        push(TABLE, self.table);
        push(RECORD, self.record);
        push(FLATTEN, self.flatten);
        push(MIN, self.min.as_ref().map(|a| a.key));
        push(MAX, self.max.as_ref().map(|a| a.key));
        keys
    }
}

/// Reads every `#[sections(...)]` of the container. A `#[section(...)]` on
/// the container is a mistake and is reported.
pub(crate) fn container(cx: &Ctxt, attrs: &[Attribute]) -> Container {
    let mut out = Container::default();
    for attr in attrs {
        if attr.path().is_ident(SECTION) {
            cx.error_spanned_by(
                attr,
                "#[section(...)] goes on a field; on the struct use #[sections(...)]",
            );
            continue;
        }
        if !attr.path().is_ident(SECTIONS) {
            continue;
        }
        // One rule per attribute: `concerns` belongs to its `validate`.
        let mut rule: Option<Spanned<ExprPath>> = None;
        let mut concerns: Option<Spanned<Vec<syn::Ident>>> = None;
        for meta in nested(cx, attr, SECTIONS) {
            let Some(key) = key_of(cx, &meta, SECTIONS, CONTAINER_KEYS) else {
                continue;
            };
            match key {
                VALIDATE => {
                    if let Some(path) = path_value(cx, &meta) {
                        set(cx, &mut rule, &meta, VALIDATE, path);
                    }
                }
                PHRASES => {
                    if let Some(path) = path_value(cx, &meta) {
                        set(cx, &mut out.phrases, &meta, PHRASES, path);
                    }
                }
                CONCERNS => {
                    if let Some(fields) = ident_list_value(cx, &meta) {
                        set(cx, &mut concerns, &meta, CONCERNS, fields);
                    }
                }
                LANG => {
                    if let Some(lang) = lang_value(cx, &meta) {
                        set(cx, &mut out.lang, &meta, LANG, lang);
                    }
                }
                STYLE => {
                    if let Some(style) = style_value(cx, &meta) {
                        set(cx, &mut out.style, &meta, STYLE, style);
                    }
                }
                // `key_of` returns only keys of CONTAINER_KEYS.
                _ => {}
            }
        }
        match (rule, concerns) {
            (Some(path), concerns) => out.rules.push(Rule {
                path,
                concerns: concerns.map(|c| c.value).unwrap_or_default(),
            }),
            (None, Some(concerns)) => cx.error_at(
                concerns.key,
                "`concerns` names the fields of the rule in the same attribute: #[sections(validate = check_refund, concerns = [refund, items])]",
            ),
            (None, None) => {}
        }
    }
    if let (Some(_), Some(phrases)) = (&out.lang, &out.phrases) {
        cx.error_at(
            phrases.key,
            "`phrases` gives the words of a language of your own, so it replaces `lang`: keep one of them",
        );
    }
    out
}

/// `concerns = [refund, items]`: field names.
fn ident_list_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<syn::Ident>> {
    const USAGE: &str = "concerns = [refund, items]";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(
            meta,
            format!("`{CONCERNS}` needs a list of fields: {USAGE}"),
        );
        return None;
    };
    let Expr::Array(ExprArray { elems, .. }) = &nv.value else {
        cx.error_spanned_by(
            &nv.value,
            format!("`{CONCERNS}` expects a list of field names: {USAGE}"),
        );
        return None;
    };
    let mut list = Vec::with_capacity(elems.len());
    let mut ok = true;
    for elem in elems {
        match elem {
            Expr::Path(path) if path.path.get_ident().is_some() => {
                list.extend(path.path.get_ident().cloned());
            }
            other => {
                ok = false;
                cx.error_spanned_by(other, format!("each entry must be a field name: {USAGE}"));
            }
        }
    }
    ok.then_some(list)
}

/// `lang = "en"` or `lang = "zh"`.
fn lang_value(cx: &Ctxt, meta: &Meta) -> Option<Lang> {
    let lit = string_value(cx, meta, LANG, "lang = \"zh\"")?;
    match lit.value().as_str() {
        "en" => Some(Lang::En),
        "zh" => Some(Lang::Zh),
        other => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "unknown language `{other}`; the built-in ones are \"en\" and \"zh\": \
                     for another language, write a phrase table (twr_runtime::phrases::Phrases) \
                     and name it with #[sections(phrases = PATH)] instead of `lang`"
                ),
            );
            None
        }
    }
}

/// `style = "brackets"`, `"xml"` or `"markdown"`.
fn style_value(cx: &Ctxt, meta: &Meta) -> Option<Style> {
    let lit = string_value(cx, meta, STYLE, "style = \"xml\"")?;
    let value = lit.value();
    let found = STYLES.iter().find(|(name, _)| *name == value);
    if found.is_none() {
        let valid = STYLES
            .iter()
            .map(|(name, _)| format!("\"{name}\""))
            .collect::<Vec<_>>()
            .join(", ");
        cx.error_spanned_by(
            &lit,
            format!("unknown style `{value}`; expected one of {valid}"),
        );
    }
    found.map(|(_, style)| *style)
}

/// Reads every `#[section(...)]` of a field. A `#[sections(...)]` on a field
/// is a mistake and is reported.
pub(crate) fn field(cx: &Ctxt, attrs: &[Attribute]) -> Field {
    let mut out = Field::default();
    for attr in attrs {
        if attr.path().is_ident(SECTIONS) {
            cx.error_spanned_by(
                attr,
                "#[sections(...)] goes on the struct; on a field use #[section(...)]",
            );
            continue;
        }
        if !attr.path().is_ident(SECTION) {
            continue;
        }
        for meta in nested(cx, attr, SECTION) {
            let Some(key) = key_of(cx, &meta, SECTION, FIELD_KEYS) else {
                continue;
            };
            match key {
                HEADER => {
                    if let Some(lit) = string_value(cx, &meta, HEADER, "header = \"[Plan]\"") {
                        set(cx, &mut out.header, &meta, HEADER, lit);
                    }
                }
                EXAMPLE => {
                    if let Some(lit) = string_value(cx, &meta, EXAMPLE, "example = \"...\"") {
                        set(cx, &mut out.example, &meta, EXAMPLE, lit);
                    }
                }
                ALIASES => {
                    if let Some(list) = string_list_value(cx, &meta) {
                        set(cx, &mut out.aliases, &meta, ALIASES, list);
                    }
                }
                VALIDATE => {
                    if let Some(path) = path_value(cx, &meta) {
                        set(cx, &mut out.validate, &meta, VALIDATE, path);
                    }
                }
                DEFAULT => flag(cx, &mut out.default, &meta, DEFAULT),
                JSON => flag(cx, &mut out.json, &meta, JSON),
                FROM_STR => flag(cx, &mut out.from_str, &meta, FROM_STR),
                SKIP => flag(cx, &mut out.skip, &meta, SKIP),
                TABLE => flag(cx, &mut out.table, &meta, TABLE),
                RECORD => flag(cx, &mut out.record, &meta, RECORD),
                FLATTEN => flag(cx, &mut out.flatten, &meta, FLATTEN),
                MIN | MAX => {
                    if let Some(bound) = bound_value(cx, &meta, key) {
                        let slot = if key == MIN {
                            &mut out.min
                        } else {
                            &mut out.max
                        };
                        set(cx, slot, &meta, key, bound);
                    }
                }
                // `key_of` returns only keys of FIELD_KEYS.
                _ => {}
            }
        }
    }
    out
}

/// Reports `#[section(...)]` and `#[sections(...)]` on a variant of an enum
/// deriving `Sections`: its fields carry the first, the enum the second.
pub(crate) fn variant(cx: &Ctxt, attrs: &[Attribute]) {
    for attr in attrs {
        if attr.path().is_ident(SECTION) {
            cx.error_spanned_by(
                attr,
                "#[section(...)] goes on a field of the variant, not on the variant",
            );
        } else if attr.path().is_ident(SECTIONS) {
            cx.error_spanned_by(
                attr,
                "#[sections(...)] goes on the enum, not on one of its variants",
            );
        }
    }
}

/// The field's doc comment: one line per `///`, the single space after
/// `///` removed, surrounding blank lines dropped.
pub(crate) fn doc(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = &nv.value
            {
                let text = lit.value();
                // `split`, not `lines`: an empty `///` line is a paragraph break.
                for line in text.split('\n') {
                    lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
                }
            }
        }
    }
    lines.join("\n").trim().to_owned()
}

/// The comma-separated keys inside `#[name(...)]`; a syntax error is
/// recorded and yields no keys.
fn nested(cx: &Ctxt, attr: &Attribute, name: &str) -> Vec<Meta> {
    if let Meta::Path(path) = &attr.meta {
        cx.error_spanned_by(
            path,
            format!("expected keys in parentheses: #[{name}(...)]"),
        );
        return Vec::new();
    }
    match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
        Ok(list) => list.into_iter().collect(),
        Err(err) => {
            cx.syn_error(err);
            Vec::new()
        }
    }
}

/// The key's name when it is one of `valid`; otherwise an error naming the
/// valid keys.
fn key_of(cx: &Ctxt, meta: &Meta, attr: &str, valid: &[&'static str]) -> Option<&'static str> {
    let found = meta
        .path()
        .get_ident()
        .and_then(|ident| valid.iter().copied().find(|key| ident == key));
    if found.is_none() {
        unknown_key(cx, meta, attr, valid);
    }
    found
}

fn unknown_key(cx: &Ctxt, meta: &Meta, attr: &str, valid: &[&str]) {
    let path = meta.path();
    let shown = path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    let list = valid
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = other_derives_key(&shown)
        .map(str::to_owned)
        .or_else(|| closest(&shown, valid).map(|key| format!(" did you mean `{key}`?")))
        .unwrap_or_default();
    cx.error_spanned_by(
        path,
        format!("unknown key `{shown}` in #[{attr}(...)];{hint} valid keys are {list}"),
    );
}

/// What twr writes for a key of another derive (serde's) that means
/// something here: its own hint, in place of "did you mean".
fn other_derives_key(wrote: &str) -> Option<&'static str> {
    match wrote {
        "rename" => Some(" a section's header is named with `header = \"[Name]\"`;"),
        "rename_all" => Some(
            " each header comes from its field's name (`due_date` is [Due Date]); \
             name one with #[section(header = \"[Name]\")] on the field;",
        ),
        _ => None,
    }
}

/// The valid key closest to a misspelt one, when it is close enough to be
/// what was meant: at most a third of its letters differ, or both start
/// with the same four letters (`heading`, `header`).
fn closest<'k>(wrote: &str, valid: &[&'k str]) -> Option<&'k str> {
    let shared_prefix = |key: &str| {
        wrote
            .chars()
            .zip(key.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    valid
        .iter()
        .map(|key| (edit_distance(wrote, key), *key))
        .filter(|(distance, key)| *distance * 3 <= key.len() || shared_prefix(key) >= 4)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key)
}

/// Levenshtein distance; the keys are a few ASCII letters long.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Stores `value`, reporting a key given twice at its second occurrence.
fn set<T>(cx: &Ctxt, slot: &mut Option<Spanned<T>>, meta: &Meta, name: &str, value: T) {
    let key = meta.path().span();
    if slot.is_some() {
        cx.error_at(key, format!("duplicate key `{name}`"));
        return;
    }
    *slot = Some(Spanned { key, value });
}

/// A key without a value: `default`, `json`, `from_str`, `skip`, `table`,
/// `record`, `flatten`.
fn flag(cx: &Ctxt, slot: &mut Option<Span>, meta: &Meta, name: &str) {
    let key = meta.path().span();
    if !matches!(meta, Meta::Path(_)) {
        cx.error_spanned_by(
            meta,
            format!("`{name}` takes no value: write #[section({name})]"),
        );
        return;
    }
    if slot.is_some() {
        cx.error_at(key, format!("duplicate key `{name}`"));
        return;
    }
    *slot = Some(key);
}

fn string_value(cx: &Ctxt, meta: &Meta, name: &str, usage: &str) -> Option<LitStr> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => Some(lit.clone()),
            other => {
                cx.error_spanned_by(other, format!("`{name}` expects a string literal: {usage}"));
                None
            }
        },
        _ => {
            cx.error_spanned_by(meta, format!("`{name}` needs a value: {usage}"));
            None
        }
    }
}

/// `aliases = ["A", "B"]`; a single string is accepted too.
fn string_list_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
    const USAGE: &str = "aliases = [\"Schedule\", \"Dates\"]";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, format!("`{ALIASES}` needs a value: {USAGE}"));
        return None;
    };
    match &nv.value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Some(vec![lit.clone()]),
        Expr::Array(ExprArray { elems, .. }) => {
            let mut list = Vec::with_capacity(elems.len());
            let mut ok = true;
            for elem in elems {
                match elem {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => list.push(lit.clone()),
                    other => {
                        ok = false;
                        cx.error_spanned_by(
                            other,
                            format!("each alias must be a string literal: {USAGE}"),
                        );
                    }
                }
            }
            ok.then_some(list)
        }
        other => {
            cx.error_spanned_by(
                other,
                format!("`{ALIASES}` expects a list of string literals: {USAGE}"),
            );
            None
        }
    }
}

/// `min = 0`, `max = -2.5`: a number literal, maybe negative.
fn bound_value(cx: &Ctxt, meta: &Meta, name: &str) -> Option<Bound> {
    let usage = if name == MIN { "min = 0" } else { "max = 1" };
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, format!("`{name}` needs a number: {usage}"));
        return None;
    };
    let (negative, lit) = match &nv.value {
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let (digits, float) = match lit {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => (int.base10_digits().to_owned(), false),
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => (float.base10_digits().to_owned(), true),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{name}` expects a number literal, such as {usage} or {name} = -2.5"),
            );
            return None;
        }
    };
    let text = if negative {
        format!("-{digits}")
    } else {
        digits
    };
    // Digits as the lexer gave them always read as an f64 (a huge one as
    // infinity, which no type holds either).
    let value: f64 = text.parse().unwrap_or(f64::INFINITY);
    let whole = if float {
        None
    } else {
        text.parse::<i128>().ok()
    };
    // `-0` is 0.
    let text = if whole == Some(0) {
        "0".to_owned()
    } else {
        text
    };
    Some(Bound {
        text,
        float,
        value,
        whole,
    })
}

/// `validate = path::to::function`, `phrases = path::TO_TABLE`.
fn path_value(cx: &Ctxt, meta: &Meta) -> Option<ExprPath> {
    let name = meta
        .path()
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let (usage, what) = if name == PHRASES {
        ("phrases = GERMAN", "a static phrase table")
    } else {
        ("validate = check_summary", "a function")
    };
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Path(path) => Some(path.clone()),
            other => {
                cx.error_spanned_by(
                    other,
                    format!("`{name}` expects the path of {what}: {usage}"),
                );
                None
            }
        },
        _ => {
            cx.error_spanned_by(meta, format!("`{name}` needs {what}: {usage}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_letter_edits() {
        assert_eq!(edit_distance("header", "header"), 0);
        assert_eq!(edit_distance("jsn", "json"), 1);
        assert_eq!(edit_distance("exmaple", "example"), 2);
        assert_eq!(edit_distance("", "skip"), 4);
        assert_eq!(edit_distance("heading", "header"), 3);
    }

    #[test]
    fn only_close_keys_are_suggested() {
        assert_eq!(closest("heading", FIELD_KEYS), Some(HEADER));
        assert_eq!(closest("alias", FIELD_KEYS), Some(ALIASES));
        assert_eq!(closest("from_string", FIELD_KEYS), Some(FROM_STR));
        assert_eq!(closest("validator", FIELD_KEYS), Some(VALIDATE));
        assert_eq!(closest("rename", FIELD_KEYS), None);
        assert_eq!(closest("flattened", FIELD_KEYS), Some(FLATTEN));
        assert_eq!(closest("language", CONTAINER_KEYS), Some(LANG));
    }

    #[test]
    fn doc_comments_keep_paragraphs() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = " First line."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = "   indented"]),
            syn::parse_quote!(#[allow(dead_code)]),
            syn::parse_quote!(#[doc = " "]),
        ];
        assert_eq!(doc(&attrs), "First line.\n\n  indented");
    }
}
