//! The exact shape of a `#[section(json)]` value, when its type gives a
//! JSON schema (the `schemars` feature: a type implementing
//! `schemars::JsonSchema`), made ready for every rendering.
//!
//! A type's schema says more than an engine takes and less than strict
//! mode wants, so it is normalized once ([`TypeSchema::new`]):
//!
//! - every object is closed (`additionalProperties: false`) with all its
//!   properties required; a property the type may leave out is kept when
//!   it takes `null` (an `Option`), and dropped otherwise (a
//!   `#[serde(default)]` field: serde fills it in, so the model need not
//!   write it, and a grammar cannot make a property optional in every
//!   engine's strict subset);
//! - `oneOf` becomes `anyOf` (serde's enums match one way at most anyway),
//!   `const` a one-value `enum`, an `allOf` of one schema that schema;
//! - what no engine in the list enforces alike is dropped, the parser and
//!   serde judging the value afterwards as they do any reply: titles,
//!   defaults, examples, numeric and length bounds, patterns, and formats
//!   other than those OpenAI's strict mode lists.
//!
//! A map (an object of any keys) or a schema that takes any value is kept
//! for GBNF and Lark, which say them well; strict mode cannot, so the JSON
//! schema rendering then asks for the section's text, as without a type
//! schema ([`TypeSchema::strict`]).
//!
//! Compiled into the grammar's rules ([`compile`]), the shape is written
//! compactly: one optional space after `{`, `[`, `:` and `,`, none inside a
//! string but JSON's escapes. A recursive type is a recursive rule.

use serde_json::{Map, Value};

use super::expr::{Class, Expr, Rules};

/// The formats OpenAI's strict mode accepts on a string; any other is
/// dropped (schemars writes `uint32`, `double`, ... on numbers).
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// A type's JSON schema, normalized (see the module's docs). Kept as its
/// JSON text so that a [`Grammar`](super::Grammar) stays `Eq + Hash`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct TypeSchema {
    /// The normalized schema, its definitions under `$defs`.
    text: String,
    /// Whether OpenAI's strict mode can say it: no map, no schema that
    /// takes any value, no tuple.
    strict: bool,
}

impl TypeSchema {
    /// Normalizes `schema`, a type's JSON schema as schemars writes it
    /// (definitions under `$defs` or `definitions`, referred to as
    /// `#/$defs/Name` or `#/definitions/Name`).
    pub fn new(schema: &Value) -> TypeSchema {
        let mut strict = true;
        let mut root = node(schema, &mut strict);
        let mut defs = Map::new();
        if let Value::Object(source) = schema {
            for key in ["$defs", "definitions"] {
                if let Some(Value::Object(found)) = source.get(key) {
                    for (name, def) in found {
                        defs.insert(name.clone(), node(def, &mut strict));
                    }
                }
            }
        }
        // A recursive type refers to itself as `#`, the root: the root then
        // becomes a definition of its own, named by its title, so that every
        // reference names a definition, whatever schema it is embedded in.
        if refers_to_root(&root) || defs.values().any(refers_to_root) {
            let name = match schema.get("title") {
                Some(Value::String(title)) if !defs.contains_key(title) => title.clone(),
                _ => "Root".to_owned(),
            };
            let target = format!("#/$defs/{name}");
            point_root_refs(&mut root, &target);
            defs.values_mut()
                .for_each(|def| point_root_refs(def, &target));
            defs.insert(name, root);
            root = serde_json::json!({ "$ref": target });
        }
        if !defs.is_empty() {
            if let Value::Object(map) = &mut root {
                map.insert("$defs".to_owned(), Value::Object(defs));
            } else {
                root = serde_json::json!({ "anyOf": [root], "$defs": defs });
            }
        }
        TypeSchema {
            text: root.to_string(),
            strict,
        }
    }

