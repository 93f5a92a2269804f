//! The journal and the response cache as a run consults them (feature
//! `journal`): look a request up before it is sent, record its reply after.
//! Without the feature, [`Stores`] is empty and a run asks the model.

#[cfg(feature = "journal")]
use crate::journal::{Job, JournalError, RequestKey, ResponseCache};
#[cfg(feature = "journal")]
use crate::model::Served;
#[cfg(feature = "journal")]
use crate::model::{BoxFuture, ChatModel, Message, ModelError, Reply, Request, Response};

/// Where a [`Think`](super::Think) keeps replies: a job of a journal and
/// the response cache, each optional.
#[derive(Clone, Default)]
pub(super) struct Stores {
    #[cfg(feature = "journal")]
    pub(super) job: Option<Job>,
    #[cfg(feature = "journal")]
    pub(super) cache: Option<ResponseCache>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("Stores");
        #[cfg(feature = "journal")]
        out.field("job", &self.job)
            .field("cache", &self.cache.is_some());
        out.finish()
    }
}

/// A request looked up: its key and occurrence in the job, and the reply
/// stored for it, if one was.
#[cfg(feature = "journal")]
pub(super) struct Lookup {
    key: RequestKey,
    occurrence: u32,
    pub(super) hit: Option<Hit>,
}

/// A stored reply.
#[cfg(feature = "journal")]
pub(super) struct Hit {
    pub(super) reply: Reply,
    pub(super) served: Served,
    /// The cost recorded with it (journal hits).
    pub(super) cost: Option<f64>,
}

#[cfg(feature = "journal")]
impl Stores {
    /// Whether a journal or a cache is set.
    pub(super) fn any(&self) -> bool {
        self.job.is_some() || self.cache.is_some()
    }

    /// Looks up the request of `messages` to the model `name` with
    /// `options`: the job's record of this occurrence first, then the cache.
    pub(super) fn lookup(
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
                let hit = Some(Hit {
                    reply,
                    served: Served::Cache,
                    cost: None,
                });
                // A cache hit within a job is recorded in the job too, so
                // that its resumption does not depend on the cache.
                if let Some(job) = &self.job {
                    job.record(&crate::journal::ReplyEntry {
                        key: &key,
                        occurrence,
                        model: name,
                        reply: &hit.as_ref().expect("just built").reply,
                        cost: Some(0.0),
                        batch: None,
                    })?;
                }
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

    /// Records `reply`, which the model `name` sent for `lookup`'s
    /// request, in the job and the cache.
    pub(super) fn record(
        &self,
        lookup: &Lookup,
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
            job.record(&crate::journal::ReplyEntry {
                key: &lookup.key,
                occurrence: lookup.occurrence,
                model: name,
                reply,
                cost,
                batch,
            })?;
        }
        if let Some(cache) = &self.cache {
            cache.put(&lookup.key, name, reply)?;
        }
        Ok(())
    }
}

/// A reply that could not be recorded: the run ends with it kept, and the
/// journal's error as the reason.
#[cfg(feature = "journal")]
pub(super) fn unrecorded(reply: Reply, error: JournalError) -> ModelError {
    ModelError::Incomplete {
        partial: Box::new(reply),
        source: Box::new(ModelError::Other(Box::new(error))),
    }
}

/// A stored reply as a model that gives it once, so that it goes through
/// the same reading as a live one (streamed to the section hooks too).
#[cfg(feature = "journal")]
pub(super) struct Replayed<'n> {
    pub(super) name: &'n str,
    pub(super) reply: std::sync::Mutex<Option<Reply>>,
}

#[cfg(feature = "journal")]
impl ChatModel for Replayed<'_> {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let reply = self
            .reply
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or(ModelError::EmptyReply);
        Box::pin(std::future::ready(reply.map(Response::from_reply)))
    }

    fn name(&self) -> &str {
        self.name
    }
}
