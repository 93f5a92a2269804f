//! [`SqliteStore`]: a journal in a SQLite file, the embedded default.
//!
//! SQLite's calls block (on the disk, and on another process's write
//! lock), so none runs on an async runtime's own threads: each piece of
//! work joins a queue, and a task of tokio's blocking pool
//! ([`tokio::task::spawn_blocking`]) takes the connection and runs the
//! queue in order; the caller awaits the answer on a oneshot channel. The
//! queue is what keeps the order: work handed over earlier is done
//! earlier, whichever blocking task runs it, so a detached write is seen
//! by every later read. Outside a tokio runtime (a program of its own
//! executor, or a journal dropped after its runtime) the queue is run on
//! the caller's thread, which is then no runtime's.

pub(crate) mod queries;
pub(crate) mod schema;

use std::collections::VecDeque;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

use super::error::JournalError;
use super::key::RequestKey;
#[cfg(feature = "batch")]
use super::records::{BatchIntent, PendingLine};
use super::records::{
    Claim, FeedbackRate, JobProgress, Lease, RecordedConfidence, RecordedOutcome, Review, TypedRun,
};
use super::store::{Store, StoreFuture, Write};
use crate::model::Reply;

/// A piece of work for the connection.
type Work = Box<dyn FnOnce(&Connection) + Send>;

/// A journal's SQLite file: see the module's docs.
pub(crate) struct SqliteStore {
    path: Arc<Path>,
    /// The file's schema version: [`schema::VERSION`], or an older one in
    /// a file opened read-only (which lacks the newer tables).
    version: i64,
    shared: Arc<Shared>,
}

/// The connection and the work waiting for it.
struct Shared {
    /// `None` once the store is dropped: the file is closed then, not when
    /// the last blocking task lets go of this.
    connection: Mutex<Option<Connection>>,
    queue: Mutex<VecDeque<Work>>,
}

impl Shared {
    /// Runs the queue, in order, until it is empty. Whoever holds the
    /// connection pops the next piece, so the order is the queue's.
    fn drain(&self) {
        Shared::drain_on(&lock(&self.connection), &self.queue);
    }

    fn drain_on(connection: &Option<Connection>, queue: &Mutex<VecDeque<Work>>) {
        // Work is queued only by the store, which closes the connection
        // after running its queue: a closed one has none left.
        let Some(connection) = connection else {
            return;
        };
        loop {
            let Some(work) = lock(queue).pop_front() else {
                return;
            };
            work(connection);
        }
    }
}

/// A poisoned lock is taken as it is: a panic in a piece of work cannot
/// leave a record half-written (each is its own transaction).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl SqliteStore {
    /// Opens (or creates) the journal file at `path`; see
    /// [`Journal::open`](super::Journal::open). The schema is checked, and
    /// migrated, here, on the caller's thread: opening is a program's
    /// first step, and its errors are the ones a caller acts on.
    pub(crate) fn open(path: &Path, read_only: bool) -> Result<SqliteStore, JournalError> {
        let (connection, version) = schema::open(path, read_only)?;
        Ok(SqliteStore {
            path: Arc::from(path),
            version,
            shared: Arc::new(Shared {
                connection: Mutex::new(Some(connection)),
                queue: Mutex::new(VecDeque::new()),
            }),
        })
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Queues `work` and has the queue run: by the blocking pool inside a
    /// tokio runtime, else here.
    fn hand_over(&self, work: Work) {
        lock(&self.shared.queue).push_back(work);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let shared = Arc::clone(&self.shared);
                // Not awaited: the work answers through its own channel.
                drop(runtime.spawn_blocking(move || shared.drain()));
            }
            Err(_) => self.shared.drain(),
        }
    }

    /// Runs `f` on the connection, with SQLite's errors as
    /// [`JournalError`]s naming the file; the future ends with its result.
    fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreFuture<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let path = Arc::clone(&self.path);
        self.hand_over(Box::new(move |connection| {
            let result = f(connection).map_err(|e| JournalError::from_sqlite(&path, e));
            // The caller may have stopped waiting (a dropped future).
            let _ = answer.send(result);
        }));
        Box::pin(async move {
            answered.await.unwrap_or_else(|_| {
                Err(JournalError::Lost {
                    detail: "the work on the journal's connection panicked".into(),
                })
            })
        })
    }

    /// Runs `f` on the connection after the queue, on this thread,
    /// blocking it: only for setting the file up
    /// ([`Journal::size_limit`](super::Journal::size_limit)), before any
    /// run.
    pub(crate) fn run_blocking<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, JournalError> {
        let connection = lock(&self.shared.connection);
        Shared::drain_on(&connection, &self.shared.queue);
        let connection = connection.as_ref().expect("open while the store is");
        f(connection).map_err(|e| JournalError::from_sqlite(&self.path, e))
    }

    /// Whether the file has the table of typed runs (schema version 2 on;
    /// an older file opened read-only has none).
    fn has_typed_runs(&self) -> bool {
        self.version >= 2
    }

    /// Whether the file has the table of feedback (schema version 3 on;
    /// an older file opened read-only has none).
    fn has_feedback(&self) -> bool {
        self.version >= 3
    }

    /// Whether the file keeps token log-probabilities and confidences
    /// (schema version 6 on; an older file opened read-only has none).
    fn has_confidence(&self) -> bool {
        self.version >= 6
    }
}

