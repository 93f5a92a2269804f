//! The journal and the response cache as a layer around a model (feature
//! `journal`): [`Stored`] is a [`ChatModel`] that answers a request from
//! the job's record or the cache when either holds its reply, and
//! otherwise asks its model and records the reply as it completes. The
//! loop asks it as it asks any model; where a reply came from and what it
//! cost travel on the [`Response`] (`served`, `cost`). Without the feature,
//! [`Stores`] is empty and [`Stored`] passes every call on.
//!
//! What the loop records for later runs (the runs that ended typed, how
//! feedback was followed, how each run of many ended) and the jobs it
//! learns demonstrations from go through [`Stores`] too: the loop hands
//! over plain data and never names the journal, so it has no branch for
//! the feature.

use std::fmt;

use crate::cost::Prices;
use crate::feedback::Wording;
use crate::model::{BoxFuture, ChatModel, ModelError, Request, Response, Usage};

#[cfg(feature = "journal")]
use crate::journal::{Job, ResponseCache};

/// Where a [`Think`](crate::Think) keeps replies: a job of a journal and
/// the response cache, each optional; and the jobs it learns
/// demonstrations from.
#[derive(Clone, Default)]
pub(crate) struct Stores {
    #[cfg(feature = "journal")]
    pub(crate) job: Option<Job>,
    #[cfg(feature = "journal")]
    pub(crate) cache: Option<ResponseCache>,
    /// The jobs of `Think::learn_from`, in the order given.
    #[cfg(feature = "journal")]
    pub(crate) learn_from: Vec<Job>,
}

impl fmt::Debug for Stores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Stores");
        #[cfg(feature = "journal")]
        out.field("job", &self.job)
            .field("cache", &self.cache.is_some());
        out.finish()
    }
}

/// The typed runs of one job learned from: its name, then each run's
/// prompt, answer and whether it was constrained.
pub(crate) type JobRuns = (String, Vec<(String, String, bool)>);

/// How a run of many ended, as its job's record.
#[cfg(feature = "journal")]
fn recorded(index: usize, end: RunEnd<'_>) -> crate::journal::RecordedOutcome {
    crate::journal::RecordedOutcome {
        index,
        ok: end.ok,
        attempts: end.attempts,
        usage: end.usage,
        cost: end.cost,
        final_reply: end.final_reply.map(str::to_string),
        error: end.error.map(crate::model::error::report),
    }
}

/// An error of the stores, as the loop hands it on.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What asking for the lease of a prompt got.
// Without the feature every prompt is the worker's own.
#[cfg_attr(not(feature = "journal"), allow(dead_code))]
pub(crate) enum Turn {
    /// This worker runs it.
    Ours,
    /// Another worker holds it: ask again later.
    Later,
    /// It ended in some worker: `ok` with a value, else with `error`.
    Ended { ok: bool, error: Option<String> },
}

/// How a run of many ended, as its job records it: what the loop knows of
/// it, without naming the journal's record.
// Without the feature nothing is recorded, so nothing reads the fields.
#[cfg_attr(not(feature = "journal"), allow(dead_code))]
pub(crate) struct RunEnd<'a> {
    /// Whether it ended with a value.
    pub(crate) ok: bool,
    pub(crate) attempts: usize,
    pub(crate) usage: Usage,
    pub(crate) cost: Option<f64>,
    /// The reply that gave the value.
    pub(crate) final_reply: Option<&'a str>,
    /// Why it ended without one.
    pub(crate) error: Option<&'a (dyn std::error::Error + 'static)>,
}

/// What the loop records for later runs. Each does nothing without a job
/// (or without the feature). A record that cannot be written is logged and
/// takes nothing away from the run: its replies are recorded, so a
/// resumption replays the run and records it then.
impl Stores {
    /// Whether runs are recorded in a job.
    pub(crate) fn records(&self) -> bool {
        #[cfg(feature = "journal")]
        return self.job.is_some();
        #[cfg(not(feature = "journal"))]
        false
    }

