//! [`Store`]: the one seam between a [`Journal`](super::Journal) and what
//! keeps its records. A backend is an implementation of this trait and
//! nothing else: the jobs, the response cache, the layer around the model
//! (`stored_model.rs`), the learned demonstrations and the batch rounds all reach
//! their records through it.
//!
//! Every method is asynchronous and returns a future that owns what it
//! needs (`'static`), so a backend may hand the work to a thread of its own
//! or to a pool without ever blocking the async runtime's threads; and the
//! trait is object-safe, so a journal holds an `Arc<dyn Store>` whatever
//! keeps its records.

use std::fmt;
use std::sync::Arc;

use super::error::JournalError;
use super::key::RequestKey;
#[cfg(feature = "batch")]
use super::records::{BatchIntent, PendingLine};
use super::records::{
    Claim, FeedbackEvent, FeedbackRate, JobProgress, Lease, RecordedConfidence, RecordedOutcome,
    ReplyEntry, Review, RunConfidence, TypedRun,
};
use crate::model::{BoxFuture, Reply};

/// What a [`Store`] method returns: a future owning what it needs.
pub(crate) type StoreFuture<T> = BoxFuture<'static, Result<T, JournalError>>;

/// One record to write, each in its own transaction.
#[derive(Debug)]
pub(crate) enum Write {
    /// A reply of a job (replacing one of the same key and occurrence).
    Reply { job: Arc<str>, entry: ReplyEntry },
    /// A reply of the response cache (replacing an older one).
    Cache {
        key: RequestKey,
        model: String,
        reply: Reply,
    },
    /// How a run of many ended.
    Outcome {
        job: Arc<str>,
        outcome: RecordedOutcome,
    },
    /// How a leased prompt's run ended, with the prompt's end, in one
    /// transaction; written only while `lease` holds it (a worker whose
    /// lease ran out and was taken records nothing).
    Ended {
        job: Arc<str>,
        outcome: RecordedOutcome,
        lease: Lease,
    },
    /// A run that ended typed (replacing one of the same prompt).
    Typed {
        job: Arc<str>,
        shape: String,
        run: TypedRun,
    },
    /// The feedback of one attempt and what the next reply made of it.
    Feedback {
        job: Arc<str>,
        events: Vec<FeedbackEvent>,
    },
    /// What a typed run measured: its attempts' confidences and the
    /// sections to review (replacing those of the same prompt), in one
    /// transaction.
    Confidence { job: Arc<str>, run: RunConfidence },
    /// A batch about to be submitted for a job, under the id its
    /// submitter chose (`batch_id`), as being submitted: its lines' custom
    /// ids and requests.
    #[cfg(feature = "batch")]
    Batch {
        job: Arc<str>,
        batch_id: String,
        provider: String,
        round: u32,
        lines: Vec<(String, RequestKey)>,
    },
    /// The batch recorded under `intent` was created as `batch_id`: the
    /// batch and its lines take that id, in one transaction.
    #[cfg(feature = "batch")]
    Created { intent: String, batch_id: String },
    /// A batch ended, with the provider's last word (or was never
    /// created: [`NOT_SUBMITTED`]).
    #[cfg(feature = "batch")]
    EndBatch { batch_id: String, status: String },
}

/// The status of a batch recorded before it was submitted, while it is.
#[cfg(feature = "batch")]
pub(crate) const SUBMITTING: &str = "submitting";

/// The status of a batch recorded but never created: its lines are owed by
/// no batch.
#[cfg(feature = "batch")]
pub(crate) const NOT_SUBMITTED: &str = "not submitted";

impl Write {
    /// What is written, for a log line about a record that could not be.
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Write::Reply { .. } => "a reply",
            Write::Cache { .. } => "a cached reply",
            Write::Outcome { .. } | Write::Ended { .. } => "a run's outcome",
            Write::Typed { .. } => "a typed run",
            Write::Feedback { .. } => "how feedback was followed",
            Write::Confidence { .. } => "a run's confidences",
            #[cfg(feature = "batch")]
            Write::Batch { .. } => "a submitted batch",
            #[cfg(feature = "batch")]
            Write::Created { .. } => "a created batch's id",
            #[cfg(feature = "batch")]
            Write::EndBatch { .. } => "a batch's end",
        }
    }
}