/// Writes `write` on the connection.
fn write_on(connection: &Connection, write: &Write) -> rusqlite::Result<()> {
    match write {
        Write::Reply { job, entry } => queries::record_reply(connection, job, entry),
        Write::Cache { key, model, reply } => queries::cache_reply(connection, key, model, reply),
        Write::Outcome { job, outcome } => queries::record_outcome(connection, job, outcome),
        Write::Ended {
            job,
            outcome,
            lease,
        } => queries::record_ended(connection, job, outcome, lease),
        Write::Typed { job, shape, run } => queries::record_typed(connection, job, shape, run),
        Write::Feedback { job, events } => queries::record_feedback(connection, job, events),
        Write::Confidence { job, run } => queries::record_confidence(connection, job, run),
        #[cfg(feature = "batch")]
        Write::Batch {
            job,
            batch_id,
            provider,
            round,
            lines,
        } => queries::record_batch(connection, job, batch_id, provider, *round, lines),
        #[cfg(feature = "batch")]
        Write::Created { intent, batch_id } => queries::batch_created(connection, intent, batch_id),
        #[cfg(feature = "batch")]
        Write::EndBatch { batch_id, status } => queries::end_batch(connection, batch_id, status),
    }
}

impl Store for SqliteStore {
    fn write(&self, write: Write) -> StoreFuture<()> {
        self.run(move |connection| write_on(connection, &write))
    }

    fn write_detached(&self, write: Write) {
        let path = Arc::clone(&self.path);
        self.hand_over(Box::new(move |connection| {
            if let Err(error) = write_on(connection, &write) {
                let error = JournalError::from_sqlite(&path, error);
                tracing::warn!(%error, "twr could not record {}", write.what());
            }
        }));
    }

    fn flush(&self) -> StoreFuture<()> {
        self.run(|_| Ok(()))
    }

    fn reply(
        &self,
        job: &str,
        key: RequestKey,
        occurrence: u32,
    ) -> StoreFuture<Option<(Reply, Option<f64>)>> {
        let job = job.to_string();
        let logprobs = self.has_confidence();
        self.run(move |c| queries::reply(c, &job, &key, occurrence, logprobs))
    }

    fn count_replies(&self, job: &str) -> StoreFuture<u64> {
        let job = job.to_string();
        self.run(move |c| queries::count_replies(c, &job))
    }

    fn cached(&self, key: RequestKey) -> StoreFuture<Option<Reply>> {
        let logprobs = self.has_confidence();
        self.run(move |c| queries::cached(c, &key, logprobs))
    }

    fn count_cached(&self) -> StoreFuture<u64> {
        self.run(queries::count_cached)
    }

    fn outcomes(&self, job: &str) -> StoreFuture<Vec<RecordedOutcome>> {
        let job = job.to_string();
        self.run(move |c| queries::outcomes(c, &job))
    }

    fn typed_runs(&self, job: &str, shape: &str) -> StoreFuture<Vec<TypedRun>> {
        if !self.has_typed_runs() {
            return Box::pin(std::future::ready(Ok(Vec::new())));
        }
        let (job, shape) = (job.to_string(), shape.to_string());
        self.run(move |c| queries::typed_runs(c, &job, &shape))
    }

