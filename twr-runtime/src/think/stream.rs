//! Streamed runs: each section read the moment it is complete, reported to
//! the caller ([`Think::on_section`](super::Think::on_section),
//! [`Think::stream`](super::Think::stream)), and a reply stopped as soon as
//! one of its sections is definitely wrong
//! ([`Think::early_abort`](super::Think::early_abort)).
//!
//! The reply arrives through [`ChatModel::call`], asked to stream; its content goes
//! through the incremental section parser ([`SectionStream`]), which reads
//! each byte a bounded number of times however the reply is chunked. When a
//! section closes, its text alone is read by the type's own parser (as the
//! reply `[Header]\ntext`): a problem with that section's value (not its
//! absence) makes it invalid. Nothing else is parsed early: the reply as a
//! whole is read by the loop as before, so a streamed run ends exactly as a
//! run of the same replies read whole.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt as _;
use serde::de::DeserializeOwned;

use super::conversation::single_way;
use super::outcome::AttemptKind;
use crate::feedback::{Feedback, Problem, ProblemKind, Way};
use crate::model::{cut_short, incomplete, ChatModel, Delta, ModelError, Reply, Request, Served};
use crate::parse::{SectionValue, StreamEvent, StreamReader, ValueError};
use crate::sections::{ChoiceSpec, SectionSpec, Sections, ValueKind};

/// A section of a streamed reply, the moment it is complete: given to
/// [`Think::on_section`](super::Think::on_section) and carried by
/// [`Progress::SectionComplete`] and [`Progress::SectionInvalid`].
///
/// Besides the section's text, its value is there typed
/// ([`SectionEvent::value`]), and so is every section completed so far in
/// the run ([`SectionEvent::completed`]): with patch retries, the sections
/// kept from earlier replies merged with this reply's.
///
/// ```
/// use std::sync::Mutex;
/// use twr_runtime::{ScriptedModel, Sections, Think};
///
/// #[derive(Debug, Sections)]
/// struct Trip {
///     plan: String,
///     days: u32,
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["[Plan]\nSee the temples\n[Days]\n3"]).chunk_size(5);
/// let seen = Mutex::new(Vec::new());
/// let outcome = Think::new(&model)
///     .on_section(|event| {
///         // Typed, as soon as [Days] is complete:
///         let days: Option<u32> = event.completed.get::<u32>("days").and_then(Result::ok);
///         seen.lock().unwrap().push(format!("{} {:?} {days:?}", event.header, event.text));
///     })
///     .run::<Trip>("Plan a trip")
///     .await?;
/// assert_eq!(outcome.value.days, 3);
/// assert_eq!(
///     seen.into_inner().unwrap(),
///     ["[Plan] \"See the temples\" None", "[Days] \"3\" Some(3)"]
/// );
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SectionEvent {
    /// The attempt whose reply this section is part of (1-based).
    pub attempt: usize,
    /// The section's position in the type's sections (`T::specs()`).
    pub index: usize,
    /// The Rust field name.
    pub field: &'static str,
    /// The header as shown to the model, with brackets (`[Plan]`).
    pub header: &'static str,
    /// The way of answering the section belongs to, for a type with a
    /// choice between sets of sections (an enum deriving `Sections`, or a
    /// flattened one): the variant's name (`Search`); the innermost one for
    /// a choice inside a way. `None` for a section shared by every way.
    pub variant: Option<&'static str>,
    /// The section's text, trimmed.
    pub text: String,
    /// What is wrong with the section's value, when something is; `None`
    /// for a valid section.
    pub problem: Option<Problem>,
    /// Every section completed so far in the run, this one included: the
    /// merged state a patch retry builds on.
    pub completed: Completed,
}

impl SectionEvent {
    /// The section's value read as a `V`, by the rules the derive uses for a
    /// field of that type (`u32`, `bool`, `Vec<String>`, a `Choice` enum,
    /// ...). An error when the text is not a `V`, or when the section does
    /// not hold `V`'s kind of value (asking a number section for a `bool`).
    pub fn value<V: SectionValue>(&self) -> Result<V, ValueError> {
        self.completed.read(self.index, &self.text)
    }