/// What keeps a journal's records: SQLite's file
/// ([`SqliteStore`](super::sqlite::SqliteStore)) or another database.
pub(crate) trait Store: Send + Sync + fmt::Debug {
    /// Writes `write`; the future ends when it is committed.
    fn write(&self, write: Write) -> StoreFuture<()>;

    /// Writes `write` after every write handed over before it, without
    /// waiting: for the records the loop makes in passing (a typed run, a
    /// run's outcome, feedback), whose failure is logged and takes nothing
    /// from the run. Every read handed over after it sees it.
    fn write_detached(&self, write: Write);

    /// Ends when every write handed over before it (detached ones too) is
    /// written: what a program waits for before it exits.
    fn flush(&self) -> StoreFuture<()>;

    /// The reply recorded for occurrence `occurrence` of `key` in `job`,
    /// with the cost recorded with it.
    fn reply(
        &self,
        job: &str,
        key: RequestKey,
        occurrence: u32,
    ) -> StoreFuture<Option<(Reply, Option<f64>)>>;

    /// How many replies `job` has recorded.
    fn count_replies(&self, job: &str) -> StoreFuture<u64>;

    /// The cached reply to `key`.
    fn cached(&self, key: RequestKey) -> StoreFuture<Option<Reply>>;

    /// How many replies are cached.
    fn count_cached(&self) -> StoreFuture<u64>;

    /// The outcomes recorded for `job`, by their place in the input.
    fn outcomes(&self, job: &str) -> StoreFuture<Vec<RecordedOutcome>>;

    /// The typed runs of `job` of the type of shape `shape`, by prompt.
    fn typed_runs(&self, job: &str, shape: &str) -> StoreFuture<Vec<TypedRun>>;

    /// How feedback was followed in `job`, per model, problem, wording and
    /// constraint, ordered so.
    fn feedback_rates(&self, job: &str) -> StoreFuture<Vec<FeedbackRate>>;

    /// The confidences recorded for the typed run of `prompt` in `job`,
    /// by attempt and section.
    fn confidences(&self, job: &str, prompt: &str) -> StoreFuture<Vec<RecordedConfidence>>;

    /// The typed prompts of `job` whose values have sections to review,
    /// by prompt.
    fn needs_review(&self, job: &str) -> StoreFuture<Vec<Review>>;

    /// Makes prompts `0..count` of `job` known, as pending, those not
    /// known yet.
    fn register_prompts(&self, job: &str, count: usize) -> StoreFuture<()>;

    /// Leases prompt `index` of `job` to `lease`'s holder when no one
    /// holds it (or a lease ran out), without waiting for a worker that
    /// is taking it at this moment (`SKIP LOCKED`).
    fn claim(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<Claim>;

    /// Leases to `lease`'s holder the first prompt of `job` in
    /// `from..below` that no one holds (pending, or its lease ran out),
    /// skipping rows other workers are claiming at this moment; `None`
    /// when there is none there.
    fn claim_next(
        &self,
        job: &str,
        from: usize,
        below: usize,
        lease: &Lease,
    ) -> StoreFuture<Option<usize>>;

    /// Renews `lease` on prompt `index` of `job`; `false` when it is no
    /// longer held by it.
    fn renew(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<bool>;

    /// Where `job`'s prompts stand.
    fn progress(&self, job: &str) -> StoreFuture<JobProgress>;

    /// The lines of `job`'s batches that asked `key` and have no reply
    /// recorded, oldest first; not those of a batch [`NOT_SUBMITTED`].
    #[cfg(feature = "batch")]
    fn pending_lines(&self, job: &str, key: RequestKey) -> StoreFuture<Vec<PendingLine>>;

    /// What became of the batch recorded under `intent`.
    #[cfg(feature = "batch")]
    fn batch_intent(&self, intent: &str) -> StoreFuture<BatchIntent>;

    /// The custom ids of batch `batch_id`'s lines whose replies `job` has
    /// recorded.
    #[cfg(feature = "batch")]
    fn answered_lines(&self, job: &str, batch_id: &str) -> StoreFuture<Vec<String>>;
}
