//! The durable journal and the response cache (feature `journal`): a SQLite
//! file that records every reply and every outcome of a job as it lands,
//! so that a killed process resumes without asking the model, or paying,
//! again for anything that reached it.
//!
//! ```no_run
//! use twr_runtime::journal::Journal;
//! use twr_runtime::{OpenAiCompatible, Think};
//!
//! # #[derive(twr_runtime::Sections)] struct Invoice { total: f64 }
//! # async fn demo(prompts: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
//! let journal = Journal::open("invoices.twr")?;
//! let model = OpenAiCompatible::from_env()?;
//! // Run it; kill it; run it again: the second process replays every reply
//! // the first one recorded and asks the model only for the rest.
//! let results = Think::new(&model)
//!     .journal(journal.job("invoices-2026-11"))
//!     .run_many::<Invoice>(prompts)
//!     .await;
//! # Ok(()) }
//! ```
//!
//! # One machine or many
//!
//! [`Journal::open`] keeps the journal in a SQLite file: nothing to
//! install, one machine. [`Journal::postgres`] (feature `postgres`) keeps
//! the same records in a PostgreSQL database, so that processes on many
//! machines record and replay the same jobs and share the response cache:
//! a process that dies leaves its replies for the next one. Both are
//! implementations of one seam, so a program written against one runs on
//! the other unchanged.
//!
//! # How it works
//!
//! A [`Job`] names one piece of work. The job and the cache are a layer
//! around the model the loop asks (the stronger model of
//! [`Think::escalate_to`](crate::Think::escalate_to) too): for each attempt
//! the layer looks the exact request up in the job: the model's
//! [`name()`](crate::ChatModel::name), its
//! [`request_options()`](crate::ChatModel::request_options) (temperature,
//! token limit, seed, extra fields) and every message, hashed with SHA-256.
//! A request recorded there is answered from the record
//! ([`Served::Journal`](crate::model::Served::Journal) in the ledger) and sent
//! nowhere, with the cost recorded when it was paid
//! ([`Response::cost`](crate::model::Response::cost)); any other is sent,
//! and its reply is recorded as it completes, before the loop reads its
//! end (a streamed reply the loop stops early at a section already wrong,
//! with what arrived, so a resumption stops it at the same place). The same request asked twice in one job (two equal prompts)
//! has two records, by occurrence. Because the loop is a function of the
//! replies, replaying them rebuilds each run as it went, and the run goes
//! on from where the killed process stopped. [`Think::run_many`] also
//! records each run's outcome as it ends ([`Job::outcomes`]).
//!
//! The [`ResponseCache`] is the same lookup across jobs, for development
//! loops: a rerun of unchanged prompts makes no request. Its hits are
//! [`Served::Cache`](crate::model::Served::Cache) in the ledger and cost nothing.
//!
//! Every read and write of the journal is asynchronous and none blocks an
//! async runtime's threads: SQLite's calls run in order on tokio's blocking
//! pool (or on the caller's thread outside a tokio runtime). The records a
//! run makes in passing (a typed run, a run's outcome, how feedback was
//! followed, a batch's end) are not waited for; a read made after them
//! ([`Job::outcomes`], ...) sees them. [`Journal::open`] and
//! [`Journal::size_limit`] are the exceptions: they set the file up, on the
//! caller's thread, before any run.
//!
//! Each record is its own transaction, committed before the reply is read:
//! what was recorded survives a killed process (WAL mode, `synchronous =
//! NORMAL`). A record that cannot be written (a full disk, a read-only
//! file) ends the run with the reply kept in the error
//! ([`ModelError::Incomplete`](crate::ModelError::Incomplete) around a
//! [`JournalError`]): a journal that silently stopped recording would
//! make the next resumption pay again.
//!
//! # The file (schema version 6)
//!
//! A SQLite 3 database with `PRAGMA application_id = 0x74777231` ("twr1")
//! and `PRAGMA user_version = 6`. Opening checks both, SQLite's
//! `quick_check` and the tables below; a file that is not SQLite, another
//! program's database, a newer schema or damage is a [`JournalError`],
//! never a silent restart. Tables (every `*_tokens` column an integer
//! count, every `*_at_ms` Unix milliseconds, `key` the 32-byte SHA-256 of
//! the request):
//!
//! - `meta(key, value)`: `created_by` = `twr-runtime <version>`, and
//!   `migrated_by` the same for a file brought up from an older version.
//! - `replies(job, key, occurrence, model, content, reasoning,
//!   prompt_tokens, completion_tokens, total_tokens, cache_read_tokens,
//!   cache_write_tokens, finish_reason, cost, batch_id, custom_id,
//!   recorded_at_ms, logprobs)`: one row per reply of a job; `occurrence` counts
//!   equal requests from 0; `finish_reason` is `stop`, `length`,
//!   `content_filter` or the server's own word; `batch_id` and `custom_id`
//!   name the batch request that brought it, if one did; `logprobs` the
//!   reply's token log-probabilities as JSON (`[{"token", "logprob",
//!   "top": [[token, logprob], ...]}, ...]`), NULL when it came without
//!   them (schema version 6), so that a replayed reply is measured as the
//!   first was.
//! - `cache(key, model, content, reasoning, <the five token counts>,
//!   finish_reason, recorded_at_ms, logprobs)`: the response cache. A
//!   request that asks for log-probabilities
//!   ([`Think::confidence`](crate::Think::confidence)) is cached under a
//!   key of its own: a reply cached for a run that did not ask has none,
//!   and never answers one that does.
//! - `outcomes(job, idx, ok, attempts, prompt_tokens, completion_tokens,
//!   cost, final_reply, error, recorded_at_ms)`: one row per ended run of
//!   [`Think::run_many`], `idx` its place in the input.
//! - `typed_runs(job, shape, prompt, answer, constrained, attempts,
//!   recorded_at_ms)`: one row per prompt of a job whose run ended with a
//!   value ([`Job::typed_runs`]): `shape` the SHA-256 (hex) of the type's
//!   sections (field, header, kind of value) and ways, `prompt` the
//!   prompt's text as written, `answer` the answer in the soft format.
//!   Schema version 2; see "Users' text" below.
//! - `feedback(job, model, problem, wording, constrained, fixed,
//!   recorded_at_ms)`: one row per problem a feedback message named
//!   ([`Job::feedback_rates`]): the model that read it, the problem's kind
//!   ([`ProblemKind::name`](crate::feedback::ProblemKind::name)), the
//!   message's [`Wording`](crate::feedback::Wording) by name, whether the
//!   next attempt was constrained, and whether the next reply fixed the
//!   section (0 or 1). Schema version 3.
//! - `batches(batch_id, job, provider, round, status, requests,
//!   submitted_at_ms, updated_at_ms, intent)` and `batch_requests(batch_id,
//!   custom_id, key)`: the batches submitted to a provider's batch API
//!   and what each line asked. A batch is recorded before it is created,
//!   under an id of its submitter's (`intent`, also its `batch_id` then),
//!   with `status` `submitting`; once the provider names it, `batch_id`
//!   (and its lines') become the provider's id and `status` `submitted`,
//!   then the provider's last word when it ends; `not submitted` for one
//!   the provider refused or whose submitter died before hearing its id.
//!   A line with no reply in `replies` (by `batch_id` and `custom_id`) is
//!   still owed: a resumed job waits for its batch instead of asking
//!   again. The `intent` column: schema version 5.
//! - `prompts(job, idx, state, holder, lease_until_ms, leases)`: the
//!   prompts of a job run with a lease ([`Job::lease_for`]): `state` is
//!   `pending`, `leased` (by `holder`, until `lease_until_ms`), `typed` or
//!   `failed`; `leases` counts the leases taken (more than one: a worker
//!   died, or let it run out, and another took it over). Schema version 4.
//! - `confidences(job, prompt, attempt, position, field, confidence,
//!   measured, recorded_at_ms)`: for each run of a job that ended typed and
//!   asked how sure the model was ([`Think::confidence`](crate::Think::confidence),
//!   [`Think::samples`](crate::Think::samples),
//!   [`Think::review_below`](crate::Think::review_below)), each section's
//!   confidence in each attempt (`position` its place among the attempt's
//!   measured sections), `measured` `logprobs` or `agreement`
//!   ([`Job::confidences`]). Schema version 6.
//! - `reviews(job, prompt, position, field, confidence, threshold,
//!   recorded_at_ms)`: the sections of such a run's value below its
//!   threshold ([`Job::needs_review`]). Schema version 6. A prompt run
//!   again replaces its rows in both.
//!
//! A file of version 1 (written before `typed_runs` existed), 2 (before
//! `feedback`), 3 (before `prompts`), 4 (before `intent`) or 5 (before
//! `confidences`, `reviews` and `logprobs`) opens as it is: opened for writing,
//! it gains the new tables and columns in one transaction (a failure leaves it as it
//! was) and keeps every record (its replies without log-probabilities);
//! opened read-only, it is read unchanged and
//! has no typed runs (a version 1 file), no feedback rates (before 3),
//! no progress (before 4) and no confidences (before 6).
//!
//! In PostgreSQL ([`Journal::postgres`]) the tables are the same, each
//! named with a `twr_` prefix, with the schema version in `twr_meta`
//! (`schema_version`); lease times are the server's clock.
//!
//! # Users' text
//!
//! A journal holds what its runs were asked and answered: `replies` and
//! `cache` the model's replies, `outcomes` the final answers, `typed_runs`
//! each prompt as the program wrote it, which is often a user's own text.
//! Keep the file where that text may be kept. A run reads no other job
//! than the ones its program names: [`Think::journal`](crate::Think::journal)
//! for its replies, [`Think::learn_from`](crate::Think::learn_from) for the
//! demonstrations it shows, so one user's prompts reach another's run only
//! through a job the program passed (or through the response cache, which
//! answers equal requests across jobs by design: give it only to runs that
//! may share their replies).
//!
//! [`Think::run_many`]: crate::Think::run_many

