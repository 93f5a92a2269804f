//! `#[derive(Sections)]`: what `specs()` says for every attribute, header
//! rule and field shape, and that generic structs derive.

use std::marker::PhantomData;
use std::str::FromStr;

use serde::Deserialize;
use twr_runtime::parse::SectionValue;
use twr_runtime::{
    sections::{Lang, Presence, ValueKind},
    Choice, SectionSpec, Sections,
};

/// A research plan.
#[allow(dead_code)]
#[derive(Sections)]
struct Plan {
    /// The steps, in order.
    ///
    /// One per line.
    #[section(
        header = "[Research Plan]",
        example = "1. Literature review\n2. Interviews"
    )]
    steps: Vec<String>,
    #[section(aliases = ["Schedule", "[Dates]"])]
    timeline: String,
    weeks: u32,
    notes: Option<String>,
    #[section(default)]
    tags: Vec<String>,
    #[section(skip)]
    cache: Vec<u8>,
}

#[test]
fn specs_follow_declaration_order_and_attributes() {
    let specs: &'static [SectionSpec] = Plan::specs();
    assert_eq!(
        specs,
        &[
            SectionSpec::new(
                "steps",
                "[Research Plan]",
                "Research Plan",
                ValueKind::List(&ValueKind::Text)
            )
            .with_description("The steps, in order.\n\nOne per line.")
            .with_example("1. Literature review\n2. Interviews"),
            SectionSpec::new("timeline", "[Timeline]", "Timeline", ValueKind::Text)
                .with_aliases(&["Schedule", "Dates"]),
            // The numbers a `u32` holds, for the grammar.
            SectionSpec::new("weeks", "[Weeks]", "Weeks", ValueKind::Integer)
                .with_type_range("0", "4294967295"),
            SectionSpec::new("notes", "[Notes]", "Notes", ValueKind::Text)
                .with_presence(Presence::Optional),
            SectionSpec::new("tags", "[Tags]", "Tags", ValueKind::List(&ValueKind::Text))
                .with_presence(Presence::Default),
        ][..]
    );
    assert_eq!(Plan::lang(), Lang::En);
}

#[derive(Debug, Deserialize, PartialEq)]
struct Budget {
    total: u32,
}

#[derive(Debug, PartialEq)]
struct Day(u32);

impl FromStr for Day {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.trim()
            .strip_prefix("day ")
            .and_then(|n| n.parse().ok())
            .map(Day)
            .ok_or_else(|| format!("`{s}` is not `day N`"))
    }
}

fn not_blank(text: &str) -> Result<(), String> {
    if text.contains("TODO") {
        Err("replace TODO with the real text".to_owned())
    } else {
        Ok(())
    }
}

mod checks {
    pub fn short(text: &str) -> Result<(), &'static str> {
        if text.len() > 40 {
            Err("keep it under 40 characters")
        } else {
            Ok(())
        }
    }
}

#[allow(dead_code)]
#[derive(Sections)]
#[sections(lang = "zh")]
struct Everything {
    /// Costs as JSON.
    #[section(json, header = "预算")]
    budget: Budget,
    #[section(from_str, header = "【开始】", aliases = ["【Start】", " begin "])]
    start: Day,
    #[section(json)]
    extra: Option<Budget>,
    #[section(validate = not_blank)]
    summary: String,
    #[section(validate = checks::short)]
    title: Option<String>,
    #[section(header = "Research  Notes  ")]
    r#type: String,
    long_field_name_here: bool,
    #[section(skip)]
    seen: u32,
}

