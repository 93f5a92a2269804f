//! Derived types of every kind, style and shape a grammar describes: the
//! corpus the grammar tests render, sample and send to the engines.

// The corpus types are parsed, never read: their fields exist to be sections.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;

use twr_runtime::grammar::Grammar;
use twr_runtime::{Choice, Feedback, Sections};

#[derive(Debug, PartialEq, Clone, Copy, Choice)]
pub enum Pace {
    Relaxed,
    Packed,
}

/// Scalars and text: whole and decimal numbers, bool, char, a choice, text.
#[derive(Debug, Sections)]
pub struct Scalars {
    pub days: u32,
    pub budget: f64,
    pub refundable: bool,
    pub grade: char,
    pub pace: Pace,
    #[section(header = "[Research Plan]", aliases = ["Plan"])]
    pub plan: String,
}

/// Lists of each element kind, an optional and a defaulted section.
#[derive(Debug, Sections)]
pub struct Lists {
    pub stops: Vec<String>,
    pub counts: Vec<u64>,
    pub prices: Vec<f32>,
    pub flags: Vec<bool>,
    pub paces: Vec<Pace>,
    pub notes: Option<String>,
    pub nights: Option<u32>,
    #[section(default)]
    pub tags: Vec<String>,
}

/// Maps of numbers and choices, and any JSON.
#[derive(Debug, Sections)]
pub struct Maps {
    pub hours: BTreeMap<String, u32>,
    pub moods: HashMap<String, Pace>,
    #[section(json)]
    pub extra: serde_json::Value,
}

#[derive(Debug, serde::Deserialize)]
pub struct Row {
    pub item: String,
    pub qty: u32,
    #[serde(rename = "Unit Price")]
    pub unit_price: f64,
    pub paid: bool,
}

#[derive(Debug, serde::Deserialize)]
pub struct Meta {
    pub number: String,
    pub customer: String,
    pub nights: u32,
}

/// A table of rows and a record, their columns from the row types.
#[derive(Debug, Sections)]
pub struct Invoice {
    #[section(table)]
    pub items: Vec<Row>,
    #[section(record, header = "[Header]")]
    pub meta: Meta,
    pub total: f64,
}

/// A value read through `FromStr`: any text of one line.
#[derive(Debug, PartialEq)]
pub struct Code(pub String);

impl FromStr for Code {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(Code(s.to_owned()))
    }
}

#[derive(Debug, Sections)]
pub struct Custom {
    #[section(from_str)]
    pub code: Code,
    pub summary: String,
}

/// The same sections in the XML style.
#[derive(Debug, Sections)]
#[sections(style = "xml")]
pub struct Tagged {
    #[section(header = "[Research Plan]")]
    pub plan: String,
    pub days: u32,
    pub stops: Vec<String>,
}

/// And in the markdown style, in Chinese.
#[derive(Debug, Sections)]
#[sections(style = "markdown", lang = "zh")]
pub struct Headed {
    #[section(header = "[计划]")]
    pub plan: String,
    pub ok: bool,
    pub note: Option<String>,
}

/// An enum of ways: one alternative per way.
#[derive(Debug, Sections)]
pub enum Step {
    Search { query: String, reason: String },
    Answer(Final),
}

#[derive(Debug, Sections)]
pub struct Final {
    pub answer: String,
    pub confidence: u32,
}

/// Flattened sections and flattened ways.
#[derive(Debug, Sections)]
pub struct Agent {
    pub thought: String,
    #[section(flatten)]
    pub next: Step,
    #[section(flatten)]
    pub extra: Custom,
}

