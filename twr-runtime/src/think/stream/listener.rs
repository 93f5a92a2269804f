//! The transport listener: watches the pieces of one streamed reply of an
//! attempt as the transport reads them, through the [`Watch`], reports what
//! completes, and tells the transport to stop the reply early when a
//! section is definitely wrong.

use super::events::{Completed, SectionEvent};
use super::notes::{Note, NoteSinks};
use super::watch::{Found, Watch};
use crate::feedback::{Problem, ProblemKind, Way};
use crate::model::{Delta, ModelError};
use crate::parse::typed::TypedSections;
use crate::parse::SectionMap;
use crate::sections::{SectionSpec, WaysSpec};

/// Watches the streamed replies of one run, attempt by attempt.
pub(crate) struct Listener<'r> {
    watch: Box<dyn Watch>,
    early_abort: bool,
    notes: NoteSinks<'r>,
    /// The sections completed so far in the run.
    completed: Completed,
    /// The sections kept from earlier replies when the attempt started.
    kept: Completed,
    attempt: usize,
    /// Per enum of ways, the way this reply took, with the headers it
    /// opened in that way.
    way_taken: Vec<Option<(usize, Vec<&'static str>)>>,
    /// Per section, the attempt it was last reported complete in, over the
    /// whole run: what a section written again replaces.
    reported: Vec<Option<usize>>,
    /// Bytes of content and of reasoning of this reply so far, and its
    /// pieces of either.
    received: usize,
    reasoning: usize,
    pieces: usize,
}

impl<'r> Listener<'r> {
    pub(crate) fn new(watch: Box<dyn Watch>, early_abort: bool, notes: NoteSinks<'r>) -> Self {
        let (specs, ways, lang) = (watch.specs(), watch.ways(), watch.lang());
        Listener {
            watch,
            early_abort,
            notes,
            completed: Completed::new(specs, ways, lang),
            kept: Completed::new(specs, ways, lang),
            attempt: 0,
            way_taken: vec![None; ways.len()],
            reported: vec![None; specs.len()],
            received: 0,
            reasoning: 0,
            pieces: 0,
        }
    }

    /// Attempt `attempt` starts; `kept` gives, for each section, the text
    /// kept from an earlier reply (patch retries) and its attempt.
    pub(crate) fn start<'k>(
        &mut self,
        attempt: usize,
        kept: impl Iterator<Item = Option<(&'k str, usize)>>,
    ) {
        self.attempt = attempt;
        self.kept = Completed::new(self.watch.specs(), self.watch.ways(), self.watch.lang());
        for (index, slot) in kept.enumerate() {
            if let Some((text, from)) = slot {
                self.kept.set(index, text, from);
            }
        }
        self.notes.send(Note::AttemptStarted(attempt));
    }

    /// A request of the attempt failed and is sent again.
    pub(crate) fn transport_retry(&self, error: &ModelError) {
        self.notes.send(Note::TransportRetry {
            attempt: self.attempt,
            error: crate::model::error::report(error),
        });
    }

    /// A reply of the attempt starts (its first request, or a transport
    /// retry): nothing of it is read yet.
    pub(crate) fn begin(&mut self) {
        self.watch.reset();
        self.completed = self.kept.clone();
        self.way_taken.iter_mut().for_each(|way| *way = None);
        self.received = 0;
        self.reasoning = 0;
        self.pieces = 0;
    }

    /// The next piece of the reply arrived: what it completes is reported;
    /// the problem to stop the reply at, when early abort is on and a
    /// section is definitely wrong.
    pub(crate) fn observe(&mut self, delta: &Delta) -> Option<Problem> {
        let text = match delta {
            Delta::Content(text) => text,
            Delta::Reasoning(text) => {
                self.pieces += 1;
                self.reasoning += text.len();
                self.receiving();
                return None;
            }
            _ => return None,
        };
        self.pieces += 1;
        self.received += text.len();
        self.receiving();
        let found = self.watch.push(text);
        let (problem, header) = self.report(found)?;
        self.notes.send(Note::Aborted {
            attempt: self.attempt,
            header,
            received: self.received,
        });
        Some(problem)
    }

    /// The reply is complete: what its end completes is reported (there
    /// is nothing left to save by stopping).
    pub(crate) fn finish(&mut self) {
        let found = self.watch.finish();
        let early_abort = std::mem::replace(&mut self.early_abort, false);
        self.report(found);
        self.early_abort = early_abort;
    }

    /// The sections of the reply `raw`, found as it streamed, when `raw` is
    /// the reply the listener read to its end: with the text they were
    /// found in (equal to `raw`), which the map borrows.
    pub(crate) fn sections_of(&self, raw: &str) -> Option<(&str, SectionMap<'_>)> {
        self.watch
            .sections()
            .filter(|(streamed, _)| *streamed == raw)
    }

