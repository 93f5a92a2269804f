//! What a streamed run reports: each [`SectionEvent`], the sections
//! [`Completed`] so far, and the [`Progress`] of [`Think::stream`](crate::Think::stream).

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::feedback::{Feedback, Problem};
use crate::parse::{SectionValue, ValueError};
use crate::phrases::phrases;
use crate::sections::{Lang, Presence, SectionSpec, Sections, ValueKind, WaysSpec};
use crate::think::conversation::single_way;
use crate::think::outcome::AttemptKind;

/// A section of a streamed reply, the moment it is complete: given to
/// [`Think::on_section`](crate::Think::on_section) and carried by
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
    /// The way of answering the section belongs to, for a type with ways
    /// to answer (an enum deriving `Sections`, or a flattened one): the
    /// variant's name (`Search`); the innermost one for an enum inside a
    /// way. `None` for a section shared by every way.
    pub variant: Option<&'static str>,
    /// The section's text, trimmed.
    pub text: String,
    /// What is wrong with the section's value, when something is; `None`
    /// for a valid section.
    pub problem: Option<Problem>,
    /// The attempt whose text of this section this event replaces, when
    /// the section was complete before in the run: written twice in one
    /// reply, written again by a retry, kept from an earlier reply, or read
    /// again after a transport retry or a closing `</think>` started the
    /// reply over. `None` the first time the section completes.
    ///
    /// Counting the events with no `replaces` counts the sections done so
    /// far, which never passes the number of sections (`T::specs().len()`):
    /// what a progress bar between sections shows. ([`Completed::len`]
    /// counts the sections of the merged state instead, which a reply
    /// started over empties of that reply's sections.)
    pub replaces: Option<usize>,
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
        self.completed
            .read_with(self.index, &self.text, ValueKind::Table, |text| {
                crate::parse::rows::table::<R>(text, phrases(self.completed.lang))
            })
    }

    /// The value of a `#[section(record)]` section (`Label: value` lines)
    /// as a `M`, read as the derive reads it; an error when a line does not
    /// fit, or when the section is not a record.
    pub fn record<M: DeserializeOwned>(&self) -> Result<M, ValueError> {
        self.completed
            .read_with(self.index, &self.text, ValueKind::Record, |text| {
                crate::parse::rows::record::<M>(text, phrases(self.completed.lang))
            })
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
    ways: &'static [WaysSpec],
    /// The type's phrase table: its values are read with its words.
    lang: Lang,
    slots: Vec<Option<Slot>>,
}

#[derive(Clone, PartialEq, Eq)]
struct Slot {
    text: Arc<str>,
    attempt: usize,
}

impl Completed {
    pub(super) fn new(
        specs: &'static [SectionSpec],
        ways: &'static [WaysSpec],
        lang: Lang,
    ) -> Self {
        Completed {
            specs,
            ways,
            lang,
            slots: vec![None; specs.len()],
        }
    }