/// Numbers within bounds the grammar says exactly (whole bounds): whole
/// and decimal, negative, one-sided, a list.
#[derive(Debug, Sections)]
pub struct Bounded {
    #[section(min = 0, max = 1)]
    pub confidence: f64,
    #[section(min = -40, max = 255)]
    pub level: i32,
    #[section(min = -3, max = -1)]
    pub drift: f32,
    #[section(max = 12)]
    pub months: Option<u8>,
    #[section(min = 3, max = 1000)]
    pub counts: Vec<u32>,
    /// Signed and open below: a sign is offered.
    #[section(max = 5)]
    pub delta: i64,
    pub offset: i32,
    pub steps: Vec<i32>,
    /// Bounded by their types alone: no `u8` above 255, no `i16` beyond
    /// -32768 and 32767.
    pub score: u8,
    pub tilt: i16,
    pub grades: Vec<u8>,
}

/// `json` sections whose types give their JSON schema (schemars): nested
/// objects, a list, an optional and a defaulted field, a unit enum, a
/// recursive type and a map.
#[derive(Debug, Sections)]
pub struct Order {
    pub customer: String,
    #[section(json)]
    pub cart: Cart,
    #[section(json)]
    pub handling: Option<Handling>,
    #[section(json)]
    pub bundle: Part,
    #[section(json)]
    pub stock: BTreeMap<String, u32>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Cart {
    /// What is bought.
    pub items: Vec<Item>,
    pub express: bool,
    pub coupon: Option<String>,
    #[serde(default)]
    pub gift_wrap: bool,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Item {
    pub sku: String,
    pub quantity: u32,
    pub price: f64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Handling {
    Fragile,
    Urgent,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Part {
    pub name: String,
    pub parts: Vec<Part>,
}

/// Every grammar of the corpus, named: each type's whole grammar, a patch
/// and a focused value.
pub fn grammars() -> Vec<(String, Grammar)> {
    let mut out = vec![
        ("scalars".to_owned(), Grammar::of::<Scalars>()),
        ("lists".to_owned(), Grammar::of::<Lists>()),
        ("maps".to_owned(), Grammar::of::<Maps>()),
        ("custom".to_owned(), Grammar::of::<Custom>()),
        ("invoice".to_owned(), Grammar::of::<Invoice>()),
        ("tagged".to_owned(), Grammar::of::<Tagged>()),
        ("headed".to_owned(), Grammar::of::<Headed>()),
        ("step".to_owned(), Grammar::of::<Step>()),
        ("agent".to_owned(), Grammar::of::<Agent>()),
        ("bounded".to_owned(), Grammar::of::<Bounded>()),
        ("order".to_owned(), Grammar::of::<Order>()),
        (
            "scalars-plain".to_owned(),
            Grammar::of::<Scalars>().reasoning(false),
        ),
        (
            "lists-patch".to_owned(),
            Grammar::of::<Lists>().only(|spec| ["counts", "notes"].contains(&spec.field)),
        ),
        (
            "agent-patch".to_owned(),
            Grammar::of::<Agent>().only(|spec| spec.field == "query"),
        ),
    ];
    for spec in Scalars::specs() {
        let grammar = Grammar::of::<Scalars>().value_of(spec.field).unwrap();
        out.push((format!("scalars-value-{}", spec.field), grammar));
    }
    out
}

/// Whether `reply` parses as the type the corpus grammar `name` is of.
pub fn parses(name: &str, reply: &str) -> Result<(), Feedback> {
    fn ok<T>(result: Result<T, Feedback>) -> Result<(), Feedback> {
        result.map(|_| ())
    }
    match name {
        "scalars" | "scalars-plain" => ok(Scalars::parse_sections(reply)),
        "lists" => ok(Lists::parse_sections(reply)),
        "maps" => ok(Maps::parse_sections(reply)),
        "custom" => ok(Custom::parse_sections(reply)),
        "invoice" => ok(Invoice::parse_sections(reply)),
        "tagged" => ok(Tagged::parse_sections(reply)),
        "headed" => ok(Headed::parse_sections(reply)),
        "step" => ok(Step::parse_sections(reply)),
        "agent" => ok(Agent::parse_sections(reply)),
        "bounded" => ok(Bounded::parse_sections(reply)),
        "order" => ok(Order::parse_sections(reply)),
        other => panic!("no parser for {other}"),
    }
}