mod error;
pub(crate) mod key;
#[cfg(feature = "postgres")]
mod postgres;
mod records;
mod sqlite;
pub(crate) mod store;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use error::JournalError;
pub(crate) use key::shape_of;
pub use key::RequestKey;
use records::Lease;
#[cfg(feature = "batch")]
pub(crate) use records::{BatchIntent, PendingLine};
pub(crate) use records::{Claim, FeedbackEvent, ReplyEntry, RunConfidence};
pub use records::{
    FeedbackRate, JobProgress, Measured, RecordedConfidence, RecordedOutcome, Review, TypedRun,
};
use sqlite::SqliteStore;
use store::{Store, Write};

use crate::model::Reply;

/// An open journal. Cheap to clone: clones share the connection.
#[derive(Clone)]
pub struct Journal {
    /// What keeps the records.
    store: Arc<dyn Store>,
    /// The same store when it is a SQLite file: its path and size limit.
    sqlite: Option<Arc<SqliteStore>>,
}

impl Journal {
    /// Opens the journal at `path`, creating it (and its schema) when the
    /// file is absent or empty.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the file is not a twr journal, was written
    /// by a newer twr, is damaged, or cannot be created.
    pub fn open(path: impl AsRef<Path>) -> Result<Journal, JournalError> {
        Journal::open_with(path.as_ref(), false)
    }

