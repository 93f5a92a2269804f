//! Agreement among several replies to one attempt
//! ([`Think::samples`](crate::Think::samples)): each section's value is the
//! one most replies wrote, and its confidence the share that wrote it.
//!
//! Values are compared as their kind reads them ([`comparable`]), so
//! `2,300` and `2300` agree, and `yes` and `Yes.` do. A reply cut off by
//! the token limit has no say on the section it ends with (it may be cut
//! mid-value), as a merge leaves it out too. For a type with ways (an enum
//! deriving `Sections`), the way most replies took wins first, and a reply
//! that took another way counts against each of the winning way's
//! sections.

use super::confidence::FieldConfidence;
use super::conversation::{single_way, SectionStore};
use crate::parse::{split_sections, SectionMap, SectionValue};
use crate::phrases::Phrases;
use crate::sections::{Presence, SectionSpec, ValueKind, WaysSpec};

/// One reply to agree on: its text, and whether the token limit cut it.
pub(crate) struct Voice<'a> {
    pub(crate) raw: &'a str,
    pub(crate) truncated: bool,
}

/// What several replies agree on.
pub(crate) struct Agreement {
    /// The agreed answer: each section's winning value, as the first reply
    /// that wrote it wrote it, under its header, in declaration order.
    pub(crate) answer: String,
    /// Each section of the answer with the share of the replies that wrote
    /// its value, in the order of the type's sections.
    pub(crate) confidence: Vec<FieldConfidence>,
}

/// The answer `voices` agree on, for a type of sections `specs` (with
/// `ways`) whose values read with `phrases`.
pub(crate) fn agree(
    voices: &[Voice<'_>],
    specs: &'static [SectionSpec],
    ways: &'static [WaysSpec],
    phrases: &Phrases,
) -> Agreement {
    let maps: Vec<SectionMap<'_>> = voices
        .iter()
        .map(|voice| split_sections(voice.raw, specs))
        .collect();
    // Each reply's value of each section; `None` where it wrote none, or
    // where its cut-off end fell.
    let values: Vec<Vec<Option<&str>>> = maps
        .iter()
        .zip(voices)
        .map(|(map, voice)| {
            let last = (0..specs.len())
                .filter_map(|index| map.range_at(index).map(|range| range.start))
                .max();
            (0..specs.len())
                .map(|index| {
                    let content = map.content(index)?;
                    let cut = voice.truncated && map.range_at(index).map(|r| r.start) == last;
                    (!cut).then(|| content.trim())
                })
                .collect()
        })
        .collect();
    let winners = winning_ways(&values, ways);
    let mut store = SectionStore::new(specs, ways);
    let mut confidence = Vec::new();
    let total = voices.len().max(1) as f64;
    for (index, spec) in specs.iter().enumerate() {
        let other_way = ways.iter().zip(&winners).any(|(enum_ways, winner)| {
            enum_ways
                .way_of(index)
                .is_some_and(|way| Some(way) != *winner)
        });
        if other_way {
            continue;
        }
        let column = values.iter().map(|reply| reply[index]);
        let Some((value, count)) = plurality(column, spec, phrases) else {
            continue;
        };
        store.put(index, value, 1);
        confidence.push((spec.field, count as f64 / total));
    }
    Agreement {
        answer: store.render(),
        confidence,
    }
}

/// For each enum of ways, the way most replies took (the first
/// taken on a tie); `None` when no reply took one.
fn winning_ways(values: &[Vec<Option<&str>>], ways: &[WaysSpec]) -> Vec<Option<usize>> {
    ways.iter()
        .map(|enum_ways| {
            let mut tally: Vec<(usize, usize)> = Vec::new();
            for reply in values {
                let present: Vec<usize> = (0..reply.len())
                    .filter(|&index| reply[index].is_some())
                    .collect();
                let Some(way) = single_way(enum_ways, &present) else {
                    continue;
                };
                match tally.iter_mut().find(|(seen, _)| *seen == way) {
                    Some((_, count)) => *count += 1,
                    None => tally.push((way, 1)),
                }
            }
            first_max(tally.into_iter()).map(|(way, _)| way)
        })
        .collect()
}

/// The value most of `column` agree on, as first written, with how many
/// wrote it; `None` when none wrote one, or when an optional section is
/// left out by more replies than write any one value.
fn plurality<'v>(
    column: impl Iterator<Item = Option<&'v str>>,
    spec: &SectionSpec,
    phrases: &Phrases,
) -> Option<(&'v str, usize)> {
    // (the value compared, as first written; how many wrote it), and how
    // many wrote nothing. Few replies, few values: a linear tally.
    let mut tally: Vec<(String, &'v str, usize)> = Vec::new();
    let mut absent = 0usize;
    for value in column {
        let Some(value) = value else {
            absent += 1;
            continue;
        };
        let key = comparable(value, spec.kind, phrases);
        match tally.iter_mut().find(|(seen, _, _)| *seen == key) {
            Some((_, _, count)) => *count += 1,
            None => tally.push((key, value, 1)),
        }
    }
    let (value, count) = first_max(tally.into_iter().map(|(_, value, count)| (value, count)))?;
    if spec.presence == Presence::Optional && absent > count {
        return None;
    }
    Some((value, count))
}

/// The item with the largest count, the first one on a tie.
fn first_max<T>(items: impl Iterator<Item = (T, usize)>) -> Option<(T, usize)> {
    items.fold(None, |best, (item, count)| match best {
        Some((_, most)) if most >= count => best,
        _ => Some((item, count)),
    })
}

/// What of `value` two replies must share to agree, by the section's kind:
/// a number's value, a yes/no's answer, and for anything else its text,
/// trimmed, white space runs as one space, case ignored. A number or
/// yes/no that does not read is compared as text.
#[deny(clippy::wildcard_enum_match_arm)]
fn comparable(value: &str, kind: ValueKind, phrases: &Phrases) -> String {
    let as_text = || {
        value
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    match kind {
        ValueKind::Integer | ValueKind::Float => match f64::parse_section_with(value, phrases) {
            Ok(number) => format!("number {number}"),
            Err(_) => as_text(),
        },
        ValueKind::Bool => match bool::parse_section_with(value, phrases) {
            Ok(answer) => format!("bool {answer}"),
            Err(_) => as_text(),
        },
        // Text compares as text; so do a character, a Choice (its words),
        // lists, tables, records, maps, JSON and `FromStr` values, whose
        // items a model writes in one way far more often than in two.
        ValueKind::Text
        | ValueKind::Char
        | ValueKind::Choice(_)
        | ValueKind::List(_)
        | ValueKind::Json
        | ValueKind::Custom
        | ValueKind::Table
        | ValueKind::Record
        | ValueKind::Map(_) => as_text(),
    }
}