#[test]
fn every_attribute_shapes_its_spec() {
    let specs = Everything::specs();
    let summary: Vec<_> = specs
        .iter()
        .map(|s| (s.field, s.header, s.name, s.aliases, s.kind, s.presence))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "budget",
                "[预算]",
                "预算",
                &[][..],
                ValueKind::Json,
                Presence::Required
            ),
            (
                "start",
                "【开始】",
                "开始",
                &["Start", "begin"][..],
                ValueKind::Custom,
                Presence::Required
            ),
            (
                "extra",
                "[Extra]",
                "Extra",
                &[][..],
                ValueKind::Json,
                Presence::Optional
            ),
            (
                "summary",
                "[Summary]",
                "Summary",
                &[][..],
                ValueKind::Text,
                Presence::Required
            ),
            (
                "title",
                "[Title]",
                "Title",
                &[][..],
                ValueKind::Text,
                Presence::Optional
            ),
            (
                "type",
                "[Research  Notes]",
                "Research  Notes",
                &[][..],
                ValueKind::Text,
                Presence::Required
            ),
            (
                "long_field_name_here",
                "[Long Field Name Here]",
                "Long Field Name Here",
                &[][..],
                ValueKind::Bool,
                Presence::Required
            ),
        ]
    );
    assert_eq!(specs[0].description, "Costs as JSON.");
    assert_eq!(Everything::lang(), Lang::Zh);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Level {
    Low,
    High,
}

/// A generic struct: the derive adds `T: SectionValue`-style bounds only for
/// fields that use a type parameter.
#[allow(dead_code)]
#[derive(Sections)]
struct Tagged<'a, T, C: Choice, const N: usize>
where
    T: Clone,
{
    value: T,
    items: Vec<T>,
    level: C,
    maybe: Option<T>,
    #[section(default)]
    more: Vec<T>,
    #[section(skip)]
    marker: PhantomData<&'a [C; N]>,
}

#[test]
fn generic_structs_derive_with_their_parameters() {
    let specs = <Tagged<'static, u32, Level, 3> as Sections>::specs();
    let kinds: Vec<_> = specs
        .iter()
        .map(|s| (s.header, s.kind, s.presence))
        .collect();
    assert_eq!(
        kinds,
        [
            ("[Value]", ValueKind::Integer, Presence::Required),
            (
                "[Items]",
                ValueKind::List(&ValueKind::Integer),
                Presence::Required
            ),
            (
                "[Level]",
                ValueKind::Choice(&["Low", "High"]),
                Presence::Required
            ),
            ("[Maybe]", ValueKind::Integer, Presence::Optional),
            (
                "[More]",
                ValueKind::List(&ValueKind::Integer),
                Presence::Default
            ),
        ]
    );
    // Another instantiation has its own specs.
    let text = <Tagged<'static, String, Level, 0> as Sections>::specs();
    assert_eq!(text[1].kind, ValueKind::List(&ValueKind::Text));
    assert_eq!(
        <Level as SectionValue>::KIND,
        ValueKind::Choice(&["Low", "High"])
    );
}

/// Codec fields of a type parameter get their bounds from the derive:
/// `FromStr` for `from_str`, `DeserializeOwned` for `json` (none written here).
#[derive(Debug, Sections)]
struct Parsed<D, J> {
    #[section(from_str)]
    date: D,
    #[section(json)]
    data: J,
    #[section(json)]
    extra: Option<J>,
    #[section(from_str)]
    maybe: Option<D>,
}

#[test]
fn generic_codec_fields_parse() {
    let parsed = Parsed::<Day, Budget>::parse_sections(
        "[Date]\nday 4\n[Data]\n{\"total\": 7}\n[Extra]\n{'total': 8,}\n[Maybe]\nN/A",
    )
    .unwrap();
    assert_eq!(parsed.date, Day(4));
    assert_eq!(parsed.data, Budget { total: 7 });
    assert_eq!(parsed.extra, Some(Budget { total: 8 }));
    assert_eq!(parsed.maybe, None);
    let kinds: Vec<_> = <Parsed<Day, Budget> as Sections>::specs()
        .iter()
        .map(|s| (s.kind, s.presence))
        .collect();
    assert_eq!(
        kinds,
        [
            (ValueKind::Custom, Presence::Required),
            (ValueKind::Json, Presence::Required),
            (ValueKind::Json, Presence::Optional),
            (ValueKind::Custom, Presence::Optional),
        ]
    );
}
