//! The sections as a grammar a server enforces while the model writes.
//!
//! [`Grammar::of`] builds, from the specs `#[derive(Sections)]` generates,
//! one description of a reply: an optional free reasoning block, then every
//! section in order (one way of each enum of ways), each value constrained
//! to what the parser reads. It renders as llama.cpp's GBNF
//! ([`Grammar::gbnf`]) and llguidance's Lark ([`Grammar::lark`]); every
//! string of either language parses into the type.
//!
//! ```
//! use twr_runtime::grammar::Grammar;
//! use twr_runtime::Sections;
//!
//! #[derive(Debug, Sections)]
//! struct Trip {
//!     days: u32,
//!     plan: Vec<String>,
//! }
//!
//! let gbnf = Grammar::of::<Trip>().gbnf();
//! assert!(gbnf.starts_with("root ::= reasoning? section-0 section-1\n"));
//! assert!(gbnf.contains("section-0 ::= \"[Days]\\n\" integer\n"));
//! ```
//!
//! What a grammar keeps out, so that the parser reads exactly the sections
//! it describes: a line of text or reasoning never starts the way a header
//! does (see `lines.rs`: no `[`, `#`, `*`, `_` or `<` first, no list number
//! before a name, no section's name followed by a colon or the line's
//! end; so no bracketed name of no section either, which would end the
//! section), and content never holds `<` (a tag or a `<think>` block). A
//! JSON value's lines may start with `[` (`[true]`): the parser ends no
//! JSON section at a bracketed line unless it names a section. Free
//! values are bounded in length, so a constrained reply always reaches its
//! last section ([`Limits`]).

mod build;
mod expr;
mod fit;
mod gbnf;
mod json_schema;
mod lark;
mod lines;
mod numbers;
mod sample;
mod type_schema;
mod word_rules;

pub use json_schema::JsonReply;

use crate::feedback::Feedback;
use crate::sections::{Lang, SectionSpec, Sections, Style, ValueKind, WaysSpec};

/// How a server takes a grammar: which rendering, in which field of the
/// request. A client sends a grammar only when told its server's dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// llama.cpp's server and llama-cpp-python: GBNF in `grammar`.
    LlamaCpp,
    /// vLLM (0.12 and later): GBNF in `structured_outputs.grammar`.
    Vllm,
    /// SGLang: GBNF in `ebnf`.
    Sglang,
    /// mistral.rs: Lark in `grammar: {"type": "lark", "value": ...}`.
    MistralRs,
    /// OpenAI-style structured outputs: the JSON schema in
    /// `response_format: {"type": "json_schema", "json_schema": {..,
    /// "strict": true, "schema": ...}}` (and the structured outputs of
    /// Anthropic and Gemini).
    JsonSchema,
}

/// The `name` of the JSON schema twr sends as OpenAI's structured outputs
/// (OpenAI requires one, of `[a-zA-Z0-9_-]{1,64}`).
pub(crate) const SCHEMA_NAME: &str = "twr_sections";

impl Dialect {
    /// The fields of an OpenAI-compatible chat request that carry `grammar`
    /// in this dialect, as a JSON object to merge into the request's body,
    /// and the name of the field (`"grammar"`, `"response_format"`), for an
    /// error when the server refuses it. What
    /// [`OpenAiCompatible`](crate::OpenAiCompatible) sends; an adapter over
    /// another client that can send extra body fields sends the same.
    ///
    /// ```
    /// use twr_runtime::grammar::{Dialect, Grammar};
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Sections)]
    /// struct Trip { days: u32 }
    ///
    /// let grammar = Grammar::of::<Trip>();
    /// let (field, fields) = Dialect::LlamaCpp.request_fields(&grammar);
    /// assert_eq!(field, "grammar");
    /// assert_eq!(fields["grammar"], grammar.gbnf());
    /// ```
    pub fn request_fields(self, grammar: &Grammar) -> (&'static str, serde_json::Value) {
        use serde_json::json;
        match self {
            Dialect::LlamaCpp => ("grammar", json!({"grammar": grammar.gbnf()})),
            Dialect::Vllm => (
                "structured_outputs.grammar",
                json!({"structured_outputs": {"grammar": grammar.gbnf()}}),
            ),
            Dialect::Sglang => ("ebnf", json!({"ebnf": grammar.gbnf()})),
            Dialect::MistralRs => (
                "grammar",
                json!({"grammar": {"type": "lark", "value": grammar.lark()}}),
            ),
            Dialect::JsonSchema => (
                "response_format",
                json!({"response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": SCHEMA_NAME,
                        "strict": true,
                        "schema": grammar.json_schema(),
                    },
                }}),
            ),
        }
    }

    /// The rendering this dialect's servers read.
    pub fn format(self) -> Format {
        match self {
            Dialect::LlamaCpp | Dialect::Vllm | Dialect::Sglang => Format::Gbnf,
            Dialect::MistralRs => Format::Lark,
            Dialect::JsonSchema => Format::JsonSchema,
        }
    }
}

