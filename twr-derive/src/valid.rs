//! Rules that involve more than one key or more than one field. Each
//! violation is recorded in the `Ctxt`, spanned at the token to change.

use std::collections::HashMap;

use crate::ast::{is_string, mentions};
use crate::ast::{Container, Data, Enum, Field, Name};
use crate::attr::{
    Bound, Spanned, DEFAULT, FLATTEN, FROM_STR, JSON, MAX, MIN, RECORD, SKIP, TABLE,
};
use crate::ctxt::Ctxt;

/// Checks a `Sections` struct or enum.
pub(crate) fn check_sections(cx: &Ctxt, cont: &Container) {
    match &cont.data {
        Data::Struct(fields) => {
            if !fields.iter().any(Field::is_section) {
                let why = if fields.is_empty() {
                    "this struct has no fields"
                } else {
                    "every field is #[section(skip)]"
                };
                cx.error_spanned_by(
                    cont.ident,
                    format!("#[derive(Sections)] needs at least one section; {why}"),
                );
            }
        }
        Data::Enum(ways) => {
            for way in ways.iter().filter(|way| !way.newtype) {
                if !way.fields.iter().any(Field::is_section) {
                    let why = if way.fields.is_empty() {
                        "it has no fields"
                    } else {
                        "every field is #[section(skip)]"
                    };
                    cx.error_spanned_by(
                        way.ident,
                        format!(
                            "`{}` has no sections, and a way to answer needs at least one; {why}",
                            way.name
                        ),
                    );
                }
            }
        }
    }
    for field in cont.fields() {
        check_keys(cx, field);
        check_bounds(cx, field);
        check_flatten(cx, cont, field);
    }
    check_names(cx, cont);
    check_concerns(cx, cont);
}

/// Each field a rule `concerns` is a section field (or a flattened group)
/// of the type, in an enum of any variant.
fn check_concerns(cx: &Ctxt, cont: &Container) {
    for rule in &cont.attrs.rules {
        for name in &rule.concerns {
            let wrote = name.to_string();
            let wrote = wrote.strip_prefix("r#").unwrap_or(&wrote);
            if cont.sections().any(|field| field.name == wrote) {
                continue;
            }
            let skipped = cont.fields().any(|field| field.name == wrote);
            let valid: Vec<String> = cont
                .sections()
                .map(|field| format!("`{}`", field.name))
                .collect();
            let why = if skipped {
                format!("`{wrote}` is #[section(skip)], not a section")
            } else {
                format!("`{wrote}` is not a field of `{}`", cont.ident)
            };
            cx.error_spanned_by(
                name,
                format!(
                    "{why}; a rule concerns section fields: {}",
                    valid.join(", ")
                ),
            );
        }
    }
}

/// A `#[section(flatten)]` field takes everything from its type: no other
/// key, no `Option`, no type parameter (its sections must be constants).
fn check_flatten(cx: &Ctxt, cont: &Container, field: &Field) {
    let Some(flatten) = field.attrs.flatten else {
        return;
    };
    if field.attrs.skip.is_some() {
        // Reported by `check_keys`.
        return;
    }
    for (key, span) in field.attrs.given_keys() {
        if key != FLATTEN {
            cx.error_at(
                span,
                format!("`{key}` has no effect with `{FLATTEN}`: a flattened field's sections take their headers, examples and checks from its type's own attributes; remove `{key}`"),
            );
        }
    }
    if field.option.is_some() {
        cx.error_at(
            flatten,
            format!("`{FLATTEN}` needs a type that derives Sections, not an Option: a flattened group is read like the parent's own sections; make the sections inside it optional instead"),
        );
        return;
    }
    let params: Vec<&syn::Ident> = cont.generics.type_params().map(|p| &p.ident).collect();
    if mentions(field.ty, &params) {
        let what = match field.member {
            syn::Member::Unnamed(_) => "a newtype variant needs a type".to_owned(),
            syn::Member::Named(_) => format!("`{FLATTEN}` needs a type"),
        };
        cx.error_spanned_by(
            field.ty,
            format!("{what} without type parameters: its sections are fixed when the type deriving Sections is compiled"),
        );
    }
}

