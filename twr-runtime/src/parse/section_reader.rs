//! The section reader behind `#[derive(Sections)]`: reads a reply field by
//! field with the rules of each field's presence (`N/A` for optional
//! sections), collects every problem, and turns missing sections into rename
//! hints. Generated code reaches it through `__private`; it is not part of
//! the public API.

use std::fmt::Display;
use std::str::FromStr;

use serde::de::DeserializeOwned;

use super::bounds::Bounded;
use super::hints::{inline_mention, label_inside, near_misses, unread_lines};
use super::prepare::without_reasoning;
use super::sections::Sections;
use super::set::SectionSet;
use super::split::{split_sections, SectionMap};
use super::typed::{Keeper, TypedSections};
use super::value::{none_word, strip_decoration};
use crate::feedback::Feedback;
use crate::feedback::{Problem, ProblemKind, Way};
use crate::json::{JsonProvenance, Report};
use crate::parse::ValueError;
use crate::phrases::{phrases, Lang, Phrases};
use crate::prompt::Shape;
use crate::vocab::{SectionSpec, WaysSpec};

/// Reads the sections of one reply field by field, collecting every problem.
///
/// The derive calls one reading method per field (`index` is the field's
/// position in `specs`), then [`SectionReader::finish`]. Problems come out in
/// the order of `specs`, whatever the order of the calls.
pub struct SectionReader<'a> {
    raw: &'a str,
    specs: &'static [SectionSpec],
    map: SectionMap<'a>,
    lang: Lang,
    /// Problems with the index of their section.
    problems: Vec<(usize, Problem)>,
    /// Examples built from a field's type (a table's columns), by section.
    shapes: Vec<(usize, Shape)>,
    /// How each JSON section read so far was obtained.
    json: Vec<JsonProvenance>,
    /// Sections typed earlier in the run: a section whose content is the
    /// same is taken from here rather than read again.
    typed: TypedSections,
    /// The positions of the sections that gave a value in this reading,
    /// which alone may be kept.
    valued: Vec<usize>,
}

/// What a codec noticed while reading a section, beside the value: for a
/// JSON section, how its JSON was obtained.
#[derive(Debug, Default)]
pub struct CodecNotes {
    json: Option<Report>,
}

/// How a section's content becomes a value: a plain reader (a
/// [`SectionValue`](super::SectionValue) or `FromStr` codec), or one that
/// also leaves `CodecNotes` (the JSON codec).
pub enum Codec<T> {
    /// `fn(&str) -> Result<T, ValueError>`.
    Plain(fn(&str) -> Result<T, ValueError>),
    /// `fn(&str, &mut CodecNotes) -> Result<T, ValueError>`.
    Noted(fn(&str, &mut CodecNotes) -> Result<T, ValueError>),
    /// `fn(&str, &Phrases) -> Result<T, ValueError>`: a reader of words by
    /// meaning (yes, no, none), given the type's phrase table.
    Worded(fn(&str, &'static Phrases) -> Result<T, ValueError>),
}

impl<T> Codec<T> {
    /// This codec, with the `keeper` of its type when values of it are
    /// kept across the readings of a run (see [`TypedSections`]).
    pub fn kept(self, keeper: Option<Keeper<T>>) -> Kept<T> {
        Kept {
            codec: self,
            keeper,
        }
    }

    /// Reads `content` (trimmed), a section of a type worded by `phrases`.
    fn read(
        self,
        content: &str,
        phrases: &'static Phrases,
        notes: &mut CodecNotes,
    ) -> Result<T, ValueError> {
        match self {
            Codec::Plain(read) => read(content),
            Codec::Noted(read) => read(content, notes),
            Codec::Worded(read) => read(content, phrases),
        }
    }
}

/// A section's [`Codec`], and how its values are kept across the readings
/// of a run, when they are: one argument, whose type is the section's, so
/// that an error about that type points at the field (the derive spans it
/// there).
pub struct Kept<T> {
    codec: Codec<T>,
    keeper: Option<Keeper<T>>,
}

/// What a section's content reads as, before the field's own rules.
enum Found<T> {
    Absent,
    Empty,
    NotApplicable,
    Value(T),
    Problem,
}

/// Reads a derived type `T` from `sections`, already found in `raw`: a
/// reader over its specs, given the examples of its tables and records,
/// reads its fields and collects every problem. What a derived type's
/// `parse_sections` and `parse_sections_split` come down to.
///
/// A section whose value `typed` holds for its content is taken from there
/// and not read again; when `T` is not read, the values of the sections
/// that were read are left in `typed` for the next reading of the run.
pub(crate) fn read_type<'a, T: Sections + SectionSet>(
    raw: &'a str,
    sections: SectionMap<'a>,
    typed: &mut TypedSections,
) -> (Result<T, Feedback>, Vec<JsonProvenance>) {
    let mut reader = SectionReader::with_sections(raw, T::SPECS, T::lang(), sections);
    reader.typed = std::mem::take(typed);
    let mut shapes = Vec::new();
    T::shapes(0, &mut shapes);
    for (index, shape) in shapes {
        reader.shape(index, shape);
    }
    let value = T::read(&mut reader, 0);
    *typed = std::mem::take(&mut reader.typed);
    reader.finish(value)
}

impl<'a> SectionReader<'a> {
    /// Splits `raw` into the sections of `specs`.
    pub fn new(raw: &'a str, specs: &'static [SectionSpec], lang: Lang) -> Self {
        SectionReader::with_sections(raw, specs, lang, split_sections(raw, specs))
    }

