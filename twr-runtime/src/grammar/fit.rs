//! A grammar cut to a reply's token limit: a constrained reply that the
//! server stops at `max_tokens` is cut off mid-section and is no answer,
//! so the free values' limits ([`Limits`]) shrink until the longest reply
//! the grammar allows fits.
//!
//! The grammar counts characters, the server tokens, so the fit is an
//! estimate, made on the safe side:
//! - free text (reasoning, a text section, a list of text) at three
//!   characters for every two tokens ([`CHARS_PER_TWO_TOKENS`]): English
//!   prose runs about four characters a token in the vocabularies of
//!   current models and 3.1 to 3.4 in SmolLM2's (the held-out event texts,
//!   the guide), but what a tiny model writes under a grammar is not prose:
//!   lists of foreign names, dates and codes ran 1.7 to 2.1 characters a
//!   token with SmolLM2-135M (its own tokenizer, replies of the held-out
//!   measurement), and at three a token those replies were cut off at 256
//!   tokens; 1.5 keeps them inside;
//! - a header at one token for every two of its characters, and its line
//!   breaks;
//! - a number at one token a character (the vocabularies of Llama 3,
//!   SmolLM2 and Qwen split numbers into digits or groups of three), the
//!   longest the rule allows; a word of a choice or yes/no at four;
//! - a list of numbers or words, a map, a table: their items, entries or
//!   rows at the same rates.
//!
//! What is left of `max_tokens` after the sections of fixed shape goes to
//! the free values: the reasoning block two shares, each free section one,
//! each never above its default.

use super::{Grammar, Limits, Scope};
use crate::sections::{SectionSpec, ValueKind};

/// Characters of free text counted to two tokens (1.5 a token).
const CHARS_PER_TWO_TOKENS: u32 = 3;

/// Tokens of a number: nine digits, a sign, a point and six decimals at
/// most ([`super::numbers`]), and its line break.
const NUMBER_TOKENS: u32 = 18;

/// Tokens of a word of a choice, yes/no or one character, and its line
/// break.
const WORD_TOKENS: u32 = 4;

/// Tokens a reply may spend outside the sections: the server's end of
/// turn, white space between sections.
const SLACK: u32 = 8;

/// The fewest characters a free value keeps, however small the limit: a
/// text section must still say something.
const MIN_FREE: u32 = 24;

/// `grammar` with its limits cut so that the longest reply it allows fits
/// in `max_tokens` tokens (see the module's notes); the same grammar when
/// it fits already.
pub(crate) fn fit(grammar: Grammar, max_tokens: u32) -> Grammar {
    let defaults = grammar.limits;
    let sections = in_scope(&grammar);
    let reasoning = matches!(
        grammar.scope,
        Scope::Reply {
            reasoning: true,
            ..
        }
    );
    // Lists of scalars, maps and tables: their counts first, cut in
    // proportion when their rows alone would take more than half.
    let mut limits = defaults;
    let counted = counted_tokens(&grammar, &sections, limits);
    if counted > max_tokens / 2 {
        let scale = |n: u32| {
            ((u64::from(n) * u64::from(max_tokens / 2)) / u64::from(counted)).max(1) as u32
        };
        limits.items = scale(limits.items);
        limits.rows = scale(limits.rows);
    }
    let fixed = SLACK + fixed_tokens(&grammar, &sections, limits);
    let shares = u32::from(reasoning) * 2
        + sections
            .iter()
            .filter(|(index, spec)| free(&grammar, *index, spec).is_some())
            .count() as u32;
    if shares == 0 {
        return grammar.limits(limits);
    }
    let share = max_tokens.saturating_sub(fixed) * CHARS_PER_TWO_TOKENS / (2 * shares);
    let cut = |default: u32, shares: u32| default.min((share * shares).max(MIN_FREE));
    limits.reasoning = cut(defaults.reasoning, 2);
    limits.text = cut(defaults.text, 1);
    limits.list = cut(defaults.list, 1);
    grammar.limits(limits)
}

/// The sections the grammar describes, with their positions.
fn in_scope(grammar: &Grammar) -> Vec<(usize, &'static SectionSpec)> {
    let specs = grammar.specs;
    match &grammar.scope {
        Scope::Value(index) => specs
            .get(*index)
            .map(|spec| (*index, spec))
            .into_iter()
            .collect(),
        Scope::Reply { only, .. } => specs
            .iter()
            .enumerate()
            .filter(|(index, _)| {
                only.as_ref()
                    .is_none_or(|only| only.get(*index) == Some(&true))
            })
            .collect(),
    }
}

/// Which limit bounds the section's value when it is free text: `text` or
/// `list`; `None` for a value of fixed shape.
fn free(grammar: &Grammar, index: usize, spec: &SectionSpec) -> Option<&'static str> {
    match spec.kind {
        ValueKind::Text => Some("text"),
        ValueKind::List(ValueKind::Text) => Some("list"),
        ValueKind::Table | ValueKind::Record if grammar.columns_of(index).is_none() => Some("text"),
        _ => None,
    }
}

/// Tokens of the values whose size is a count: lists of scalars, maps,
/// tables with known columns.
fn counted_tokens(grammar: &Grammar, sections: &[(usize, &SectionSpec)], limits: Limits) -> u32 {
    sections
        .iter()
        .map(|(index, spec)| match spec.kind {
            ValueKind::List(inner) if free(grammar, *index, spec).is_none() => {
                limits.items * (scalar_tokens(inner) + 1)
            }
            ValueKind::Map(inner) => limits.items * (scalar_tokens(inner) + 8),
            ValueKind::Table | ValueKind::Record => {
                grammar.columns_of(*index).map_or(0, |columns| {
                    let cells: u32 = columns
                        .iter()
                        .map(|(_, _, kind)| scalar_tokens(kind) + 1)
                        .sum();
                    // A record is one row of `Label: value` lines.
                    let rows = if spec.kind == ValueKind::Table {
                        limits.rows + 1
                    } else {
                        1
                    };
                    rows * cells
                })
            }
            _ => 0,
        })
        .sum()
}

/// Tokens of everything but the free text: headers, numbers, words, and
/// the counted values.
fn fixed_tokens(grammar: &Grammar, sections: &[(usize, &SectionSpec)], limits: Limits) -> u32 {
    let headed = !matches!(grammar.scope, Scope::Value(_));
    let own: u32 = sections
        .iter()
        .map(|(_, spec)| {
            let header = if headed {
                spec.header.chars().count() as u32 / 2 + 2
            } else {
                0
            };
            let value = match spec.kind {
                ValueKind::Integer
                | ValueKind::Float
                | ValueKind::Bool
                | ValueKind::Char
                | ValueKind::Choice(_) => scalar_tokens(&spec.kind),
                _ => 0,
            };
            header + value
        })
        .sum();
    own + counted_tokens(grammar, sections, limits)
}

/// Tokens of one scalar written inside a line, with its line break: a
/// number, a word; a cell of text as a few words.
fn scalar_tokens(kind: &ValueKind) -> u32 {
    match kind {
        ValueKind::Integer | ValueKind::Float => NUMBER_TOKENS,
        ValueKind::Bool | ValueKind::Char | ValueKind::Choice(_) => WORD_TOKENS,
        _ => 12,
    }
}
