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

    /// The shape of a type with `specs` and `choices`, under which its
    /// typed runs are recorded and learned from; `None` when this `Think`
    /// neither records runs nor learns from any (always without the
    /// feature), so that nothing is read.
    pub(crate) fn shape_of(
        &self,
        specs: &[crate::vocab::SectionSpec],
        choices: &[crate::vocab::ChoiceSpec],
    ) -> Option<String> {
        #[cfg(feature = "journal")]
        if self.job.is_some() || !self.learn_from.is_empty() {
            return Some(crate::journal::shape_of(specs, choices));
        }
        let _ = (specs, choices);
        None
    }

    /// The typed runs of `shape` in each job learned from, in the order
    /// given. Nothing is read when `k`, the demonstrations wanted, is 0.
    pub(crate) fn typed_runs(
        &self,
        shape: &str,
        k: usize,
    ) -> Result<Vec<JobRuns>, Box<dyn std::error::Error + Send + Sync>> {
        #[cfg(feature = "journal")]
        if k > 0 {
            let mut jobs = Vec::with_capacity(self.learn_from.len());
            for job in &self.learn_from {
                let runs = job
                    .typed_runs_of(shape)?
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
            if let Err(error) = job.record_typed(shape, &run) {
                tracing::warn!(%error, "twr could not record a typed run");
            }
        }
        #[cfg(not(feature = "journal"))]
        let _ = (shape, prompt, answer, constrained, attempts);
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
            let events: Vec<crate::journal::FeedbackEvent<'_>> = followed
                .iter()
                .map(|&(problem, fixed)| crate::journal::FeedbackEvent {
                    model,
                    problem,
                    wording,
                    constrained,
                    fixed,
                })
                .collect();
            if let Err(error) = job.record_feedback(&events) {
                tracing::warn!(%error, "twr could not record how feedback was followed");
            }
        }
        #[cfg(not(feature = "journal"))]
        let _ = (model, wording, constrained, followed);
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
            if let Err(error) = job.record_outcome(&record) {
                // The replies are recorded already: a resumption still
                // replays this run, so the other runs go on.
                tracing::warn!(index, %error, "twr could not record a run's outcome");
            }
        }
        #[cfg(not(feature = "journal"))]
        let _ = (index, end);
    }

    /// `model` with these stores around it, for the calls of one attempt
    /// (its transport retries included: they ask the same request, so
    /// they share its one place in the job). `prices` price what is
    /// recorded.
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
            lookup: std::sync::Mutex::new(None),
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
    /// The request's key and place in the job, found by the attempt's
    /// first call (with the stored reply, if there was one).
    #[cfg(feature = "journal")]
    lookup: std::sync::Mutex<Option<journaled::Lookup>>,
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
}

/// The layer's work when there is a journal or a cache.
#[cfg(feature = "journal")]
mod journaled {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use futures_util::Stream;

    use super::{Stored, Stores};
    use crate::journal::{JournalError, ReplyEntry, RequestKey};
    use crate::model::{
        BoxFuture, Delta, Gathered, Message, ModelError, Reply, Request, Response, Served,
    };
    use crate::BoxStream;

    /// A request looked up: its key and occurrence in the job, and the
    /// reply stored for it, if one was.
    pub(super) struct Lookup {
        key: RequestKey,
        occurrence: u32,
        hit: Option<Hit>,
    }

    /// A stored reply.
    #[derive(Clone)]
    struct Hit {
        reply: Reply,
        served: Served,
        /// The cost recorded with it (journal hits).
        cost: Option<f64>,
    }