    /// The rows of a `#[section(table)]` section, each a `R`, read as the
    /// derive reads them (a markdown, CSV or TSV table among the prose);
    /// an error when a row or cell does not fit, or when the section is not
    /// a table.
    ///
    /// ```
    /// use futures_util::StreamExt as _;
    /// use twr_runtime::{Progress, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, PartialEq, serde::Deserialize)]
    /// struct Row {
    ///     item: String,
    ///     qty: u32,
    /// }
    ///
    /// #[derive(Debug, Sections)]
    /// struct Order {
    ///     #[section(table)]
    ///     rows: Vec<Row>,
    ///     note: String,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let model = ScriptedModel::new(["[Rows]\n| item | qty |\n|---|---|\n| pen | 2 |\n[Note]\nSoon."]);
    /// let think = Think::new(&model);
    /// let mut progress = std::pin::pin!(think.stream::<Order>("Read the order."));
    /// while let Some(event) = progress.next().await {
    ///     if let Progress::SectionComplete(section) = event {
    ///         if section.field == "rows" {
    ///             let rows: Vec<Row> = section.table().unwrap();
    ///             assert_eq!(rows, [Row { item: "pen".into(), qty: 2 }]);
    ///         }
    ///     }
    /// }
    /// # });
    /// ```
    pub fn table<R: DeserializeOwned>(&self) -> Result<Vec<R>, ValueError> {
        self.completed.read_with(
            self.index,
            &self.text,
            ValueKind::Table,
            crate::parse::rows::table::<R>,
        )
    }

    /// The value of a `#[section(record)]` section (`Label: value` lines)
    /// as a `M`, read as the derive reads it; an error when a line does not
    /// fit, or when the section is not a record.
    pub fn record<M: DeserializeOwned>(&self) -> Result<M, ValueError> {
        self.completed.read_with(
            self.index,
            &self.text,
            ValueKind::Record,
            crate::parse::rows::record::<M>,
        )
    }

    /// True when the section's value is valid.
    pub fn is_valid(&self) -> bool {
        self.problem.is_none()
    }
}

/// The sections completed so far in a run: for each section of the type,
/// its newest text, and which attempt it came from. Read them as text
/// ([`text`](Self::text)), typed ([`get`](Self::get), [`json`](Self::json)),
/// or all at once as the type ([`parse`](Self::parse)).
#[derive(Clone, PartialEq, Eq)]
pub struct Completed {
    specs: &'static [SectionSpec],
    choices: &'static [ChoiceSpec],
    slots: Vec<Option<Slot>>,
}

#[derive(Clone, PartialEq, Eq)]
struct Slot {
    text: Arc<str>,
    attempt: usize,
}

impl Completed {
    fn new(specs: &'static [SectionSpec], choices: &'static [ChoiceSpec]) -> Self {
        Completed {
            specs,
            choices,
            slots: vec![None; specs.len()],
        }
    }

