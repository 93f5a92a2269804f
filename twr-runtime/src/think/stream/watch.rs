//! The early-abort watcher: a type's sections read as the reply streams,
//! each one checked by the type's own parser the moment it is complete.

use crate::feedback::{Feedback, Problem, ProblemKind};
use crate::parse::{SectionMap, StreamEvent, StreamReader};
use crate::sections::{ChoiceSpec, Lang, SectionSpec, Sections};

/// The sections of a type, read as a reply streams: the section parser and
/// the check of each section's value, behind a type-erased face so the
/// loop stays generic over parsers only.
pub(crate) trait Watch: Send {
    /// Starts a new reply.
    fn reset(&mut self);
    /// Reads the next chunk of content; what it completed.
    fn push(&mut self, chunk: &str) -> Vec<Found>;
    /// Ends the reply; what the end completed.
    fn finish(&mut self) -> Vec<Found>;
    /// The type's sections.
    fn specs(&self) -> &'static [SectionSpec];
    /// The type's choices between sets of sections.
    fn choices(&self) -> &'static [ChoiceSpec];
    /// The type's phrase table, whose words its values are read with.
    fn lang(&self) -> Lang;
    /// After [`finish`](Watch::finish): the reply as received and its
    /// sections, as [`split_sections`](crate::parse::split_sections) finds
    /// them in it, for the loop to read without splitting it again.
    fn sections(&self) -> Option<(&str, SectionMap<'_>)>;
}

/// What a chunk completed.
pub(crate) enum Found {
    /// The header line of a section arrived.
    Opened { index: usize },
    /// A section, with the problem of its value, if any.
    Section {
        index: usize,
        text: String,
        problem: Option<Box<Problem>>,
    },
    /// A lone `</think>`: everything so far was reasoning.
    Restart,
}

/// Makes the [`Watch`] of a type.
pub(crate) type MakeWatch = fn() -> Box<dyn Watch>;

/// The [`Watch`] of `T`: its sections, and its parser to check each one.
/// Both are `'static` (a slice and a function pointer), whatever `T` is.
pub(crate) fn watch<T: Sections>() -> Box<dyn Watch> {
    Box::new(SectionWatch {
        reader: StreamReader::new(T::specs()),
        specs: T::specs(),
        choices: T::choices(),
        lang: T::lang(),
        parse: problems_of::<T>,
    })
}

/// `T`'s problems with the section at `index` of its specs, alone under
/// its header in `alone` (its content starting at byte `start`), if any.
/// The section is handed over as found: a derived type reads that section
/// only and looks for nothing else in `alone`; a type that implements
/// [`Sections`] by hand and no `parse_sections_split` parses `alone`.
fn problems_of<T: Sections>(alone: &str, index: usize, start: usize) -> Option<Feedback> {
    let content = alone.get(start..).unwrap_or_default();
    let map = SectionMap::only_section(T::specs(), index, content, start..alone.len());
    T::parse_sections_split(alone, map).0.err()
}

struct SectionWatch {
    reader: StreamReader,
    specs: &'static [SectionSpec],
    choices: &'static [ChoiceSpec],
    lang: Lang,
    parse: ProblemsOf,
}

/// How a [`SectionWatch`] checks a section: [`problems_of`] of its type.
type ProblemsOf = fn(&str, usize, usize) -> Option<Feedback>;

impl SectionWatch {
    fn found(&self, events: Vec<StreamEvent>) -> Vec<Found> {
        events
            .into_iter()
            .map(|event| match event {
                StreamEvent::Closed(section) => {
                    let text = self.reader.content(&section).to_string();
                    let spec = &self.specs[section.index];
                    let problem =
                        value_problem(self.parse, section.index, spec, &text).map(Box::new);
                    Found::Section {
                        index: section.index,
                        text,
                        problem,
                    }
                }
                StreamEvent::Opened(section) => Found::Opened {
                    index: section.index,
                },
                StreamEvent::Restart => Found::Restart,
            })
            .collect()
    }
}

impl Watch for SectionWatch {
    fn reset(&mut self) {
        self.reader = StreamReader::new(self.specs);
    }

    fn push(&mut self, chunk: &str) -> Vec<Found> {
        let events = self.reader.push(chunk);
        self.found(events)
    }

    fn finish(&mut self) -> Vec<Found> {
        let events = self.reader.finish();
        self.found(events)
    }

    fn specs(&self) -> &'static [SectionSpec] {
        self.specs
    }

    fn choices(&self) -> &'static [ChoiceSpec] {
        self.choices
    }

    fn lang(&self) -> Lang {
        self.lang
    }

    fn sections(&self) -> Option<(&str, SectionMap<'_>)> {
        Some((self.reader.raw(), self.reader.sections()?))
    }
}

/// The problem of a complete section's value (the section at `index`, its
/// trimmed content `text`): the type's own parser reads the section alone,
/// under its header, and any problem with that section other than its
/// absence counts (a number section with no number, a choice that is none
/// of the choices, a failed validator, JSON that no repair makes fit, an
/// empty section).
fn value_problem(
    parse: ProblemsOf,
    index: usize,
    spec: &SectionSpec,
    text: &str,
) -> Option<Problem> {
    let alone = format!("{}\n{}", spec.header, text);
    let feedback = parse(&alone, index, spec.header.len() + 1)?;
    feedback
        .into_problems()
        .into_iter()
        .find(|problem| problem.header == spec.header && !about_presence(&problem.kind))
}

/// Problems that say a section is not there (yet): never a reason to stop.
fn about_presence(kind: &ProblemKind) -> bool {
    matches!(
        kind,
        ProblemKind::Missing
            | ProblemKind::NearMiss { .. }
            | ProblemKind::UnreadHeader { .. }
            | ProblemKind::NotOnOwnLine { .. }
            | ProblemKind::NoneOf { .. }
            | ProblemKind::NoChoice { .. }
            | ProblemKind::MissingDivider
    )
}
