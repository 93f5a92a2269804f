//! The JSON-schema rendering: replies in the schema's shape, drawn from the
//! schema itself, are read back into sections that parse into the type.

use serde_json::{json, Map, Value};

use super::corpus;

/// Replies drawn per grammar.
pub const SAMPLES: u64 = 200;

/// Text a string property may hold, by property: what its section reads.
fn string_for(property: &str, rng: &mut fastrand::Rng) -> Value {
    let text = match property {
        "extra" => [
            "{\"a\": 1}",
            "[1, 2]",
            "\"x\"",
            "null",
            "{\"k\": {\"n\": [true]}}",
        ][rng.usize(..5)],
        "hours" => ["Kyoto: 3", "Kyoto: 3\nNara: 12"][rng.usize(..2)],
        "stock" => ["{\"tea\": 3}", "{}", "{\"a\": 1, \"b\": 20}"][rng.usize(..3)],
        "moods" => ["Kyoto: Relaxed", "Kyoto: packed\nNara: Relaxed"][rng.usize(..2)],
        "grade" => ["B", "字", "'x'"][rng.usize(..3)],
        "reasoning" => ["Let me think.", "Step 1: read.\nStep 2: answer."][rng.usize(..2)],
        _ => [
            "Kyoto",
            "Go east, then north.",
            "Day 1: Gion\nDay 2: Nara",
            "计划很好",
            "a | b",
            "Plans: many",
        ][rng.usize(..6)],
    };
    Value::String(text.to_owned())
}

/// A random instance of `schema`, for the property `property`.
pub fn instance(schema: &Value, property: &str, rng: &mut fastrand::Rng) -> Value {
    Instances { root: schema, rng }.of(schema, property, 0)
}

/// Draws instances of the schema `root`, whose definitions its references
/// name.
struct Instances<'a> {
    root: &'a Value,
    rng: &'a mut fastrand::Rng,
}

impl Instances<'_> {
    fn of(&mut self, schema: &Value, property: &str, depth: u32) -> Value {
        let rng = &mut *self.rng;
        if let Some(Value::String(target)) = schema.get("$ref") {
            let name = target
                .strip_prefix("#/$defs/")
                .expect("a reference to a definition");
            let def = self.root["$defs"][name].clone();
            return self.of(&def, property, depth + 1);
        }
        if let Some(Value::Array(ways)) = schema.get("anyOf") {
            let way = &ways[rng.usize(..ways.len())];
            return self.of(way, property, depth);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return values[rng.usize(..values.len())].clone();
        }
        let kind = match schema.get("type") {
            Some(Value::Array(kinds)) => kinds[rng.usize(..kinds.len())].clone(),
            Some(kind) => kind.clone(),
            None => Value::Null,
        };
        match kind.as_str() {
            Some("object") => {
                let mut out = Map::new();
                if let Some(Value::Object(properties)) = schema.get("properties") {
                    for (key, value) in properties {
                        let value = self.of(value, key, depth + 1);
                        out.insert(key.clone(), value);
                    }
                }
                Value::Object(out)
            }
            Some("array") => {
                let items = &schema["items"];
                // A recursive type's lists end a few levels down.
                let n = if depth > 4 { 0 } else { rng.usize(1..5) };
                Value::Array(
                    (0..n)
                        .map(|_| self.of(items, property, depth + 1))
                        .collect(),
                )
            }
            Some("integer") => json!(rng.u32(..100_000)),
            Some("number") => json!(f64::from(rng.i32(-9999..9999)) / 8.0),
            Some("boolean") => json!(rng.bool()),
            Some("string") => string_for(property, rng),
            _ => Value::Null,
        }
    }
}

