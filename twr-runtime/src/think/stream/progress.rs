//! The stream of [`Think::stream`](crate::Think::stream): the run polled
//! in place, its notes handed out before its end.

use std::sync::PoisonError;

use super::events::Progress;
use super::notes::{Note, NoteQueue};

/// The stream of [`Think::stream`](crate::Think::stream): the run, polled
/// in place (no task is spawned), and the notes it left, handed out in
/// order before its end.
pub(crate) struct ProgressStream<'s, T> {
    run: Option<RunFuture<'s, T>>,
    queue: NoteQueue,
    ended: Option<Result<crate::think::Outcome<T>, crate::think::ThinkError>>,
}

type RunFuture<'s, T> = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = Result<crate::think::Outcome<T>, crate::think::ThinkError>>
            + Send
            + 's,
    >,
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