    /// Opens an existing journal for reading only (to inspect a job while
    /// another process runs it). A run given a job of it fails at its first
    /// new record with [`JournalError::ReadOnly`].
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), and when the file does not exist.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Journal, JournalError> {
        Journal::open_with(path.as_ref(), true)
    }

    fn open_with(path: &Path, read_only: bool) -> Result<Journal, JournalError> {
        let sqlite = Arc::new(SqliteStore::open(path, read_only)?);
        Ok(Journal {
            store: Arc::clone(&sqlite) as Arc<dyn Store>,
            sqlite: Some(sqlite),
        })
    }

    /// Connects to the journal in the PostgreSQL database at `url` (feature
    /// `postgres`), creating its tables in a database that has none and
    /// upgrading those of an older twr, in one transaction (workers
    /// starting together upgrade once). Many processes on many machines
    /// may share one: each records and replays the same jobs, and the
    /// response cache is shared too.
    ///
    /// `url` is a PostgreSQL connection URL
    /// (`postgres://user:password@host:5432/database`) or `key=value`
    /// string, with libpq's TLS options: `sslmode=require`, TLS (rustls)
    /// or no connection, the server's certificate not checked; `prefer`
    /// (the default), TLS when the server offers it; `disable`, never;
    /// `verify-full`, the certificate checked against the certificate
    /// authorities trusted and the host's name; `verify-ca`, against the
    /// authorities only. The authorities are the platform's, or those of
    /// the PEM file `sslrootcert=/path/to/root.crt` (a root certificate
    /// named with `require` checks as `verify-ca`, as libpq does). The
    /// password never appears in errors or `Debug`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use twr_runtime::journal::Journal;
    /// let journal = Journal::postgres("postgres://twr@127.0.0.1/twr").await?;
    /// let job = journal.job("invoices-2026");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`JournalError::Address`] for a `url` that is not a connection URL
    /// (or an `sslrootcert` file that cannot be read);
    /// [`JournalError::Certificate`] for a server certificate the check
    /// refuses; [`JournalError::Postgres`] when the server cannot be reached or
    /// refuses the connection; [`JournalError::Version`] for a database
    /// whose tables a newer twr wrote.
    #[cfg(feature = "postgres")]
    #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
    pub async fn postgres(url: &str) -> Result<Journal, JournalError> {
        let store = postgres::PostgresStore::connect(url).await?;
        Ok(Journal {
            store: Arc::new(store),
            sqlite: None,
        })
    }

    /// Caps the file at about `bytes` (in whole database pages): a record
    /// that would pass it fails with [`JournalError::Full`], as on a full
    /// disk. It waits for the file's connection: call it when setting the
    /// journal up, before its runs.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when SQLite refuses the setting.
    pub fn size_limit(self, bytes: u64) -> Result<Journal, JournalError> {
        if let Some(sqlite) = &self.sqlite {
            sqlite.run_blocking(move |connection| {
                let page: u64 = connection.query_row("PRAGMA page_size", [], |row| row.get(0))?;
                let pages = (bytes / page.max(1)).max(1);
                connection.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            })?;
        }
        Ok(self)
    }

    /// The file's path; `None` for a journal in a database server.
    pub fn path(&self) -> Option<&Path> {
        self.sqlite.as_deref().map(SqliteStore::path)
    }

    /// The job named `name` (created by its first record): the replies and
    /// outcomes of one piece of work, for [`Think::journal`](crate::Think::journal).
    pub fn job(&self, name: impl Into<String>) -> Job {
        Job {
            journal: self.clone(),
            name: Arc::from(name.into()),
            seen: Arc::new(Mutex::new(HashMap::new())),
            lease: None,
        }
    }

    /// The response cache of this journal, for
    /// [`Think::response_cache`](crate::Think::response_cache).
    pub fn cache(&self) -> ResponseCache {
        ResponseCache {
            journal: self.clone(),
        }
    }
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Journal")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// One job of a [`Journal`]: the replies and outcomes of one piece of work.
/// Cheap to clone; clones share the count of equal requests seen.
#[derive(Clone)]
pub struct Job {
    journal: Journal,
    name: Arc<str>,
    /// How many times each request was asked so far in this process: the
    /// occurrence the next one answers to.
    seen: Arc<Mutex<HashMap<RequestKey, u32>>>,
    /// The lease this handle takes on the job's prompts, if any.
    lease: Option<Lease>,
}