    /// Reads `sections`, already found in `raw`.
    pub fn with_sections(
        raw: &'a str,
        specs: &'static [SectionSpec],
        lang: Lang,
        sections: SectionMap<'a>,
    ) -> Self {
        SectionReader {
            raw,
            specs,
            map: sections,
            lang,
            problems: Vec::new(),
            shapes: Vec::new(),
            json: Vec::new(),
            typed: TypedSections::default(),
            valued: Vec::new(),
        }
    }

    /// Gives the section at `index` an example built from its type when it
    /// has no `example` of its own: a table's columns, a record's labels.
    pub fn shape(&mut self, index: usize, shape: Shape) {
        self.shapes.push((index, shape));
    }

    /// A required section read with `codec`; `None` when a problem was
    /// recorded. With a keeper, a value typed earlier in the run from the
    /// same content is used instead of reading it again.
    pub fn required<T>(&mut self, index: usize, codec: Kept<T>) -> Option<T> {
        match self.read(index, codec, false) {
            Found::Value(value) => Some(value),
            Found::Absent => {
                self.push(index, ProblemKind::Missing);
                None
            }
            Found::Empty | Found::NotApplicable => {
                self.push(index, ProblemKind::Empty);
                None
            }
            Found::Problem => None,
        }
    }

    /// An optional section: absent, empty, `N/A`, `None` or `无` give `Some(None)`.
    pub fn optional<T>(&mut self, index: usize, codec: Kept<T>) -> Option<Option<T>> {
        match self.read(index, codec, true) {
            Found::Value(value) => Some(Some(value)),
            Found::Absent | Found::Empty | Found::NotApplicable => Some(None),
            Found::Problem => None,
        }
    }

    /// A `#[section(default)]` section: absent, empty or `N/A` give `T::default()`.
    pub fn or_default<T: Default>(&mut self, index: usize, codec: Kept<T>) -> Option<T> {
        match self.read(index, codec, true) {
            Found::Value(value) => Some(value),
            Found::Absent | Found::Empty | Found::NotApplicable => Some(T::default()),
            Found::Problem => None,
        }
    }

    /// The way of `ways` the reply's headers choose, its sections starting
    /// at position `offset` of the specs: the one way (variant) with a
    /// section in the reply (present, even empty). With none, or with
    /// sections of several, the problem is recorded (naming the enum and
    /// every way's headers) and `None` returned.
    pub fn choose(&mut self, ways: &WaysSpec, offset: usize) -> Option<usize> {
        let enum_ways = ways.shifted(offset);
        let mut found: Vec<(usize, Vec<usize>)> = Vec::new();
        for variant in 0..enum_ways.ways.len() {
            let present: Vec<usize> = enum_ways
                .way_range(variant)
                .into_iter()
                .flatten()
                .filter(|&index| self.map.content(index).is_some())
                .collect();
            if !present.is_empty() {
                found.push((variant, present));
            }
        }
        if let [(variant, _)] = found.as_slice() {
            return Some(*variant);
        }
        let way = |variant: usize, indices: &mut dyn Iterator<Item = usize>| {
            let headers = indices
                .filter_map(|index| Some(self.specs.get(index)?.header.to_owned()))
                .collect();
            Way::new(enum_ways.ways[variant].name, headers)
        };
        let every_way: Vec<Way> = (0..enum_ways.ways.len())
            .map(|variant| {
                way(
                    variant,
                    &mut enum_ways.way_range(variant).into_iter().flatten(),
                )
            })
            .collect();
        let kind = if found.is_empty() {
            ProblemKind::NoWay {
                enum_name: enum_ways.name.to_owned(),
                ways: every_way,
            }
        } else {
            ProblemKind::MixedWays {
                enum_name: enum_ways.name.to_owned(),
                found: found
                    .iter()
                    .map(|(variant, present)| way(*variant, &mut present.iter().copied()))
                    .collect(),
                ways: every_way,
            }
        };
        // About the answer as a whole (no header): the whole answer is asked
        // for again.
        self.problems
            .push((enum_ways.start, Problem::new(String::new(), kind)));
        None
    }