    /// The shape of a type with `specs` and `ways`, under which its
    /// typed runs are recorded and learned from; `None` when this `Think`
    /// neither records runs nor learns from any (always without the
    /// feature), so that nothing is read.
    pub(crate) fn shape_of(
        &self,
        specs: &[crate::vocab::SectionSpec],
        ways: &[crate::vocab::WaysSpec],
    ) -> Option<String> {
        #[cfg(feature = "journal")]
        if self.job.is_some() || !self.learn_from.is_empty() {
            return Some(crate::journal::shape_of(specs, ways));
        }
        let _ = (specs, ways);
        None
    }

    /// The typed runs of `shape` in each job learned from, in the order
    /// given. Nothing is read when `k`, the demonstrations wanted, is 0.
    pub(crate) async fn typed_runs(
        &self,
        shape: &str,
        k: usize,
    ) -> Result<Vec<JobRuns>, Box<dyn std::error::Error + Send + Sync>> {
        #[cfg(feature = "journal")]
        if k > 0 {
            let mut jobs = Vec::with_capacity(self.learn_from.len());
            for job in &self.learn_from {
                let runs = job
                    .typed_runs_of(shape)
                    .await?
                    .into_iter()
                    .map(|run| (run.prompt, run.answer, run.constrained))
                    .collect();
                jobs.push((job.name().to_string(), runs));
            }
            return Ok(jobs);
        }
        let _ = (shape, k);
        Ok(Vec::new())
    }

    /// The names of the jobs demonstrations are learned from.
    pub(crate) fn learn_names(&self) -> Vec<&str> {
        #[cfg(feature = "journal")]
        return self.learn_from.iter().map(|job| job.name()).collect();
        #[cfg(not(feature = "journal"))]
        Vec::new()
    }