    /// Forgets the sections of the ways of `choice` other than `way`: kept
    /// from an earlier reply, they are not merged with a reply that took
    /// another way.
    fn keep_only_way(&mut self, choice: &ChoiceSpec, way: usize) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if choice.variant_of(index).is_some_and(|other| other != way) {
                *slot = None;
            }
        }
    }

    /// The way the completed sections take in the choice named `choice`
    /// (an enum of section sets, by its name): the variant's name, once a
    /// section of one of its ways is complete.
    pub fn variant(&self, choice: &str) -> Option<&'static str> {
        let choice = self.choices.iter().find(|c| c.name == choice)?;
        let complete: Vec<usize> = (0..self.slots.len())
            .filter(|&index| self.slots[index].is_some())
            .collect();
        let way = single_way(choice, &complete)?;
        Some(choice.variants[way].name)
    }

    fn set(&mut self, index: usize, text: &str, attempt: usize) {
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Some(Slot {
                text: text.into(),
                attempt,
            });
        }
    }

    fn position(&self, field: &str) -> Option<usize> {
        self.specs.iter().position(|spec| spec.field == field)
    }

    /// The text of the section of `field` (the Rust field name), when it is
    /// complete.
    pub fn text(&self, field: &str) -> Option<&str> {
        let slot = self.slots.get(self.position(field)?)?.as_ref()?;
        Some(&slot.text)
    }

    /// The attempt the section of `field` came from, when it is complete.
    pub fn attempt(&self, field: &str) -> Option<usize> {
        let slot = self.slots.get(self.position(field)?)?.as_ref()?;
        Some(slot.attempt)
    }

    /// The value of the section of `field` as a `V` (see
    /// [`SectionEvent::value`]); `None` while the section is not complete.
    pub fn get<V: SectionValue>(&self, field: &str) -> Option<Result<V, ValueError>> {
        let index = self.position(field)?;
        let text = self.text(field)?;
        Some(self.read(index, text))
    }

    /// The rows of the `#[section(table)]` section of `field` (see
    /// [`SectionEvent::table`]); `None` while the section is not complete.
    pub fn table<R: DeserializeOwned>(&self, field: &str) -> Option<Result<Vec<R>, ValueError>> {
        let index = self.position(field)?;
        let text = self.text(field)?;
        Some(self.read_with(
            index,
            text,
            ValueKind::Table,
            crate::parse::rows::table::<R>,
        ))
    }

    /// The value of the `#[section(record)]` section of `field` (see
    /// [`SectionEvent::record`]); `None` while the section is not complete.
    pub fn record<M: DeserializeOwned>(&self, field: &str) -> Option<Result<M, ValueError>> {
        let index = self.position(field)?;
        let text = self.text(field)?;
        Some(self.read_with(
            index,
            text,
            ValueKind::Record,
            crate::parse::rows::record::<M>,
        ))
    }

    /// The value of a `#[section(json)]` section as a `V`, read as the
    /// derive reads it ([`json::extract`](crate::json::extract)); `None`
    /// while the section is not complete.
    pub fn json<V: DeserializeOwned>(&self, field: &str) -> Option<Result<V, Feedback>> {
        Some(crate::json::extract::<V>(self.text(field)?))
    }

    /// The completed sections as `T`, parsed by `T::parse_sections` from
    /// their text under their headers: the value, once every section it
    /// needs is there, or the problems.
    pub fn parse<T: Sections>(&self) -> Result<T, Feedback> {
        T::parse_sections(&self.render())
    }

    /// The completed sections, in declaration order: `(field, header, text)`.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &'static str, &str)> + '_ {
        self.specs
            .iter()
            .zip(&self.slots)
            .filter_map(|(spec, slot)| Some((spec.field, spec.header, &*slot.as_ref()?.text)))
    }

    /// How many sections are complete.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// True when no section is complete yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each completed section under its header, as one reply.
    fn render(&self) -> String {
        let mut text = String::new();
        for (_, header, content) in self.iter() {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(header);
            text.push('\n');
            text.push_str(content);
        }
        text
    }

    fn read<V: SectionValue>(&self, index: usize, text: &str) -> Result<V, ValueError> {
        self.read_with(index, text, V::KIND, V::parse_section)
    }

    /// `text`, the section at `index`, read with `read` when the section
    /// holds values of `kind`.
    fn read_with<V>(
        &self,
        index: usize,
        text: &str,
        kind: ValueKind,
        read: impl FnOnce(&str) -> Result<V, ValueError>,
    ) -> Result<V, ValueError> {
        let holds = self.specs.get(index).map(|spec| spec.kind);
        match holds {
            Some(holds) if holds != kind => Err(ValueError::Message(format!(
                "the {} section holds {holds:?}, not {kind:?}",
                self.specs[index].header,
            ))),
            _ => read(text),
        }
    }
}

impl fmt::Debug for Completed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(field, _, text)| (field, text)))
            .finish()
    }
}

