//! Typed re-ask rounds over providers' batch APIs (feature `batch`): a
//! [`BatchModel`] is a [`ChatModel`] that gathers the calls made while a
//! round is open into one batch, submits it, polls it, and answers each
//! call from the batch's results. [`Think::run_many`](crate::Think::run_many)
//! over it is a batch job with everything the loop gives: round one submits
//! every prompt; the patch re-asks, focused questions and full re-asks of
//! the replies that did not parse are the calls of round two, gathered into
//! the next batch; and so on until each run is typed or out of attempts.
//! Results come back in input order with the usual ledger, each attempt
//! marked [`crate::model::Served::Batch`] with its batch id and
//! custom id, and priced with the batch discount.
//!
//! ```no_run
//! use std::time::Duration;
//! use twr_runtime::batch::BatchModel;
//! use twr_runtime::journal::Journal;
//! use twr_runtime::{OpenAiCompatible, Think};
//!
//! # #[derive(twr_runtime::Sections)] struct Invoice { total: f64 }
//! # async fn demo(prompts: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
//! let journal = Journal::open("invoices.twr")?;
//! let job = journal.job("invoices-2026-11");
//! let client = OpenAiCompatible::from_env()?;
//! let batch = BatchModel::openai(client).journal(job.clone()).poll_interval(Duration::from_secs(60));
//! let results = Think::new(&batch)
//!     .journal(job)
//!     .concurrency(prompts.len())   // every run waits on its batch at once
//!     .run_many::<Invoice>(prompts)
//!     .await;
//! # Ok(()) }
//! ```
//!
//! # A job larger than memory
//!
//! `run_many` keeps every run alive until its batch answers and returns
//! every outcome at the end: what it holds grows with the prompts (about
//! 25 KiB each in a debug build). [`Think::run_each`](crate::Think::run_each)
//! keeps it flat: a window of [`concurrency`](crate::Think::concurrency)
//! prompts in flight, each taken from its iterator only when its run
//! starts, and each outcome handed out as it ends (and recorded in the
//! journal). Give the model the same number as
//! [`max_lines`](BatchModel::max_lines): round one is the first window;
//! as its batch answers, the typed runs end, the next prompts start, and
//! their first calls join the re-asks of the others in the next batch.
//!
//! ```no_run
//! use futures_util::StreamExt;
//! # use std::time::Duration;
//! # use twr_runtime::batch::BatchModel;
//! # use twr_runtime::journal::Journal;
//! # use twr_runtime::{OpenAiCompatible, Think};
//! # #[derive(Debug, twr_runtime::Sections)] struct Invoice { total: f64 }
//! # async fn demo(prompts: impl Iterator<Item = String>) -> Result<(), Box<dyn std::error::Error>> {
//! # let job = Journal::open("invoices.twr")?.job("invoices-2026-11");
//! # let client = OpenAiCompatible::from_env()?;
//! let window = 5_000;
//! let batch = BatchModel::openai(client).journal(job.clone()).max_lines(window);
//! let think = Think::new(&batch).journal(job).concurrency(window);
//! let mut ended = Box::pin(think.run_each::<Invoice>(prompts));
//! while let Some((index, result)) = ended.next().await {
//!     println!("{index}: {:?}", result.map(|outcome| outcome.value));
//! }
//! # Ok(()) }
//! ```
//!
//! # Providers
//!
//! One machinery, and a small [`BatchApi`] per provider that writes a
//! line, submits, says where a batch stands and reads its results:
//!
//! - [`BatchModel::openai`]: OpenAI's Batch API (files and `/v1/batches`,
//!   JSONL in and out), also what vLLM's `run-batch` reads and writes;
//! - [`BatchModel::anthropic`]: Message Batches (`processing_status`,
//!   results `succeeded`, `errored`, `canceled` or `expired` per request);
//! - [`BatchModel::gemini`]: Gemini's batch mode with inline requests (a
//!   long-running operation, `BATCH_STATE_*`, `inlinedResponses`);
//! - [`BatchModel::local`]: batches run in this process, their lines
//!   answered by any [`ChatModel`] (a [`ScriptedModel`](crate::ScriptedModel)
//!   included): a batch job tried offline, with no server to write.
//!
//! Each line is the body the online client would send, with its options
//! (Anthropic's prompt caching breakpoints included), and each result is
//! read by the online client's own decoder: usage, cache tokens, refusals
//! and finish reasons are the same as online.
//!
//! A provider's batch API of your own is a [`BatchApi`] handed to
//! [`BatchModel::new`]: it names the online model it is the batch form of
//! ([`BatchApi::online`], whose name, options and grammar the lines carry),
//! writes a line (an [`HttpModel`](crate::client::HttpModel)'s
//! [`request_body_for`](crate::client::HttpModel::request_body_for) is the
//! online body), submits, says where a batch stands ([`Status`]) and reads
//! its results ([`LineResult`]); the rounds, re-asks, journal and pricing
//! are the batch model's. `tests/it/batch_outside.rs` in the repository is
//! a complete one, written with only the crate's public items.
//!
//! # Rounds
//!
//! A round is open while calls keep coming: it closes when no new call came
//! for the [`gather_window`](BatchModel::gather_window) (or it holds
//! [`max_lines`](BatchModel::max_lines), or the provider's
//! [`MAX_BYTES`](BatchApi::MAX_BYTES) of requests), and is submitted as one
//! batch; a round larger than one batch may hold goes up as several.
//! So give `run_many` a [`concurrency`](crate::Think::concurrency) of at
//! least the number of prompts: a run waiting for a slot would only join a
//! later round (or use `run_each` with a window, above).
//!
//! No task is spawned: the waiting calls take turns driving the rounds
//! (submitting, polling every [`poll_interval`](BatchModel::poll_interval),
//! handing out results), so dropping the job's future stops everything.
//!
//! # Failures per line
//!
//! A line's error is transient or not as for an online call (a 429 or 5xx
//! line is retried in the next round, a 400 ends its run); a line the batch
//! never ran because it expired is transient (a new batch can run it), one
//! that was cancelled is not.
//!
//! A result line that cannot be read (not JSON, a success without its
//! reply, a reply of the wrong shape) fails only its own run, with a
//! [`ModelError::Decode`] that holds the line's text; the batch's other
//! runs get their replies. A line whose custom id cannot be read at all
//! gives its text to the runs left without a result.
//!
//! A batch's own answer that cannot be read (a batch object missing its
//! status, an ended batch that names no results) is polled again, up to
//! [`MAX_UNREADABLE_POLLS`] times in a row; then its runs fail with a
//! [`ModelError::Decode`] that says what was missing. A poll that fails on
//! the way (a timeout, a 5xx) is polled again without a bound, as before.
//!
//! # Resumption
//!
//! With a [`journal`](BatchModel::journal), every batch and what each of
//! its lines asks is recorded before the provider is asked to create it
//! (under an id of the submitter's, as being submitted), and the
//! provider's batch id once it answers. Killed and run again, the loop
//! replays the replies the job recorded (see [`journal`](crate::journal));
//! a call whose line is in a batch that was submitted but not yet answered
//! waits for that batch instead of submitting the request again: nothing
//! is asked, or paid for, twice.
//!
//! # Many workers, one job
//!
//! Any number of processes may run the same job (a fleet on a shared
//! journal, [`Journal::postgres`](crate::journal::Journal::postgres), each
//! prompt leased by one worker: [`Job::lease_for`]). A batch is polled and
//! its results recorded by whichever worker has a run waiting on one of
//! its lines: a worker that takes over a dead one's prompt replays that
//! prompt's recorded replies, and its next call finds its line in the dead
//! worker's batch and waits for it, polling it. Recording a reply is
//! idempotent (the same line's reply replaces itself), and the re-ask
//! round is the next step: a worker submits only lines that no batch of
//! the job holds, so two workers never submit the same round. A batch
//! whose submitter died between recording it and hearing the provider's id
//! cannot be told from one never created: its lines wait
//! [`submit_timeout`](BatchModel::submit_timeout) for the id to appear,
//! then are asked again; at most the lines in flight at that moment can
//! be bought twice.