    /// The normalized schema, its definitions under `$defs`.
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Bool(true))
    }

    /// Whether OpenAI's strict mode can say it.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// The schema for embedding at a property of a larger schema whose
    /// definitions are `defs`: its own definitions move there, renamed
    /// `{prefix}.{name}`, and its references with them. `None` when strict
    /// mode cannot say it.
    pub fn embedded(&self, prefix: &str, defs: &mut Map<String, Value>) -> Option<Value> {
        if !self.strict {
            return None;
        }
        let mut value = self.value();
        if let Value::Object(map) = &mut value {
            if let Some(Value::Object(own)) = map.remove("$defs") {
                for (name, mut def) in own {
                    rename_refs(&mut def, prefix);
                    drop_bounds(&mut def);
                    defs.insert(format!("{prefix}.{name}"), def);
                }
            }
        }
        rename_refs(&mut value, prefix);
        drop_bounds(&mut value);
        Some(value)
    }
}

/// Removes the integer ranges kept for the grammar: not every provider's
/// strict subset takes `minimum` and `maximum` (Anthropic's lists them as
/// unsupported), and serde refuses a value outside the type's range
/// anyway, with feedback.
fn drop_bounds(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("type").is_some_and(|kind| {
                kind == "integer"
                    || kind
                        .as_array()
                        .is_some_and(|k| k.contains(&Value::from("integer")))
            }) {
                map.remove("minimum");
                map.remove("maximum");
            }
            map.values_mut().for_each(drop_bounds);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_bounds),
        _ => {}
    }
}

/// Rewrites every `#/$defs/Name` reference in `value` to
/// `#/$defs/{prefix}.Name`.
fn rename_refs(value: &mut Value, prefix: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = def_name(target) {
                            *target = format!("#/$defs/{prefix}.{name}");
                        }
                    }
                    (_, inner) => rename_refs(inner, prefix),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rename_refs(item, prefix)),
        _ => {}
    }
}

/// Whether a normalized node refers to the root (`"$ref": "#"`).
fn refers_to_root(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            map.get("$ref").is_some_and(|target| target == "#") || map.values().any(refers_to_root)
        }
        Value::Array(items) => items.iter().any(refers_to_root),
        _ => false,
    }
}

/// Points every reference to the root at `target` instead.
fn point_root_refs(value: &mut Value, target: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(reference)) if reference == "#" => {
                        *reference = target.to_owned();
                    }
                    (_, inner) => point_root_refs(inner, target),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| point_root_refs(item, target)),
        _ => {}
    }
}

/// The definition a reference names: `Item` for `#/$defs/Item` or
/// `#/definitions/Item`.
fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

