//! Streamed runs: each section read the moment it is complete, reported to
//! the caller ([`Think::on_section`](crate::Think::on_section),
//! [`Think::stream`](crate::Think::stream)), and a reply stopped as soon as
//! one of its sections is definitely wrong
//! ([`Think::early_abort`](crate::Think::early_abort)).
//!
//! The reply arrives through [`ChatModel::call`](crate::ChatModel::call),
//! asked to stream; its content goes through the incremental section parser
//! ([`SectionStream`](crate::parse::SectionStream)), which reads each byte a
//! bounded number of times however the reply is chunked. When a section
//! closes, its text alone is read by the type's own parser (handed over as
//! the section found, under its header: a derived type reads that section
//! only): a problem with that section's value (not its absence) makes it
//! invalid. Nothing else is parsed early: the reply as a whole is read by
//! the loop as before, from the sections the stream found (it is not split
//! again), so a streamed run ends exactly as a run of the same replies read
//! whole.
//!
//! One concern per file: `events` (what the caller receives), `notes`
//! (where a run's notes go), `watch` (the early-abort watcher), `listener`
//! (the reading of one streamed reply), `progress` (the stream of
//! [`Think::stream`](crate::Think::stream)).

mod events;
mod listener;
mod notes;
mod progress;
mod watch;

pub use events::{Completed, Progress, SectionEvent};
pub(crate) use listener::Listener;
pub(crate) use notes::{Note, NoteQueue, NoteSinks, SectionHook};
pub(crate) use progress::ProgressStream;
pub(crate) use watch::{watch, MakeWatch};