    /// [`Stored::call`] with a journal or a cache.
    pub(super) fn call<'a>(
        stored: &'a Stored<'_>,
        request: Request<'a>,
    ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let name = stored.model.name();
        let mut lookup = stored.lookup.lock().unwrap_or_else(|p| p.into_inner());
        if lookup.is_none() {
            // A constrained request is another request: the grammar is
            // part of its key, in the rendering the model sends.
            let options = crate::journal::key::options_with_grammar(
                stored.model.request_options(),
                request.grammar(),
                stored.model.takes_grammar(),
            );
            match stored
                .stores
                .lookup(name, options.as_ref(), request.messages)
            {
                Ok(found) => *lookup = Some(found),
                Err(error) => {
                    let error = ModelError::Other(Box::new(error));
                    return Box::pin(std::future::ready(Err(error)));
                }
            }
        }
        let found = lookup.as_ref().expect("looked up above");
        if let Some(hit) = found.hit.clone() {
            let cost = match hit.served {
                // A cache hit is free, for a model that has a price.
                Served::Cache => stored
                    .prices
                    .and_then(|prices| prices.get(name))
                    .map(|_| 0.0),
                _ => hit.cost,
            };
            let mut response = Response::from_reply(hit.reply).with_served(hit.served);
            response.cost = cost;
            return Box::pin(std::future::ready(Ok(response)));
        }
        let (key, occurrence) = (found.key, found.occurrence);
        drop(lookup);
        Box::pin(async move {
            let response = stored.model.call(request).await?;
            let record = Record {
                stored,
                key,
                occurrence,
                served: response.served.clone(),
                answered: response.model.clone(),
            };
            Ok(response.map_deltas(|deltas| {
                Box::pin(Recording {
                    deltas,
                    gathered: Gathered::default(),
                    record: Some(record),
                }) as BoxStream<'a, _>
            }))
        })
    }

    /// Where and how a live reply is recorded.
    struct Record<'a> {
        stored: &'a Stored<'a>,
        key: RequestKey,
        occurrence: u32,
        served: Served,
        /// The model that answered, when not the one called.
        answered: Option<String>,
    }

    impl Record<'_> {
        /// Records `reply` in the job and the cache, priced at the model
        /// that answered it.
        fn write(&self, reply: &Reply) -> Result<(), JournalError> {
            let stored = self.stored;
            let name = stored.model.name();
            let answered = self.answered.as_deref().unwrap_or(name);
            let batch = matches!(self.served, Served::Batch { .. });
            let cost = stored
                .prices
                .and_then(|prices| prices.cost(answered, &reply.usage, batch));
            stored
                .stores
                .record(&self.key, self.occurrence, name, reply, cost, &self.served)
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
    }

    impl Stream for Recording<'_> {
        type Item = Result<Delta, ModelError>;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = &mut *self;
            let item = match this.deltas.as_mut().poll_next(cx) {
                Poll::Ready(Some(item)) => item,
                other => return other,
            };
            let (Some(record), Ok(delta)) = (&this.record, &item) else {
                // A failed reply is not recorded.
                this.record = None;
                return Poll::Ready(Some(item));
            };
            let Some(Ok(reply)) = this.gathered.push(Ok(delta.clone())) else {
                return Poll::Ready(Some(item));
            };
            let written = record.write(&reply);
            this.record = None;
            Poll::Ready(Some(match written {
                Ok(()) => item,
                Err(error) => Err(unrecorded(reply, error)),
            }))
        }
    }

    impl Drop for Recording<'_> {
        fn drop(&mut self) {
            let Some(record) = self.record.take() else {
                return;
            };
            let mut reply = std::mem::take(&mut self.gathered).into_partial();
            if reply.content.is_empty() {
                return;
            }
            reply.reasoning = reply.reasoning.filter(|r| !r.is_empty());
            if let Err(error) = record.write(&reply) {
                tracing::warn!(%error, "twr could not record a reply stopped early");
            }
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
        /// Looks up the request of `messages` to the model `name` with
        /// `options`: the job's record of this occurrence first, then the
        /// cache.
        fn lookup(
            &self,
            name: &str,
            options: Option<&serde_json::Value>,
            messages: &[Message],
        ) -> Result<Lookup, JournalError> {
            let key = RequestKey::new(name, options, messages);
            let occurrence = self.job.as_ref().map_or(0, |job| job.next_occurrence(&key));
            if let Some(job) = &self.job {
                if let Some((reply, cost)) = job.replay(&key, occurrence)? {
                    let served = Served::Journal;
                    let hit = Some(Hit {
                        reply,
                        served,
                        cost,
                    });
                    return Ok(Lookup {
                        key,
                        occurrence,
                        hit,
                    });
                }
            }
            if let Some(cache) = &self.cache {
                if let Some(reply) = cache.get(&key)? {
                    // A cache hit within a job is recorded in the job too, so
                    // that its resumption does not depend on the cache.
                    if let Some(job) = &self.job {
                        job.record(&ReplyEntry {
                            key: &key,
                            occurrence,
                            model: name,
                            reply: &reply,
                            cost: Some(0.0),
                            batch: None,
                        })?;
                    }
                    let hit = Some(Hit {
                        reply,
                        served: Served::Cache,
                        cost: None,
                    });
                    return Ok(Lookup {
                        key,
                        occurrence,
                        hit,
                    });
                }
            }
            Ok(Lookup {
                key,
                occurrence,
                hit: None,
            })
        }

        /// Records `reply`, which the model `name` sent for occurrence
        /// `occurrence` of `key`, in the job and the cache.
        fn record(
            &self,
            key: &RequestKey,
            occurrence: u32,
            name: &str,
            reply: &Reply,
            cost: Option<f64>,
            served: &Served,
        ) -> Result<(), JournalError> {
            let batch = match served {
                Served::Batch {
                    batch_id,
                    custom_id,
                } => Some((batch_id.as_str(), custom_id.as_str())),
                _ => None,
            };
            if let Some(job) = &self.job {
                job.record(&ReplyEntry {
                    key,
                    occurrence,
                    model: name,
                    reply,
                    cost,
                    batch,
                })?;
            }
            if let Some(cache) = &self.cache {
                cache.put(key, name, reply)?;
            }
            Ok(())
        }
    }
}
