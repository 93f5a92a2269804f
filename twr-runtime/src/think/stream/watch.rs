//! The early-abort watcher: a type's sections read as the reply streams,
//! each one checked by the type's own parser the moment it is complete.

use crate::feedback::{Feedback, Problem, ProblemKind};
use crate::parse::typed::TypedSections;
use crate::parse::{SectionMap, StreamEvent, StreamReader};
use crate::sections::{Lang, SectionSpec, Sections, WaysSpec};

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
    /// The type's ways to answer (its enums deriving `Sections`).
    fn ways(&self) -> &'static [WaysSpec];
    /// The type's phrase table, whose words its values are read with.
    fn lang(&self) -> Lang;
    /// After [`finish`](Watch::finish): the reply as received and its
    /// sections, as [`split_sections`](crate::parse::split_sections) finds
    /// them in it, for the loop to read without splitting it again.
    fn sections(&self) -> Option<(&str, SectionMap<'_>)>;
    /// The values of the sections checked in this reply, for the loop's
    /// reading of the whole reply (which then does not read them again).
    fn take_typed(&mut self) -> TypedSections;
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
        ways: T::ways(),
        lang: T::lang(),
        parse: problems_of::<T>,
        typed: TypedSections::default(),
    })
}

/// `T`'s problems with the one section `only` holds, found in `text` (the
/// reply so far), if any. The section is handed over as found: a derived
/// type reads that section only, keeping its value in `typed` for the
/// reading of the whole reply; a type that implements [`Sections`] by hand
/// parses the section alone under its header.
fn problems_of<T: Sections>(
    text: &str,
    only: SectionMap<'_>,
    typed: &mut TypedSections,
) -> Option<Feedback> {
    T::parse_sections_typed(text, only, typed).0.err()
}

struct SectionWatch {
    reader: StreamReader,
    specs: &'static [SectionSpec],
    ways: &'static [WaysSpec],
    lang: Lang,
    parse: ProblemsOf,
    /// The values of the sections checked in this reply.
    typed: TypedSections,
}

/// How a [`SectionWatch`] checks a section: [`problems_of`] of its type.
type ProblemsOf = fn(&str, SectionMap<'_>, &mut TypedSections) -> Option<Feedback>;

impl SectionWatch {
    fn found(&mut self, events: Vec<StreamEvent>) -> Vec<Found> {
        events
            .into_iter()
            .map(|event| match event {
                StreamEvent::Closed(section) => {
                    let content = self.reader.content(&section);
                    let only = SectionMap::only_section(
                        self.specs,
                        section.index,
                        content,
                        section.range.clone(),
                    );
                    let text = content.to_string();
                    let spec = &self.specs[section.index];
                    let feedback = (self.parse)(self.reader.text(), only, &mut self.typed);
                    let problem = value_problem(feedback, spec).map(Box::new);
                    Found::Section {
                        index: section.index,
                        text,
                        problem,
                    }
                }
                StreamEvent::Opened(section) => Found::Opened {
                    index: section.index,
                },
                StreamEvent::Restart => {
                    // The sections checked so far were reasoning.
                    self.typed = TypedSections::default();
                    Found::Restart
                }
            })
            .collect()
    }
}

impl Watch for SectionWatch {
    fn reset(&mut self) {
        self.reader = StreamReader::new(self.specs);
        self.typed = TypedSections::default();
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

    fn ways(&self) -> &'static [WaysSpec] {
        self.ways
    }

    fn lang(&self) -> Lang {
        self.lang
    }

    fn sections(&self) -> Option<(&str, SectionMap<'_>)> {
        Some((self.reader.raw(), self.reader.sections()?))
    }

    fn take_typed(&mut self) -> TypedSections {
        std::mem::take(&mut self.typed)
    }
}

/// The problem of a complete section's value, of the section `spec`, from
/// what the type's own parser said reading it alone: any problem with that
/// section other than its absence counts (a number section with no number,
/// a Choice value that is none of its words, a failed validator, JSON that no
/// repair makes fit, an empty section).
fn value_problem(feedback: Option<Feedback>, spec: &SectionSpec) -> Option<Problem> {
    feedback?
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
            | ProblemKind::NoWay { .. }
            | ProblemKind::MissingDivider
    )
}