    /// Forgets the sections of the ways of `enum_ways` other than `way`: kept
    /// from an earlier reply, they are not merged with a reply that took
    /// another way.
    pub(super) fn keep_only_way(&mut self, enum_ways: &WaysSpec, way: usize) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if enum_ways.way_of(index).is_some_and(|other| other != way) {
                *slot = None;
            }
        }
    }

    /// The way the completed sections take among the ways of the enum
    /// named `enum_name` (an enum deriving `Sections`): the variant's name,
    /// once a section of one of its ways is complete.
    pub fn variant(&self, enum_name: &str) -> Option<&'static str> {
        let enum_ways = self.ways.iter().find(|c| c.name == enum_name)?;
        let complete: Vec<usize> = (0..self.slots.len())
            .filter(|&index| self.slots[index].is_some())
            .collect();
        let way = single_way(enum_ways, &complete)?;
        Some(enum_ways.ways[way].name)
    }

    /// The attempt the section at `index` came from, when it is complete.
    pub(super) fn attempt_at(&self, index: usize) -> Option<usize> {
        Some(self.slots.get(index)?.as_ref()?.attempt)
    }

    pub(super) fn set(&mut self, index: usize, text: &str, attempt: usize) {
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
        Some(self.read_with(index, text, ValueKind::Table, |text| {
            crate::parse::rows::table::<R>(text, phrases(self.lang))
        }))
    }

    /// The value of the `#[section(record)]` section of `field` (see
    /// [`SectionEvent::record`]); `None` while the section is not complete.
    pub fn record<M: DeserializeOwned>(&self, field: &str) -> Option<Result<M, ValueError>> {
        let index = self.position(field)?;
        let text = self.text(field)?;
        Some(self.read_with(index, text, ValueKind::Record, |text| {
            crate::parse::rows::record::<M>(text, phrases(self.lang))
        }))
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

    /// How many sections the value needs, as far as the run shows so far:
    /// every required section, and each optional or defaulted one
    /// (`Option`, `#[section(default)]`) once it is written; of an enum's
    /// ways to answer, only the way the completed sections took
    /// (none of its sections before one is complete). So
    /// [`len`](Self::len) reaches it once the value has everything it
    /// needs, also when an optional section is never written: a progress
    /// bar at `len` of `total` (set both on each section event) ends full,
    /// where one of `len` over the number of sections would stop short.
    pub fn total(&self) -> usize {
        let complete: Vec<usize> = (0..self.slots.len())
            .filter(|&index| self.slots[index].is_some())
            .collect();
        let taken: Vec<(&WaysSpec, Option<usize>)> = self
            .ways
            .iter()
            .map(|enum_ways| (enum_ways, single_way(enum_ways, &complete)))
            .collect();
        let needed = |index: usize| {
            self.specs[index].presence == Presence::Required
                && taken
                    .iter()
                    .all(|(enum_ways, way)| match enum_ways.way_of(index) {
                        Some(of) => *way == Some(of),
                        None => true,
                    })
        };
        (0..self.specs.len())
            .filter(|&index| self.slots[index].is_some() || needed(index))
            .count()
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
        let phrases = phrases(self.lang);
        self.read_with(index, text, V::KIND, |text| {
            V::parse_section_with(text, phrases)
        })
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

/// What happens during a run of [`Think::stream`](crate::Think::stream), in
/// order; the last item is [`Progress::Finished`]. (Not the
/// [`RunsProgress`](crate::run::RunsProgress) that
/// [`Think::on_progress`](crate::Think::on_progress) hears, which counts
/// the ended runs of `run_many`.)
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<T> {
    /// Attempt `attempt` asks the model (1-based).
    AttemptStarted {
        /// The attempt's number.
        attempt: usize,
    },
    /// The reply took one of the ways to answer of an enum deriving
    /// `Sections`: the header of its first section of that way arrived.
    Chosen {
        /// The attempt's number.
        attempt: usize,
        /// The enum's name.
        enum_name: &'static str,
        /// The way's name (the variant's).
        variant: &'static str,
    },
    /// Text of the reply is arriving: how much so far, for a spinner, or a
    /// bar that moves between sections. Sent as the model streams, before
    /// the sections a piece completes; pieces that arrive while the stream
    /// is not polled are reported together, by the newest counts. The
    /// counts are those of the current request: after a
    /// [`TransportRetry`](Self::TransportRetry) they start again from zero.
    Receiving {
        /// The attempt's number.
        attempt: usize,
        /// Bytes of the reply's text so far.
        received: usize,
        /// Bytes of the model's reasoning so far (zero when the server
        /// sends none).
        reasoning: usize,
        /// Pieces streamed so far, text and reasoning: most servers send
        /// about one per token.
        pieces: usize,
    },
    /// A section of the reply is complete and its value is valid.
    /// [`SectionEvent::replaces`] says when it replaces an earlier text of
    /// the same section.
    SectionComplete(SectionEvent),
    /// A section of the reply is complete and its value is invalid
    /// ([`SectionEvent::problem`] says why).
    SectionInvalid(SectionEvent),
    /// The reply was stopped early, at an invalid section, or at the first
    /// header of a second way of an enum: the connection was closed and the
    /// rest never read (see [`Think::early_abort`](crate::Think::early_abort)).
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
    Finished(Result<crate::think::Outcome<T>, crate::think::ThinkError>),
}