/// A rendering of a [`Grammar`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// llama.cpp's GBNF ([`Grammar::gbnf`]).
    Gbnf,
    /// llguidance's Lark ([`Grammar::lark`]).
    Lark,
    /// A JSON schema in OpenAI's strict mode ([`Grammar::json_schema`]).
    JsonSchema,
}

/// A grammar rendered for one [`Format`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Rendering {
    /// GBNF text.
    Gbnf(String),
    /// Lark text.
    Lark(String),
    /// A JSON schema.
    JsonSchema(serde_json::Value),
}

/// The columns of a table or record section: each field's name, its name
/// as the guide writes it, and the kind of its cells.
pub(crate) type Columns = Vec<(&'static str, String, ValueKind)>;

/// How long free values may grow in a constrained reply, in characters
/// (a line break and the start of the next line count as one), and how many
/// items a list or map and rows a table may hold.
///
/// Each is one bound on one loop: engines slow down on bounds nested in
/// bounds, and a loop without bound lets a model write until the token
/// limit instead of reaching the next section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// The reasoning block before the first header.
    pub reasoning: u32,
    /// A text section (and a table or record whose columns are unknown).
    pub text: u32,
    /// A list of text, all its items together.
    pub list: u32,
    /// The items of a list of numbers, words or choices; the entries of a
    /// map.
    pub items: u32,
    /// The rows of a table.
    pub rows: u32,
}

impl Default for Limits {
    /// 1,200 characters of reasoning, 600 of text or of a list's items,
    /// 12 items or entries, 12 rows.
    fn default() -> Self {
        Limits {
            reasoning: 1200,
            text: 600,
            list: 600,
            items: 12,
            rows: 12,
        }
    }
}

impl Limits {
    /// The same limits with `chars` for the reasoning block.
    pub fn reasoning(mut self, chars: u32) -> Self {
        self.reasoning = chars;
        self
    }

    /// The same limits with `chars` for each text section.
    pub fn text(mut self, chars: u32) -> Self {
        self.text = chars;
        self
    }

    /// The same limits with `chars` for each list of text.
    pub fn list(mut self, chars: u32) -> Self {
        self.list = chars;
        self
    }

    /// The same limits with `items` for lists of scalars and maps.
    pub fn items(mut self, items: u32) -> Self {
        self.items = items.max(1);
        self
    }

    /// The same limits with `rows` for tables.
    pub fn rows(mut self, rows: u32) -> Self {
        self.rows = rows.max(1);
        self
    }
}

/// What part of a reply the grammar describes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    /// A reply: maybe reasoning, then the sections `only` keeps (each
    /// position of the specs; `None` for all).
    Reply {
        only: Option<Vec<bool>>,
        reasoning: bool,
    },
    /// The value of the section at this position alone, without header:
    /// the answer to a focused question.
    Value(usize),
}

/// The sections of a type as one grammar, rendered for the engine that
/// enforces it.
///
/// Built from a type's specs with [`Grammar::of`]; narrowed to the
/// sections still missing with [`Grammar::only`] (a patch), or to a single
/// section's value with [`Grammar::value_of`] (a focused question).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grammar {
    specs: &'static [SectionSpec],
    ways: &'static [WaysSpec],
    lang: Lang,
    style: Style,
    scope: Scope,
    limits: Limits,
    columns: Vec<(usize, Columns)>,
    /// The exact shape of each `json` section whose type gives a schema.
    schemas: Vec<(usize, type_schema::TypeSchema)>,
}

impl Grammar {
    /// Every section of `T` (each way of an enum), after optional free
    /// reasoning, in `T`'s header style and language.
    pub fn of<T: Sections>() -> Grammar {
        let mut grammar = Grammar::from_specs(T::specs(), T::ways(), T::lang(), T::style());
        grammar.columns = T::columns()
            .into_iter()
            .filter_map(|(index, columns)| Some((index, columns()?)))
            .collect();
        grammar.schemas = T::schemas()
            .into_iter()
            .filter_map(|(index, schema)| Some((index, type_schema::TypeSchema::new(&schema()?))))
            .collect();
        grammar
    }