/// Declares a built-in provider's batch model: its alias and the
/// constructor that makes it from the provider's online client.
macro_rules! batch_models {
    ($(
        $(#[$alias_doc:meta])* $alias:ident = $api:ident;
        $(#[$new_doc:meta])* fn $new:ident(client: $client:ident);
    )+) => {
        $(
            $(#[$alias_doc])*
            pub type $alias = BatchModel<$api>;

            impl BatchModel<$api> {
                $(#[$new_doc])*
                pub fn $new(client: $client) -> Self {
                    BatchModel::new($api::new(client))
                }
            }
        )+
    };
}

// A built-in provider's batch API lives beside its online client
// (`client/<provider>/batch.rs`); here each gets its alias and its
// constructor (`OpenAiBatch`, `BatchModel::openai`): adding a built-in
// batch provider is that file plus its lines here.
batch_models! {
    /// An OpenAI (or vLLM, or any OpenAI-compatible) batch model: files and
    /// `/v1/batches`.
    OpenAiBatch = OpenAiBatchApi;
    /// A batch model with the model, key, base URL and options of `client`
    /// (its `stream` option does not apply: batch lines never stream).
    fn openai(client: OpenAiCompatible);

    /// A Gemini batch model: batch mode with inline requests.
    GeminiBatch = GeminiBatchApi;
    /// A batch model with the model, key, base URL and options of `client`
    /// (its `stream` option does not apply).
    fn gemini(client: Gemini);

    /// An Anthropic batch model: Message Batches.
    AnthropicBatch = AnthropicBatchApi;
    /// A batch model with the model, key, base URL and options of `client`,
    /// its prompt caching breakpoints included (its `stream` option does
    /// not apply).
    fn anthropic(client: Anthropic);
}

mod local;
pub use local::LocalBatchApi;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::Either;
use tokio::time::Instant;

pub use crate::client::anthropic::AnthropicBatchApi;
pub use crate::client::batch_api::{BatchApi, LineResult, Status};
pub use crate::client::gemini::GeminiBatchApi;
use crate::client::models::{Anthropic, Gemini, OpenAiCompatible};
pub use crate::client::openai::OpenAiBatchApi;

use crate::grammar::Format;
use crate::journal::key::options_of;
use crate::journal::store::NOT_SUBMITTED;
use crate::journal::{BatchIntent, Job, PendingLine, RequestKey};
use crate::model::{BoxFuture, ChatModel, ModelError, Reply, Request, Response, Served};

/// How long a round stays open after its latest call, by default.
pub const DEFAULT_GATHER_WINDOW: Duration = Duration::from_secs(2);

/// How often a running batch is polled, by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(30);

/// How long a batch another worker recorded may stay unconfirmed (recorded,
/// its provider's id not yet), by default, before its lines are asked
/// again: far longer than uploading and creating any batch takes.
pub const DEFAULT_SUBMIT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// A chat model over a provider's batch API: see the [module](self).
pub struct BatchModel<A> {
    shared: Arc<Shared<A>>,
}

struct Shared<A> {
    api: A,
    job: Option<Job>,
    gather_window: Duration,
    poll_interval: Duration,
    submit_timeout: Duration,
    max_lines: usize,
    /// Held by the call that drives the rounds for a step; the others wait
    /// for it, and take over when its future is dropped.
    driver: tokio::sync::Mutex<()>,
    state: Mutex<State>,
    /// Makes this instance's custom ids unique among the batches of a job.
    nonce: String,
}

#[derive(Default)]
struct State {
    /// Lines of the open round.
    open: Vec<Line>,
    /// The bytes of their requests.
    open_bytes: usize,
    latest_call: Option<Instant>,
    /// Submitted batches not yet ended.
    running: Vec<Running>,
    /// The calls waiting for a line's result, by custom id.
    waiters: HashMap<String, Waiter>,
    /// Lines of journaled batches claimed by a call of this process, by
    /// batch id, until their replies are recorded (then the journal itself
    /// says they are no longer owed): only lines in flight are held.
    claimed: HashMap<String, HashSet<String>>,
    rounds: u32,
    lines: u64,
    /// Batches recorded so far, for the ids they are recorded under.
    recorded: u64,
}

/// Where a line's result goes: the call that waits for it.
type Waiter = tokio::sync::oneshot::Sender<Result<(Reply, Served), ModelError>>;

/// What a call waits on for its line's result.
type Waiting = tokio::sync::oneshot::Receiver<Result<(Reply, Served), ModelError>>;

struct Line {
    custom_id: String,
    key: RequestKey,
    request: serde_json::Value,
    /// The bytes of `request` as JSON.
    bytes: usize,
}

struct Running {
    /// The provider's id; while `submitting`, the id another worker
    /// recorded the batch under before creating it.
    batch_id: String,
    custom_ids: Vec<String>,
    /// The polls in a row whose answer could not be read.
    unreadable: u32,
    /// Recorded by another worker, not yet known to be created: the
    /// journal is asked for its provider's id instead of the provider for
    /// its status.
    submitting: bool,
}

impl<A: BatchApi> BatchModel<A> {
    /// A batch model over `api`: a built-in provider's (see
    /// [`openai`](BatchModel::openai) and its siblings) or one of your own,
    /// with the default gather window, poll interval and the provider's
    /// [`MAX_LINES`](BatchApi::MAX_LINES).
    pub fn new(api: A) -> Self {
        BatchModel {
            shared: Arc::new(Shared {
                api,
                job: None,
                gather_window: DEFAULT_GATHER_WINDOW,
                poll_interval: DEFAULT_POLL_INTERVAL,
                submit_timeout: DEFAULT_SUBMIT_TIMEOUT,
                max_lines: A::MAX_LINES,
                driver: tokio::sync::Mutex::new(()),
                state: Mutex::new(State::default()),
                nonce: format!("{:08x}", fastrand::u32(..)),
            }),
        }
    }

    fn configure(mut self, f: impl FnOnce(&mut Shared<A>)) -> Self {
        let shared =
            Arc::get_mut(&mut self.shared).expect("a BatchModel is configured before it is shared");
        f(shared);
        self
    }

    /// Records every submitted batch, and what each line asked, in `job`,
    /// so that a killed job resumes without submitting a request again.
    /// Give the same job to [`Think::journal`](crate::Think::journal).
    pub fn journal(self, job: Job) -> Self {
        self.configure(|shared| shared.job = Some(job))
    }

    /// How long a round stays open after its latest call (default
    /// [`DEFAULT_GATHER_WINDOW`]).
    pub fn gather_window(self, window: Duration) -> Self {
        self.configure(|shared| shared.gather_window = window)
    }

    /// How often a running batch is polled (default
    /// [`DEFAULT_POLL_INTERVAL`]).
    pub fn poll_interval(self, interval: Duration) -> Self {
        self.configure(|shared| shared.poll_interval = interval)
    }

    /// How long a batch recorded by another worker of the job may stay
    /// unconfirmed (its provider's id not recorded) before its lines are
    /// asked again (default [`DEFAULT_SUBMIT_TIMEOUT`]): the worker died
    /// between recording it and hearing the id, and the batch may or may
    /// not exist.
    pub fn submit_timeout(self, timeout: Duration) -> Self {
        self.configure(|shared| shared.submit_timeout = timeout)
    }

    /// The most lines of one batch (default and upper bound: the
    /// provider's limit, [`BatchApi::MAX_LINES`]); a full round is
    /// submitted at once. A round is also cut where its requests reach
    /// [`BatchApi::MAX_BYTES`].
    pub fn max_lines(self, lines: usize) -> Self {
        self.configure(|shared| shared.max_lines = lines.clamp(1, A::MAX_LINES))
    }

    /// Batches submitted so far by this model.
    pub fn rounds(&self) -> u32 {
        self.shared.lock().rounds
    }

    /// Lines submitted so far by this model.
    pub fn lines(&self) -> u64 {
        self.shared.lock().lines
    }

    /// The reply to `request` from a batch, and which batch and line.
    async fn ask(&self, request: Request<'_>) -> Result<(Reply, Served), ModelError> {
        let shared = &*self.shared;
        // A constrained request is another request, as online, and so is
        // another sample.
        let options = options_of(
            shared.api.online().request_options(),
            &request,
            shared.api.online().takes_grammar(),
        );
        let key = RequestKey::new(
            shared.api.online().name(),
            options.as_ref(),
            request.messages,
        );
        let mut waiting = match shared.claim_journaled(&key).await? {
            Some(waiting) => waiting,
            None => shared.open_line(key, shared.api.line(request)?),
        };
        // Wait for the result; meanwhile, when no other call drives the
        // rounds, drive them one step. A result handed out while another
        // call drives arrives at once (the lock is not needed for it).
        loop {
            let driving = std::pin::pin!(shared.driver.lock());
            // `select` polls the result first.
            match futures_util::future::select(&mut waiting, driving).await {
                Either::Left((result, _)) => {
                    return result.unwrap_or_else(|_| {
                        Err(ModelError::Other("the batch model was dropped".into()))
                    });
                }
                Either::Right((_driving, _)) => shared.step().await,
            }
        }
    }
}

impl<A> Shared<A> {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands `result` to the call waiting for line `custom_id` (none when
    /// its run was dropped).
    fn hand_out(state: &mut State, custom_id: &str, result: Result<(Reply, Served), ModelError>) {
        if let Some(waiter) = state.waiters.remove(custom_id) {
            let _ = waiter.send(result);
        }
    }
}

impl<A: BatchApi> Shared<A> {
    /// A line of a journaled batch, submitted by an earlier process and not
    /// yet answered, that asked exactly this: the call waits for it.
    async fn claim_journaled(&self, key: &RequestKey) -> Result<Option<Waiting>, ModelError> {
        let Some(job) = &self.job else {
            return Ok(None);
        };
        let pending = job
            .pending_lines(key)
            .await
            .map_err(|e| ModelError::Other(Box::new(e)))?;
        let mut state = self.lock();
        for line in pending {
            let PendingLine {
                batch_id,
                custom_id,
                submitting,
            } = line;
            let claimed = state.claimed.entry(batch_id.clone()).or_default();
            if claimed.insert(custom_id.clone()) {
                match state.running.iter_mut().find(|r| r.batch_id == batch_id) {
                    Some(running) => running.custom_ids.push(custom_id.clone()),
                    None => state.running.push(Running {
                        batch_id,
                        custom_ids: vec![custom_id.clone()],
                        unreadable: 0,
                        submitting,
                    }),
                }
                let (waiter, waiting) = tokio::sync::oneshot::channel();
                state.waiters.insert(custom_id, waiter);
                return Ok(Some(waiting));
            }
        }
        Ok(None)
    }

    /// Adds a line to the open round; what its call waits on.
    fn open_line(&self, key: RequestKey, request: serde_json::Value) -> Waiting {
        let bytes = json_bytes(&request);
        let mut state = self.lock();
        state.open_bytes += bytes;
        state.lines += 1;
        let custom_id = format!("twr-{}-{}", self.nonce, state.lines);
        let (waiter, waiting) = tokio::sync::oneshot::channel();
        state.waiters.insert(custom_id.clone(), waiter);
        state.open.push(Line {
            custom_id,
            key,
            request,
            bytes,
        });
        state.latest_call = Some(Instant::now());
        waiting
    }

    /// One step of driving the rounds: submit the open round once it is
    /// quiet or full; else poll the running batches; else wait for the
    /// round to close.
    async fn step(&self) {
        let (submit, wait) = {
            let state = self.lock();
            let quiet_at = state.latest_call.map(|at| at + self.gather_window);
            let full = state.open.len() >= self.max_lines || state.open_bytes >= A::MAX_BYTES;
            let quiet = quiet_at.is_some_and(|at| at <= Instant::now());
            (!state.open.is_empty() && (full || quiet), quiet_at)
        };
        if submit {
            return self.submit().await;
        }
        let running = !self.lock().running.is_empty();
        if running {
            tokio::time::sleep(self.poll_interval).await;
            return self.poll().await;
        }
        if let Some(at) = wait {
            tokio::time::sleep_until(at).await;
        }
    }

    /// Submits the open round as one batch: as many of its lines as fit
    /// within `max_lines` and the provider's bytes (at least one).
    async fn submit(&self) {
        let lines: Vec<Line> = {
            let mut state = self.lock();
            let (mut take, mut bytes) = (0, 0);
            for line in &state.open {
                if take == self.max_lines || (take > 0 && bytes + line.bytes > A::MAX_BYTES) {
                    break;
                }
                take += 1;
                bytes += line.bytes;
            }
            state.open_bytes -= bytes;
            state.open.drain(..take).collect()
        };
        let requests: Vec<(String, serde_json::Value)> = lines
            .iter()
            .map(|line| (line.custom_id.clone(), line.request.clone()))
            .collect();
        let (round, intent) = {
            let mut state = self.lock();
            state.recorded += 1;
            let intent = format!("twr-{}-batch-{}", self.nonce, state.recorded);
            (state.rounds + 1, intent)
        };
        // Recorded before the provider is asked, so that a worker whose
        // run asks the same waits for this batch instead of submitting it
        // again; a batch that cannot be recorded is not submitted.
        if let Some(job) = &self.job {
            let entries: Vec<(String, RequestKey)> = lines
                .iter()
                .map(|line| (line.custom_id.clone(), line.key))
                .collect();
            let recorded = job.record_batch(&intent, A::PROVIDER, round, entries).await;
            if let Err(error) = recorded {
                tracing::warn!(%error, "twr could not record a batch before submitting it");
                let error = ModelError::Other(Box::new(error));
                return self.fail_all(&lines, &error);
            }
            // Its lines are this process's from now on: another call of
            // this process that asks the same does not wait on them.
            let mut state = self.lock();
            let claimed = state.claimed.entry(intent.clone()).or_default();
            claimed.extend(lines.iter().map(|line| line.custom_id.clone()));
        }
        let submitted = self.api.submit(&requests).await;
        drop(requests);
        self.settle().await;
        let batch_id = match submitted {
            Ok(batch_id) => batch_id,
            Err(error) => {
                if let Some(job) = &self.job {
                    job.end_batch(&intent, NOT_SUBMITTED);
                    self.lock().claimed.remove(&intent);
                }
                return self.fail_all(&lines, &error);
            }
        };
        self.lock().rounds += 1;
        if let Some(job) = &self.job {
            if let Err(error) = job.batch_created(&intent, &batch_id).await {
                // The batch runs and this worker waits for it; another
                // worker would find its lines unconfirmed, and ask them
                // again after the submit timeout.
                tracing::warn!(%batch_id, %error, "twr could not record a submitted batch's id");
            }
        }
        tracing::info!(%batch_id, round, lines = lines.len(), "twr batch submitted");
        let mut state = self.lock();
        if let Some(claimed) = state.claimed.remove(&intent) {
            state
                .claimed
                .entry(batch_id.clone())
                .or_default()
                .extend(claimed);
        }
        state.running.push(Running {
            batch_id,
            custom_ids: lines.into_iter().map(|line| line.custom_id).collect(),
            unreadable: 0,
            submitting: false,
        });
    }

    /// Lets go of the claims on lines of ended batches whose replies the
    /// journal has recorded since (their runs recorded them after their
    /// calls returned), so that the claims held stay as many as the lines
    /// in flight, however long the job. A line whose run was dropped before
    /// recording stays claimed: this process handed its result out once.
    async fn settle(&self) {
        let Some(job) = &self.job else {
            return;
        };
        let ended: Vec<String> = {
            let state = self.lock();
            let running = |id: &String| state.running.iter().any(|r| &r.batch_id == id);
            state
                .claimed
                .keys()
                .filter(|id| !running(id))
                .cloned()
                .collect()
        };
        for batch_id in ended {
            let answered = match job.answered_lines(&batch_id).await {
                Ok(answered) => answered,
                Err(error) => {
                    tracing::warn!(%batch_id, %error, "twr could not read a batch's recorded lines");
                    continue;
                }
            };
            let mut state = self.lock();
            if let Some(claimed) = state.claimed.get_mut(&batch_id) {
                for custom_id in &answered {
                    claimed.remove(custom_id);
                }
                if claimed.is_empty() {
                    state.claimed.remove(&batch_id);
                }
            }
        }
    }

    /// Every line of a batch that could not be submitted gets its error.
    fn fail_all(&self, lines: &[Line], error: &ModelError) {
        let mut state = self.lock();
        for line in lines {
            Self::hand_out(&mut state, &line.custom_id, Err(copy_error(error)));
        }
    }

    /// Polls each running batch once; hands out the results of those that
    /// ended. A poll that fails on the way (a transient error) is tried
    /// again at the next step; an answer that cannot be read (a batch
    /// object missing a field, an ended batch naming no results) is too,
    /// [`MAX_UNREADABLE_POLLS`] times in a row at most, before the batch's
    /// runs fail with its decode error.
    async fn poll(&self) {
        let (ids, submitting): (Vec<String>, Vec<String>) = {
            let state = self.lock();
            let ids = state.running.iter().filter(|r| !r.submitting);
            let submitting = state.running.iter().filter(|r| r.submitting);
            (
                ids.map(|r| r.batch_id.clone()).collect(),
                submitting.map(|r| r.batch_id.clone()).collect(),
            )
        };
        for intent in submitting {
            self.confirm(&intent).await;
        }
        for batch_id in ids {
            let (word, results) = match self.api.status(&batch_id).await {
                Ok(Status::Running(_)) => {
                    self.readable(&batch_id);
                    continue;
                }
                Ok(Status::Ended(word)) => {
                    let results = self.api.results(&batch_id).await;
                    (word, results)
                }
                Err(error) => ("unreadable".to_string(), Err(error)),
            };
            match results {
                Ok(results) => self.end(&batch_id, &word, Ok(results)),
                Err(error) if error.is_transient() => {
                    tracing::warn!(%batch_id, %error, "twr batch poll failed; polling again");
                }
                Err(ModelError::Decode(detail)) => self.unreadable(&batch_id, detail),
                Err(error) => self.end(&batch_id, &word, Err(error)),
            }
        }
    }

    /// Asks the journal what became of the batch another worker recorded
    /// under `intent`: once created, it is polled under its provider's id;
    /// never created, or unconfirmed past the submit timeout (its
    /// submitter died), its lines' runs get a transient error and ask
    /// again.
    async fn confirm(&self, intent: &str) {
        let Some(job) = &self.job else {
            return;
        };
        let found = match job.batch_intent(intent).await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!(%intent, %error, "twr could not read a recorded batch; reading again");
                return;
            }
        };
        let gone = match found {
            BatchIntent::Created(batch_id) => {
                let mut state = self.lock();
                if let Some(running) = state.running.iter_mut().find(|r| r.batch_id == intent) {
                    running.batch_id = batch_id.clone();
                    running.submitting = false;
                }
                if let Some(claimed) = state.claimed.remove(intent) {
                    state.claimed.entry(batch_id).or_default().extend(claimed);
                }
                return;
            }
            BatchIntent::Submitting { age } if age < self.submit_timeout => return,
            BatchIntent::Submitting { age } => {
                job.end_batch(intent, NOT_SUBMITTED);
                format!(
                    "was recorded {} s ago and never confirmed created",
                    age.as_secs()
                )
            }
            BatchIntent::NotSubmitted => "was never created".to_string(),
        };
        let mut state = self.lock();
        let Some(at) = state.running.iter().position(|r| r.batch_id == intent) else {
            return;
        };
        let running = state.running.swap_remove(at);
        state.claimed.remove(intent);
        tracing::warn!(%intent, lines = running.custom_ids.len(), "twr asks again the lines of a batch {gone}");
        for custom_id in running.custom_ids {
            let error = ModelError::Interrupted(
                format!("the batch {intent} that held request {custom_id} {gone}: asked again")
                    .into(),
            );
            Self::hand_out(&mut state, &custom_id, Err(error));
        }
    }

    /// Batch `batch_id` answered in a form that could be read.
    fn readable(&self, batch_id: &str) {
        let mut state = self.lock();
        if let Some(running) = state.running.iter_mut().find(|r| r.batch_id == batch_id) {
            running.unreadable = 0;
        }
    }

    /// Batch `batch_id` answered in a form that could not be read: polled
    /// again, or, the [`MAX_UNREADABLE_POLLS`]-th time in a row, ended with
    /// the error.
    fn unreadable(&self, batch_id: &str, detail: crate::model::ErrorDetail) {
        let polls = {
            let mut state = self.lock();
            let Some(running) = state.running.iter_mut().find(|r| r.batch_id == batch_id) else {
                return;
            };
            running.unreadable += 1;
            running.unreadable
        };
        if polls < MAX_UNREADABLE_POLLS {
            tracing::warn!(%batch_id, error = %detail, polls, "twr could not read a batch's answer; polling again");
            return;
        }
        let error = ModelError::Decode(
            format!("batch {batch_id} could not be read in {polls} polls in a row: {detail}")
                .into(),
        );
        self.end(batch_id, "unreadable", Err(error));
    }

    /// Hands out the results of batch `batch_id`, which ended as `word`.
    /// A line whose result is not among them gets the error of a line the
    /// batch never ran, or, when the batch had result lines that could not
    /// be paired with their requests, a decode error holding their text.
    fn end(&self, batch_id: &str, word: &str, results: Result<Vec<LineResult>, ModelError>) {
        if let Some(job) = &self.job {
            // Not waited for: a failure is logged, and the lines' replies,
            // not the batch's word, are what a resumption reads.
            job.end_batch(batch_id, word);
        }
        let mut state = self.lock();
        let Some(at) = state.running.iter().position(|r| r.batch_id == batch_id) else {
            return;
        };
        let running = state.running.swap_remove(at);
        let mut results: HashMap<String, Result<Reply, ModelError>> = match results {
            Ok(results) => results.into_iter().collect(),
            Err(error) => {
                for custom_id in running.custom_ids {
                    Self::hand_out(&mut state, &custom_id, Err(copy_error(&error)));
                }
                return;
            }
        };
        tracing::info!(
            batch_id,
            status = word,
            results = results.len(),
            "twr batch ended"
        );
        let mut ran = Vec::with_capacity(running.custom_ids.len());
        for custom_id in running.custom_ids {
            let result = results.remove(&custom_id);
            ran.push((custom_id, result));
        }
        // What is left are lines whose custom id could not be read (or is
        // none of this batch's): their text goes to the lines left without
        // a result, one of which they are.
        let unpaired = unpaired_text(results);
        for (custom_id, result) in ran {
            let result = result.unwrap_or_else(|| match &unpaired {
                Some(text) => Err(ModelError::Decode(
                    format!(
                        "batch {batch_id} ended ({word}) with no readable result for request \
                         {custom_id}; its result may be one of these unreadable lines: {text}"
                    )
                    .into(),
                )),
                None => Err(crate::client::batch_api::missing(
                    batch_id, &custom_id, word,
                )),
            });
            let served = Served::Batch {
                batch_id: batch_id.to_string(),
                custom_id: custom_id.clone(),
            };
            Self::hand_out(&mut state, &custom_id, result.map(|reply| (reply, served)));
        }
    }
}

/// The most times in a row a batch's answer may be unreadable (a batch
/// object missing its status, an ended batch naming no results) before its
/// runs fail: a provider's answer caught mid-update reads well at the next
/// poll, one that never does is not waited for forever.
pub const MAX_UNREADABLE_POLLS: u32 = 3;

/// The text of the result lines left over once each of a batch's lines took
/// its own: lines whose custom id could not be read. `None` when there are
/// none.
fn unpaired_text(left: HashMap<String, Result<Reply, ModelError>>) -> Option<String> {
    let texts: Vec<String> = left
        .into_values()
        .map(|result| match result {
            Ok(reply) => format!("a reply to no request of this batch: {}", reply.content),
            // The whole chain: a failure's own text says only its level.
            Err(error) => crate::model::error::report(&error),
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("; "))
}

/// The length of `value` as JSON, counted without writing it out.
fn json_bytes(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The same failure for every line of a batch, of the same kind: a decode
/// error stays a decode error, a status its status, so each run reads it
/// (transient or not, its retry-after) as it would the original. Sources
/// that cannot be copied are kept as their text.
fn copy_error(error: &ModelError) -> ModelError {
    let text = |detail: &crate::model::ErrorDetail| -> crate::model::ErrorDetail {
        detail.to_string().into()
    };
    match error {
        ModelError::Connect(detail) => ModelError::Connect(text(detail)),
        ModelError::Timeout(limit) => ModelError::Timeout(*limit),
        ModelError::Status {
            status,
            message,
            retry_after,
        } => ModelError::Status {
            status: *status,
            message: message.clone(),
            retry_after: *retry_after,
        },
        ModelError::EmptyReply => ModelError::EmptyReply,
        ModelError::Interrupted(detail) => ModelError::Interrupted(text(detail)),
        ModelError::TooLarge { limit } => ModelError::TooLarge { limit: *limit },
        ModelError::Refused(message) => ModelError::Refused(message.clone()),
        ModelError::Decode(detail) => ModelError::Decode(text(detail)),
        ModelError::Config(detail) => ModelError::Config(text(detail)),
        ModelError::Other(source) => ModelError::Other(source.to_string().into()),
        ModelError::Incomplete { partial, source } => ModelError::Incomplete {
            partial: partial.clone(),
            source: Box::new(copy_error(source)),
        },
        ModelError::Unavailable {
            retry_after,
            source,
        } => ModelError::Unavailable {
            retry_after: *retry_after,
            source: source.to_string().into(),
        },
        ModelError::Attachment(error) => ModelError::Attachment(error.clone()),
        ModelError::Named { model, source } => ModelError::Named {
            model: model.clone(),
            source: Box::new(copy_error(source)),
        },
    }
}

impl<A: BatchApi> ChatModel for BatchModel<A> {
    /// The reply, once the batch it went into is done, as one piece, with
    /// its batch id and custom id ([`Served::Batch`]).
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let (reply, served) = self.ask(request).await?;
            Ok(Response::from_reply(reply).with_served(served))
        })
    }

    fn name(&self) -> &str {
        self.shared.api.online().name()
    }

    fn request_options(&self) -> Option<serde_json::Value> {
        self.shared.api.online().request_options()
    }

    /// The batch API's, so the loop constrains a batch job's last attempt
    /// as it would online, and the grammar goes into its line.
    fn takes_grammar(&self) -> Option<Format> {
        self.shared.api.online().takes_grammar()
    }

    /// The batch API's, as its lines are sent with its options.
    fn reply_token_limit(&self) -> Option<u32> {
        self.shared.api.online().reply_token_limit()
    }
}

impl<A> fmt::Debug for BatchModel<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("BatchModel")
            .field("gather_window", &self.shared.gather_window)
            .field("poll_interval", &self.shared.poll_interval)
            .field("rounds", &state.rounds)
            .field("open", &state.open.len())
            .field("running", &state.running.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Message;

    /// A batch API in the process: every batch ends at its first poll, and
    /// each line's reply is its request's text.
    struct InProcess {
        batches: Mutex<Vec<Vec<(String, serde_json::Value)>>>,
        /// Only its name and options are read: the lines never reach it.
        online: crate::ScriptedModel,
    }

    impl Default for InProcess {
        fn default() -> Self {
            InProcess {
                batches: Mutex::default(),
                online: crate::ScriptedModel::new(Vec::<String>::new()).with_name("in-process"),
            }
        }
    }

    impl BatchApi for Arc<InProcess> {
        const PROVIDER: &'static str = "in-process";
        const MAX_LINES: usize = 3;
        // Each line below is `{"text":"item N"}`: 17 bytes; two fit.
        const MAX_BYTES: usize = 40;

        fn online(&self) -> &dyn ChatModel {
            &self.online
        }

        fn line(&self, request: Request<'_>) -> Result<serde_json::Value, ModelError> {
            Ok(serde_json::json!({ "text": request.messages[0].content }))
        }

        fn submit<'a>(
            &'a self,
            lines: &'a [(String, serde_json::Value)],
        ) -> BoxFuture<'a, Result<String, ModelError>> {
            Box::pin(async move {
                let mut batches = self.batches.lock().unwrap();
                batches.push(lines.to_vec());
                Ok(format!("b{}", batches.len()))
            })
        }

        fn status<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
            Box::pin(async move { Ok(Status::Ended("completed".into())) })
        }

        fn results<'a>(
            &'a self,
            id: &'a str,
        ) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
            Box::pin(async move {
                let n: usize = id[1..].parse().unwrap();
                let batches = self.batches.lock().unwrap();
                Ok(batches[n - 1]
                    .iter()
                    .map(|(id, request)| {
                        let text = request["text"].as_str().unwrap();
                        (id.clone(), Ok(Reply::text(text)))
                    })
                    .collect())
            })
        }
    }

    fn model(api: &Arc<InProcess>) -> BatchModel<Arc<InProcess>> {
        BatchModel::new(api.clone())
            .gather_window(Duration::from_millis(20))
            .poll_interval(Duration::from_millis(1))
    }

    async fn ask(model: &BatchModel<Arc<InProcess>>, items: std::ops::Range<u32>) -> Vec<String> {
        let conversations: Vec<Vec<Message>> = items
            .map(|n| vec![Message::user(format!("item {n}"))])
            .collect();
        let calls = conversations.iter().map(|messages| model.chat(messages));
        futures_util::future::join_all(calls)
            .await
            .into_iter()
            .map(|reply| reply.unwrap().content)
            .collect()
    }

    /// The lines claimed by `model`'s process, all batches together.
    fn claims(model: &BatchModel<Arc<InProcess>>) -> usize {
        model.shared.lock().claimed.values().map(HashSet::len).sum()
    }

    /// The gather window runs on the runtime's paused clock: it closes once
    /// every run of a wave waits for its reply, so all five lines are open
    /// by then however long the work before each call (the journal's
    /// writes) takes. On the real clock, when that work outlasted the
    /// window, the first batches ended and were recorded before the last
    /// was submitted, which let their claims go early (1 held, not 5).
    #[tokio::test(start_paused = true)]
    async fn claims_are_let_go_once_their_replies_are_recorded() {
        let dir = std::env::temp_dir().join(format!("twr-claims-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let journal = crate::journal::Journal::open(dir.join("claims.twr")).unwrap();
        let job = journal.job("claims");
        let api = Arc::new(InProcess::default());
        let model = model(&api).journal(job.clone());
        let think = crate::Think::new(&model).journal(job.clone());
        let wave = |items: std::ops::Range<u32>| {
            let runs = items.map(|n| {
                let parse = |raw: &str| Ok::<_, crate::Feedback>(raw.to_string());
                think.run_with(format!("item {n}"), parse)
            });
            futures_util::future::join_all(runs)
        };
        let first = wave(0..5).await;
        assert!(first.iter().all(Result::is_ok));
        // The last batches' lines stay claimed until the next submission
        // finds their replies recorded.
        assert_eq!(claims(&model), 5);
        let second = wave(5..10).await;
        assert_eq!(second[4].as_ref().unwrap().value, "item 9");
        assert_eq!((model.rounds(), job.replies().await.unwrap()), (6, 10));
        assert_eq!(claims(&model), 5);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_round_is_cut_where_the_providers_bytes_end() {
        let api = Arc::new(InProcess::default());
        let model = model(&api);
        let replies = ask(&model, 0..5).await;
        assert_eq!(replies, ["item 0", "item 1", "item 2", "item 3", "item 4"]);
        let sizes: Vec<usize> = api.batches.lock().unwrap().iter().map(Vec::len).collect();
        assert_eq!(sizes, [2, 2, 1]);
        assert_eq!((model.rounds(), model.lines()), (3, 5));
    }

    #[tokio::test]
    async fn a_round_is_cut_at_max_lines_and_the_providers_limit_bounds_it() {
        let api = Arc::new(InProcess::default());
        // Asked for more than the provider's 3 lines: 3 it is; and the
        // bytes cut first anyway. With one line per batch, 1.
        let model = model(&api).max_lines(1);
        ask(&model, 0..3).await;
        let sizes: Vec<usize> = api.batches.lock().unwrap().iter().map(Vec::len).collect();
        assert_eq!(sizes, [1, 1, 1]);
        let model = self::model(&api).max_lines(10);
        assert_eq!(model.shared.max_lines, 3);
    }

    #[test]
    fn a_copied_error_keeps_its_kind() {
        let decode = ModelError::Decode("not a batch object: missing field `status`".into());
        let copy = copy_error(&decode);
        assert!(matches!(&copy, ModelError::Decode(_)), "{copy:?}");
        assert_eq!(copy.to_string(), decode.to_string());
        let named = ModelError::Named {
            model: "m".into(),
            source: Box::new(ModelError::Timeout(Duration::from_secs(3))),
        };
        let copy = copy_error(&named);
        assert!(
            matches!(&copy, ModelError::Named { source, .. }
                if matches!(**source, ModelError::Timeout(t) if t == Duration::from_secs(3))),
            "{copy:?}"
        );
        assert!(copy.is_transient());
        let refused = copy_error(&ModelError::Refused("no".into()));
        assert!(matches!(&refused, ModelError::Refused(m) if m == "no"));
        assert!(!refused.is_transient());
    }
}