impl Job {
    /// This job with its prompts leased, one worker at a time, for
    /// `duration` each: a fleet of processes runs
    /// [`Think::run_many`](crate::Think::run_many) (or
    /// [`run_each`](crate::Think::run_each)) over the same job and prompt
    /// list, and each prompt is run by the one worker that holds its
    /// lease. The lease is renewed while the run goes on (every third of
    /// `duration`); when its worker dies, the lease runs out, another
    /// worker takes the prompt and replays the replies already recorded
    /// instead of asking for them again, so only the calls in flight at
    /// the death are bought twice. A prompt that another worker ended is
    /// replayed from the journal (typed), or handed out with its recorded
    /// error (failed), never run again. How a prompt ended is recorded with
    /// its outcome in one transaction, only while its lease holds.
    ///
    /// `duration` bounds how long a dead worker's prompts wait: a minute
    /// or so for calls of seconds. On SQLite the workers are the runs of
    /// one machine's processes; on [PostgreSQL](Journal::postgres),
    /// processes on many machines (the leases run out by the server's
    /// clock).
    ///
    /// ```no_run
    /// # #[derive(twr_runtime::Sections)] struct Invoice { total: f64 }
    /// # async fn demo(prompts: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use twr_runtime::{journal::Journal, OpenAiCompatible, Think};
    ///
    /// // Processes of one machine share a file; of many machines, a database:
    /// // Journal::postgres("postgres://twr@db.internal/twr").await? (feature "postgres").
    /// let journal = Journal::open("invoices.twr")?;
    /// let job = journal.job("invoices-2026").lease_for(Duration::from_secs(600));
    /// let model = OpenAiCompatible::from_env()?;
    /// // Start this on as many machines as you like.
    /// let results = Think::new(&model).journal(job.clone()).run_many::<Invoice>(prompts).await;
    /// let progress = job.progress().await?;
    /// println!("{} typed, {} failed", progress.typed, progress.failed);
    /// # Ok(()) }
    /// ```
    pub fn lease_for(mut self, duration: Duration) -> Job {
        let holder = format!("{}-{:016x}", std::process::id(), fastrand::u64(..));
        self.lease = Some(Lease {
            holder: Arc::from(holder),
            ms: i64::try_from(duration.as_millis())
                .unwrap_or(i64::MAX)
                .max(1),
        });
        self
    }

