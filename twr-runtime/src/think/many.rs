//! [`Think::run_many`](super::Think::run_many): many prompts with bounded
//! concurrency, one result per prompt in input order, and a progress hook.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt as _};

use super::error::ThinkError;
use super::outcome::Outcome;
use super::Think;
use crate::model::{ChatModel, Message, Usage};
use crate::sections::Sections;
use crate::stored_model::{BoxError, RunEnd, Turn};

/// Runs at once in [`Think::run_many`] unless
/// [`Think::concurrency`] says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// Where the runs of [`Think::run_many`] (or
/// [`run_each`](Think::run_each)) stand, after each run ends: the hook of
/// [`Think::on_progress`] hears it.
///
/// Not a [`Progress`](crate::Progress) event, which tells how one streamed
/// run goes (its attempts and sections); this counts the runs that ended.
/// Not about the `batch` module's batches either: the runs go to whatever
/// model the `Think` has, online or a provider's batch API.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RunsProgress {
    /// Runs ended so far (with a value or an error).
    pub done: usize,
    /// Runs in all: the prompts given (for [`run_each`](Think::run_each), see
    /// there).
    pub total: usize,
    /// Runs ended without a value so far.
    pub failed: usize,
    /// Tokens used so far by the ended runs, failed ones included.
    pub usage: Usage,
    /// What the ended runs cost so far, failed ones included, when
    /// [`Think::prices`](super::Think::prices) priced their models (`None`
    /// while no run had a priced model).
    pub cost: Option<f64>,
}

/// The callback of [`Think::on_progress`].
pub(super) type ProgressHook<'a> = std::sync::Arc<dyn Fn(&RunsProgress) + Send + Sync + 'a>;

