//! The one description of a reply that every rendering reads: named rules
//! of literals, character classes, sequences, alternatives and repetitions.
//!
//! Built by `build.rs` from the specs; rendered by `gbnf.rs` and `lark.rs`.
//! A rule marked as a lexeme refers to no rule but lexemes and is regular,
//! so Lark can give it to llguidance's lexer as one regular expression.

/// One character class: its ranges, or every character but them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Class {
    /// Every character except the ranges.
    pub negated: bool,
    /// Inclusive ranges, `(c, c)` for one character.
    pub ranges: Vec<(char, char)>,
}

impl Class {
    /// The characters of `chars`.
    pub fn of(chars: impl IntoIterator<Item = char>) -> Class {
        Class {
            negated: false,
            ranges: chars.into_iter().map(|c| (c, c)).collect(),
        }
    }

    /// Every character except those of `chars`.
    pub fn not(chars: impl IntoIterator<Item = char>) -> Class {
        Class {
            negated: true,
            ranges: chars.into_iter().map(|c| (c, c)).collect(),
        }
    }

    /// The same class with the range `from..=to` added.
    pub fn with_range(mut self, from: char, to: char) -> Class {
        self.ranges.push((from, to));
        self
    }

    /// Whether the class holds `c`.
    pub fn contains(&self, c: char) -> bool {
        let inside = self.ranges.iter().any(|&(from, to)| from <= c && c <= to);
        inside != self.negated
    }
}

/// An expression of the grammar.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Expr {
    /// These characters exactly.
    Lit(String),
    /// One character of the class.
    Class(Class),
    /// Each in turn.
    Seq(Vec<Expr>),
    /// One of them.
    Alt(Vec<Expr>),
    /// `min` to `max` (unbounded when `None`) times in a row.
    Repeat {
        /// What is repeated.
        expr: Box<Expr>,
        /// At least this many.
        min: u32,
        /// At most this many, or unbounded.
        max: Option<u32>,
    },
    /// The rule of this name.
    Rule(String),
    /// Any JSON value (GBNF spells it out; Lark says `%json {}`).
    Json,
}

impl Expr {
    /// `text` exactly.
    pub fn lit(text: impl Into<String>) -> Expr {
        Expr::Lit(text.into())
    }

    /// Each of `items` in turn (one item is itself).
    pub fn seq(items: Vec<Expr>) -> Expr {
        let mut flat = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Expr::Seq(inner) => flat.extend(inner),
                Expr::Lit(text) if text.is_empty() => {}
                item => flat.push(item),
            }
        }
        // Adjacent literals are one literal: shorter renderings.
        let mut merged: Vec<Expr> = Vec::with_capacity(flat.len());
        for item in flat {
            match (merged.last_mut(), item) {
                (Some(Expr::Lit(last)), Expr::Lit(next)) => last.push_str(&next),
                (_, item) => merged.push(item),
            }
        }
        if merged.len() == 1 {
            merged.pop().unwrap_or_else(|| Expr::lit(""))
        } else if merged.is_empty() {
            Expr::lit("")
        } else {
            Expr::Seq(merged)
        }
    }

    /// One of `items` (one item is itself).
    pub fn alt(items: Vec<Expr>) -> Expr {
        let mut flat: Vec<Expr> = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Expr::Alt(inner) => flat.extend(inner),
                item if !flat.contains(&item) => flat.push(item),
                _ => {}
            }
        }
        if flat.len() == 1 {
            flat.pop().unwrap_or_else(|| Expr::lit(""))
        } else {
            Expr::Alt(flat)
        }
    }

    /// `self`, `min` to `max` times.
    pub fn repeat(self, min: u32, max: Option<u32>) -> Expr {
        Expr::Repeat {
            expr: Box::new(self),
            min,
            max,
        }
    }

    /// `self` or nothing.
    pub fn optional(self) -> Expr {
        self.repeat(0, Some(1))
    }

    /// The rule `name`.
    pub fn rule(name: impl Into<String>) -> Expr {
        Expr::Rule(name.into())
    }
}

/// A named rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Rule {
    /// Its name: lower case letters, digits and `-` (GBNF's rule names;
    /// Lark's are derived from it).
    pub name: String,
    /// What it matches.
    pub expr: Expr,
    /// Whether it is regular and refers only to other lexemes: Lark makes
    /// it one terminal with a regular expression.
    pub lexeme: bool,
}

/// The rules of one grammar; the first is the start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Adds a rule, or finds the one of the same name (the first wins: a
    /// name stands for one expression).
    pub fn add(&mut self, name: &str, expr: Expr, lexeme: bool) -> Expr {
        if !self.rules.iter().any(|rule| rule.name == name) {
            self.rules.push(Rule {
                name: name.to_owned(),
                expr,
                lexeme,
            });
        }
        Expr::rule(name)
    }

    /// Sets the expression of the rule `name`, added before its body was
    /// known (a rule that refers to itself).
    pub fn replace(&mut self, name: &str, expr: Expr) {
        if let Some(rule) = self.rules.iter_mut().find(|rule| rule.name == name) {
            rule.expr = expr;
        }
    }

    /// The rule of this name.
    pub fn get(&self, name: &str) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.name == name)
    }

    /// Every rule, the start first.
    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter()
    }

    /// Puts the rule `name` first (the start rule).
    pub fn start_with(&mut self, name: &str) {
        if let Some(at) = self.rules.iter().position(|rule| rule.name == name) {
            let rule = self.rules.remove(at);
            self.rules.insert(0, rule);
        }
    }
}