    /// How long a lease runs, when this handle leases the job's prompts.
    pub(crate) fn lease_duration(&self) -> Option<Duration> {
        self.lease
            .as_ref()
            .map(|lease| Duration::from_millis(lease.ms as u64))
    }

    /// Ends when every record handed over so far is written, those not
    /// waited for included.
    pub(crate) async fn flush(&self) -> Result<(), JournalError> {
        self.store().flush().await
    }

    /// Records how leased prompt `outcome.index` ended, with the prompt's
    /// end, in one transaction, while this handle's lease holds it; ends
    /// when it is committed.
    pub(crate) async fn record_ended(&self, outcome: RecordedOutcome) -> Result<(), JournalError> {
        let Some(lease) = &self.lease else {
            return Ok(());
        };
        let write = Write::Ended {
            job: Arc::clone(&self.name),
            outcome,
            lease: lease.clone(),
        };
        self.store().write(write).await
    }

    /// Makes prompts `0..count` known to the job (as pending).
    pub(crate) async fn register_prompts(&self, count: usize) -> Result<(), JournalError> {
        self.store().register_prompts(&self.name, count).await
    }

    /// Asks for the lease of prompt `index` (of a handle with a lease).
    pub(crate) async fn claim(&self, index: usize) -> Result<Claim, JournalError> {
        match &self.lease {
            Some(lease) => self.store().claim(&self.name, index, lease).await,
            None => Ok(Claim::Ours),
        }
    }

    /// Leases the first prompt in `from..below` that no one holds (of a
    /// handle with a lease; without one, `from` is this worker's when it
    /// is below `below`).
    pub(crate) async fn claim_next(
        &self,
        from: usize,
        below: usize,
    ) -> Result<Option<usize>, JournalError> {
        match &self.lease {
            Some(lease) => {
                self.store()
                    .claim_next(&self.name, from, below, lease)
                    .await
            }
            None => Ok((from < below).then_some(from)),
        }
    }

    /// Renews the lease of prompt `index`; `false` when it was lost.
    pub(crate) async fn renew(&self, index: usize) -> Result<bool, JournalError> {
        match &self.lease {
            Some(lease) => self.store().renew(&self.name, index, lease).await,
            None => Ok(true),
        }
    }

    /// Where the job's prompts stand, across every process that runs it
    /// with a lease ([`lease_for`](Self::lease_for)): pending, leased,
    /// typed and failed. A job run without a lease counts nothing here
    /// (see [`outcomes`](Self::outcomes)).
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn progress(&self) -> Result<JobProgress, JournalError> {
        self.store().progress(&self.name).await
    }