impl<M: ChatModel> Think<'_, M> {
    /// Runs [`run`](Self::run) for every prompt, at most
    /// [`concurrency`](Self::concurrency) at a time (default
    /// [`DEFAULT_CONCURRENCY`]), and returns one result per prompt, in the
    /// order of `prompts`. A failed run never stops the others. Every run
    /// shares this `Think`'s options and model (so a
    /// [`Limited`](crate::Limited) or [`CircuitBreaker`](crate::CircuitBreaker)
    /// model is shared by all the runs); the
    /// [`on_progress`](Self::on_progress) hook hears of each run as it ends.
    ///
    /// All runs are driven by the returned future itself, on the caller's
    /// task: dropping it stops every run and leaves no task behind.
    ///
    /// ```
    /// use twr_runtime::{ScriptedModel, Think};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # #[derive(Debug, twr_runtime::Sections)] struct Answer { number: u32 }
    /// let model = ScriptedModel::new(["[Number]\n4", "[Number]\n4", "[Number]\n4"]);
    /// let results = Think::new(&model)
    ///     .concurrency(2)
    ///     .on_progress(|p| eprintln!("{}/{} done, {} failed", p.done, p.total, p.failed))
    ///     .run_many::<Answer>(["2 + 2?", "3 + 1?", "5 - 1?"])
    ///     .await;
    /// assert_eq!(results.len(), 3);
    /// assert!(results.iter().all(|r| r.as_ref().is_ok_and(|o| o.value.number == 4)));
    /// # });
    /// ```
    pub async fn run_many<T: Sections>(
        &self,
        prompts: impl IntoIterator<Item = impl Into<Message>>,
    ) -> Vec<Result<Outcome<T>, ThinkError>> {
        let prompts: Vec<Message> = prompts.into_iter().map(Into::into).collect();
        let mut results: Vec<Option<Result<Outcome<T>, ThinkError>>> =
            (0..prompts.len()).map(|_| None).collect();
        let mut ended = std::pin::pin!(self.run_each::<T>(prompts));
        while let Some((index, result)) = ended.next().await {
            results[index] = Some(result);
        }
        // Every slot is filled: the stream yields each run once.
        results.into_iter().flatten().collect()
    }

    /// Runs [`run`](Self::run) for every prompt, as [`run_many`](Self::run_many)
    /// does, and hands out each run's result as it ends, with its place in
    /// `prompts`: a [`Stream`] in the order the runs end, not in input order.
    /// This is the shape for a job too large to hold: at most
    /// [`concurrency`](Self::concurrency) runs are alive at a time (a
    /// window that moves on as runs end), a prompt is taken from `prompts`
    /// only when its run starts (so they can be read lazily, say line by
    /// line from a file), and a result handed out is the caller's to keep
    /// or let go. What one run holds is all this holds, whatever the
    /// number of prompts. The [`on_progress`](Self::on_progress) hook hears
    /// of each run as it ends, and with a [`journal`](Self::journal) each
    /// outcome is recorded there before it is handed out (see
    /// [`Job::outcomes`](crate::journal::Job::outcomes)).
    ///
    /// [`RunsProgress::total`] is the number of prompts when their
    /// iterator knows it exactly (its `size_hint`), else the number started
    /// so far.
    ///
    /// Nothing runs until the stream is polled; every run is driven by the
    /// stream itself, so dropping it stops them all and leaves no task
    /// behind. Killed and run again over the same [`journal`](Self::journal),
    /// the job replays what was recorded and asks only for the rest.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use twr_runtime::{ScriptedModel, Think};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # #[derive(Debug, twr_runtime::Sections)] struct Answer { number: u32 }
    /// let model = ScriptedModel::new(["[Number]\n4"; 3]);
    /// let think = Think::new(&model).concurrency(2);
    /// let prompts = ["2 + 2?", "3 + 1?", "5 - 1?"];
    /// let mut ended = Box::pin(think.run_each::<Answer>(prompts));
    /// let mut seen = Vec::new();
    /// while let Some((index, result)) = ended.next().await {
    ///     // Write it out here and let it go: nothing keeps it.
    ///     assert_eq!(result?.value.number, 4);
    ///     seen.push(index);
    /// }
    /// seen.sort();
    /// assert_eq!(seen, [0, 1, 2]);
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// [`Stream`]: futures_util::Stream
    ///
    /// With a job whose prompts are leased
    /// ([`Job::lease_for`](crate::journal::Job::lease_for)), the prompts
    /// are read all at once (the job counts them), each is run only by the
    /// worker that holds its lease, and a prompt another worker holds is
    /// taken up again after the others (handed out when that worker ends
    /// it, or run here when its lease runs out): see there.
    pub fn run_each<'s, T: Sections + 's>(
        &'s self,
        prompts: impl IntoIterator<Item = impl Into<Message>, IntoIter: 's>,
    ) -> impl Stream<Item = (usize, Result<Outcome<T>, ThinkError>)> + 's {
        if let Some(lease) = self.stores.lease_duration() {
            let prompts: Vec<Message> = prompts.into_iter().map(Into::into).collect();
            return futures_util::future::Either::Left(self.run_leased::<T>(prompts, lease));
        }
        futures_util::future::Either::Right(self.run_each_here::<T>(prompts))
    }

    /// Runs this worker's share of a job run by many: of a job whose
    /// prompts are leased ([`Job::lease_for`](crate::journal::Job::lease_for)),
    /// only the prompts this worker leases, at most
    /// [`concurrency`](Self::concurrency) at a time, handing out each one's
    /// result as it ends, with its place in `prompts`, as
    /// [`run_each`](Self::run_each) does. A prompt another worker ran is
    /// neither run nor replayed here: it is that worker's to hand out. So
    /// each worker of a fleet does only its own prompts' work, and the
    /// workers together hand out every prompt's result once (a worker
    /// killed after recording a run's end but before its caller kept the
    /// result excepted: read those from
    /// [`Job::outcomes`](crate::journal::Job::outcomes)).
    ///
    /// Each free prompt (pending, or its lease ran out) is taken in input
    /// order, with one claim of the journal per prompt; the stream ends once
    /// every prompt of the job has ended in some worker, so a worker whose
    /// own prompts are done waits for the prompts others hold, and runs
    /// those whose lease runs out (their worker died), replaying the
    /// replies it recorded. Every worker gives the same `prompts`. The
    /// [`on_progress`](Self::on_progress) hook counts this worker's runs
    /// ([`RunsProgress::done`] of [`RunsProgress::total`] prompts of the
    /// job); [`Job::progress`](crate::journal::Job::progress) counts the
    /// whole job's.
    ///
    /// When the journal cannot be read to claim a prompt, the stream ends
    /// early with the error logged (`tracing`); the prompts it did not run
    /// stay pending in the job for the other workers or a later run.
    ///
    /// Without a lease, every prompt is this worker's: the same as
    /// [`run_each`](Self::run_each).
    ///
    /// ```no_run
    /// # #[derive(twr_runtime::Sections)] struct Invoice { total: f64 }
    /// # #[cfg(feature = "postgres")]
    /// # async fn demo(prompts: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use futures_util::StreamExt;
    /// use twr_runtime::{journal::Journal, OpenAiCompatible, Think};
    ///
    /// let journal = Journal::postgres("postgres://twr@db.internal/twr").await?;
    /// let job = journal.job("invoices-2026").lease_for(Duration::from_secs(600));
    /// let model = OpenAiCompatible::from_env()?;
    /// let think = Think::new(&model).journal(job.clone()).concurrency(32);
    /// // Start this on as many machines as you like: each writes out its own.
    /// let mut mine = Box::pin(think.run_share::<Invoice>(prompts));
    /// while let Some((index, result)) = mine.next().await {
    ///     match result {
    ///         Ok(outcome) => println!("{index}: {}", outcome.value.total),
    ///         Err(error) => eprintln!("{index}: {error}"),
    ///     }
    /// }
    /// let progress = job.progress().await?;
    /// println!("{} typed, {} failed in the job", progress.typed, progress.failed);
    /// # Ok(()) }
    /// ```
    pub fn run_share<'s, T: Sections + 's>(
        &'s self,
        prompts: impl IntoIterator<Item = impl Into<Message>, IntoIter: 's>,
    ) -> impl Stream<Item = (usize, Result<Outcome<T>, ThinkError>)> + 's {
        if let Some(lease) = self.stores.lease_duration() {
            let prompts: Vec<Message> = prompts.into_iter().map(Into::into).collect();
            return futures_util::future::Either::Left(self.run_claimed::<T>(prompts, lease));
        }
        futures_util::future::Either::Right(self.run_each_here::<T>(prompts))
    }

    /// [`run_share`](Self::run_share) over a job whose prompts are leased
    /// for `lease` each. In rounds: each of `concurrency` slots claims the
    /// first free prompt from the worker's place (which moves on past each
    /// prompt it claims, so ended prompts are not read again) and runs it,
    /// until none is free from there; then, while prompts of the job have
    /// not ended, another round from the start (after a pause when the last
    /// one claimed nothing: the prompts left are held by live workers).
    fn run_claimed<'s, T: Sections + 's>(
        &'s self,
        prompts: Vec<Message>,
        lease: Duration,
    ) -> impl Stream<Item = (usize, Result<Outcome<T>, ThinkError>)> + 's {
        let limit = self.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1);
        let total = prompts.len();
        let prompts = Arc::new(prompts);
        // A prompt another worker holds is asked about this often.
        let poll = (lease / 4).clamp(Duration::from_millis(10), Duration::from_millis(500));
        let mut progress = RunsProgress {
            done: 0,
            total,
            failed: 0,
            usage: Usage::default(),
            cost: None,
        };
        let rounds = stream::unfold(
            (0usize, None::<Arc<AtomicBool>>),
            move |(round, last_claimed)| {
                let prompts = Arc::clone(&prompts);
                async move {
                    if round > 0 {
                        match self.stores.prompts_left().await {
                            Ok(true) => {}
                            Ok(false) => return None,
                            Err(error) => {
                                tracing::error!(%error, "twr could not read where the job's prompts stand; this worker stops taking prompts");
                                return None;
                            }
                        }
                        if !last_claimed.is_some_and(|claimed| claimed.load(Ordering::SeqCst)) {
                            tokio::time::sleep(poll).await;
                        }
                    }
                    let claimed = Arc::new(AtomicBool::new(false));
                    let place = Arc::new(AtomicUsize::new(0));
                    let slots = (0..limit).map(|_| {
                        let (prompts, place, claimed) =
                            (Arc::clone(&prompts), Arc::clone(&place), Arc::clone(&claimed));
                        Box::pin(stream::unfold((), move |()| {
                            let (prompts, place, claimed) =
                                (Arc::clone(&prompts), Arc::clone(&place), Arc::clone(&claimed));
                            async move {
                                let from = place.load(Ordering::SeqCst);
                                let index = match self.stores.claim_next(from, total).await {
                                    Ok(Some(index)) => index,
                                    Ok(None) => return None,
                                    Err(error) => {
                                        tracing::error!(%error, "twr could not claim a prompt of the job; this run slot stops");
                                        return None;
                                    }
                                };
                                place.fetch_max(index + 1, Ordering::SeqCst);
                                claimed.store(true, Ordering::SeqCst);
                                let result =
                                    self.run_holding::<T>(&prompts[index], index, lease).await;
                                Some(((index, result), ()))
                            }
                        }))
                    });
                    Some((stream::select_all(slots), (round + 1, Some(claimed))))
                }
            },
        );
        stream::once(async move {
            self.stores.register_prompts(total).await;
            rounds
        })
        .flatten()
        .flatten()
        .map(move |(index, result)| {
            // Recorded by `run_holding` already, with the prompt's end.
            self.run_ended(&mut progress, index, &result, false);
            (index, result)
        })
        .chain(self.flushed())
    }

    /// [`run_each`](Self::run_each) without leases.
    fn run_each_here<'s, T: Sections + 's>(
        &'s self,
        prompts: impl IntoIterator<Item = impl Into<Message>, IntoIter: 's>,
    ) -> impl Stream<Item = (usize, Result<Outcome<T>, ThinkError>)> + 's {
        let prompts = prompts.into_iter();
        let (low, high) = prompts.size_hint();
        let known_total = (Some(low) == high).then_some(low);
        let started = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&started);
        let limit = self.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1);
        let mut progress = RunsProgress {
            done: 0,
            total: known_total.unwrap_or(0),
            failed: 0,
            usage: Usage::default(),
            cost: None,
        };
        stream::iter(prompts.enumerate())
            .map(move |(index, prompt)| {
                counted.fetch_add(1, Ordering::Relaxed);
                let prompt: Message = prompt.into();
                async move { (index, self.run::<T>(prompt).await) }
            })
            .buffer_unordered(limit)
            .map(move |(index, result)| {
                if known_total.is_none() {
                    progress.total = started.load(Ordering::Relaxed);
                }
                self.run_ended(&mut progress, index, &result, true);
                (index, result)
            })
            .chain(self.flushed())
    }

    /// [`run_each`](Self::run_each) over a job whose prompts are leased
    /// for `lease` each: every prompt in input order, skipping those
    /// another worker holds; then those, each waited for.
    fn run_leased<'s, T: Sections + 's>(
        &'s self,
        prompts: Vec<Message>,
        lease: Duration,
    ) -> impl Stream<Item = (usize, Result<Outcome<T>, ThinkError>)> + 's {
        let limit = self.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1);
        let total = prompts.len();
        let prompts = Arc::new(prompts);
        let held: Arc<Mutex<Vec<usize>>> = Arc::default();
        let mut progress = RunsProgress {
            done: 0,
            total,
            failed: 0,
            usage: Usage::default(),
            cost: None,
        };
        let (first_prompts, first_held) = (Arc::clone(&prompts), Arc::clone(&held));
        let first = stream::once(self.stores.register_prompts(total)).flat_map(move |()| {
            let (prompts, held) = (Arc::clone(&first_prompts), Arc::clone(&first_held));
            stream::iter(0..total)
                .map(move |index| {
                    let (prompts, held) = (Arc::clone(&prompts), Arc::clone(&held));
                    async move {
                        self.leased_run::<T>(&prompts[index], index, lease, Some(&held))
                            .await
                    }
                })
                .buffer_unordered(limit)
        });
        let then = stream::once(async move { std::mem::take(&mut *lock(&held)) }).flat_map(
            move |waiting| {
                let prompts = Arc::clone(&prompts);
                stream::iter(waiting)
                    .map(move |index| {
                        let prompts = Arc::clone(&prompts);
                        async move {
                            self.leased_run::<T>(&prompts[index], index, lease, None)
                                .await
                        }
                    })
                    .buffer_unordered(limit)
            },
        );
        first
            .chain(then)
            .filter_map(std::future::ready)
            .map(move |(index, result)| {
                // Recorded by `leased_run` already, with the prompt's end.
                self.run_ended(&mut progress, index, &result, false);
                (index, result)
            })
            .chain(self.flushed())
    }

    /// Nothing, once every record of the runs is written: the end of a
    /// stream of runs.
    fn flushed<'s, I: 's>(&'s self) -> impl Stream<Item = I> + 's {
        stream::once(self.stores.flush()).filter_map(|()| std::future::ready(None))
    }

    /// Runs prompt `index` when this worker gets its lease (renewing it as
    /// the run goes on), replays it when another worker typed it, or hands
    /// out the error it ended with there; with `held`, a prompt another
    /// worker holds is put there (`None` is returned) instead of waited
    /// for.
    async fn leased_run<T: Sections>(
        &self,
        prompt: &Message,
        index: usize,
        lease: Duration,
        held: Option<&Mutex<Vec<usize>>>,
    ) -> Option<(usize, Result<Outcome<T>, ThinkError>)> {
        // A prompt another worker holds is asked about this often.
        let poll = (lease / 4).clamp(Duration::from_millis(10), Duration::from_millis(500));
        loop {
            let turn = match self.stores.take_turn(index).await {
                Ok(turn) => turn,
                Err(error) => return Some((index, Err(store_error(error)))),
            };
            match turn {
                Turn::Ours => {
                    return Some((index, self.run_holding::<T>(prompt, index, lease).await))
                }
                // Its replies are all recorded: a replay asks nothing.
                Turn::Ended { ok: true, .. } => {
                    return Some((index, self.run::<T>(prompt.clone()).await));
                }
                Turn::Ended { ok: false, error } => {
                    let error = format!(
                        "prompt {index} of the job ended without a value in another worker: {}",
                        error.as_deref().unwrap_or("no error was recorded")
                    );
                    return Some((index, Err(store_error(error.into()))));
                }
                Turn::Later => match held {
                    Some(held) => {
                        lock(held).push(index);
                        return None;
                    }
                    None => tokio::time::sleep(poll).await,
                },
            }
        }
    }

    /// Runs prompt `index`, whose lease this worker holds, renewing the
    /// lease as the run goes on, and records how it ended with the
    /// prompt's end before handing the result out.
    async fn run_holding<T: Sections>(
        &self,
        prompt: &Message,
        index: usize,
        lease: Duration,
    ) -> Result<Outcome<T>, ThinkError> {
        let run = std::pin::pin!(self.run::<T>(prompt.clone()));
        let renewing = std::pin::pin!(async {
            loop {
                tokio::time::sleep(lease / 3).await;
                match self.stores.renew(index).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(index, "twr lost the lease of a prompt; its end will not be recorded by this worker");
                        return;
                    }
                    Err(error) => {
                        tracing::warn!(index, %error, "twr could not renew the lease of a prompt");
                    }
                }
            }
        });
        let result = match futures_util::future::select(run, renewing).await {
            futures_util::future::Either::Left((result, _)) => result,
            futures_util::future::Either::Right(((), run)) => run.await,
        };
        // Committed before it is handed out: a worker that exits or dies
        // after this leaves the prompt ended.
        self.stores.record_ended(index, run_end(&result)).await;
        result
    }

    /// Counts run `index`, which ended with `result`, in `progress`,
    /// records its outcome in the journal, and tells the progress hook.
    /// With `record` false the outcome is not recorded here (a leased
    /// run's was, with its prompt's end; another worker's is its own).
    fn run_ended<T>(
        &self,
        progress: &mut RunsProgress,
        index: usize,
        result: &Result<Outcome<T>, ThinkError>,
        record: bool,
    ) {
        progress.done += 1;
        let cost = match result {
            Ok(outcome) => {
                progress.usage += outcome.usage;
                outcome.cost()
            }
            Err(error) => {
                progress.failed += 1;
                progress.usage += error.usage();
                error.cost()
            }
        };
        progress.cost = crate::cost::sum_known([progress.cost, cost]);
        if record {
            self.stores.record_outcome(index, run_end(result));
        }
        if let Some(hook) = &self.progress {
            hook(progress);
        }
    }
}

/// How the run that ended with `result` ended, for its job's record.
fn run_end<T>(result: &Result<crate::Outcome<T>, crate::ThinkError>) -> RunEnd<'_> {
    match result {
        Ok(outcome) => RunEnd {
            ok: true,
            attempts: outcome.attempts.len(),
            usage: outcome.usage,
            cost: outcome.cost(),
            final_reply: Some(outcome.final_reply()),
            error: None,
        },
        Err(error) => RunEnd {
            ok: false,
            attempts: error.attempts().len(),
            usage: error.usage(),
            cost: error.cost(),
            final_reply: None,
            error: Some(error),
        },
    }
}

/// A poisoned lock is taken as it is: the list it guards is whole.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// An error of the job's store, as a run's error.
fn store_error(error: BoxError) -> ThinkError {
    ThinkError::new(
        super::ThinkErrorKind::Model {
            source: crate::ModelError::Other(error),
            retries: 0,
        },
        Vec::new(),
        None,
        Default::default(),
    )
}
