//! Where a run's notes go while it runs: the [`Note`]s, the section
//! callback and the queue [`Think::stream`](crate::Think::stream) hands
//! them out from.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use super::events::{Progress, SectionEvent};
use crate::think::outcome::AttemptKind;

/// What a run reports while it goes: [`Progress`] without the end.
pub(crate) enum Note {
    AttemptStarted(usize),
    Chosen {
        attempt: usize,
        enum_name: &'static str,
        variant: &'static str,
    },
    Receiving {
        attempt: usize,
        received: usize,
        reasoning: usize,
        pieces: usize,
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
                enum_name,
                variant,
            } => Progress::Chosen {
                attempt,
                enum_name,
                variant,
            },
            Note::Receiving {
                attempt,
                received,
                reasoning,
                pieces,
            } => Progress::Receiving {
                attempt,
                received,
                reasoning,
                pieces,
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

/// The callback of [`Think::on_section`](crate::Think::on_section).
pub(crate) type SectionHook<'a> = Arc<dyn Fn(&SectionEvent) + Send + Sync + 'a>;

/// The notes of a run waiting for [`Think::stream`](crate::Think::stream)
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
            let mut queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
            // A count of text received replaces the one still waiting right
            // before it: the queue does not grow with every token while the
            // stream is not polled.
            if let (Note::Receiving { attempt, .. }, Some(Note::Receiving { attempt: last, .. })) =
                (&note, queue.back())
            {
                if attempt == last {
                    queue.pop_back();
                }
            }
            queue.push_back(note);
        }
    }
}