    /// The job's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The journal it is in.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    fn store(&self) -> &dyn Store {
        &*self.journal.store
    }

    /// The occurrence number of the next ask of `key` in this process.
    pub(crate) fn next_occurrence(&self, key: &RequestKey) -> u32 {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let count = seen.entry(*key).or_insert(0);
        let occurrence = *count;
        *count += 1;
        occurrence
    }

    /// The recorded reply to occurrence `occurrence` of `key`, if any, and
    /// its cost when it was made.
    pub(crate) async fn replay(
        &self,
        key: &RequestKey,
        occurrence: u32,
    ) -> Result<Option<(Reply, Option<f64>)>, JournalError> {
        self.store().reply(&self.name, *key, occurrence).await
    }

    /// Records a reply; ends when it is committed.
    pub(crate) async fn record(&self, entry: ReplyEntry) -> Result<(), JournalError> {
        let job = Arc::clone(&self.name);
        self.store().write(Write::Reply { job, entry }).await
    }

    /// Records a reply without waiting (a failure is logged): a reply
    /// stopped early, whose reader is gone.
    pub(crate) fn record_detached(&self, entry: ReplyEntry) {
        let job = Arc::clone(&self.name);
        self.store().write_detached(Write::Reply { job, entry });
    }

    /// Records how run `index` of [`Think::run_many`](crate::Think::run_many)
    /// ended, without waiting (a failure is logged).
    /// With a lease, the prompt's end is recorded with it, in one
    /// transaction, while the lease holds.
    pub(crate) fn record_outcome(&self, outcome: RecordedOutcome) {
        let job = Arc::clone(&self.name);
        let write = match &self.lease {
            Some(lease) => Write::Ended {
                job,
                outcome,
                lease: lease.clone(),
            },
            None => Write::Outcome { job, outcome },
        };
        self.store().write_detached(write);
    }

    /// Records a batch about to be submitted for this job, under `intent`
    /// (an id of its submitter's): its lines' custom ids and the requests
    /// they carry, in one transaction, as being submitted. Recorded before
    /// the provider is asked, so that another worker whose run asks the
    /// same waits for this batch instead of submitting it again.
    #[cfg(feature = "batch")]
    pub(crate) async fn record_batch(
        &self,
        intent: &str,
        provider: &str,
        round: u32,
        lines: Vec<(String, RequestKey)>,
    ) -> Result<(), JournalError> {
        let write = Write::Batch {
            job: Arc::clone(&self.name),
            batch_id: intent.to_string(),
            provider: provider.to_string(),
            round,
            lines,
        };
        self.store().write(write).await
    }

    /// Records that the batch recorded under `intent` was created as
    /// `batch_id`: its lines move to that id, in one transaction.
    #[cfg(feature = "batch")]
    pub(crate) async fn batch_created(
        &self,
        intent: &str,
        batch_id: &str,
    ) -> Result<(), JournalError> {
        let write = Write::Created {
            intent: intent.to_string(),
            batch_id: batch_id.to_string(),
        };
        self.store().write(write).await
    }

    /// What became of the batch recorded under `intent`.
    #[cfg(feature = "batch")]
    pub(crate) async fn batch_intent(&self, intent: &str) -> Result<BatchIntent, JournalError> {
        self.store().batch_intent(intent).await
    }

    /// Records that batch `batch_id` ended as `status`, without waiting (a
    /// failure is logged).
    #[cfg(feature = "batch")]
    pub(crate) fn end_batch(&self, batch_id: &str, status: &str) {
        self.store().write_detached(Write::EndBatch {
            batch_id: batch_id.to_string(),
            status: status.to_string(),
        });
    }

    /// The lines of this job's batches that asked `key` and have no reply
    /// recorded, oldest first, those of batches being submitted included,
    /// those of batches never created left out.
    #[cfg(feature = "batch")]
    pub(crate) async fn pending_lines(
        &self,
        key: &RequestKey,
    ) -> Result<Vec<PendingLine>, JournalError> {
        self.store().pending_lines(&self.name, *key).await
    }

    /// The custom ids of batch `batch_id`'s lines whose replies are
    /// recorded.
    #[cfg(feature = "batch")]
    pub(crate) async fn answered_lines(&self, batch_id: &str) -> Result<Vec<String>, JournalError> {
        self.store().answered_lines(&self.name, batch_id).await
    }

    /// Records that a run of the type of shape `shape` ended with a value,
    /// without waiting (a failure is logged).
    pub(crate) fn record_typed(&self, shape: &str, run: TypedRun) {
        self.store().write_detached(Write::Typed {
            job: Arc::clone(&self.name),
            shape: shape.to_string(),
            run,
        });
    }

    /// The job's typed runs of the type of shape `shape`, by prompt.
    pub(crate) async fn typed_runs_of(&self, shape: &str) -> Result<Vec<TypedRun>, JournalError> {
        self.store().typed_runs(&self.name, shape).await
    }

    /// The runs of this job that ended with a `T` (see
    /// [`Think::journal`](crate::Think::journal)): each prompt as written
    /// and the answer its value was read from, in the soft format, ordered
    /// by prompt. These are what [`Think::learn_from`](crate::Think::learn_from)
    /// picks its demonstrations from. A journal holds its users' text: read
    /// it only where they would expect it to be read.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn typed_runs<T: crate::Sections>(&self) -> Result<Vec<TypedRun>, JournalError> {
        self.typed_runs_of(&shape_of(T::specs(), T::ways())).await
    }

    /// Records the feedback of one attempt and what the next reply made
    /// of it (see [`Job::feedback_rates`]), without waiting (a failure is
    /// logged).
    pub(crate) fn record_feedback(&self, events: Vec<FeedbackEvent>) {
        let job = Arc::clone(&self.name);
        self.store().write_detached(Write::Feedback { job, events });
    }

    /// Which wording of the feedback was followed by a fixed section, per
    /// model and kind of problem: for every problem the loop named in a
    /// run of this job ([`Think::journal`](crate::Think::journal)), how
    /// the message was worded ([`Wording`](crate::feedback::Wording)),
    /// whether the next attempt was constrained, and whether the next reply
    /// fixed the section (it had no problem left, or the reply gave the
    /// value). One row per model, problem, wording and constraint, ordered
    /// so; a program picks the wording its model follows best and sets it
    /// with [`Think::feedback_wording`](crate::Think::feedback_wording).
    ///
    /// A problem is counted once per message even when it names several
    /// items of one section; a message that asks a focused question counts
    /// only the section it asks about; a next reply cut off by the token
    /// limit or stopped early counts for none (it says nothing of the
    /// wording). A reply replayed from the journal on a resumption is not
    /// counted again: each feedback is counted when the reply after it
    /// arrives.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn feedback_rates(&self) -> Result<Vec<FeedbackRate>, JournalError> {
        self.store().feedback_rates(&self.name).await
    }

    /// Records what a typed run measured (its attempts' confidences, the
    /// value's sections to review), without waiting (a failure is logged).
    pub(crate) fn record_confidence(&self, run: RunConfidence) {
        let job = Arc::clone(&self.name);
        self.store().write_detached(Write::Confidence { job, run });
    }

    /// The typed prompts of this job whose value has sections to review:
    /// those whose confidence was below the run's
    /// [`Think::review_below`](crate::Think::review_below) threshold
    /// ([`Outcome::needs_review`](crate::Outcome::needs_review)), each with
    /// the fields and their confidences in the order of the type's
    /// sections, ordered by prompt. A prompt run again replaces its
    /// record; a run without a threshold, or whose values were all sure
    /// enough, is not listed. A program hands these to a person, or runs
    /// them again with a stronger model.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use twr_runtime::journal::{Journal, Measured};
    /// use twr_runtime::model::TokenLogprob;
    /// use twr_runtime::{Reply, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Order {
    ///     city: String,
    ///     paid: bool,
    /// }
    ///
    /// # let dir = std::env::temp_dir().join(format!("twr-doc-review-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("orders.twr");
    /// # let _ = std::fs::remove_file(&path);
    /// let journal = Journal::open(&path)?;
    /// let job = journal.job("orders");
    /// let token = |text: &str, p: f64| TokenLogprob { token: text.into(), logprob: p.ln(), top: vec![] };
    /// let reply = Reply::text("[City]\nOslo\n[Paid]\nyes").with_logprobs(vec![
    ///     token("[City]\n", 0.9),
    ///     token("Os", 0.3),
    ///     token("lo", 0.9),
    ///     token("\n[Paid]\n", 0.9),
    ///     token("yes", 0.95),
    /// ]);
    /// let model = ScriptedModel::from_replies([reply]);
    /// Think::new(&model)
    ///     .confidence(true)
    ///     .review_below(0.7)
    ///     .journal(job.clone())
    ///     .run::<Order>("Paid order to Oslo.")
    ///     .await?;
    ///
    /// let reviews = job.needs_review().await?;
    /// assert_eq!(reviews.len(), 1);
    /// assert_eq!(reviews[0].prompt, "Paid order to Oslo.");
    /// assert_eq!(reviews[0].fields[0].0, "city"); // sqrt(0.3 * 0.9) = 0.52
    /// assert_eq!(reviews[0].threshold, 0.7);
    ///
    /// let sure = job.confidences("Paid order to Oslo.").await?;
    /// assert_eq!(sure.len(), 2); // city and paid, in attempt 1
    /// assert_eq!((sure[1].field.as_str(), sure[1].attempt), ("paid", 1));
    /// assert_eq!(sure[1].measured, Measured::Logprobs);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn needs_review(&self) -> Result<Vec<Review>, JournalError> {
        self.store().needs_review(&self.name).await
    }

    /// How sure the model was of each section in each attempt of the typed
    /// run of `prompt` (the prompt's text as the program wrote it): the
    /// confidences of the ledger's [`Attempt::confidence`](crate::Attempt::confidence),
    /// by attempt and then in the order of the type's sections, each with
    /// how it was measured (token log-probabilities, or the agreement of
    /// [`Think::samples`](crate::Think::samples)). Empty for a prompt that
    /// was not run in this job, did not end typed, or measured nothing. A
    /// prompt run again replaces its record. See
    /// [`needs_review`](Self::needs_review) for an example.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn confidences(&self, prompt: &str) -> Result<Vec<RecordedConfidence>, JournalError> {
        self.store().confidences(&self.name, prompt).await
    }

    /// How many replies the job has recorded.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn replies(&self) -> Result<u64, JournalError> {
        self.store().count_replies(&self.name).await
    }

    /// The outcomes recorded so far, by their place in the input.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn outcomes(&self) -> Result<Vec<RecordedOutcome>, JournalError> {
        self.store().outcomes(&self.name).await
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Job")
            .field("name", &self.name)
            .field("journal", &self.journal)
            .finish_non_exhaustive()
    }
}

