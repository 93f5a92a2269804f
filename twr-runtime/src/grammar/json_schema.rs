//! The sections as a JSON schema in OpenAI's strict mode, and a reply in
//! that shape read back into sections.
//!
//! Strict mode wants the root an object, every property required,
//! `additionalProperties: false` on every object and `anyOf` only below
//! the root. So an `Option` (or a defaulted section) is a nullable type, a
//! enum of ways is one property holding one object per way (`anyOf`),
//! and a kind strict mode cannot say (a map, any JSON, a `from_str` value,
//! a table or record of unknown columns) is a string holding the section's
//! text, read by the same reader as a reply's section. A `json` section
//! whose type gives a schema (the `schemars` feature) is that schema,
//! normalized for strict mode, its definitions under the root's `$defs`
//! (named `{field}.{name}`), unless it holds what strict mode cannot say
//! (a map, any value): then it is text too. A nullable
//! `reasoning` string comes first: the model thinks before it answers.
//!
//! A number's bounds (`#[section(min = 0, max = 1)]`) are said in its
//! `description` ("A single number from 0 to 1."), not as `minimum` and
//! `maximum` (see `value_schema`).
//!
//! The reply is read back by writing each property under its header, so
//! values, feedback and validators work as for any reply.

use serde_json::{json, Map, Value};

use super::{Grammar, Scope};
use crate::feedback::Feedback;
use crate::sections::{Presence, ValueKind, WaysSpec};

/// The property a reasoning block is written in.
pub(crate) const REASONING: &str = "reasoning";

/// The schema of `grammar`.
pub(crate) fn schema(grammar: &Grammar) -> Value {
    let mut properties = Map::new();
    let mut defs = Map::new();
    let reasoning;
    match &grammar.scope {
        Scope::Value(index) => {
            let spec = &grammar.specs[*index];
            properties.insert(
                spec.field.to_owned(),
                value_schema(
                    grammar,
                    *index,
                    spec.presence != Presence::Required,
                    &mut defs,
                ),
            );
            reasoning = false;
        }
        Scope::Reply { only, reasoning: r } => {
            reasoning = *r;
            let range = 0..grammar.specs.len();
            add_range(
                grammar,
                range,
                only.as_deref(),
                &mut Vec::new(),
                &mut properties,
                &mut defs,
            );
        }
    }
    let mut root = Map::new();
    if reasoning {
        root.insert(REASONING.to_owned(), json!({"type": ["string", "null"]}));
    }
    root.extend(properties);
    let mut root = object(root);
    if let (false, Value::Object(map)) = (defs.is_empty(), &mut root) {
        map.insert("$defs".to_owned(), Value::Object(defs));
    }
    root
}