    /// Records what a `#[section(validate = ...)]` function said of a value
    /// that parsed (its error's text); `None` (the value had a problem
    /// already, or an optional section is absent) is skipped.
    pub fn validate(&mut self, index: usize, verdict: Option<Result<(), String>>) {
        if let Some(Err(message)) = verdict {
            self.push(index, ProblemKind::Invalid { message });
        }
    }

    /// Checks a value that parsed (`None`: none to check) against the
    /// bounds of the section at `index` (`#[section(min = .., max = ..)]`),
    /// recording the problem when it is outside. True when it is within,
    /// or there is no value: the field's validator runs only then, so one
    /// section gets one problem.
    pub fn bounds<T: Bounded + ?Sized>(&mut self, index: usize, value: Option<&T>) -> bool {
        let (Some(value), Some(spec)) = (value, self.specs.get(index)) else {
            return true;
        };
        match value.check_bounds(&spec.bounds) {
            Ok(()) => true,
            Err(error) => {
                let problem = error.into_problem("");
                self.push(index, problem);
                false
            }
        }
    }

    /// Records what a `#[sections(validate = ...)]` rule said of a value
    /// whose every section parsed (its error's text), the type's sections
    /// starting at position `offset`. `concerns` gives, from there, the
    /// first position and the number of the sections the rule names; a
    /// rule that names none is about the whole answer. True when the rule
    /// passed.
    pub fn rule(
        &mut self,
        offset: usize,
        concerns: &[(usize, usize)],
        verdict: Result<(), String>,
    ) -> bool {
        let Err(message) = verdict else {
            return true;
        };
        let indices: Vec<usize> = concerns
            .iter()
            .flat_map(|&(start, len)| offset + start..offset + start + len)
            .collect();
        let headers: Vec<String> = indices
            .iter()
            .filter_map(|&index| Some(self.specs.get(index)?.header.to_owned()))
            .collect();
        let header = headers.first().cloned().unwrap_or_default();
        // A rule about the whole answer is said after the sections' problems.
        let at = indices.first().copied().unwrap_or(usize::MAX);
        let mut problem = Problem::new(header, ProblemKind::Rule { message, headers });
        problem.field = indices
            .first()
            .and_then(|&index| Some(self.specs.get(index)?.field.to_owned()));
        self.problems.push((at, problem));
        false
    }

    /// Keeps the value of the section at `index` for the next reading of
    /// the run, when the section gave it in this reading with no problem
    /// (a validator that refused it, or its bounds, leave it out). Called
    /// by generated code for each section's value when the type as a whole
    /// was not read.
    pub fn keep<T>(&mut self, index: usize, value: Option<T>, keeper: Option<Keeper<T>>) {
        let (Some(value), Some(keeper)) = (value, keeper) else {
            return;
        };
        if !self.valued.contains(&index) || self.problems.iter().any(|(at, _)| *at == index) {
            return;
        }
        let Some(content) = self.map.content(index) else {
            return;
        };
        let header = self.specs.get(index).map(|spec| spec.header);
        let json = self
            .json
            .iter()
            .find(|provenance| Some(provenance.header) == header)
            .map(|provenance| provenance.report.clone());
        self.typed.put(index, content.trim(), value, json, keeper);
    }

    /// The value built from the sections read, when no problem was recorded;
    /// otherwise every problem, in the order of the sections, missing ones
    /// with rename hints where a header was written under another name or
    /// inside a line. Beside it, how each JSON section was read.
    ///
    /// `value` is `None` exactly when some section gave no value, and then a
    /// problem was recorded; should a value be missing without one, the
    /// feedback says so rather than panic.
    pub fn finish<T>(mut self, value: Option<T>) -> (Result<T, Feedback>, Vec<JsonProvenance>) {
        let json = std::mem::take(&mut self.json);
        let result = match value {
            Some(value) if self.problems.is_empty() => Ok(value),
            _ => Err(self.feedback()),
        };
        (result, json)
    }