    /// The grammar of sections described by hand: `specs` and `ways` as
    /// [`Sections::specs`] and [`Sections::ways`] return them.
    pub fn from_specs(
        specs: &'static [SectionSpec],
        ways: &'static [WaysSpec],
        lang: Lang,
        style: Style,
    ) -> Grammar {
        Grammar {
            specs,
            ways,
            lang,
            style,
            scope: Scope::Reply {
                only: None,
                reasoning: true,
            },
            limits: Limits::default(),
            columns: Vec::new(),
            schemas: Vec::new(),
        }
    }

    /// The same grammar with only the sections `keep` says yes to, each
    /// then required (a patch: the sections still missing or wrong). Of an
    /// enum's ways, only those with a kept section remain.
    ///
    /// ```
    /// use twr_runtime::grammar::Grammar;
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Sections)]
    /// struct Trip {
    ///     days: u32,
    ///     notes: Option<String>,
    /// }
    ///
    /// let patch = Grammar::of::<Trip>().only(|spec| spec.field == "notes");
    /// assert!(patch.gbnf().starts_with("root ::= reasoning? section-1\n"));
    /// ```
    pub fn only(self, keep: impl Fn(&SectionSpec) -> bool) -> Grammar {
        let indices: Vec<usize> = (0..self.specs.len())
            .filter(|&i| keep(&self.specs[i]))
            .collect();
        self.only_at(&indices)
    }

    /// [`Grammar::only`] by position: the sections at `indices` of the
    /// specs.
    pub(crate) fn only_at(mut self, indices: &[usize]) -> Grammar {
        let kept = (0..self.specs.len())
            .map(|i| indices.contains(&i))
            .collect();
        let reasoning = match self.scope {
            Scope::Reply { reasoning, .. } => reasoning,
            Scope::Value(_) => true,
        };
        self.scope = Scope::Reply {
            only: Some(kept),
            reasoning,
        };
        self
    }

    /// [`Grammar::value_of`] by position: the value of the section at
    /// `index` of the specs.
    pub(crate) fn value_at(mut self, index: usize) -> Grammar {
        self.scope = Scope::Value(index);
        self
    }

    /// The value of the section of field `field` alone, without header or
    /// reasoning: the answer to a focused question. `None` when no section
    /// has that field.
    pub fn value_of(&self, field: &str) -> Option<Grammar> {
        let index = self.specs.iter().position(|spec| spec.field == field)?;
        Some(self.clone().value_at(index))
    }

    /// The same grammar with or without the free reasoning block before the
    /// first header (with, by default).
    pub fn reasoning(mut self, reasoning: bool) -> Grammar {
        if let Scope::Reply { only, .. } = self.scope {
            self.scope = Scope::Reply { only, reasoning };
        }
        self
    }

    /// The same grammar with other [`Limits`].
    pub fn limits(mut self, limits: Limits) -> Grammar {
        self.limits = limits;
        self
    }

    /// The same grammar with its free values' [`Limits`] cut so that the
    /// longest reply it allows fits in `max_tokens` tokens, the reply
    /// limit the request is sent with: a constrained reply the server cuts
    /// off is no answer. The fit is an estimate on the safe side (free
    /// text at 1.5 characters a token, numbers at a token a digit); a
    /// grammar that fits already is unchanged. The loop does this for
    /// every constrained attempt of a model that says its limit
    /// ([`ChatModel::reply_token_limit`](crate::ChatModel::reply_token_limit)).
    ///
    /// ```
    /// use twr_runtime::grammar::Grammar;
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Debug, Sections)]
    /// struct Event {
    ///     name: String,
    ///     city: String,
    ///     year: u32,
    /// }
    ///
    /// let fitted = Grammar::of::<Event>().fit_tokens(256);
    /// let limits = fitted.limits_of();
    /// // 1,200 + 600 + 600 characters would not fit in 256 tokens.
    /// assert!(2 * (limits.reasoning + 2 * limits.text) <= 3 * 256);
    /// assert_eq!(Grammar::of::<Event>().fit_tokens(8192), Grammar::of::<Event>());
    /// ```
    pub fn fit_tokens(self, max_tokens: u32) -> Grammar {
        fit::fit(self, max_tokens)
    }

    /// The limits of free values.
    pub fn limits_of(&self) -> Limits {
        self.limits
    }

    /// The sections this grammar was built from.
    pub fn specs(&self) -> &'static [SectionSpec] {
        self.specs
    }

    /// The grammar as llama.cpp's GBNF, its start rule `root`: the
    /// `grammar` field of llama.cpp's server and llama-cpp-python, SGLang's
    /// `ebnf`.
    pub fn gbnf(&self) -> String {
        gbnf::render(&build::rules(self))
    }

    /// The grammar in llguidance's Lark dialect, its start rule `start`
    /// (regular expressions in Rust's syntax, no lookaround): mistral.rs's
    /// `grammar` of type `lark`, and vLLM or SGLang with llguidance.
    pub fn lark(&self) -> String {
        lark::render(&build::rules(self))
    }

    /// The grammar as a JSON schema in OpenAI's strict mode: an object with
    /// a nullable `reasoning` string first, then one property per section
    /// named by its field (an enum's ways: one property named by its
    /// enum in snake case, holding one object per way). Every property is
    /// required and every object closed; an `Option` or defaulted section
    /// is nullable; a map, any JSON, a `from_str` value, or a table or
    /// record whose columns are unknown is a string holding the section's
    /// text. Read a reply in this shape with [`Grammar::read_json`].
    ///
    /// ```
    /// use twr_runtime::grammar::Grammar;
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Debug, Sections)]
    /// struct Trip {
    ///     days: u32,
    ///     notes: Option<String>,
    /// }
    ///
    /// let schema = Grammar::of::<Trip>().json_schema();
    /// assert_eq!(schema["required"], serde_json::json!(["reasoning", "days", "notes"]));
    /// assert_eq!(schema["properties"]["notes"]["type"], serde_json::json!(["string", "null"]));
    /// assert_eq!(schema["additionalProperties"], false);
    /// ```
    pub fn json_schema(&self) -> serde_json::Value {
        json_schema::schema(self)
    }

    /// The grammar in `format`.
    pub fn render(&self, format: Format) -> Rendering {
        match format {
            Format::Gbnf => Rendering::Gbnf(self.gbnf()),
            Format::Lark => Rendering::Lark(self.lark()),
            Format::JsonSchema => Rendering::JsonSchema(self.json_schema()),
        }
    }

    /// Reads `raw`, a reply in the shape of [`Grammar::json_schema`], as
    /// the sections it holds: each property under its section's header, so
    /// the type's own parser reads it, with its values, feedback and
    /// validators. A reply that is not a JSON object gets the feedback of
    /// [`json::extract`](crate::json::extract).
    ///
    /// ```
    /// use twr_runtime::grammar::Grammar;
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Debug, PartialEq, Sections)]
    /// struct Trip {
    ///     days: u32,
    ///     stops: Vec<String>,
    ///     notes: Option<String>,
    /// }
    ///
    /// let raw = r#"{"reasoning": "Short trip.", "days": 3, "stops": ["Gion", "Nara"], "notes": null}"#;
    /// let reply = Grammar::of::<Trip>().read_json(raw)?;
    /// assert_eq!(reply.reasoning.as_deref(), Some("Short trip."));
    /// assert_eq!(reply.sections, "[Days]\n3\n\n[Stops]\n- Gion\n- Nara\n\n\n");
    /// let trip = Trip::parse_sections(&reply.sections)?;
    /// assert_eq!(trip, Trip { days: 3, stops: vec!["Gion".into(), "Nara".into()], notes: None });
    /// # Ok::<(), twr_runtime::Feedback>(())
    /// ```
    pub fn read_json(&self, raw: &str) -> Result<JsonReply, Feedback> {
        json_schema::read(self, raw)
    }

    /// The exact shape of the `json` section at `index`, when its type
    /// gives a schema.
    pub(crate) fn type_schema(&self, index: usize) -> Option<&type_schema::TypeSchema> {
        self.schemas
            .iter()
            .find(|(at, _)| *at == index)
            .map(|(_, schema)| schema)
    }

    /// The columns of the table or record section at `index`, when known.
    pub(crate) fn columns_of(&self, index: usize) -> Option<Columns> {
        self.columns
            .iter()
            .find(|(at, _)| *at == index)
            .map(|(_, columns)| columns.clone())
    }

    /// A random reply of this grammar's language, from `seed`: what a model
    /// writing under the grammar could write. For tests: every sample
    /// parses into the type the grammar was built from.
    ///
    /// ```
    /// use twr_runtime::grammar::Grammar;
    /// use twr_runtime::Sections;
    ///
    /// #[derive(Debug, Sections)]
    /// struct Trip {
    ///     days: u32,
    ///     plan: Vec<String>,
    /// }
    ///
    /// let grammar = Grammar::of::<Trip>();
    /// for seed in 0..100 {
    ///     let reply = grammar.sample(seed);
    ///     assert!(Trip::parse_sections(&reply).is_ok(), "{reply}");
    /// }
    /// ```
    pub fn sample(&self, seed: u64) -> String {
        sample::sample(&build::rules(self), seed)
    }
}