/// A closed object of `properties`, all required.
fn object(properties: Map<String, Value>) -> Value {
    let required: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The property name of an enum's ways: the enum's name in snake case
/// (`Step` gives `step`).
pub(crate) fn ways_key(enum_ways: &WaysSpec) -> String {
    let mut out = String::new();
    for (i, c) in enum_ways.name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The widest enum of ways starting at `index` within `range`, not yet
/// open (as `build.rs` finds them).
fn ways_at(
    grammar: &Grammar,
    index: usize,
    range: &std::ops::Range<usize>,
    open: &[usize],
) -> Option<usize> {
    grammar
        .ways
        .iter()
        .enumerate()
        .filter(|(position, enum_ways)| {
            enum_ways.start == index
                && enum_ways.range().end <= range.end
                && !open.contains(position)
        })
        .max_by_key(|(_, enum_ways)| enum_ways.range().len())
        .map(|(position, _)| position)
}

fn kept(only: Option<&[bool]>, index: usize) -> bool {
    only.is_none_or(|only| only.get(index).copied().unwrap_or(false))
}

/// Adds the properties of the sections at `range`: one per section, one per
/// enum of ways (an object per way, `anyOf`).
fn add_range(
    grammar: &Grammar,
    range: std::ops::Range<usize>,
    only: Option<&[bool]>,
    open: &mut Vec<usize>,
    properties: &mut Map<String, Value>,
    defs: &mut Map<String, Value>,
) {
    let mut index = range.start;
    while index < range.end {
        if let Some(position) = ways_at(grammar, index, &range, open) {
            let enum_ways = &grammar.ways[position];
            open.push(position);
            let mut objects = Vec::new();
            for way in 0..enum_ways.ways.len() {
                let Some(way_range) = enum_ways.way_range(way) else {
                    continue;
                };
                if way_range.is_empty() || !way_range.clone().any(|i| kept(only, i)) {
                    continue;
                }
                let mut inner = Map::new();
                add_range(grammar, way_range, only, open, &mut inner, defs);
                objects.push(object(inner));
            }
            open.pop();
            if !objects.is_empty() {
                let schema = if objects.len() == 1 {
                    objects.pop().unwrap_or(Value::Null)
                } else {
                    json!({ "anyOf": objects })
                };
                properties.insert(ways_key(enum_ways), schema);
            }
            index = enum_ways.range().end;
            continue;
        }
        if kept(only, index) {
            let spec = &grammar.specs[index];
            let nullable = only.is_none() && spec.presence != Presence::Required;
            properties.insert(
                spec.field.to_owned(),
                value_schema(grammar, index, nullable, defs),
            );
        }
        index += 1;
    }
}

/// The schema of the value of the section at `index`.
fn value_schema(
    grammar: &Grammar,
    index: usize,
    nullable: bool,
    defs: &mut Map<String, Value>,
) -> Value {
    let spec = &grammar.specs[index];
    let mut schema = kind_schema(grammar, &spec.kind, index, defs);
    if nullable {
        make_nullable(&mut schema);
    }
    // The bounds of a number are said in its description, not as
    // `minimum`/`maximum`: the schema goes to OpenAI's, Anthropic's and
    // Gemini's structured outputs alike, and not every one of them takes
    // numeric constraints in its strict subset (Anthropic's lists them as
    // unsupported); a value outside gets the parser's feedback, as in a
    // reply of sections.
    let words = crate::phrases::phrases(grammar.lang);
    let bounds = words.guide_bounds(&spec.kind, &spec.bounds);
    let description = match (spec.description.trim(), bounds) {
        ("", None) => None,
        (description, None) => Some(description.to_owned()),
        ("", Some(bounds)) => Some(bounds),
        (description, Some(bounds)) => Some(format!(
            "{}{}{bounds}",
            words.sentence_end(description),
            words.sentence_gap
        )),
    };
    if let Some(description) = description {
        // Strict mode takes nothing beside a `$ref`.
        if schema.get("$ref").is_some() {
            schema = json!({ "anyOf": [schema] });
        }
        if let Value::Object(map) = &mut schema {
            map.insert("description".to_owned(), Value::String(description));
        }
    }
    schema
}

/// Adds `null` to the schema's type (and to its `enum`); a schema of no
/// single type (a type's `$ref` or `anyOf`) becomes a way beside `null`.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    match map.get("type").cloned() {
        Some(Value::String(kind)) => {
            map.insert("type".to_owned(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(_) => {}
        None => *schema = json!({ "anyOf": [schema.take(), {"type": "null"}] }),
    }
}

/// The schema of a value of `kind`, of the section at `index`: the one
/// place the JSON schema decides per kind.
#[deny(clippy::wildcard_enum_match_arm)]
fn kind_schema(
    grammar: &Grammar,
    kind: &ValueKind,
    index: usize,
    defs: &mut Map<String, Value>,
) -> Value {
    match kind {
        ValueKind::Integer => json!({"type": "integer"}),
        ValueKind::Float => json!({"type": "number"}),
        ValueKind::Bool => json!({"type": "boolean"}),
        ValueKind::Choice(variants) => json!({"type": "string", "enum": variants}),
        ValueKind::List(inner) => json!({
            "type": "array",
            "items": kind_schema(grammar, inner, index, defs),
        }),
        ValueKind::Table => match grammar.columns_of(index) {
            Some(columns) => json!({
                "type": "array",
                "items": row_schema(grammar, &columns, index, defs),
            }),
            None => text(),
        },
        ValueKind::Record => match grammar.columns_of(index) {
            Some(columns) => row_schema(grammar, &columns, index, defs),
            None => text(),
        },
        // A type's own shape, when it gives one strict mode can say.
        ValueKind::Json => grammar
            .type_schema(index)
            .zip(grammar.specs.get(index))
            .and_then(|(schema, spec)| schema.embedded(spec.field, defs))
            .unwrap_or_else(text),
        // Text, a character, and what strict mode cannot say: a map, a
        // `from_str` value; the section's text, read as a reply's.
        ValueKind::Text | ValueKind::Char | ValueKind::Custom | ValueKind::Map(_) => text(),
    }
}

fn text() -> Value {
    json!({"type": "string"})
}

/// One object with a property per column.
fn row_schema(
    grammar: &Grammar,
    columns: &super::Columns,
    index: usize,
    defs: &mut Map<String, Value>,
) -> Value {
    let mut properties = Map::new();
    for (name, _, kind) in columns {
        // A column holds no table or record of its own: the columns
        // `index` has are its section's, not the cell's.
        let schema = match kind {
            ValueKind::Table | ValueKind::Record => text(),
            ValueKind::Text
            | ValueKind::Integer
            | ValueKind::Float
            | ValueKind::Bool
            | ValueKind::Char
            | ValueKind::Choice(_)
            | ValueKind::List(_)
            | ValueKind::Json
            | ValueKind::Custom
            | ValueKind::Map(_) => kind_schema(grammar, kind, index, defs),
        };
        properties.insert((*name).to_owned(), schema);
    }
    object(properties)
}

/// A reply in the shape of a grammar's JSON schema, as sections.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonReply {
    /// The `reasoning` property, when the reply has one and it is not null.
    pub reasoning: Option<String>,
    /// Each property that is not null under its section's header, in the
    /// order of the sections: a reply the type's parser reads.
    pub sections: String,
}

/// Reads `raw`, a reply in the shape of `grammar.json_schema()`.
pub(crate) fn read(grammar: &Grammar, raw: &str) -> Result<JsonReply, Feedback> {
    let object: Map<String, Value> = crate::json::extract(raw)?;
    let reasoning = match object.get(REASONING) {
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    };
    let mut out = String::new();
    match &grammar.scope {
        Scope::Value(index) => {
            if let Some(value) = object.get(grammar.specs[*index].field) {
                write_value(grammar, *index, value, &mut out);
            }
        }
        Scope::Reply { only, .. } => {
            let range = 0..grammar.specs.len();
            write_range(
                grammar,
                range,
                only.as_deref(),
                &mut Vec::new(),
                &object,
                &mut out,
            );
        }
    }
    Ok(JsonReply {
        reasoning,
        sections: out,
    })
}

fn write_range(
    grammar: &Grammar,
    range: std::ops::Range<usize>,
    only: Option<&[bool]>,
    open: &mut Vec<usize>,
    object: &Map<String, Value>,
    out: &mut String,
) {
    let mut index = range.start;
    while index < range.end {
        if let Some(position) = ways_at(grammar, index, &range, open) {
            let enum_ways = &grammar.ways[position];
            if let Some(Value::Object(inner)) = object.get(&ways_key(enum_ways)) {
                open.push(position);
                // Every way: the properties present choose it, as headers do.
                for way in 0..enum_ways.ways.len() {
                    if let Some(way_range) = enum_ways.way_range(way) {
                        write_range(grammar, way_range, only, open, inner, out);
                    }
                }
                open.pop();
            }
            index = enum_ways.range().end;
            continue;
        }
        let spec = &grammar.specs[index];
        match object.get(spec.field) {
            // A section the grammar did not ask for is left out, as it is
            // not in the schema.
            _ if !kept(only, index) => {}
            None | Some(Value::Null) => {}
            Some(value) => {
                out.push_str(spec.header);
                out.push('\n');
                write_value(grammar, index, value, out);
                out.push_str("\n\n");
            }
        }
        index += 1;
    }
}

/// The section text of `value` for the section at `index`.
fn write_value(grammar: &Grammar, index: usize, value: &Value, out: &mut String) {
    let kind = &grammar.specs[index].kind;
    // A value of a type's own schema is JSON, read back by its `json` reader.
    if matches!(kind, ValueKind::Json) && grammar.type_schema(index).is_some_and(|s| s.strict()) {
        out.push_str(&value.to_string());
        return;
    }
    // Rows and labels are the kinds' own layouts; every other kind is
    // written by the value's shape.
    #[derive(PartialEq)]
    enum Layout {
        Rows,
        Labels,
        Value,
    }
    let layout = match kind {
        ValueKind::Table => Layout::Rows,
        ValueKind::Record => Layout::Labels,
        ValueKind::Text
        | ValueKind::Integer
        | ValueKind::Float
        | ValueKind::Bool
        | ValueKind::Char
        | ValueKind::Choice(_)
        | ValueKind::List(_)
        | ValueKind::Json
        | ValueKind::Custom
        | ValueKind::Map(_) => Layout::Value,
    };
    match (layout, value) {
        (Layout::Rows, Value::Array(rows)) => table(rows, out),
        (Layout::Labels, Value::Object(fields)) => {
            for (label, value) in fields {
                out.push_str(label);
                out.push_str(": ");
                out.push_str(&scalar(grammar, value).replace('\n', " "));
                out.push('\n');
            }
        }
        (_, Value::Array(items)) => {
            for item in items {
                out.push_str("- ");
                out.push_str(&scalar(grammar, item).replace('\n', " "));
                out.push('\n');
            }
        }
        (_, value) => out.push_str(&scalar(grammar, value)),
    }
}

/// A value as a section writes it: a string as it is, a bool as the
/// language's yes or no, anything else as JSON.
fn scalar(grammar: &Grammar, value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Bool(answer) => {
            let (yes, no) = super::word_rules::bool_words(grammar.lang);
            let words = if *answer { yes } else { no };
            words.into_iter().next().unwrap_or_default()
        }
        Value::Null => String::new(),
        value => value.to_string(),
    }
}

/// Rows of objects as a markdown table, its columns those of the first
/// row.
fn table(rows: &[Value], out: &mut String) {
    let Some(Value::Object(first)) = rows.first() else {
        return;
    };
    let columns: Vec<&String> = first.keys().collect();
    let cell = |value: Option<&Value>| -> String {
        let text = match value {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => String::new(),
            Some(value) => value.to_string(),
        };
        text.replace('|', "/").replace('\n', " ")
    };
    out.push_str("| ");
    out.push_str(
        &columns
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
    );
    out.push_str(" |\n|");
    out.push_str(&vec!["---"; columns.len()].join("|"));
    out.push_str("|\n");
    for row in rows {
        let Value::Object(row) = row else { continue };
        let cells: Vec<String> = columns.iter().map(|c| cell(row.get(*c))).collect();
        out.push_str("| ");
        out.push_str(&cells.join(" | "));
        out.push_str(" |\n");
    }
}