    /// Records that a run of a type of `shape` ended typed: its `prompt`,
    /// its `answer` in the soft format (written only when it is recorded),
    /// whether an attempt of it was `constrained`, and in how many
    /// `attempts`.
    pub(crate) fn record_typed(
        &self,
        shape: &str,
        prompt: &str,
        answer: impl FnOnce() -> String,
        constrained: bool,
        attempts: usize,
    ) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            let run = crate::journal::TypedRun {
                prompt: prompt.to_string(),
                answer: answer(),
                constrained,
                attempts,
            };
            job.record_typed(shape, run);
        }
        #[cfg(not(feature = "journal"))]
        let _ = (shape, prompt, answer, constrained, attempts);
    }

    /// Records what a typed run of `prompt` measured: each section's
    /// confidence per attempt, `(attempt, field, confidence, by
    /// agreement)`, and the value's sections below the run's threshold,
    /// `(threshold, [(field, confidence)])`; replacing what the prompt had.
    pub(crate) fn record_confidence(
        &self,
        prompt: &str,
        attempts: Vec<(usize, &'static str, f64, bool)>,
        review: Option<(f64, Vec<(&'static str, f64)>)>,
    ) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            let attempts = attempts
                .into_iter()
                .map(
                    |(attempt, field, confidence, agreement)| crate::journal::RecordedConfidence {
                        attempt,
                        field: field.to_string(),
                        confidence,
                        measured: if agreement {
                            crate::journal::Measured::Agreement
                        } else {
                            crate::journal::Measured::Logprobs
                        },
                    },
                )
                .collect();
            let review = review.map(|(threshold, fields)| {
                let fields = fields
                    .into_iter()
                    .map(|(field, confidence)| (field.to_string(), confidence))
                    .collect();
                (threshold, fields)
            });
            job.record_confidence(crate::journal::RunConfidence {
                prompt: prompt.to_string(),
                attempts,
                review,
            });
        }
        #[cfg(not(feature = "journal"))]
        let _ = (prompt, attempts, review);
    }

    /// Records what the reply of `model` (`constrained` or not) made of
    /// feedback worded `wording`: for each problem kind it named, whether
    /// its section was fixed.
    pub(crate) fn record_feedback(
        &self,
        model: &str,
        wording: Wording,
        constrained: bool,
        followed: &[(&'static str, bool)],
    ) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            let events: Vec<crate::journal::FeedbackEvent> = followed
                .iter()
                .map(|&(problem, fixed)| crate::journal::FeedbackEvent {
                    model: model.to_string(),
                    problem,
                    wording,
                    constrained,
                    fixed,
                })
                .collect();
            job.record_feedback(events);
        }
        #[cfg(not(feature = "journal"))]
        let _ = (model, wording, constrained, followed);
    }

    /// Ends when everything recorded so far is written (a failure is
    /// logged): the end of a run of many waits for it, so a program that
    /// exits then keeps every record.
    pub(crate) async fn flush(&self) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            if let Err(error) = job.flush().await {
                tracing::warn!(%error, "twr could not finish writing the journal");
            }
        }
    }

    /// Records how leased run `index` ended, with the prompt's end, and
    /// waits for it (a failure is logged: the prompt's lease runs out and
    /// another worker replays it). The record is made before the future,
    /// which holds no borrow of the run's error.
    pub(crate) fn record_ended(
        &self,
        index: usize,
        end: RunEnd<'_>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        #[cfg(feature = "journal")]
        let record = self.job.as_ref().map(|job| (job, recorded(index, end)));
        #[cfg(not(feature = "journal"))]
        let _ = (index, end);
        async move {
            #[cfg(feature = "journal")]
            if let Some((job, record)) = record {
                let index = record.index;
                if let Err(error) = job.record_ended(record).await {
                    tracing::warn!(index, %error, "twr could not record how a leased prompt ended");
                }
            }
        }
    }

    /// Records how the run at `index` of many ended.
    pub(crate) fn record_outcome(&self, index: usize, end: RunEnd<'_>) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            let record = crate::journal::RecordedOutcome {
                index,
                ok: end.ok,
                attempts: end.attempts,
                usage: end.usage,
                cost: end.cost,
                final_reply: end.final_reply.map(str::to_string),
                error: end.error.map(crate::model::error::report),
            };
            // Not waited for: a record that cannot be written is logged,
            // and the replies are recorded already, so a resumption still
            // replays this run.
            job.record_outcome(record);
        }
        #[cfg(not(feature = "journal"))]
        let _ = (index, end);
    }

    /// How long a lease on a prompt runs, when the job leases its prompts
    /// to one worker at a time (`Job::lease_for`); `None` otherwise
    /// (always without the feature).
    pub(crate) fn lease_duration(&self) -> Option<std::time::Duration> {
        #[cfg(feature = "journal")]
        return self.job.as_ref().and_then(|job| job.lease_duration());
        #[cfg(not(feature = "journal"))]
        None
    }

    /// Makes prompts `0..count` known to the job, for its progress. A
    /// failure is logged: each prompt is made known again when leased.
    pub(crate) async fn register_prompts(&self, count: usize) {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            if let Err(error) = job.register_prompts(count).await {
                tracing::warn!(%error, "twr could not register a job's prompts");
            }
        }
        #[cfg(not(feature = "journal"))]
        let _ = count;
    }

    /// Asks for the lease of prompt `index` of the job.
    pub(crate) async fn take_turn(&self, index: usize) -> Result<Turn, BoxError> {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            return Ok(match job.claim(index).await? {
                crate::journal::Claim::Ours => Turn::Ours,
                crate::journal::Claim::Held => Turn::Later,
                crate::journal::Claim::Ended { ok, error } => Turn::Ended { ok, error },
            });
        }
        let _ = index;
        Ok(Turn::Ours)
    }

    /// Leases the first prompt of the job in `from..below` that no one
    /// holds; `None` when there is none there. Without a job, `from` is
    /// this worker's when it is below `below`.
    pub(crate) async fn claim_next(
        &self,
        from: usize,
        below: usize,
    ) -> Result<Option<usize>, BoxError> {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            return Ok(job.claim_next(from, below).await?);
        }
        Ok((from < below).then_some(from))
    }

    /// Whether a prompt of the job has not ended yet (pending, or leased
    /// by some worker); `false` without a job.
    pub(crate) async fn prompts_left(&self) -> Result<bool, BoxError> {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            let progress = job.progress().await?;
            return Ok(progress.pending + progress.leased > 0);
        }
        Ok(false)
    }

    /// Renews the lease of prompt `index`; `false` when another worker
    /// took it (this one's ran out).
    pub(crate) async fn renew(&self, index: usize) -> Result<bool, BoxError> {
        #[cfg(feature = "journal")]
        if let Some(job) = &self.job {
            return Ok(job.renew(index).await?);
        }
        let _ = index;
        Ok(true)
    }

    /// `model` with these stores around it, for the calls of one attempt
    /// (its transport retries included: they ask the same request, so
    /// they share its one place in the job; and each of its samples, which
    /// has a place of its own, whether it is asked alone or with others in
    /// one request). `prices` price what is recorded.
    pub(crate) fn around<'s>(
        &'s self,
        model: &'s dyn ChatModel,
        prices: Option<&'s Prices>,
    ) -> Stored<'s> {
        Stored {
            model,
            stores: self,
            prices,
            #[cfg(feature = "journal")]
            places: std::sync::Mutex::new(std::collections::BTreeMap::new()),
            #[cfg(feature = "journal")]
            found: tokio::sync::Mutex::new(std::collections::BTreeMap::new()),
        }
    }
}