    fn feedback(mut self) -> Feedback {
        let mut feedback = Feedback::new(self.lang);
        if self.problems.is_empty() {
            feedback.push(Problem::new(
                String::new(),
                ProblemKind::Other {
                    message: "twr: a section gave no value and no problem (a bug in twr)".into(),
                },
            ));
            return feedback;
        }
        // A section whose label was written inside another's value is told
        // so once: that it must stand on a line of its own.
        let inside: Vec<usize> = self
            .problems
            .iter()
            .filter(|(_, problem)| matches!(problem.kind, ProblemKind::NotOnOwnLine { .. }))
            .map(|(index, _)| *index)
            .collect();
        self.problems.retain(|(index, problem)| {
            !(problem.kind == ProblemKind::Missing && inside.contains(index))
        });
        // Rename hints look for a missing section elsewhere in the reply:
        // a map of one section was made from that section alone.
        if self.map.only().is_none() {
            self.hint_missing();
        }
        self.problems.sort_by_key(|(index, _)| *index);
        for (_, problem) in self.problems {
            feedback.push(problem);
        }
        feedback
    }

    fn read<T>(&mut self, index: usize, kept: Kept<T>, optional: bool) -> Found<T> {
        let Kept { codec, keeper } = kept;
        let untrimmed = match self.map.content(index) {
            None => return Found::Absent,
            Some(content) if content.trim().is_empty() => return Found::Empty,
            // The guide's slot copied as it is (`<free text>`) says nothing.
            Some(content) if self.is_slot(index, content) => return Found::Empty,
            Some(content) if optional && not_applicable(content, phrases(self.lang)) => {
                return Found::NotApplicable
            }
            Some(content) => content,
        };
        let content = untrimmed.trim();
        if let Some((other, line)) = self.label_of_another(index) {
            self.push(other, ProblemKind::NotOnOwnLine { line });
            return Found::Problem;
        }
        let header = self.specs.get(index).map_or("", |spec| spec.header);
        let kept = keeper.and_then(|keeper| self.typed.take(index, content, keeper));
        let read = match kept {
            Some((value, json)) => Ok((value, json)),
            None => {
                let mut notes = CodecNotes::default();
                codec
                    .read(content, phrases(self.lang), &mut notes)
                    .map(|value| (value, notes.json))
            }
        };
        match read {
            Ok((value, json)) => {
                if let Some(report) = json {
                    self.json.push(JsonProvenance { header, report });
                }
                self.valued.push(index);
                Found::Value(value)
            }
            Err(ValueError::Empty) => Found::Empty,
            Err(ValueError::Rows(problems)) => {
                // A table, record or map: one problem per cell, row or line,
                // each keeping its own inline example.
                for problem in problems {
                    let example = problem.example.clone();
                    let place = problem.place.clone();
                    self.push(index, problem.kind);
                    if let Some((_, pushed)) = self.problems.last_mut() {
                        pushed.place = place;
                        if pushed.place.is_some() {
                            pushed.example = example;
                        }
                    }
                }
                Found::Problem
            }
            Err(error) => {
                let problem = error.into_problem(untrimmed);
                self.push(index, problem);
                Found::Problem
            }
        }
    }

    /// Another section whose label (`Final Answer:`) is written inside the
    /// value of the section at `index` on its header's own line, and that
    /// line: the reply gives two answers at once (`Action: search Final
    /// Answer: 42`, a ReAct record that both acts and answers), and reading
    /// either would be a guess. Only the header's line is looked at: on the
    /// lines below, a label inside a sentence (`see the Notes: ...`) is the
    /// writer's own text, as it always was. A JSON section's content is
    /// JSON, where a key may be any name.
    fn label_of_another(&self, index: usize) -> Option<(usize, String)> {
        if self.specs.get(index)?.kind == crate::vocab::ValueKind::Json {
            return None;
        }
        let raw = self.raw;
        let start = self.map.range_at(index)?.start;
        let bytes = raw.as_bytes();
        let line_start = memchr::memrchr(b'\n', bytes.get(..start)?).map_or(0, |i| i + 1);
        let line_end =
            memchr::memchr(b'\n', bytes.get(start..)?).map_or(bytes.len(), |i| start + i);
        // The value starts on a line of its own: no header shares its line.
        if raw.get(line_start..start)?.trim().is_empty() {
            return None;
        }
        let inline = raw.get(start..line_end)?;
        self.specs
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != index)
            .find_map(|(other, spec)| {
                let names: Vec<&str> = std::iter::once(spec.name)
                    .chain(spec.aliases.iter().copied())
                    .collect();
                label_inside(inline, &names)?;
                Some((other, super::excerpt(raw[line_start..line_end].trim())))
            })
    }