/// What happens during a run of [`Think::stream`](super::Think::stream), in
/// order; the last item is [`Progress::Finished`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<T> {
    /// Attempt `attempt` asks the model (1-based).
    AttemptStarted {
        /// The attempt's number.
        attempt: usize,
    },
    /// The reply took a way of a choice between sets of sections: the
    /// header of its first section of that way arrived.
    Chosen {
        /// The attempt's number.
        attempt: usize,
        /// The choice's name (the enum's).
        choice: &'static str,
        /// The way's name (the variant's).
        variant: &'static str,
    },
    /// A section of the reply is complete and its value is valid.
    SectionComplete(SectionEvent),
    /// A section of the reply is complete and its value is invalid
    /// ([`SectionEvent::problem`] says why).
    SectionInvalid(SectionEvent),
    /// The reply was stopped early, at an invalid section, or at the first
    /// header of a second way of a choice: the connection was closed and the
    /// rest never read (see [`Think::early_abort`](super::Think::early_abort)).
    Aborted {
        /// The attempt's number.
        attempt: usize,
        /// The invalid section, or the header of the second way.
        header: &'static str,
        /// Bytes of the reply received before it was stopped.
        received: usize,
    },
    /// A request failed with a transient error and is sent again; the
    /// sections of the new reply are reported again.
    TransportRetry {
        /// The attempt's number.
        attempt: usize,
        /// The error.
        error: String,
    },
    /// Attempt `attempt` gave no value: `feedback` is sent back and the model
    /// asked again.
    Retry {
        /// The attempt's number.
        attempt: usize,
        /// What became of its reply.
        kind: AttemptKind,
        /// The message sent back to the model.
        feedback: String,
    },
    /// The run ended: the outcome, or the error with its ledger.
    Finished(Result<super::Outcome<T>, super::ThinkError>),
}

/// What a run reports while it goes: [`Progress`] without the end.
pub(crate) enum Note {
    AttemptStarted(usize),
    Chosen {
        attempt: usize,
        choice: &'static str,
        variant: &'static str,
    },
    Section(Box<SectionEvent>),
    Aborted {
        attempt: usize,
        header: &'static str,
        received: usize,
    },
    TransportRetry {
        attempt: usize,
        error: String,
    },
    Retry {
        attempt: usize,
        kind: AttemptKind,
        feedback: String,
    },
}

impl<T> From<Note> for Progress<T> {
    fn from(note: Note) -> Self {
        match note {
            Note::AttemptStarted(attempt) => Progress::AttemptStarted { attempt },
            Note::Chosen {
                attempt,
                choice,
                variant,
            } => Progress::Chosen {
                attempt,
                choice,
                variant,
            },
            Note::Section(event) if event.is_valid() => Progress::SectionComplete(*event),
            Note::Section(event) => Progress::SectionInvalid(*event),
            Note::Aborted {
                attempt,
                header,
                received,
            } => Progress::Aborted {
                attempt,
                header,
                received,
            },
            Note::TransportRetry { attempt, error } => Progress::TransportRetry { attempt, error },
            Note::Retry {
                attempt,
                kind,
                feedback,
            } => Progress::Retry {
                attempt,
                kind,
                feedback,
            },
        }
    }
}

/// The callback of [`Think::on_section`](super::Think::on_section).
pub(crate) type SectionHook<'a> = Arc<dyn Fn(&SectionEvent) + Send + Sync + 'a>;

/// The notes of a run waiting for [`Think::stream`](super::Think::stream)
/// to hand them out.
pub(crate) type NoteQueue = Arc<Mutex<VecDeque<Note>>>;

/// Where a run's notes go: the section callback, the progress stream.
#[derive(Clone, Copy, Default)]
pub(crate) struct NoteSinks<'r> {
    pub(crate) on_section: Option<&'r (dyn Fn(&SectionEvent) + Send + Sync)>,
    pub(crate) queue: Option<&'r NoteQueue>,
}

impl NoteSinks<'_> {
    /// True when someone listens.
    pub(crate) fn any(&self) -> bool {
        self.on_section.is_some() || self.queue.is_some()
    }

    pub(crate) fn send(&self, note: Note) {
        if let (Note::Section(event), Some(hook)) = (&note, self.on_section) {
            hook(event);
        }
        if let Some(queue) = self.queue {
            queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push_back(note);
        }
    }
}

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
        parse: problems_of::<T>,
    })
}