/// A model with the journal and the response cache around it: see the
/// module's docs.
// Without the feature, only `model` is read: the rest is what the journal
// and the cache need.
#[cfg_attr(not(feature = "journal"), allow(dead_code))]
pub(crate) struct Stored<'s> {
    model: &'s dyn ChatModel,
    stores: &'s Stores,
    prices: Option<&'s Prices>,
    /// Each sample's key and occurrence in the job, by the sample's
    /// number ([`Request::sample`]), taken by the first call that asks for
    /// it, when it is made: equal requests of runs in flight together are
    /// numbered in the order they were asked.
    #[cfg(feature = "journal")]
    places: std::sync::Mutex<std::collections::BTreeMap<u32, Place>>,
    /// What the store holds for each sample's place, once looked up: the
    /// stored reply, or `None` for a request to send. A lock held across
    /// the look-up, so a transport retry waits for it instead of looking
    /// again.
    #[cfg(feature = "journal")]
    found: tokio::sync::Mutex<std::collections::BTreeMap<u32, Option<journaled::Hit>>>,
}

impl ChatModel for Stored<'_> {
    /// The stored reply to `request`, when the job or the cache has one;
    /// else the model's response, recorded as it completes.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        #[cfg(feature = "journal")]
        if self.stores.job.is_some() || self.stores.cache.is_some() {
            return journaled::call(self, request);
        }
        self.model.call(request)
    }

    fn name(&self) -> &str {
        self.model.name()
    }

    fn request_options(&self) -> Option<serde_json::Value> {
        self.model.request_options()
    }

    fn streams(&self) -> bool {
        self.model.streams()
    }

    fn takes_grammar(&self) -> Option<crate::grammar::Format> {
        self.model.takes_grammar()
    }

    fn answers_n(&self) -> bool {
        self.model.answers_n()
    }

    fn reply_token_limit(&self) -> Option<u32> {
        self.model.reply_token_limit()
    }
}

/// Where an attempt's request is stored: its key and occurrence in the
/// job, and its key in the response cache.
#[cfg(feature = "journal")]
#[derive(Clone, Copy)]
pub(crate) struct Place {
    key: crate::journal::RequestKey,
    occurrence: u32,
    /// The key in the response cache: the job's, or for a request that
    /// asks for token log-probabilities, another one, so that a reply
    /// cached without them (by a run that did not ask) never answers a
    /// run that does, and one cached with them keeps them.
    cache_key: crate::journal::RequestKey,
}