    /// The values of the sections checked as the reply streamed, for the
    /// reader, which then does not read them again.
    pub(crate) fn take_typed(&mut self) -> TypedSections {
        self.watch.take_typed()
    }

    /// Reports how much of the reply has arrived.
    fn receiving(&self) {
        self.notes.send(Note::Receiving {
            attempt: self.attempt,
            received: self.received,
            reasoning: self.reasoning,
            pieces: self.pieces,
        });
    }

    /// Reports what a chunk completed; the problem to stop at, if any, with
    /// the header it was found at.
    fn report(&mut self, found: Vec<Found>) -> Option<(Problem, &'static str)> {
        for found in found {
            let (index, text, problem) = match found {
                Found::Section {
                    index,
                    text,
                    problem,
                } => (index, text, problem.map(|problem| *problem)),
                Found::Opened { index } => match self.opened(index) {
                    Some(mixed) if self.early_abort => {
                        return Some((mixed, self.watch.specs()[index].header))
                    }
                    _ => continue,
                },
                Found::Restart => {
                    // The sections reported so far were reasoning.
                    self.completed = self.kept.clone();
                    self.way_taken.iter_mut().for_each(|way| *way = None);
                    continue;
                }
            };
            let spec = &self.watch.specs()[index];
            let replaces = self.reported[index].or_else(|| self.kept.attempt_at(index));
            self.reported[index] = Some(self.attempt);
            self.completed.set(index, &text, self.attempt);
            let stop = self.early_abort && problem.is_some();
            self.notes.send(Note::Section(Box::new(SectionEvent {
                attempt: self.attempt,
                index,
                field: spec.field,
                header: spec.header,
                variant: innermost_way(self.watch.ways(), index),
                text,
                problem: problem.clone(),
                replaces,
                completed: self.completed.clone(),
            })));
            if stop {
                return problem.map(|problem| (problem, spec.header));
            }
        }
        None
    }

    /// The header line of the section at `index` arrived. The first one of
    /// a way of an enum tells the way the reply takes: it is reported, and
    /// sections kept of the enum's other ways are forgotten. One of a
    /// second way makes the reply mixed: its problem is returned.
    fn opened(&mut self, index: usize) -> Option<Problem> {
        let (specs, ways) = (self.watch.specs(), self.watch.ways());
        let header = specs.get(index)?.header;
        let mut mixed = None;
        for (number, enum_ways) in ways.iter().enumerate() {
            let Some(way) = enum_ways.way_of(index) else {
                continue;
            };
            match &mut self.way_taken[number] {
                Some((taken, headers)) if *taken == way => {
                    if !headers.contains(&header) {
                        headers.push(header);
                    }
                }
                Some((taken, headers)) => {
                    let found = [(*taken, headers.clone()), (way, vec![header])];
                    mixed.get_or_insert_with(|| mixed_problem(specs, enum_ways, &found));
                }
                slot @ None => {
                    *slot = Some((way, vec![header]));
                    self.completed.keep_only_way(enum_ways, way);
                    self.notes.send(Note::Chosen {
                        attempt: self.attempt,
                        enum_name: enum_ways.name,
                        variant: enum_ways.ways[way].name,
                    });
                }
            }
        }
        mixed
    }
}

/// The name of the innermost way the section at `index` belongs to.
fn innermost_way(ways: &[WaysSpec], index: usize) -> Option<&'static str> {
    ways.iter()
        .filter_map(|enum_ways| {
            let way = enum_ways.way_of(index)?;
            let range = enum_ways.way_range(way)?;
            Some((range.len(), enum_ways.ways[way].name))
        })
        .min_by_key(|(len, _)| *len)
        .map(|(_, name)| name)
}

/// The problem of a reply that took several ways of `enum_ways`: `found`
/// gives each way taken and the headers written in it.
fn mixed_problem(
    specs: &[SectionSpec],
    enum_ways: &WaysSpec,
    found: &[(usize, Vec<&'static str>)],
) -> Problem {
    let way = |way: usize, headers: Vec<String>| Way::new(enum_ways.ways[way].name, headers);
    let ways = (0..enum_ways.ways.len())
        .map(|number| {
            let headers = enum_ways
                .way_range(number)
                .into_iter()
                .flatten()
                .filter_map(|index| Some(specs.get(index)?.header.to_owned()))
                .collect();
            way(number, headers)
        })
        .collect();
    let found = found
        .iter()
        .map(|(number, headers)| way(*number, headers.iter().map(|h| (*h).to_owned()).collect()))
        .collect();
    Problem::new(
        String::new(),
        ProblemKind::MixedWays {
            enum_name: enum_ways.name.to_owned(),
            found,
            ways,
        },
    )
}