    fn feedback_rates(&self, job: &str) -> StoreFuture<Vec<FeedbackRate>> {
        if !self.has_feedback() {
            return Box::pin(std::future::ready(Ok(Vec::new())));
        }
        let job = job.to_string();
        self.run(move |c| queries::feedback_rates(c, &job))
    }

    fn confidences(&self, job: &str, prompt: &str) -> StoreFuture<Vec<RecordedConfidence>> {
        if !self.has_confidence() {
            return Box::pin(std::future::ready(Ok(Vec::new())));
        }
        let (job, prompt) = (job.to_string(), prompt.to_string());
        self.run(move |c| queries::confidences(c, &job, &prompt))
    }

    fn needs_review(&self, job: &str) -> StoreFuture<Vec<Review>> {
        if !self.has_confidence() {
            return Box::pin(std::future::ready(Ok(Vec::new())));
        }
        let job = job.to_string();
        self.run(move |c| queries::needs_review(c, &job))
    }

    fn register_prompts(&self, job: &str, count: usize) -> StoreFuture<()> {
        let job = job.to_string();
        self.run(move |c| queries::register_prompts(c, &job, count))
    }

    fn claim(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<Claim> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |c| queries::claim(c, &job, index, &lease))
    }

    fn claim_next(
        &self,
        job: &str,
        from: usize,
        below: usize,
        lease: &Lease,
    ) -> StoreFuture<Option<usize>> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |c| queries::claim_next(c, &job, from, below, &lease))
    }

    fn renew(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<bool> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |c| queries::renew(c, &job, index, &lease))
    }

    fn progress(&self, job: &str) -> StoreFuture<JobProgress> {
        if self.version < 4 {
            return Box::pin(std::future::ready(Ok(JobProgress::default())));
        }
        let job = job.to_string();
        self.run(move |c| queries::progress(c, &job))
    }

    #[cfg(feature = "batch")]
    fn pending_lines(&self, job: &str, key: RequestKey) -> StoreFuture<Vec<PendingLine>> {
        let job = job.to_string();
        self.run(move |c| queries::pending_lines(c, &job, &key))
    }

    #[cfg(feature = "batch")]
    fn batch_intent(&self, intent: &str) -> StoreFuture<BatchIntent> {
        // A file older than version 5 (opened read-only) recorded every
        // batch after it was created: none is being submitted.
        if self.version < 5 {
            return Box::pin(std::future::ready(Ok(BatchIntent::NotSubmitted)));
        }
        let intent = intent.to_string();
        self.run(move |c| queries::batch_intent(c, &intent))
    }

    #[cfg(feature = "batch")]
    fn answered_lines(&self, job: &str, batch_id: &str) -> StoreFuture<Vec<String>> {
        let (job, batch_id) = (job.to_string(), batch_id.to_string());
        self.run(move |c| queries::answered_lines(c, &job, &batch_id))
    }
}

impl Drop for SqliteStore {
    /// Runs what is still queued and closes the file before the journal
    /// goes, as a file dropped is closed: the next open of it (a
    /// resumption in the same process) sees every record, and the file
    /// itself (its WAL checkpointed) holds them.
    fn drop(&mut self) {
        let mut connection = lock(&self.shared.connection);
        Shared::drain_on(&connection, &self.shared.queue);
        drop(connection.take());
    }
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_detached_write_is_seen_by_the_next_read_and_kept_when_dropped() {
        let dir = std::env::temp_dir().join(format!("twr-sqlite-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("journal.twr");
        let store = SqliteStore::open(&path, false).unwrap();
        let job: Arc<str> = Arc::from("j");
        let outcome = |index| RecordedOutcome {
            index,
            ok: true,
            attempts: 1,
            usage: crate::Usage::new(1, 2),
            cost: None,
            final_reply: Some("[A]\nx".into()),
            error: None,
        };
        for index in 0..50 {
            store.write_detached(Write::Outcome {
                job: Arc::clone(&job),
                outcome: outcome(index),
            });
        }
        assert_eq!(store.outcomes("j").await.unwrap().len(), 50);
        store.write_detached(Write::Outcome {
            job: Arc::clone(&job),
            outcome: outcome(50),
        });
        drop(store);
        let again = SqliteStore::open(&path, true).unwrap();
        let indices: Vec<usize> = again
            .outcomes("j")
            .await
            .unwrap()
            .iter()
            .map(|o| o.index)
            .collect();
        assert_eq!(indices, (0..51).collect::<Vec<_>>());
    }
}