/// `T`'s problems with `reply`, if any.
fn problems_of<T: Sections>(reply: &str) -> Option<Feedback> {
    T::parse_sections(reply).err()
}

struct SectionWatch {
    reader: StreamReader,
    specs: &'static [SectionSpec],
    choices: &'static [ChoiceSpec],
    parse: fn(&str) -> Option<Feedback>,
}

impl SectionWatch {
    fn found(&self, events: Vec<StreamEvent>) -> Vec<Found> {
        events
            .into_iter()
            .map(|event| match event {
                StreamEvent::Closed(section) => {
                    let text = self.reader.content(&section).to_string();
                    let spec = &self.specs[section.index];
                    let problem = value_problem(self.parse, spec, &text).map(Box::new);
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
}

/// The problem of a complete section's value: the type's own parser reads
/// the section alone, under its header, and any problem with that section
/// other than its absence counts (a number section with no number, a choice
/// that is none of the choices, a failed validator, JSON that no repair
/// makes fit, an empty section).
fn value_problem(
    parse: fn(&str) -> Option<Feedback>,
    spec: &SectionSpec,
    text: &str,
) -> Option<Problem> {
    let alone = format!("{}\n{}", spec.header, text);
    let feedback = parse(&alone)?;
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

/// A streamed reply, read whole or stopped early.
pub(crate) struct Received {
    /// The reply; for a stopped one, what arrived (no usage, no finish).
    pub(crate) reply: Reply,
    /// Why it was stopped, when it was.
    pub(crate) aborted: Option<Problem>,
    /// Where it came from (a streamed reply is always live).
    pub(crate) served: Served,
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
}

impl<'r> Listener<'r> {
    pub(crate) fn new(watch: Box<dyn Watch>, early_abort: bool, notes: NoteSinks<'r>) -> Self {
        let (specs, choices) = (watch.specs(), watch.choices());
        Listener {
            watch,
            early_abort,
            notes,
            completed: Completed::new(specs, choices),
            kept: Completed::new(specs, choices),
            attempt: 0,
            ways: vec![None; choices.len()],
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
        self.kept = Completed::new(self.watch.specs(), self.watch.choices());
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
            error: error.to_string(),
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
        let served = response.served;
        let mut stream = response.deltas;
        let mut done = false;
        while let Some(item) = stream.next().await {
            match item {
                Ok(Delta::Content(text)) => {
                    reply.content.push_str(&text);
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
                        });
                    }
                }
                Ok(Delta::Reasoning(text)) => reasoning.push_str(&text),
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
        })
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

/// The stream of [`Think::stream`](super::Think::stream): the run, polled
/// in place (no task is spawned), and the notes it left, handed out in
/// order before its end.
pub(crate) struct ProgressStream<'s, T> {
    run: Option<RunFuture<'s, T>>,
    queue: NoteQueue,
    ended: Option<Result<super::Outcome<T>, super::ThinkError>>,
}

type RunFuture<'s, T> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<super::Outcome<T>, super::ThinkError>> + Send + 's>,
>;

impl<'s, T> ProgressStream<'s, T> {
    pub(crate) fn new(run: RunFuture<'s, T>, queue: NoteQueue) -> Self {
        ProgressStream {
            run: Some(run),
            queue,
            ended: None,
        }
    }

    fn next_note(&self) -> Option<Note> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }
}

impl<T> futures_util::Stream for ProgressStream<'_, T> {
    type Item = Progress<T>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Progress<T>>> {
        use std::task::Poll;
        loop {
            if let Some(note) = self.next_note() {
                return Poll::Ready(Some(note.into()));
            }
            if let Some(result) = self.ended.take() {
                return Poll::Ready(Some(Progress::Finished(result)));
            }
            let Some(run) = self.run.as_mut() else {
                return Poll::Ready(None);
            };
            match run.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    self.run = None;
                    self.ended = Some(result);
                }
                // The run may have left notes before it had to wait.
                Poll::Pending if self.queue.lock().is_ok_and(|q| !q.is_empty()) => {}
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

// Nothing in it is pinned in place: the run is boxed.
impl<T> Unpin for ProgressStream<'_, T> {}
