//! From the specs to the rules: the shape of a reply (reasoning, then the
//! sections in order, one way of each enum of ways) and of each kind of
//! value.
//!
//! Why these shapes: engines run a grammar slowly when one
//! bounded repetition holds another (`{0,3}` lines of `[^\n]{0,200}`
//! sampled at a quarter of the speed), while a single bound costs nothing
//! measurable; and a repetition without bound lets a small model write
//! until the token limit. So each free value is one bounded loop over
//! characters, where a line break followed by the start of a line is one
//! more character: the whole value is bounded, with no bound inside a
//! bound, and the reply always reaches its last section. Lists of scalars
//! bound their items and the scalars' few digits only.
//!
//! Every value lexeme ends with its line break and an optional blank line,
//! and what may follow it (a header, a closing tag, the end) starts with a
//! character the value cannot continue with: a greedy lexer such as
//! llguidance's never has to guess where a value ends.

use super::expr::{Class, Expr, Rules};
use super::lines::{label_start, line_start, NEVER, SPACES};
use super::numbers::{
    float, float_within, integer, integer_within, narrower_than_open, signed_integer,
};
use super::{Columns, Grammar, Scope};
use crate::sections::{Presence, ValueKind, WaysSpec};

/// The rules of `grammar`, its start rule `root` first.
pub(crate) fn rules(grammar: &Grammar) -> Rules {
    let mut names: Vec<&'static str> = Vec::new();
    for spec in grammar.specs {
        names.push(spec.name);
        names.extend(spec.aliases);
    }
    let mut builder = Builder {
        grammar,
        names,
        rules: Rules::default(),
    };
    let root = match &grammar.scope {
        Scope::Value(index) => builder.value(*index),
        Scope::Reply { only, reasoning } => {
            let body = builder.range(0..grammar.specs.len(), only.as_deref(), &mut Vec::new());
            let mut items = Vec::new();
            if *reasoning {
                let limit = grammar.limits.reasoning;
                let text = builder.free_text(limit);
                items.push(builder.rules.add("reasoning", text, true).optional());
            }
            items.push(body);
            Expr::seq(items)
        }
    };
    builder.rules.add("root", root, false);
    builder.rules.start_with("root");
    builder.rules
}

struct Builder<'g> {
    grammar: &'g Grammar,
    /// Every name and alias of every section of the type, whatever part of
    /// the reply the grammar describes: the parser looks for them all.
    names: Vec<&'static str>,
    rules: Rules,
}

/// A line break, then maybe one blank line: how every value ends.
fn line_end() -> Expr {
    Expr::seq(vec![Expr::lit("\n"), Expr::lit("\n").optional()])
}

/// Any character of a line but those that never appear in content.
fn line_char() -> Expr {
    let mut excluded = vec!['\n'];
    excluded.extend(NEVER);
    Expr::Class(Class::not(excluded))
}

/// A character that starts an item's text: no white space, no list
/// marker (the item would read as nested), never `<`.
fn item_start() -> Expr {
    let mut excluded: Vec<char> = SPACES.to_vec();
    excluded.extend(NEVER);
    excluded.extend(['-', '*', '+', '•']);
    Expr::Class(Class::not(excluded))
}

/// An ASCII letter or digit.
fn word_char() -> Class {
    Class::of([])
        .with_range('a', 'z')
        .with_range('A', 'Z')
        .with_range('0', '9')
}