/// `min` and `max` bound a plain number section (or each item of a list
/// of numbers), with numbers its type holds, the smallest first.
fn check_bounds(cx: &Ctxt, field: &Field) {
    let attrs = &field.attrs;
    let given: Vec<(&str, &Spanned<Bound>)> = [(MIN, &attrs.min), (MAX, &attrs.max)]
        .into_iter()
        .filter_map(|(key, bound)| Some((key, bound.as_ref()?)))
        .collect();
    if given.is_empty() || attrs.skip.is_some() || attrs.flatten.is_some() {
        // Reported with `skip` or `flatten`.
        return;
    }
    let ty = field.value_ty();
    let written = quote::quote!(#ty).to_string().replace(' ', "");
    let format = [
        (JSON, attrs.json),
        (FROM_STR, attrs.from_str),
        (TABLE, attrs.table),
        (RECORD, attrs.record),
    ]
    .into_iter()
    .find_map(|(key, span)| span.map(|_| key));
    let number = field.number_ty().filter(|_| format.is_none());
    let Some(number) = number else {
        let why = match format {
            Some(format) => format!("a `{format}` section is read by its own rules"),
            None => format!("`{}` is `{written}`", field.name),
        };
        for (key, bound) in &given {
            cx.error_at(
                bound.key,
                format!("`{key}` bounds a number section: {why}; `{key}` goes on a field of a whole-number or decimal type (u8 to u64, i8 to i64, usize, isize, f32, f64), an Option or a Vec of one"),
            );
        }
        return;
    };
    let mut fit = true;
    for (key, bound) in &given {
        let bound_text = &bound.value.text;
        let Some((low, high)) = number.range else {
            if !bound.value.value.is_finite() {
                fit = false;
                cx.error_at(
                    bound.key,
                    format!("`{key} = {bound_text}` is beyond every `{}`", number.name),
                );
            }
            continue;
        };
        if bound.value.float {
            fit = false;
            // `+ 0.0`: -0.5 gives 0, not -0.
            let whole = bound.value.value.trunc() + 0.0;
            cx.error_at(
                bound.key,
                format!("`{key} = {bound_text}` is not written as a whole number, and `{}` holds whole numbers (`{}`): write `{key} = {whole}`", field.name, number.name),
            );
            continue;
        }
        if !bound
            .value
            .whole
            .is_some_and(|value| (low..=high).contains(&value))
        {
            fit = false;
            cx.error_at(
                bound.key,
                format!(
                    "`{key} = {bound_text}` is outside what `{}` holds, {low} to {high}",
                    number.name
                ),
            );
        }
    }
    if let (true, Some(min), Some(max)) = (fit, &attrs.min, &attrs.max) {
        let above = match (min.value.whole, max.value.whole) {
            (Some(min), Some(max)) => min > max,
            _ => min.value.value > max.value.value,
        };
        if above {
            cx.error_at(
                max.key,
                format!("`{MAX} = {}` is below `{MIN} = {}`, so no value would do: the smallest allowed value is `{MIN}`, the largest `{MAX}`", max.value.text, min.value.text),
            );
        }
    }
}

/// Keys of one field that cannot go together.
fn check_keys(cx: &Ctxt, field: &Field) {
    let attrs = &field.attrs;
    if attrs.skip.is_some() {
        for (key, span) in field.attrs.given_keys() {
            if key != SKIP {
                cx.error_at(
                    span,
                    format!("`{key}` has no effect with `{SKIP}`: a skipped field is not a section; remove one of them"),
                );
            }
        }
        return;
    }
    if let (Some(_), Some(from_str)) = (attrs.json, attrs.from_str) {
        cx.error_at(
            from_str,
            format!("`{JSON}` and `{FROM_STR}` cannot be used together: keep `{JSON}` to read the section as JSON, or `{FROM_STR}` to read it with FromStr"),
        );
    }
    for (format, span) in [(TABLE, attrs.table), (RECORD, attrs.record)] {
        let Some(span) = span else { continue };
        for (other, given) in [(JSON, attrs.json), (FROM_STR, attrs.from_str)] {
            if given.is_some() {
                cx.error_at(
                    span,
                    format!("`{format}` and `{other}` cannot be used together: `{format}` reads the section itself; keep one of them"),
                );
            }
        }
    }
    if let (Some(_), Some(record)) = (attrs.table, attrs.record) {
        cx.error_at(
            record,
            format!("`{TABLE}` and `{RECORD}` cannot be used together: a table holds many rows (a Vec), a record one value; keep one of them"),
        );
    }
    if let Some(table) = attrs.table {
        if field.row_ty().is_none() {
            cx.error_at(
                table,
                format!("`{TABLE}` needs a field of type Vec<Row>, one Row per table row, where Row: serde::Deserialize; for a single value use `{RECORD}`"),
            );
        }
    }
    let plain = attrs.json.is_none()
        && attrs.from_str.is_none()
        && attrs.table.is_none()
        && attrs.record.is_none();
    if let Some(key) = field.map_key_ty().filter(|key| plain && !is_string(key)) {
        cx.error_spanned_by(
            key,
            "a map section's keys are the labels the model writes: use HashMap<String, V> or BTreeMap<String, V>",
        );
    }
    if let (Some(default), Some(_)) = (attrs.default, field.option) {
        cx.error_at(
            default,
            format!("`{DEFAULT}` has no effect on an Option field: an absent section already gives None; remove `{DEFAULT}`"),
        );
    }
}

/// Every header and alias is well formed and names one section only.
fn check_names(cx: &Ctxt, cont: &Container) {
    // Normalised name → who owns it, for the message.
    let mut seen: HashMap<String, String> = HashMap::new();
    // A flattened type's headers are checked by the compiler, as constants.
    for field in cont.sections().filter(|field| !field.is_flatten()) {
        let header = field.header();
        let header_ok = check_name(cx, &header, "header");
        let mut names = Vec::new();
        let of_field = match &field.way {
            Some(way) => format!("field `{}` of `{way}`", field.name),
            None => format!("field `{}`", field.name),
        };
        if header_ok {
            let owner = format!("the header `{}` of {of_field}", header.shown);
            let what = if header.given {
                format!("the header `{}`", header.shown)
            } else {
                format!("the default header `{}` of {of_field}", header.shown)
            };
            names.push((header, owner, what));
        }
        for alias in field.aliases() {
            if check_name(cx, &alias, "alias") {
                let owner = format!("the alias `{}` of {of_field}", alias.shown);
                let what = format!("the alias `{}`", alias.shown);
                names.push((alias, owner, what));
            }
        }
        for (name, owner, what) in names {
            let key = normalize(&name.name);
            match seen.get(&key) {
                Some(first) => {
                    let fix = if name.given {
                        ""
                    } else {
                        "; give this field another header with #[section(header = \"...\")]"
                    };
                    cx.error_at(
                        name.span,
                        format!("{what} is the same as {first} (headers and aliases are matched ignoring case){fix}"),
                    );
                }
                None => {
                    seen.insert(key, owner);
                }
            }
        }
    }
}

/// A header or alias is one non-empty line without inner brackets.
fn check_name(cx: &Ctxt, name: &Name, what: &str) -> bool {
    let a_what = if what == "alias" {
        "an alias"
    } else {
        "a header"
    };
    if name.name.is_empty() {
        let fix = if what == "alias" {
            "write the other name, such as \"Schedule\", or remove it"
        } else if name.given {
            "write its name, such as \"[Plan]\""
        } else {
            "give the field a header with #[section(header = \"...\")]"
        };
        cx.error_at(name.span, format!("the {what} is empty; {fix}"));
        return false;
    }
    if name.name.contains(['\n', '\r']) {
        cx.error_at(
            name.span,
            format!("{a_what} must be a single line; this one contains a line break"),
        );
        return false;
    }
    // The parser strips these from the reply's header lines (`## Plan`,
    // `**Plan**`, `Plan:`), so a name that keeps them could never match.
    let bare = name
        .name
        .trim_start_matches(['#', '*', '_'])
        .trim_end_matches(['*', '_', ':', '：'])
        .trim();
    if bare != name.name {
        let fix = if bare.is_empty() {
            String::new()
        } else if what == "alias" {
            format!("; write \"{bare}\"")
        } else {
            format!("; write \"[{bare}]\"")
        };
        cx.error_at(
            name.span,
            format!("{a_what} cannot start with `#`, `*` or `_`, or end with `*`, `_` or a colon: replies are read with that markdown removed, so `{}` would never match{fix}", name.name),
        );
        return false;
    }
    if name.name.contains(['[', ']', '【', '】']) {
        cx.error_at(
            name.span,
            format!("{a_what} is one name in one pair of brackets, such as \"[Plan]\"; this one has brackets inside"),
        );
        return false;
    }
    true
}

/// How the parser compares headers: case and runs of white space ignored.
fn normalize(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks a `Choice` enum.
pub(crate) fn check_choice(cx: &Ctxt, input: &Enum) {
    // Variants with data were reported already: an enum with two of them
    // has variants, just not ones a Choice can hold.
    if input.declared == 0 {
        cx.error_spanned_by(
            input.ident,
            "#[derive(Choice)] needs at least one variant: the model picks one of them",
        );
    }
    // Matching ignores case and punctuation, so `High` and `HIGH` would
    // be the same answer.
    let mut seen: HashMap<String, &str> = HashMap::new();
    for variant in &input.variants {
        let key: String = variant
            .name
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        match seen.get(&key) {
            Some(first) => cx.error_spanned_by(
                variant.ident,
                format!(
                    "`{}` reads the same as `{first}` (choices are matched ignoring case and punctuation)",
                    variant.name
                ),
            ),
            None => {
                seen.insert(key, &variant.name);
            }
        }
    }
}