    /// True when `content` is the slot the guide shows for a section that
    /// has no example of its own (`<a single whole number>`), or for a list
    /// only lines of its item slot (`- <item>`).
    fn is_slot(&self, index: usize, content: &str) -> bool {
        self.specs.get(index).is_some_and(|spec| {
            if !spec.example.trim().is_empty() {
                return false;
            }
            let slot = crate::prompt::placeholder(&spec.kind, self.lang);
            let slot_lines: Vec<&str> = slot.lines().map(str::trim).collect();
            let mut lines = content
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty());
            lines.clone().next().is_some() && lines.all(|line| slot_lines.contains(&line))
        })
    }

    fn push(&mut self, index: usize, kind: ProblemKind) {
        // A map made to check one section alone leaves the others out on
        // purpose: their absence is no problem worth writing.
        if self.map.only().is_some_and(|only| only != index) {
            return;
        }
        let Some(spec) = self.specs.get(index) else {
            // An index outside the specs is a bug in generated code; still
            // report the problem rather than panic.
            self.problems
                .push((index, Problem::new(String::new(), kind)));
            return;
        };
        let shape = self.shapes.iter().find(|(i, _)| *i == index);
        let example = match shape {
            _ if !spec.example.trim().is_empty() => spec.example.to_owned(),
            Some((_, shape)) => shape(self.lang),
            None => crate::prompt::placeholder(&spec.kind, self.lang),
        };
        let problem = Problem::new(spec.header, kind)
            .with_field(spec.field)
            .with_example(example)
            .with_value_kind(spec.kind);
        self.problems.push((index, problem));
    }

    /// Turns `Missing` problems into rename hints where the reply wrote the
    /// section under another header, or its header inside a line.
    fn hint_missing(&mut self) {
        let specs = self.specs;
        // Per missing section: its index and the names it answers to.
        let missing: Vec<(usize, Vec<&'static str>)> = self
            .problems
            .iter()
            .filter(|(_, problem)| problem.kind == ProblemKind::Missing && problem.place.is_none())
            .map(|(index, _)| {
                let names = specs.get(*index).map_or_else(Vec::new, |spec| {
                    std::iter::once(spec.name)
                        .chain(spec.aliases.iter().copied())
                        .collect()
                });
                (*index, names)
            })
            .collect();
        if missing.is_empty() {
            return;
        }
        let unknown = self.map.unknown_headers();
        let pairs = near_misses(&missing, unknown);
        let text = without_reasoning(self.raw);
        let names: Vec<Vec<&str>> = missing.iter().map(|(_, names)| names.clone()).collect();
        let unread = unread_lines(&text, &names);
        let hints: Vec<Option<ProblemKind>> = missing
            .iter()
            .zip(pairs)
            .zip(unread)
            .map(|(((_, names), pair), unread)| {
                // A renamed header, else the header in a style not read,
                // else the header inside a line of text.
                match (pair.and_then(|u| unknown.get(u)), unread) {
                    (Some(header), _) => Some(ProblemKind::NearMiss {
                        wrote: header.line.clone(),
                    }),
                    (None, Some(wrote)) => Some(ProblemKind::UnreadHeader { wrote }),
                    (None, None) => {
                        inline_mention(&text, names).map(|line| ProblemKind::NotOnOwnLine { line })
                    }
                }
            })
            .collect();
        // The same filter as above, so the hints come back in order.
        let missing_problems = self
            .problems
            .iter_mut()
            .filter(|(_, problem)| problem.kind == ProblemKind::Missing && problem.place.is_none());
        for ((_, problem), hint) in missing_problems.zip(hints) {
            if let Some(kind) = hint {
                problem.kind = kind;
            }
        }
    }
}

/// One of the table's `none_words` (`N/A`, `None`, `无`), or only
/// decoration (`-`): the content says the section does not apply.
fn not_applicable(content: &str, phrases: &Phrases) -> bool {
    strip_decoration(content).is_empty() || none_word(content, phrases)
}

/// Codec: `#[section(from_str)]`; the error's text becomes the feedback.
///
/// The value is read as written first; when `FromStr` refuses it, it is
/// read again without the decoration a model adds to any value (markdown
/// emphasis, code or quote marks around it, a closing full stop), as other
/// values are: `**2025-07-31**` and `2025-07-31.` are the date. A value
/// that parses as written is never changed, and the error reported is the
/// one of the value as written.
pub fn from_str<T: FromStr>(content: &str) -> Result<T, ValueError>
where
    T::Err: Display,
{
    let written = content.trim();
    written.parse::<T>().or_else(|error| {
        let bare = undecorated(written);
        match bare.parse::<T>() {
            Ok(value) if bare != written => Ok(value),
            _ => Err(ValueError::Message(error.to_string())),
        }
    })
}

