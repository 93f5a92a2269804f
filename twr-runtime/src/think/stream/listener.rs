//! The transport listener: reads one streamed reply of an attempt through
//! the [`Watch`], reports what completes, and stops the reply early when a
//! section is definitely wrong.

use futures_util::StreamExt as _;

use super::events::{Completed, SectionEvent};
use super::notes::{Note, NoteSinks};
use super::watch::{Found, Watch};
use crate::feedback::{Problem, ProblemKind, Way};
use crate::model::{cut_short, incomplete, ChatModel, Delta, ModelError, Reply, Request, Served};
use crate::sections::{ChoiceSpec, SectionSpec};

/// A streamed reply, read whole or stopped early.
pub(crate) struct Received {
    /// The reply; for a stopped one, what arrived (no usage, no finish).
    pub(crate) reply: Reply,
    /// Why it was stopped, when it was.
    pub(crate) aborted: Option<Problem>,
    /// Where it came from.
    pub(crate) served: Served,
    /// The model that answered, when not the one called
    /// ([`Response::model`](crate::model::Response::model)).
    pub(crate) model: Option<String>,
}

/// Reads the streamed replies of one run, attempt by attempt.
pub(crate) struct Listener<'r> {
    watch: Box<dyn Watch>,
    early_abort: bool,
    notes: NoteSinks<'r>,
    /// The sections completed so far in the run.
    completed: Completed,
    /// The sections kept from earlier replies when the attempt started.
    kept: Completed,
    attempt: usize,
    /// Per choice, the way this reply took, with the headers it opened in
    /// that way.
    ways: Vec<Option<(usize, Vec<&'static str>)>>,
    /// Per section, the attempt it was last reported complete in, over the
    /// whole run: what a section written again replaces.
    reported: Vec<Option<usize>>,
}

impl<'r> Listener<'r> {
    pub(crate) fn new(watch: Box<dyn Watch>, early_abort: bool, notes: NoteSinks<'r>) -> Self {
        let (specs, choices, lang) = (watch.specs(), watch.choices(), watch.lang());
        Listener {
            watch,
            early_abort,
            notes,
            completed: Completed::new(specs, choices, lang),
            kept: Completed::new(specs, choices, lang),
            attempt: 0,
            ways: vec![None; choices.len()],
            reported: vec![None; specs.len()],
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
        self.kept = Completed::new(self.watch.specs(), self.watch.choices(), self.watch.lang());
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

    /// Reads one streamed reply of `model` to `request` (asked to stream).
    pub(crate) async fn read<M: ChatModel + ?Sized>(
        &mut self,
        model: &M,
        request: Request<'_>,
    ) -> Result<Received, ModelError> {
        self.watch.reset();
        self.completed = self.kept.clone();
        self.ways.iter_mut().for_each(|way| *way = None);
        let mut reply = Reply::default();
        let mut reasoning = String::new();
        let response = model.call(request.with_stream(true)).await?;
        let (served, model) = (response.served, response.model);
        let mut stream = response.deltas;
        let mut done = false;
        let mut pieces = 0;
        while let Some(item) = stream.next().await {
            if matches!(item, Ok(Delta::Content(_) | Delta::Reasoning(_))) {
                pieces += 1;
            }
            match item {
                Ok(Delta::Content(text)) => {
                    reply.content.push_str(&text);
                    self.receiving(reply.content.len(), reasoning.len(), pieces);
                    let found = self.watch.push(&text);
                    if let Some((problem, header)) = self.report(found) {
                        // Dropping the stream closes the connection: the
                        // server stops writing the rest.
                        drop(stream);
                        reply.reasoning = (!reasoning.is_empty()).then_some(reasoning);
                        self.notes.send(Note::Aborted {
                            attempt: self.attempt,
                            header,
                            received: reply.content.len(),
                        });
                        return Ok(Received {
                            reply,
                            aborted: Some(problem),
                            served,
                            model,
                        });
                    }
                }
                Ok(Delta::Reasoning(text)) => {
                    reasoning.push_str(&text);
                    self.receiving(reply.content.len(), reasoning.len(), pieces);
                }
                Ok(Delta::Done {
                    usage,
                    finish_reason,
                }) => {
                    reply.usage = usage;
                    reply.finish_reason = finish_reason;
                    done = true;
                    break;
                }
                Err(error) => {
                    reply.reasoning = (!reasoning.is_empty()).then_some(reasoning);
                    return Err(incomplete(error, reply));
                }
            }
        }
        drop(stream);
        reply.reasoning = (!reasoning.is_empty()).then_some(reasoning);
        if !done {
            return Err(incomplete(cut_short(), reply));
        }
        let found = self.watch.finish();
        // The reply is complete: nothing left to save by stopping.
        let early_abort = std::mem::replace(&mut self.early_abort, false);
        self.report(found);
        self.early_abort = early_abort;
        Ok(Received {
            reply,
            aborted: None,
            served,
            model,
        })
    }

    /// Reports how much of the reply has arrived.
    fn receiving(&self, received: usize, reasoning: usize, pieces: usize) {
        self.notes.send(Note::Receiving {
            attempt: self.attempt,
            received,
            reasoning,
            pieces,
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
                    self.ways.iter_mut().for_each(|way| *way = None);
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
                variant: innermost_way(self.watch.choices(), index),
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
    /// a way of a choice tells the way the reply takes: it is reported, and
    /// sections kept of the choice's other ways are forgotten. One of a
    /// second way makes the reply mixed: its problem is returned.
    fn opened(&mut self, index: usize) -> Option<Problem> {
        let (specs, choices) = (self.watch.specs(), self.watch.choices());
        let header = specs.get(index)?.header;
        let mut mixed = None;
        for (number, choice) in choices.iter().enumerate() {
            let Some(way) = choice.variant_of(index) else {
                continue;
            };
            match &mut self.ways[number] {
                Some((taken, headers)) if *taken == way => {
                    if !headers.contains(&header) {
                        headers.push(header);
                    }
                }
                Some((taken, headers)) => {
                    let found = [(*taken, headers.clone()), (way, vec![header])];
                    mixed.get_or_insert_with(|| mixed_problem(specs, choice, &found));
                }
                slot @ None => {
                    *slot = Some((way, vec![header]));
                    self.completed.keep_only_way(choice, way);
                    self.notes.send(Note::Chosen {
                        attempt: self.attempt,
                        choice: choice.name,
                        variant: choice.variants[way].name,
                    });
                }
            }
        }
        mixed
    }
}

/// The name of the innermost way the section at `index` belongs to.
fn innermost_way(choices: &[ChoiceSpec], index: usize) -> Option<&'static str> {
    choices
        .iter()
        .filter_map(|choice| {
            let way = choice.variant_of(index)?;
            let range = choice.variant_range(way)?;
            Some((range.len(), choice.variants[way].name))
        })
        .min_by_key(|(len, _)| *len)
        .map(|(_, name)| name)
}

/// The problem of a reply that took several ways of `choice`: `found`
/// gives each way taken and the headers written in it.
fn mixed_problem(
    specs: &[SectionSpec],
    choice: &ChoiceSpec,
    found: &[(usize, Vec<&'static str>)],
) -> Problem {
    let way = |way: usize, headers: Vec<String>| Way::new(choice.variants[way].name, headers);
    let ways = (0..choice.variants.len())
        .map(|number| {
            let headers = choice
                .variant_range(number)
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
        ProblemKind::MixedChoice {
            choice: choice.name.to_owned(),
            found,
            ways,
        },
    )
}