/// The response cache of a [`Journal`]: replies by exact request, across
/// jobs, for [`Think::response_cache`](crate::Think::response_cache).
#[derive(Clone, Debug)]
pub struct ResponseCache {
    journal: Journal,
}

impl ResponseCache {
    /// The cached reply to `key`, if any.
    pub(crate) async fn get(&self, key: &RequestKey) -> Result<Option<Reply>, JournalError> {
        self.journal.store.cached(*key).await
    }

    /// Caches `reply` as the answer to `key` (replacing an older one).
    pub(crate) async fn put(
        &self,
        key: &RequestKey,
        model: &str,
        reply: &Reply,
    ) -> Result<(), JournalError> {
        let write = Write::Cache {
            key: *key,
            model: model.to_string(),
            reply: reply.clone(),
        };
        self.journal.store.write(write).await
    }

    /// Caches `reply` without waiting (a failure is logged).
    pub(crate) fn put_detached(&self, key: &RequestKey, model: &str, reply: &Reply) {
        self.journal.store.write_detached(Write::Cache {
            key: *key,
            model: model.to_string(),
            reply: reply.clone(),
        });
    }

    /// How many replies are cached.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn len(&self) -> Result<u64, JournalError> {
        self.journal.store.count_cached().await
    }

    /// Whether nothing is cached.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the journal cannot be read.
    pub async fn is_empty(&self) -> Result<bool, JournalError> {
        Ok(self.len().await? == 0)
    }
}