#[test]
fn replies_in_the_schemas_shape_parse_into_their_types() {
    let mut checked = 0;
    for (name, grammar) in corpus::grammars() {
        // The schema says a number's bounds in words only (its values
        // here are drawn without them); bounded numbers are the grammar's.
        if name.contains("-value-") || name.contains("-patch") || name == "bounded" {
            continue;
        }
        let schema = grammar.json_schema();
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..SAMPLES {
            let reply = instance(&schema, "", &mut rng);
            let raw = reply.to_string();
            let read = grammar.read_json(&raw).unwrap();
            if let Err(feedback) = corpus::parses(&name, &read.sections) {
                panic!("{name}: {raw}\n---\n{}\n---\n{feedback}", read.sections);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 11 * SAMPLES);
}

#[test]
fn the_schema_of_a_struct_and_of_ways() {
    let schema = twr_runtime::grammar::Grammar::of::<corpus::Step>().json_schema();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "reasoning": {"type": ["string", "null"]},
                "step": {"anyOf": [
                    {
                        "type": "object",
                        "properties": {"query": {"type": "string"}, "reason": {"type": "string"}},
                        "required": ["query", "reason"],
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": {"answer": {"type": "string"}, "confidence": {"type": "integer"}},
                        "required": ["answer", "confidence"],
                        "additionalProperties": false,
                    },
                ]},
            },
            "required": ["reasoning", "step"],
            "additionalProperties": false,
        })
    );
    // Reasoning first: models write the properties in the schema's order.
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["reasoning", "step"]);

    let lists = twr_runtime::grammar::Grammar::of::<corpus::Lists>().json_schema();
    assert_eq!(
        lists["properties"]["counts"],
        json!({"type": "array", "items": {"type": "integer"}})
    );
    assert_eq!(
        lists["properties"]["paces"],
        json!({"type": "array", "items": {"type": "string", "enum": ["Relaxed", "Packed"]}})
    );
    assert_eq!(
        lists["properties"]["nights"],
        json!({"type": ["integer", "null"]})
    );
    assert_eq!(
        lists["properties"]["tags"],
        json!({"type": ["array", "null"], "items": {"type": "string"}})
    );
}

#[test]
fn a_reply_that_is_no_json_object_gets_feedback() {
    let grammar = twr_runtime::grammar::Grammar::of::<corpus::Scalars>();
    let feedback = grammar
        .read_json("Sure! The trip takes three days.")
        .unwrap_err();
    assert!(!feedback.to_string().is_empty());
    assert!(grammar.read_json("[1, 2]").is_err());
}

/// A table of one's own: the words a constrained reply may answer with are
/// the ones its parser reads.
static FRENCH_WORDS: twr_runtime::phrases::Phrases = twr_runtime::phrases::Phrases {
    yes_words: &["oui", "vrai"],
    no_words: &["non", "faux"],
    none_words: &["aucun"],
    ..twr_runtime::phrases::Phrases::ENGLISH
};

#[derive(Debug, PartialEq, twr_runtime::Sections)]
#[sections(phrases = FRENCH_WORDS)]
struct Avis {
    /// Recommandé ?
    recommande: bool,
    /// Une remarque.
    remarque: Option<String>,
}

#[test]
fn the_grammar_offers_the_words_of_the_types_phrase_table() {
    let gbnf = twr_runtime::grammar::Grammar::of::<Avis>().gbnf();
    for word in ["\"oui\"", "\"Vrai\"", "\"NON\"", "\"faux\"", "\"aucun\""] {
        assert!(gbnf.contains(word), "{word} missing from\n{gbnf}");
    }
    assert!(!gbnf.contains("\"yes\""), "{gbnf}");
    for seed in 0..200 {
        let reply = twr_runtime::grammar::Grammar::of::<Avis>().sample(seed);
        assert!(
            <Avis as twr_runtime::Sections>::parse_sections(&reply).is_ok(),
            "{reply}"
        );
    }
}

#[test]
fn english_runs_are_offered_english_words_in_any_case() {
    let gbnf = twr_runtime::grammar::Grammar::of::<corpus::Scalars>().gbnf();
    for word in ["\"yes\"", "\"Yes\"", "\"TRUE\"", "\"no\""] {
        assert!(gbnf.contains(word), "{word} missing from\n{gbnf}");
    }
    assert!(!gbnf.contains("是"), "{gbnf}");
}

#[test]
fn a_bounded_number_says_its_bounds_in_its_description() {
    let schema = twr_runtime::grammar::Grammar::of::<corpus::Bounded>().json_schema();
    let properties = &schema["properties"];
    assert_eq!(
        properties["confidence"],
        serde_json::json!({"type": "number", "description": "A single number from 0 to 1."})
    );
    assert_eq!(
        properties["counts"]["description"],
        "Each item is a single whole number from 3 to 1000."
    );
    assert_eq!(
        properties["months"]["description"],
        "A single whole number of at most 12."
    );
}