impl Builder<'_> {
    /// The start of a line that is no header (`lines.rs`).
    fn line_start(&mut self) -> Expr {
        let expr = line_start(&self.names);
        self.rules.add("line-start", expr, true)
    }

    /// The start of a label whose line is no header (`lines.rs`).
    fn label_start(&mut self) -> Expr {
        let expr = label_start(&self.names);
        self.rules.add("label-start", expr, true)
    }

    /// The sections at positions `range` of the specs, in order, each way
    /// of an enum among them one alternative; only those `only` keeps.
    /// `open` holds the enums being expanded (by position in the grammar's
    /// ways), so a way is not offered its own enum's ways again.
    fn range(
        &mut self,
        range: std::ops::Range<usize>,
        only: Option<&[bool]>,
        open: &mut Vec<usize>,
    ) -> Expr {
        let mut items = Vec::new();
        let mut index = range.start;
        while index < range.end {
            if let Some(number) = self.outermost_ways(index, &range, open) {
                let end = self.grammar.ways[number].range().end;
                open.push(number);
                items.push(self.ways(number, only, open));
                open.pop();
                index = end;
                continue;
            }
            if only.is_none_or(|only| only.get(index).copied().unwrap_or(false)) {
                items.push(self.section(index, only.is_some()));
            }
            index += 1;
        }
        Expr::seq(items)
    }

    /// The widest enum of ways starting at `index` within `range`, not yet
    /// open.
    fn outermost_ways(
        &self,
        index: usize,
        range: &std::ops::Range<usize>,
        open: &[usize],
    ) -> Option<usize> {
        self.grammar
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

    /// One alternative per way of the enum at position `number` of the
    /// grammar's ways (per way with a kept section).
    fn ways(&mut self, number: usize, only: Option<&[bool]>, open: &mut Vec<usize>) -> Expr {
        let spec: &WaysSpec = &self.grammar.ways[number];
        let mut alternatives = Vec::new();
        for position in 0..spec.ways.len() {
            let Some(range) = spec.way_range(position) else {
                continue;
            };
            let kept = only.is_none_or(|only| range.clone().any(|i| only.get(i) == Some(&true)));
            if kept && !range.is_empty() {
                alternatives.push(self.range(range, only, open));
            }
        }
        if alternatives.is_empty() {
            return Expr::lit("");
        }
        Expr::alt(alternatives)
    }

    /// The section at `index`: its header, its value; optional unless it
    /// is required or asked for in a patch.
    fn section(&mut self, index: usize, asked: bool) -> Expr {
        let spec = &self.grammar.specs[index];
        let markers = self.grammar.style.markers(spec.header, spec.name);
        let value = self.value(index);
        let mut items = vec![Expr::lit(format!("{}\n", markers.open)), value];
        if let Some(close) = markers.close {
            items.push(Expr::lit(format!("{close}\n")));
            items.push(Expr::lit("\n").optional());
        }
        let section = Expr::seq(items);
        let name = format!("section-{index}");
        let rule = self.rules.add(&name, section, false);
        match spec.presence {
            Presence::Required => rule,
            _ if asked => rule,
            _ => rule.optional(),
        }
    }

    /// The value of the section at `index`, with its line end: for an
    /// `Option`, its value or a word that says none.
    fn value(&mut self, index: usize) -> Expr {
        let spec = &self.grammar.specs[index];
        let value = self.kind(&spec.kind, index);
        match spec.presence {
            Presence::Optional => {
                let none = self.none_words();
                Expr::alt(vec![value, none])
            }
            _ => value,
        }
    }

    /// The words of the run's language that say a section has no value,
    /// on their line.
    fn none_words(&mut self) -> Expr {
        let words = super::word_rules::none_words(self.grammar.lang);
        let expr = Expr::seq(vec![
            Expr::alt(words.into_iter().map(Expr::lit).collect()),
            line_end(),
        ]);
        self.rules.add("none", expr, true)
    }

    /// The value of `kind`, ending with its line end.
    #[deny(clippy::wildcard_enum_match_arm)]
    fn kind(&mut self, kind: &ValueKind, index: usize) -> Expr {
        let limits = self.grammar.limits;
        match kind {
            ValueKind::Text => {
                let text = self.free_text(limits.text);
                self.rules.add("text", text, true)
            }
            ValueKind::Integer | ValueKind::Float if self.limited(index, *kind) => {
                let number = self.number(*kind == ValueKind::Integer, index);
                let expr = Expr::seq(vec![number, line_end()]);
                self.rules.add(&format!("number-{index}"), expr, true)
            }
            ValueKind::Integer if self.signed(index) => {
                let expr = Expr::seq(vec![signed_integer(), line_end()]);
                self.rules.add("signed-integer", expr, true)
            }
            ValueKind::Integer => {
                let expr = Expr::seq(vec![integer(), line_end()]);
                self.rules.add("integer", expr, true)
            }
            ValueKind::Float => {
                let expr = Expr::seq(vec![float(), line_end()]);
                self.rules.add("number", expr, true)
            }
            ValueKind::Bool => {
                let expr = Expr::seq(vec![self.bool_words(), line_end()]);
                self.rules.add("bool", expr, true)
            }
            ValueKind::Char => {
                let expr = Expr::seq(vec![self.one_char(), line_end()]);
                self.rules.add("char", expr, true)
            }
            ValueKind::Choice(variants) => {
                let expr = Expr::seq(vec![words(variants.iter()), line_end()]);
                self.rules.add(&format!("choice-{index}"), expr, true)
            }
            ValueKind::List(inner) => self.list(inner, index),
            ValueKind::Json => match self.grammar.type_schema(index) {
                // The type's own shape: its objects, fields and variants.
                Some(schema) => {
                    let prefix = format!("json-{index}-def");
                    let value = super::type_schema::compile(schema, &prefix, &mut self.rules);
                    let expr = Expr::seq(vec![value, line_end()]);
                    self.rules.add(&format!("json-{index}"), expr, false)
                }
                None => {
                    let expr = Expr::seq(vec![Expr::Json, line_end()]);
                    self.rules.add("json", expr, false)
                }
            },
            ValueKind::Custom => {
                let expr = Expr::seq(vec![
                    self.line_start(),
                    line_char().repeat(0, None),
                    line_end(),
                ]);
                self.rules.add("line", expr, true)
            }
            ValueKind::Map(inner) => self.map(inner, index),
            ValueKind::Table => match self.columns(index) {
                Some(columns) => self.table(&columns, index),
                None => {
                    let text = self.free_text(limits.text);
                    self.rules.add("text", text, true)
                }
            },
            ValueKind::Record => match self.columns(index) {
                Some(columns) => self.record(&columns, index),
                None => {
                    let text = self.free_text(limits.text);
                    self.rules.add("text", text, true)
                }
            },
        }
    }

    /// A value of `kind` written inside a line (a list item, a cell, a
    /// map's or record's value), when the kind has a word-sized form of
    /// its own: numbers (within the bounds of the section at `bounded`),
    /// yes/no words, one character, a choice's words. `None`: the kind is
    /// text in a line, which each place writes its own way.
    #[deny(clippy::wildcard_enum_match_arm)]
    fn inline(&self, kind: &ValueKind, bounded: Option<usize>) -> Option<Expr> {
        Some(match kind {
            ValueKind::Integer => match bounded {
                Some(index) => self.number(true, index),
                None => integer(),
            },
            ValueKind::Float => match bounded {
                Some(index) => self.number(false, index),
                None => float(),
            },
            ValueKind::Bool => self.bool_words(),
            ValueKind::Char => self.one_char(),
            ValueKind::Choice(variants) => words(variants.iter()),
            ValueKind::Text
            | ValueKind::Json
            | ValueKind::Custom
            | ValueKind::List(_)
            | ValueKind::Table
            | ValueKind::Record
            | ValueKind::Map(_) => return None,
        })
    }

    /// The bounds of the section at `index` (none for a focused value of
    /// no section).
    fn bounds(&self, index: usize) -> crate::sections::Bounds {
        self.grammar
            .specs
            .get(index)
            .map_or(crate::sections::Bounds::NONE, |spec| spec.bounds)
    }

    /// Whether the numbers of the section at `index`, of `kind`, are held
    /// to less than the open rules: by the section's bounds, or (whole
    /// numbers) by a type narrower than nine digits (a `u8`).
    fn limited(&self, index: usize, kind: ValueKind) -> bool {
        !self.bounds(index).is_none()
            || (kind == ValueKind::Integer
                && narrower_than_open(&self.type_range(index), self.signed(index)))
    }

    /// The whole numbers the type of the section at `index` holds (none
    /// known for a focused value of no section).
    fn type_range(&self, index: usize) -> crate::sections::Bounds {
        self.grammar
            .specs
            .get(index)
            .map_or(crate::sections::Bounds::NONE, |spec| spec.type_range)
    }

    /// A whole number (`whole`) or decimal within the bounds of the
    /// section at `index` and (whole) the range of its type; unbounded
    /// when it has none, or when no number is within them (the parser's
    /// feedback says so then).
    fn number(&self, whole: bool, index: usize) -> Expr {
        let bounds = self.bounds(index);
        let signed = self.signed(index);
        if whole {
            integer_within(&bounds, signed, &self.type_range(index)).unwrap_or_else(|| {
                if signed {
                    signed_integer()
                } else {
                    integer()
                }
            })
        } else {
            float_within(&bounds).unwrap_or_else(float)
        }
    }

    /// Whether the whole numbers of the section at `index` may be below
    /// zero (its type is signed).
    fn signed(&self, index: usize) -> bool {
        self.grammar
            .specs
            .get(index)
            .is_some_and(|spec| spec.signed)
    }

    fn columns(&self, index: usize) -> Option<Columns> {
        self.grammar.columns_of(index)
    }

    /// Lines of free text, at most `limit` characters: a bounded loop over
    /// characters where a line break and the next line's start count as
    /// one.
    fn free_text(&mut self, limit: u32) -> Expr {
        let start = self.line_start();
        let step = Expr::alt(vec![
            line_char(),
            Expr::seq(vec![
                Expr::lit("\n"),
                Expr::lit("\n").optional(),
                start.clone(),
            ]),
        ]);
        Expr::seq(vec![start, step.repeat(0, Some(limit)), line_end()])
    }

    /// The words a bool is read from, in the run's language.
    fn bool_words(&self) -> Expr {
        let (yes, no) = super::word_rules::bool_words(self.grammar.lang);
        Expr::alt(yes.into_iter().chain(no).map(Expr::lit).collect())
    }

    /// One character that is no header, no quote and no space.
    fn one_char(&self) -> Expr {
        let mut excluded: Vec<char> = SPACES.to_vec();
        excluded.extend(NEVER);
        excluded.extend(['\'', '"', '`', '‘', '’', '“', '”', '[', '【', '#', '*', '_']);
        // A letter that starts a section's name might, alone on its line,
        // be that section's header: leave every letter out.
        Expr::Class(
            Class::not(excluded)
                .with_range('a', 'z')
                .with_range('A', 'Z'),
        )
    }

    /// `- item` lines: free text items share one bounded loop; scalar
    /// items are bounded in number.
    fn list(&mut self, inner: &ValueKind, index: usize) -> Expr {
        let limits = self.grammar.limits;
        let item = match self.inline(inner, Some(index)) {
            Some(item) => item,
            None => {
                let step = Expr::alt(vec![
                    line_char(),
                    Expr::seq(vec![Expr::lit("\n- "), item_start()]),
                ]);
                let expr = Expr::seq(vec![
                    Expr::lit("- "),
                    item_start(),
                    step.repeat(0, Some(limits.list)),
                    line_end(),
                ]);
                return self.rules.add("list", expr, true);
            }
        };
        let expr = Expr::seq(vec![
            Expr::lit("- "),
            item.clone(),
            Expr::seq(vec![Expr::lit("\n- "), item])
                .repeat(0, Some(limits.items.saturating_sub(1))),
            line_end(),
        ]);
        self.rules.add(&format!("list-{index}"), expr, true)
    }

    /// `Name: value` lines, each value of `inner` on its line.
    fn map(&mut self, inner: &ValueKind, index: usize) -> Expr {
        let limits = self.grammar.limits;
        let value = self.cell(inner);
        // A label: one word of letters and digits (the parser reads a
        // label only when it holds a letter, in at most six words).
        let word = Class::of([])
            .with_range('a', 'z')
            .with_range('A', 'Z')
            .with_range('0', '9');
        let entry = Expr::seq(vec![
            self.label_start(),
            Expr::Class(word).repeat(0, None),
            Expr::lit(": "),
            value,
        ]);
        let expr = Expr::seq(vec![
            entry.clone(),
            Expr::seq(vec![Expr::lit("\n"), entry]).repeat(0, Some(limits.items.saturating_sub(1))),
            line_end(),
        ]);
        self.rules.add(&format!("map-{index}"), expr, true)
    }

    /// A value written inside a line (a cell, a map's or record's value).
    fn cell(&self, kind: &ValueKind) -> Expr {
        match self.inline(kind, None) {
            Some(value) => value,
            None => {
                // A letter or digit first: decoration alone (`_`, `**`)
                // reads as an empty value.
                let mut inside = vec!['\n', '|'];
                inside.extend(NEVER);
                Expr::seq(vec![
                    Expr::Class(word_char()),
                    Expr::Class(Class::not(inside)).repeat(0, None),
                ])
            }
        }
    }

    /// A markdown table: the columns' header row, its rule, then rows.
    fn table(&mut self, columns: &Columns, index: usize) -> Expr {
        let limits = self.grammar.limits;
        let header = format!(
            "| {} |\n|{}|\n",
            columns
                .iter()
                .map(|(_, label, _)| label.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            vec!["---"; columns.len()].join("|")
        );
        let mut row = vec![Expr::lit("| ")];
        for (position, (_, _, kind)) in columns.iter().enumerate() {
            if position > 0 {
                row.push(Expr::lit(" | "));
            }
            row.push(self.table_cell(kind));
        }
        row.push(Expr::lit(" |"));
        let row = Expr::seq(row);
        let expr = Expr::seq(vec![
            Expr::lit(header),
            row.clone(),
            Expr::seq(vec![Expr::lit("\n"), row]).repeat(0, Some(limits.rows.saturating_sub(1))),
            line_end(),
        ]);
        self.rules.add(&format!("table-{index}"), expr, true)
    }

    /// A table cell: a scalar, or text without `|` that ends in no space.
    fn table_cell(&self, kind: &ValueKind) -> Expr {
        match self.inline(kind, None) {
            Some(value) => value,
            None => {
                let mut excluded: Vec<char> = SPACES.to_vec();
                excluded.extend(NEVER);
                excluded.push('|');
                let rest = Expr::Class(Class::not(excluded.clone())).repeat(0, None);
                let word = Expr::seq(vec![Expr::Class(word_char()), rest.clone()]);
                let next = Expr::seq(vec![Expr::Class(Class::not(excluded)), rest]);
                Expr::seq(vec![
                    word,
                    Expr::seq(vec![Expr::lit(" "), next]).repeat(0, None),
                ])
            }
        }
    }

    /// `Label: value` lines, one per column, in order.
    fn record(&mut self, columns: &Columns, index: usize) -> Expr {
        let mut items = Vec::new();
        for (_, label, kind) in columns.iter() {
            items.push(Expr::lit(format!("{label}: ")));
            items.push(self.cell(kind));
            items.push(Expr::lit("\n"));
        }
        items.push(Expr::lit("\n").optional());
        self.rules
            .add(&format!("record-{index}"), Expr::seq(items), true)
    }
}

/// One of `words`, as written.
fn words<'a>(words: impl IntoIterator<Item = &'a &'a str>) -> Expr {
    Expr::alt(words.into_iter().map(|word| Expr::lit(*word)).collect())
}