/// One normalized schema node; `strict` is cleared by what strict mode
/// cannot say.
fn node(schema: &Value, strict: &mut bool) -> Value {
    let Value::Object(source) = schema else {
        // `true` (any value), or `false` (none: no type has it; read as any).
        *strict = false;
        return Value::Bool(true);
    };
    let mut out = Map::new();
    if let Some(description) = source.get("description").filter(|d| d.is_string()) {
        out.insert("description".to_owned(), description.clone());
    }
    if let Some(Value::String(target)) = source.get("$ref") {
        if target == "#" {
            return serde_json::json!({ "$ref": "#" });
        }
        if let Some(name) = def_name(target) {
            out.insert("$ref".to_owned(), Value::String(format!("#/$defs/{name}")));
            // Strict mode takes no sibling beside `$ref`.
            out.remove("description");
            return Value::Object(out);
        }
        *strict = false;
        return Value::Bool(true);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(ways)) = source.get(key) {
            let ways: Vec<Value> = ways.iter().map(|way| node(way, strict)).collect();
            out.insert("anyOf".to_owned(), Value::Array(ways));
            return Value::Object(out);
        }
    }
    if let Some(Value::Array(all)) = source.get("allOf") {
        if let [only] = all.as_slice() {
            return node(only, strict);
        }
        *strict = false;
        return Value::Bool(true);
    }
    let values = match (source.get("enum"), source.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (_, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    };
    let types: Vec<&str> = match source.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if let Some(values) = values {
        if !types.is_empty() {
            out.insert("type".to_owned(), source["type"].clone());
        }
        out.insert("enum".to_owned(), Value::Array(values));
        return Value::Object(out);
    }
    if types.is_empty() {
        // No type, no way, no value: any value.
        *strict = false;
        return Value::Bool(true);
    }
    out.insert("type".to_owned(), source["type"].clone());
    if types.contains(&"object") {
        object(source, &mut out, strict);
    }
    if types.contains(&"array") {
        match (source.get("items"), source.get("prefixItems")) {
            (_, Some(Value::Array(tuple))) => {
                // A tuple: strict mode has no `prefixItems`.
                *strict = false;
                let tuple: Vec<Value> = tuple.iter().map(|item| node(item, strict)).collect();
                out.insert("prefixItems".to_owned(), Value::Array(tuple));
                out.insert("items".to_owned(), Value::Bool(false));
            }
            (Some(items), _) => {
                out.insert("items".to_owned(), node(items, strict));
            }
            (None, _) => {
                *strict = false;
                out.insert("items".to_owned(), Value::Bool(true));
            }
        }
    }
    if types.contains(&"integer") {
        // An integer type's range (schemars gives `u8` 0 to 255, `u32` a
        // minimum of 0): the grammar keeps to it, so a model writes no
        // `-3` for a `u32`; strict mode is not told (see `embedded`).
        for key in ["minimum", "maximum"] {
            if let Some(bound) = source.get(key).filter(|bound| bound.is_number()) {
                out.insert(key.to_owned(), bound.clone());
            }
        }
    }
    if types.contains(&"string") {
        if let Some(Value::String(format)) = source.get("format") {
            if FORMATS.contains(&format.as_str()) {
                out.insert("format".to_owned(), Value::String(format.clone()));
            }
        }
    }
    Value::Object(out)
}

/// The properties of an object node: closed, every property required (one
/// that may be left out kept only when it takes `null`); or a map, when
/// the object names no property but takes any.
fn object(source: &Map<String, Value>, out: &mut Map<String, Value>, strict: &mut bool) {
    let required: Vec<&str> = match source.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let properties = match source.get("properties") {
        Some(Value::Object(properties)) => properties.clone(),
        _ => Map::new(),
    };
    let extra = source.get("additionalProperties");
    let is_map = properties.is_empty() && !matches!(extra, Some(Value::Bool(false)));
    if is_map {
        *strict = false;
        let values = match extra {
            Some(schema @ Value::Object(_)) => node(schema, strict),
            _ => Value::Bool(true),
        };
        out.insert("additionalProperties".to_owned(), values);
        return;
    }
    let mut kept = Map::new();
    for (name, schema) in &properties {
        let schema = node(schema, strict);
        if required.contains(&name.as_str()) || takes_null(&schema) {
            kept.insert(name.clone(), schema);
        }
    }
    let names: Vec<Value> = kept.keys().cloned().map(Value::String).collect();
    out.insert("properties".to_owned(), Value::Object(kept));
    out.insert("required".to_owned(), Value::Array(names));
    out.insert("additionalProperties".to_owned(), Value::Bool(false));
}

/// Whether a normalized node takes `null`.
fn takes_null(schema: &Value) -> bool {
    match schema {
        Value::Bool(any) => *any,
        Value::Object(map) => {
            let typed = match map.get("type") {
                Some(Value::String(kind)) => kind == "null",
                Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "null"),
                _ => false,
            };
            let listed = matches!(map.get("enum"), Some(Value::Array(values)) if values.contains(&Value::Null));
            let way =
                matches!(map.get("anyOf"), Some(Value::Array(ways)) if ways.iter().any(takes_null));
            typed || listed || way
        }
        _ => false,
    }
}

/// The rules of a value of `schema`, its definitions named
/// `{prefix}-{n}` (one rule each, so a recursive type is a recursive rule).
pub(crate) fn compile(schema: &TypeSchema, prefix: &str, rules: &mut Rules) -> Expr {
    let root = schema.value();
    let defs = match &root {
        Value::Object(map) => match map.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => Map::new(),
        },
        _ => Map::new(),
    };
    let mut compiler = Compiler {
        prefix,
        defs: &defs,
        rules,
    };
    compiler.value(&root)
}