/// A `json` section of a type that gives no schema: any JSON, as before.
#[allow(dead_code)]
#[derive(Debug, twr_runtime::Sections)]
struct Untyped {
    #[section(json)]
    payload: Payload,
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize)]
struct Payload {
    id: u32,
}

#[test]
fn a_json_section_is_written_to_its_types_schema() {
    let grammar = twr_runtime::grammar::Grammar::of::<corpus::Order>();
    let schema = grammar.json_schema();
    let item = json!({
        "type": "object",
        "properties": {
            "sku": {"type": "string"},
            "quantity": {"type": "integer"},
            "price": {"type": "number"},
        },
        "required": ["sku", "quantity", "price"],
        "additionalProperties": false,
    });
    assert_eq!(
        schema["properties"]["cart"],
        json!({
            "type": "object",
            "properties": {
                "items": {
                    "description": "What is bought.",
                    "type": "array",
                    "items": {"$ref": "#/$defs/cart.Item"},
                },
                "express": {"type": "boolean"},
                "coupon": {"type": ["string", "null"]},
            },
            // `gift_wrap` is `#[serde(default)]`: left to serde.
            "required": ["items", "express", "coupon"],
            "additionalProperties": false,
        })
    );
    assert_eq!(schema["$defs"]["cart.Item"], item);
    assert_eq!(
        schema["properties"]["handling"],
        json!({"type": ["string", "null"], "enum": ["fragile", "urgent", null]})
    );
    // A recursive type: a definition that refers to itself.
    assert_eq!(
        schema["properties"]["bundle"],
        json!({"$ref": "#/$defs/bundle.Part"})
    );
    assert_eq!(
        schema["$defs"]["bundle.Part"]["properties"]["parts"],
        json!({"type": "array", "items": {"$ref": "#/$defs/bundle.Part"}})
    );
    // A map is more than strict mode says: the section's text.
    assert_eq!(schema["properties"]["stock"], json!({"type": "string"}));

    let gbnf = grammar.gbnf();
    assert!(
        gbnf.contains(
            "json-1-def-0 ::= \"{\" \" \"? \"\\\"sku\\\":\" \" \"? typed-string \",\" \" \"? \
             \"\\\"quantity\\\":\" \" \"? typed-integer-0-to-any \",\" \" \"? \"\\\"price\\\":\" \" \"? \
             typed-number \" \"? \"}\"\n"
        ),
        "{gbnf}"
    );
    assert!(
        gbnf.contains("json-4 ::= \"{\" \" \"? ( typed-string \":\" \" \"? typed-integer-0-to-any"),
        "{gbnf}"
    );
    assert!(!gbnf.contains("json-value"), "{gbnf}");

    let untyped = twr_runtime::grammar::Grammar::of::<Untyped>();
    assert_eq!(
        untyped.json_schema()["properties"]["payload"],
        json!({"type": "string"})
    );
    assert!(untyped
        .gbnf()
        .contains("json ::= json-value \"\\n\" \"\\n\"?\n"));
}

#[test]
fn a_reply_in_a_types_schema_is_read_back_into_the_type() {
    use twr_runtime::Sections as _;
    let grammar = twr_runtime::grammar::Grammar::of::<corpus::Order>();
    let raw = json!({
        "reasoning": null,
        "customer": "Ada",
        "cart": {
            "items": [{"sku": "TEA-1", "quantity": 2, "price": 4.5}],
            "express": true,
            "coupon": null,
        },
        "handling": "fragile",
        "bundle": {"name": "kit", "parts": [{"name": "lid", "parts": []}]},
        "stock": "{\"tea\": 3}",
    })
    .to_string();
    let read = grammar.read_json(&raw).unwrap();
    let order = corpus::Order::parse_sections(&read.sections).unwrap();
    assert_eq!(order.customer, "Ada");
    assert_eq!(order.cart.items.len(), 1);
    assert_eq!(order.cart.items[0].sku, "TEA-1");
    assert_eq!(order.cart.items[0].quantity, 2);
    assert_eq!(order.cart.items[0].price, 4.5);
    assert!(order.cart.express);
    assert_eq!(order.cart.coupon, None);
    assert!(!order.cart.gift_wrap);
    assert!(matches!(order.handling, Some(corpus::Handling::Fragile)));
    assert_eq!(order.bundle.parts[0].name, "lid");
    assert_eq!(order.stock.get("tea"), Some(&3));
}