/// The layer's work when there is a journal or a cache.
#[cfg(feature = "journal")]
mod journaled {
    use std::pin::Pin;
    use std::task::{ready, Context, Poll};

    use futures_util::Stream;

    use super::{Place, Stored, Stores};
    use crate::journal::{JournalError, ReplyEntry, RequestKey};
    use crate::model::{BoxFuture, Delta, Gathered, ModelError, Reply, Request, Response, Served};
    use crate::BoxStream;

    /// A stored reply.
    #[derive(Clone)]
    pub(super) struct Hit {
        reply: Reply,
        served: Served,
        /// The cost recorded with it (journal hits).
        cost: Option<f64>,
    }

    /// [`Stored::call`] with a journal or a cache. A request for several
    /// replies ([`Request::n`]) is samples `sample..sample + n`, each in
    /// its own place: it is answered from the stores when every one of
    /// them is recorded, and otherwise asked whole and each reply it gets
    /// recorded in its sample's place (a reply recorded before is
    /// replaced: the run reads what the journal keeps).
    pub(super) fn call<'a>(
        stored: &'a Stored<'_>,
        request: Request<'a>,
    ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let name = stored.model.name();
        let count = if stored.model.answers_n() {
            request.n.max(1)
        } else {
            1
        };
        let samples = request.sample..request.sample.saturating_add(count);
        let places: Vec<(u32, Place)> = {
            let mut places = stored.places.lock().unwrap_or_else(|p| p.into_inner());
            samples
                .map(|sample| {
                    let place = *places
                        .entry(sample)
                        .or_insert_with(|| place_of(stored, name, request.with_sample(sample)));
                    (sample, place)
                })
                .collect()
        };
        Box::pin(async move {
            let hits: Vec<Option<Hit>> = {
                let mut found = stored.found.lock().await;
                for (sample, place) in &places {
                    if !found.contains_key(sample) {
                        let looked = stored.stores.lookup(name, place).await;
                        let looked = looked.map_err(|e| ModelError::Other(Box::new(e)))?;
                        found.insert(*sample, looked);
                    }
                }
                places
                    .iter()
                    .map(|(sample, _)| found.get(sample).cloned().flatten())
                    .collect()
            };
            if hits.iter().all(Option::is_some) {
                let hits: Vec<Hit> = hits.into_iter().flatten().collect();
                return Ok(replayed(stored, name, hits));
            }
            let response = stored.model.call(request).await?;
            let answered = response.model.clone();
            let served = response.served.clone();
            if count == 1 {
                let record = Record {
                    stored,
                    place: places[0].1,
                    served,
                    answered,
                };
                return Ok(response.map_deltas(|deltas| {
                    Box::pin(Recording {
                        deltas,
                        gathered: Gathered::default(),
                        record: Some(record),
                        writing: None,
                    }) as BoxStream<'a, _>
                }));
            }
            // Several replies are read whole (none is streamed), and each
            // is recorded before any is handed on.
            let rate_limits = response.rate_limits;
            let mut replies = response.into_replies().await?;
            replies.truncate(places.len());
            for (reply, (_, place)) in replies.iter().zip(&places) {
                let record = Record {
                    stored,
                    place: *place,
                    served: served.clone(),
                    answered: answered.clone(),
                };
                if let Err(error) = record.write(reply.clone()).await {
                    return Err(unrecorded(reply.clone(), error));
                }
            }
            let mut whole = Response::from_replies(replies)
                .with_rate_limits(rate_limits)
                .with_served(served);
            whole.model = answered;
            Ok(whole)
        })
    }

    /// Where the request `request` to the model `name` is stored: its key
    /// (a constrained request is another request, and so is another
    /// sample: see `options_of`) and its next occurrence in the job.
    fn place_of(stored: &Stored<'_>, name: &str, request: Request<'_>) -> Place {
        let options = crate::journal::key::options_of(
            stored.model.request_options(),
            &request,
            stored.model.takes_grammar(),
        );
        let key = RequestKey::new(name, options.as_ref(), request.messages);
        let occurrence = stored
            .stores
            .job
            .as_ref()
            .map_or(0, |job| job.next_occurrence(&key));
        // The job replays what it recorded whatever the run asks now (a
        // resumption pays for nothing twice); the cache answers a request
        // for log-probabilities only with a reply that was asked for them.
        let cache_key = match request.wants_logprobs() {
            false => key,
            true => RequestKey::new(
                name,
                Some(&serde_json::json!({"options": options, "logprobs": true})),
                request.messages,
            ),
        };
        Place {
            key,
            occurrence,
            cache_key,
        }
    }

    /// The stored replies `hits` as the response: what each cost when it
    /// was recorded (a cache hit is free, for a model that has a price),
    /// together; served as the first was.
    fn replayed<'a>(stored: &Stored<'_>, name: &str, hits: Vec<Hit>) -> Response<'a> {
        let costs: Vec<Option<f64>> = hits
            .iter()
            .map(|hit| match hit.served {
                Served::Cache => stored
                    .prices
                    .and_then(|prices| prices.get(name))
                    .map(|_| 0.0),
                _ => hit.cost,
            })
            .collect();
        let cost = costs
            .iter()
            .any(Option::is_some)
            .then(|| costs.iter().flatten().sum());
        let served = hits[0].served.clone();
        let replies = hits.into_iter().map(|hit| hit.reply).collect();
        let mut response = Response::from_replies(replies).with_served(served);
        response.cost = cost;
        response
    }

    /// Where and how a live reply is recorded.
    struct Record<'a> {
        stored: &'a Stored<'a>,
        /// Its keys in the job and the response cache.
        place: Place,
        served: Served,
        /// The model that answered, when not the one called.
        answered: Option<String>,
    }

    impl<'a> Record<'a> {
        /// The entry recording `reply` in the job, priced at the model
        /// that answered it.
        fn entry(&self, reply: Reply) -> ReplyEntry {
            let stored = self.stored;
            let name = stored.model.name();
            let answered = self.answered.as_deref().unwrap_or(name);
            let cost = stored.prices.and_then(|prices| {
                let batch = matches!(self.served, Served::Batch { .. });
                prices.cost(answered, &reply.usage, batch)
            });
            let batch = match &self.served {
                Served::Batch {
                    batch_id,
                    custom_id,
                } => Some((batch_id.clone(), custom_id.clone())),
                _ => None,
            };
            ReplyEntry {
                key: self.place.key,
                occurrence: self.place.occurrence,
                model: name.to_string(),
                reply,
                cost,
                batch,
            }
        }

        /// Records `reply` in the job and the cache; ends when it is
        /// committed.
        fn write(self, reply: Reply) -> Written<'a> {
            Box::pin(async move {
                let stores = self.stored.stores;
                let entry = self.entry(reply);
                if let Some(job) = &stores.job {
                    job.record(entry.clone()).await?;
                }
                if let Some(cache) = &stores.cache {
                    cache
                        .put(&self.place.cache_key, &entry.model, &entry.reply)
                        .await?;
                }
                Ok(())
            })
        }

        /// Records `reply` without waiting (a failure is logged): for a
        /// reply stopped early, whose reader is gone.
        fn write_detached(self, reply: Reply) {
            let stores = self.stored.stores;
            let entry = self.entry(reply);
            if let Some(job) = &stores.job {
                job.record_detached(entry.clone());
            }
            if let Some(cache) = &stores.cache {
                cache.put_detached(&self.place.cache_key, &entry.model, &entry.reply);
            }
        }
    }

    /// A live reply's deltas, passed on as they come; the reply is
    /// recorded when it completes, before its `Done` is passed on (a reply
    /// that cannot be recorded ends with that error instead, its text
    /// kept), and when the reader stops it early, with what arrived (the
    /// loop stops a streamed reply at a section already wrong; a
    /// resumption replays the same stop). A reply that fails is not
    /// recorded: asking again is what a resumption should do.
    struct Recording<'a> {
        deltas: BoxStream<'a, Result<Delta, ModelError>>,
        gathered: Gathered,
        /// `None` once the reply is recorded or failed.
        record: Option<Record<'a>>,
        /// The record of the completed reply, being written: its write,
        /// the `Done` to pass on after it, and the reply (kept in the
        /// error when the write fails).
        writing: Option<(Written<'a>, Delta, Reply)>,
    }

    /// The write of a completed reply's record.
    type Written<'a> = BoxFuture<'a, Result<(), JournalError>>;

    impl Stream for Recording<'_> {
        type Item = Result<Delta, ModelError>;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = &mut *self;
            if let Some((write, _, _)) = &mut this.writing {
                let written = ready!(write.as_mut().poll(cx));
                let (_, done, reply) = this.writing.take().expect("polled above");
                return Poll::Ready(Some(match written {
                    Ok(()) => Ok(done),
                    Err(error) => Err(unrecorded(reply, error)),
                }));
            }
            let delta = match this.deltas.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(delta))) if this.record.is_some() => delta,
                Poll::Ready(Some(Err(error))) => {
                    // A failed reply is not recorded.
                    this.record = None;
                    return Poll::Ready(Some(Err(error)));
                }
                other => return other,
            };
            let Some(Ok(reply)) = this.gathered.push(Ok(delta.clone())) else {
                return Poll::Ready(Some(Ok(delta)));
            };
            let record = this.record.take().expect("matched above");
            let write = record.write(reply.clone());
            this.writing = Some((write, delta, reply));
            // Polls the write at once: it is woken when it is committed.
            self.poll_next(cx)
        }
    }

    impl Drop for Recording<'_> {
        fn drop(&mut self) {
            // A write under way is committed by the store whether or not
            // it is awaited (it was handed over whole).
            let Some(record) = self.record.take() else {
                return;
            };
            let mut reply = std::mem::take(&mut self.gathered).into_partial();
            if reply.content.is_empty() {
                return;
            }
            reply.reasoning = reply.reasoning.filter(|r| !r.is_empty());
            record.write_detached(reply);
        }
    }

    /// A reply that could not be recorded: the run ends with it kept, and
    /// the journal's error as the reason.
    fn unrecorded(reply: Reply, error: JournalError) -> ModelError {
        ModelError::Incomplete {
            partial: Box::new(reply),
            source: Box::new(ModelError::Other(Box::new(error))),
        }
    }

    impl Stores {
        /// Looks up the request at `place` to the model `name`: the job's
        /// record first, then the cache.
        async fn lookup(&self, name: &str, place: &Place) -> Result<Option<Hit>, JournalError> {
            let (key, occurrence) = (&place.key, place.occurrence);
            if let Some(job) = &self.job {
                if let Some((reply, cost)) = job.replay(key, occurrence).await? {
                    return Ok(Some(Hit {
                        reply,
                        served: Served::Journal,
                        cost,
                    }));
                }
            }
            if let Some(cache) = &self.cache {
                if let Some(reply) = cache.get(&place.cache_key).await? {
                    // A cache hit within a job is recorded in the job too, so
                    // that its resumption does not depend on the cache.
                    if let Some(job) = &self.job {
                        job.record(ReplyEntry {
                            key: *key,
                            occurrence,
                            model: name.to_string(),
                            reply: reply.clone(),
                            cost: Some(0.0),
                            batch: None,
                        })
                        .await?;
                    }
                    return Ok(Some(Hit {
                        reply,
                        served: Served::Cache,
                        cost: None,
                    }));
                }
            }
            Ok(None)
        }
    }
}