struct Compiler<'a> {
    prefix: &'a str,
    defs: &'a Map<String, Value>,
    rules: &'a mut Rules,
}

impl Compiler<'_> {
    fn value(&mut self, schema: &Value) -> Expr {
        let Value::Object(map) = schema else {
            return Expr::Json;
        };
        if let Some(Value::String(target)) = map.get("$ref") {
            return self.reference(target);
        }
        if let Some(Value::Array(ways)) = map.get("anyOf") {
            let ways = ways.iter().map(|way| self.value(way)).collect();
            return Expr::alt(ways);
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let values = values
                .iter()
                .map(|value| Expr::lit(value.to_string()))
                .collect();
            return Expr::alt(values);
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(kind)) => vec![kind.as_str()],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            _ => return Expr::Json,
        };
        let ways = types
            .into_iter()
            .map(|kind| match kind {
                "object" => self.object(map),
                "array" => self.array(map),
                "string" => self.string(),
                "integer" => self.integer(map),
                "number" => self.number(),
                "boolean" => Expr::alt(vec![Expr::lit("true"), Expr::lit("false")]),
                "null" => Expr::lit("null"),
                _ => Expr::Json,
            })
            .collect();
        Expr::alt(ways)
    }

    /// The rule of a definition, compiled once.
    fn reference(&mut self, target: &str) -> Expr {
        let Some((position, def)) = def_name(target).and_then(|name| {
            let position = self.defs.keys().position(|key| key == name)?;
            Some((position, self.defs.get(name)?))
        }) else {
            return Expr::Json;
        };
        let rule = format!("{}-{position}", self.prefix);
        if self.rules.get(&rule).is_none() {
            // Named before its body is compiled, so a reference to itself
            // inside the body is the rule again, not a loop here.
            self.rules.add(&rule, Expr::lit(""), false);
            let body = self.value(def);
            self.rules.replace(&rule, body);
        }
        Expr::rule(rule)
    }

    fn object(&mut self, map: &Map<String, Value>) -> Expr {
        let open = Expr::seq(vec![Expr::lit("{"), space()]);
        let close = Expr::seq(vec![space(), Expr::lit("}")]);
        match map.get("properties") {
            Some(Value::Object(properties)) => {
                let mut items = vec![open];
                for (number, (name, schema)) in properties.iter().enumerate() {
                    if number > 0 {
                        items.push(Expr::lit(","));
                        items.push(space());
                    }
                    items.push(Expr::lit(Value::String(name.clone()).to_string()));
                    items.push(Expr::lit(":"));
                    items.push(space());
                    items.push(self.value(schema));
                }
                items.push(close);
                Expr::seq(items)
            }
            _ => {
                let values = map
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(Value::Bool(true));
                let entry = Expr::seq(vec![
                    self.string(),
                    Expr::lit(":"),
                    space(),
                    self.value(&values),
                ]);
                let more = Expr::seq(vec![Expr::lit(","), space(), entry.clone()]).repeat(0, None);
                Expr::seq(vec![open, Expr::seq(vec![entry, more]).optional(), close])
            }
        }
    }

    fn array(&mut self, map: &Map<String, Value>) -> Expr {
        let open = Expr::seq(vec![Expr::lit("["), space()]);
        let close = Expr::seq(vec![space(), Expr::lit("]")]);
        if let Some(Value::Array(tuple)) = map.get("prefixItems") {
            let mut items = vec![open];
            for (number, schema) in tuple.iter().enumerate() {
                if number > 0 {
                    items.push(Expr::lit(","));
                    items.push(space());
                }
                items.push(self.value(schema));
            }
            items.push(close);
            return Expr::seq(items);
        }
        let item = self.value(map.get("items").unwrap_or(&Value::Bool(true)));
        let more = Expr::seq(vec![Expr::lit(","), space(), item.clone()]).repeat(0, None);
        Expr::seq(vec![open, Expr::seq(vec![item, more]).optional(), close])
    }

    /// A JSON string: any character but `"`, `\` and controls, or an
    /// escape.
    fn string(&mut self) -> Expr {
        let plain = Class::not(['"', '\\', '\u{7f}']).with_range('\u{0}', '\u{1f}');
        let hex = Expr::Class(
            Class::of([])
                .with_range('0', '9')
                .with_range('a', 'f')
                .with_range('A', 'F'),
        );
        // `\u` escapes of UTF-16 surrogates (D800 to DFFF) are left out:
        // alone they are no character (serde refuses them), and in pairs a
        // model can as well write the character itself.
        let not_d = Class::of([])
            .with_range('0', '9')
            .with_range('a', 'c')
            .with_range('A', 'C')
            .with_range('e', 'f')
            .with_range('E', 'F');
        let unicode = Expr::alt(vec![
            Expr::seq(vec![Expr::Class(not_d), hex.clone().repeat(3, Some(3))]),
            Expr::seq(vec![
                Expr::Class(Class::of(['d', 'D'])),
                Expr::Class(Class::of([]).with_range('0', '7')),
                hex.repeat(2, Some(2)),
            ]),
        ]);
        let escape = Expr::seq(vec![
            Expr::lit("\\"),
            Expr::alt(vec![
                Expr::Class(Class::of(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'])),
                Expr::seq(vec![Expr::lit("u"), unicode]),
            ]),
        ]);
        let body = Expr::alt(vec![Expr::Class(plain), escape]).repeat(0, None);
        let expr = Expr::seq(vec![Expr::lit("\""), body, Expr::lit("\"")]);
        self.rules.add("typed-string", expr, true)
    }

    /// A JSON whole number within the type's range, nine digits at most
    /// (as a section's number), never `-0` (serde reads it as a decimal).
    fn integer(&mut self, map: &Map<String, Value>) -> Expr {
        let bound = |key: &str, open: i128| {
            map.get(key)
                .and_then(Value::as_f64)
                .map_or(open, |bound| bound as i128)
        };
        let (low, high) = (bound("minimum", i128::MIN), bound("maximum", i128::MAX));
        let Some(expr) = super::numbers::integer_range(low, high) else {
            return Expr::Json;
        };
        // A rule name per range (`m` for minus: GBNF names take no sign).
        let side = |n: i128| match n {
            i128::MIN | i128::MAX => "any".to_owned(),
            n if n < 0 => format!("m{}", n.unsigned_abs()),
            n => n.to_string(),
        };
        let name = format!("typed-integer-{}-to-{}", side(low), side(high));
        self.rules.add(&name, expr, true)
    }

    /// A JSON number: a sign, a whole part, a fraction, an exponent.
    fn number(&mut self) -> Expr {
        let digits = Expr::Class(Class::of([]).with_range('0', '9'));
        let expr = Expr::seq(vec![
            Expr::lit("-").optional(),
            whole(),
            Expr::seq(vec![Expr::lit("."), digits.clone().repeat(1, Some(17))]).optional(),
            // Two digits of exponent: every `f64` up to 1e99, none out of
            // range.
            Expr::seq(vec![
                Expr::Class(Class::of(['e', 'E'])),
                Expr::Class(Class::of(['-', '+'])).optional(),
                digits.repeat(1, Some(2)),
            ])
            .optional(),
        ]);
        self.rules.add("typed-number", expr, true)
    }
}

/// `0`, or a digit from 1 to 9 and up to 18 more: every `u64` and `i64`.
fn whole() -> Expr {
    Expr::alt(vec![
        Expr::lit("0"),
        Expr::seq(vec![
            Expr::Class(Class::of([]).with_range('1', '9')),
            Expr::Class(Class::of([]).with_range('0', '9')).repeat(0, Some(19)),
        ]),
    ])
}

/// One optional space, where JSON allows white space.
fn space() -> Expr {
    Expr::lit(" ").optional()
}