/// `value` without what a model wraps around a value: matching markdown
/// emphasis or code marks and quotes around it, and a closing `.`, `!`,
/// `,` or `;`, as often as they nest (`**2025-07-31**.`).
fn undecorated(value: &str) -> &str {
    const WRAPPERS: [(&str, &str); 9] = [
        ("**", "**"),
        ("__", "__"),
        ("*", "*"),
        ("_", "_"),
        ("`", "`"),
        ("\"", "\""),
        ("'", "'"),
        ("\u{201c}", "\u{201d}"),
        ("\u{2018}", "\u{2019}"),
    ];
    let mut value = value.trim();
    loop {
        let before = value;
        value = value.trim_end_matches(['.', '!', ',', ';']).trim_end();
        for (open, close) in WRAPPERS {
            if value.len() >= open.len() + close.len() {
                if let Some(inner) = value
                    .strip_prefix(open)
                    .and_then(|rest| rest.strip_suffix(close))
                {
                    value = inner.trim();
                    break;
                }
            }
        }
        if value == before {
            return value;
        }
    }
}

/// Codec: `#[section(json)]`, through [`crate::json`]; notes the layer and
/// repairs that gave the value.
pub(crate) fn json<T: DeserializeOwned>(
    content: &str,
    notes: &mut CodecNotes,
) -> Result<T, ValueError> {
    let extracted = crate::json::extract_parts::<T>(content)
        .map_err(|(path, message)| ValueError::Json { path, message })?;
    notes.json = Some(extracted.report);
    Ok(extracted.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_from_str_value_is_read_without_its_decoration() {
        use std::net::Ipv4Addr;
        let address = Ipv4Addr::new(10, 0, 0, 7);
        for written in [
            "10.0.0.7",
            "**10.0.0.7**",
            "10.0.0.7.",
            "`10.0.0.7`",
            " \"10.0.0.7\"! ",
            "**10.0.0.7**.",
            "_*10.0.0.7*_",
        ] {
            assert_eq!(from_str::<Ipv4Addr>(written), Ok(address), "{written}");
        }
        // The error is the one of the value as written.
        assert_eq!(
            from_str::<Ipv4Addr>("**10.0.0.x**"),
            Err(ValueError::Message("invalid IPv4 address syntax".into()))
        );
        // A value that parses as written keeps what cleaning would remove.
        assert_eq!(from_str::<String>("*a*."), Ok("*a*.".to_owned()));
        assert_eq!(undecorated("**2025-07-31**."), "2025-07-31");
        assert_eq!(undecorated("2025-07-31."), "2025-07-31");
        assert_eq!(undecorated("*"), "*");
    }
    use crate::parse::SectionValue;
    use crate::vocab::Expected;
    use crate::vocab::{Presence, ValueKind};

    /// The codec of a plain section value, as the derive passes it.
    fn value<T: SectionValue>(content: &str) -> Result<T, ValueError> {
        T::parse_section(content)
    }

    const fn spec(
        field: &'static str,
        header: &'static str,
        name: &'static str,
        example: &'static str,
        kind: ValueKind,
        presence: Presence,
    ) -> SectionSpec {
        SectionSpec::new(field, header, name, kind)
            .with_example(example)
            .with_presence(presence)
    }

    static SPECS: [SectionSpec; 5] = [
        spec(
            "plan",
            "[Plan]",
            "Plan",
            "Visit temples",
            ValueKind::Text,
            Presence::Required,
        ),
        spec(
            "timeline",
            "[Timeline]",
            "Timeline",
            "Day 1: ...",
            ValueKind::Text,
            Presence::Required,
        ),
        spec(
            "weeks",
            "[Weeks]",
            "Weeks",
            "6",
            ValueKind::Integer,
            Presence::Required,
        ),
        spec(
            "notes",
            "[Notes]",
            "Notes",
            "",
            ValueKind::Text,
            Presence::Optional,
        ),
        spec(
            "tags",
            "[Tags]",
            "Tags",
            "",
            ValueKind::List(&ValueKind::Text),
            Presence::Default,
        ),
    ];

    #[derive(Debug, PartialEq)]
    struct Plan {
        plan: String,
        timeline: String,
        weeks: u32,
        notes: Option<String>,
        tags: Vec<String>,
    }

    fn short(plan: &str) -> Result<(), String> {
        if plan.len() < 40 {
            Ok(())
        } else {
            Err("keep it under 40 characters".to_owned())
        }
    }

    /// What `#[derive(Sections)]` generates, written by hand.
    fn parse(raw: &str, lang: Lang) -> Result<Plan, Feedback> {
        let mut c = SectionReader::new(raw, &SPECS, lang);
        let weeks = c.required(2, Codec::Plain(value::<u32>).kept(None));
        let plan = c.required(0, Codec::Plain(value::<String>).kept(None));
        let timeline = c.required(1, Codec::Plain(value::<String>).kept(None));
        let notes = c.optional(3, Codec::Plain(value::<String>).kept(None));
        let tags = c.or_default(4, Codec::Plain(value::<Vec<String>>).kept(None));
        c.validate(0, plan.as_deref().map(short));
        let value = match (plan, timeline, weeks, notes, tags) {
            (Some(plan), Some(timeline), Some(weeks), Some(notes), Some(tags)) => Some(Plan {
                plan,
                timeline,
                weeks,
                notes,
                tags,
            }),
            _ => None,
        };
        c.finish(value).0
    }

    #[test]
    fn reads_every_field() {
        let raw = "[Plan]\nTemples\n[Timeline]\nDay 1\n[Weeks]\n6 weeks\n[Notes]\nBring cash\n[Tags]\n- kyoto\n- food";
        assert_eq!(
            parse(raw, Lang::En),
            Ok(Plan {
                plan: "Temples".into(),
                timeline: "Day 1".into(),
                weeks: 6,
                notes: Some("Bring cash".into()),
                tags: vec!["kyoto".into(), "food".into()],
            })
        );
    }

    #[test]
    fn optional_and_default_sections_may_be_absent_or_not_applicable() {
        for notes in [
            "",
            "[Notes]\n",
            "[Notes]\nN/A",
            "[Notes]\nNone.",
            "[Notes]\n无",
            "**Notes:** n/a",
        ] {
            let raw = format!("[Plan]\nT\n[Timeline]\nD\n[Weeks]\n2\n{notes}\n[Tags]\nNone");
            let plan = parse(&raw, Lang::En).unwrap();
            assert_eq!((plan.notes, plan.tags), (None, vec![]), "{notes:?}");
        }
    }

    #[test]
    fn problems_come_out_in_spec_order_with_header_field_kind_and_example() {
        let raw =
            "[Plan]\nA very long plan that goes on and on and on\n[Weeks]\nabout six\n[Tags]\n";
        let feedback = parse(raw, Lang::En).unwrap_err();
        let problems: Vec<_> = feedback
            .problems()
            .iter()
            .map(|p| {
                (
                    p.header.as_str(),
                    p.field.as_deref(),
                    p.kind.clone(),
                    p.example.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            problems,
            [
                (
                    "[Plan]",
                    Some("plan"),
                    ProblemKind::Invalid {
                        message: "keep it under 40 characters".into()
                    },
                    Some("Visit temples")
                ),
                (
                    "[Timeline]",
                    Some("timeline"),
                    ProblemKind::Missing,
                    Some("Day 1: ...")
                ),
                (
                    "[Weeks]",
                    Some("weeks"),
                    ProblemKind::BadValue {
                        expected: Expected::WholeNumber,
                        found: "about six".into()
                    },
                    Some("6")
                ),
            ]
        );
        assert_eq!(
            feedback.to_string(),
            "Thank you. A few parts of your answer need fixing:

1. The [Plan] section needs a change: keep it under 40 characters.
   For example:
   [Plan]
   Visit temples

2. The [Timeline] section is missing. Please add it: the header [Timeline] on a line of its own, then its content.
   For example:
   [Timeline]
   Day 1: ...

3. The [Weeks] section should be a single whole number such as 6; it says 'about six'.

Please write those sections again: each header on a line of its own, followed by its content."
        );
    }

    #[test]
    fn a_single_problem_is_one_sentence_and_a_closing() {
        let raw = "[Plan]\nT\n[Timeline]\nD\n[Weeks]\nabout six";
        assert_eq!(
            parse(raw, Lang::En).unwrap_err().to_string(),
            "The [Weeks] section should be a single whole number such as 6; it says 'about six'.

Please write that section again: the header on a line of its own, followed by its content."
        );
        assert_eq!(
            parse(raw, Lang::Zh).unwrap_err().to_string(),
            "[Weeks] 部分应该是一个整数，例如 6；现在写的是“about six”。

请重新写出这个部分：标题单独占一行，内容写在标题下面。"
        );
    }

    #[test]
    fn a_header_under_another_name_gets_a_rename_hint() {
        let raw = "[Plan]\nT\n[Schedule]\nDay 1\n[Weeks]\n3";
        let feedback = parse(raw, Lang::En).unwrap_err();
        assert_eq!(
            feedback.problems()[0].kind,
            ProblemKind::NearMiss {
                wrote: "[Schedule]".into()
            }
        );
        assert_eq!(
            feedback.to_string(),
            "You wrote [Schedule]; name it [Timeline], on a line of its own.
For example:
[Timeline]
Day 1: ...

Please write that section again: the header on a line of its own, followed by its content."
        );
    }

    #[test]
    fn a_header_written_inside_a_line_is_pointed_out() {
        let raw = "[Plan]\nT\nDay 2: [Timeline] then [Weeks]\n3";
        let feedback = parse(raw, Lang::Zh).unwrap_err();
        assert_eq!(
            feedback
                .problems()
                .iter()
                .map(|p| p.kind.clone())
                .collect::<Vec<_>>(),
            [
                ProblemKind::NotOnOwnLine {
                    line: "Day 2: [Timeline] then [Weeks]".into()
                },
                ProblemKind::NotOnOwnLine {
                    line: "Day 2: [Timeline] then [Weeks]".into()
                },
            ]
        );
        assert!(feedback.to_string().starts_with(
            "谢谢。你的回答有几处需要修改：\n\n1. 标题 [Timeline] 必须单独占一行，但它出现在这一行里：“Day 2: [Timeline] then [Weeks]”。\n   例如：\n   [Timeline]\n   Day 1: ..."
        ));
    }

    #[test]
    fn from_str_errors_become_unreadable_problems() {
        static DATE: [SectionSpec; 1] = [spec(
            "date",
            "[Date]",
            "Date",
            "2025-05-01",
            ValueKind::Custom,
            Presence::Required,
        )];
        let mut c = SectionReader::new("[Date]\nsoon", &DATE, Lang::En);
        assert_eq!(
            c.required(0, Codec::Plain(from_str::<std::net::Ipv4Addr>).kept(None)),
            None
        );
        let feedback = c.finish(None::<()>).0.unwrap_err();
        assert_eq!(
            feedback.problems()[0].kind,
            ProblemKind::Unreadable {
                message: "invalid IPv4 address syntax".into(),
                found: "soon".into()
            }
        );
        assert_eq!(
            feedback.to_string(),
            "The [Date] section could not be read (invalid IPv4 address syntax); it says 'soon'.
For example:
[Date]
2025-05-01

Please write that section again: the header on a line of its own, followed by its content."
        );
    }

    #[test]
    fn bad_list_items_are_named() {
        static NUMS: [SectionSpec; 1] = [spec(
            "days",
            "[Days]",
            "Days",
            "",
            ValueKind::List(&ValueKind::Integer),
            Presence::Required,
        )];
        let mut c = SectionReader::new("[Days]\n1. 3\n2. a few", &NUMS, Lang::En);
        assert_eq!(
            c.required(0, Codec::Plain(value::<Vec<u8>>).kept(None)),
            None
        );
        assert_eq!(
            c.finish(None::<()>).0.unwrap_err().to_string(),
            "Item 2 of the [Days] list should be a single whole number; it says 'a few'.

Please write that section again: the header on a line of its own, followed by its content."
        );
    }

    #[test]
    fn an_index_outside_the_specs_is_a_problem_not_a_panic() {
        let mut c = SectionReader::new("[Plan]\nT", &SPECS, Lang::En);
        assert_eq!(
            c.required(9, Codec::Plain(value::<String>).kept(None)),
            None
        );
        assert_eq!(
            c.finish(None::<()>).0.unwrap_err().into_problems(),
            [Problem::new("", ProblemKind::Missing)]
        );
    }
    #[test]
    fn json_sections_report_how_they_were_read() {
        static JSON: [SectionSpec; 2] = [
            spec("a", "[A]", "A", "", ValueKind::Json, Presence::Required),
            spec("b", "[B]", "B", "", ValueKind::Json, Presence::Required),
        ];
        let mut c = SectionReader::new("[A]\n{'x': 1,}\n[B]\n[1, 2]", &JSON, Lang::En);
        let a = c.required(0, Codec::Noted(super::json::<serde_json::Value>).kept(None));
        let b = c.required(1, Codec::Noted(super::json::<Vec<u8>>).kept(None));
        let (value, reports) = c.finish(a.zip(b));
        assert_eq!(value, Ok((serde_json::json!({"x": 1}), vec![1, 2])));
        assert_eq!(
            reports,
            [
                JsonProvenance {
                    header: "[A]",
                    report: Report::new(
                        crate::json::Layer::Repair,
                        vec![
                            crate::json::Repair::TrailingComma,
                            crate::json::Repair::SingleQuotes
                        ],
                    ),
                },
                JsonProvenance {
                    header: "[B]",
                    report: Report::new(crate::json::Layer::AsIs, vec![]),
                },
            ]
        );
        // A JSON section that fails records nothing.
        let mut c = SectionReader::new("[A]\nnone\n[B]\n[1]", &JSON, Lang::En);
        let a = c.required(0, Codec::Noted(super::json::<serde_json::Value>).kept(None));
        let b = c.required(1, Codec::Noted(super::json::<Vec<u8>>).kept(None));
        let (value, reports) = c.finish(a.zip(b));
        assert!(value.is_err());
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].header, "[B]");
    }
}
