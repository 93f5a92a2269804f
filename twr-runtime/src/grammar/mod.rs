//! The sections as a grammar a server enforces while the model writes.
//!
//! [`Grammar::of`] builds, from the specs `#[derive(Sections)]` generates,
//! one description of a reply: an optional free reasoning block, then every
//! section in order (one way of each choice), each value constrained to
//! what the parser reads. It renders as llama.cpp's GBNF
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
//! end), and content never holds `<` (a tag or a `<think>` block). Free
//! values are bounded in length, so a constrained reply always reaches its
//! last section ([`Limits`]).

mod build;
mod expr;
mod gbnf;
mod lark;
mod lines;
mod sample;
mod words;

use crate::sections::{ChoiceSpec, Lang, SectionSpec, Sections, Style, ValueKind};

/// The columns of a table or record section, by position in the specs:
/// each column's name as the guide writes it and the kind of its cells.
pub(crate) type Columns = Vec<(String, ValueKind)>;

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
    choices: &'static [ChoiceSpec],
    lang: Lang,
    style: Style,
    scope: Scope,
    limits: Limits,
    columns: Vec<(usize, Columns)>,
}

impl Grammar {
    /// Every section of `T` (each way of an enum), after optional free
    /// reasoning, in `T`'s header style and language.
    pub fn of<T: Sections>() -> Grammar {
        Grammar::from_specs(T::specs(), T::choices(), T::lang(), T::style())
    }

    /// The grammar of sections described by hand: `specs` and `choices` as
    /// [`Sections::specs`] and [`Sections::choices`] return them.
    pub fn from_specs(
        specs: &'static [SectionSpec],
        choices: &'static [ChoiceSpec],
        lang: Lang,
        style: Style,
    ) -> Grammar {
        Grammar {
            specs,
            choices,
            lang,
            style,
            scope: Scope::Reply {
                only: None,
                reasoning: true,
            },
            limits: Limits::default(),
            columns: Vec::new(),
        }
    }

    /// The same grammar with only the sections `keep` says yes to, each
    /// then required (a patch: the sections still missing or wrong). Of a
    /// choice, only the ways with a kept section remain.
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
    pub fn only(mut self, keep: impl Fn(&SectionSpec) -> bool) -> Grammar {
        let kept = self.specs.iter().map(keep).collect();
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

    /// The value of the section of field `field` alone, without header or
    /// reasoning: the answer to a focused question. `None` when no section
    /// has that field.
    pub fn value_of(&self, field: &str) -> Option<Grammar> {
        let index = self.specs.iter().position(|spec| spec.field == field)?;
        let mut grammar = self.clone();
        grammar.scope = Scope::Value(index);
        Some(grammar)
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
