//! A batch API in this process, answered by any [`ChatModel`]: a batch job
//! tried offline, without a server or a key ([`BatchModel::local`]). Each
//! batch runs `polls` polls in progress, then its lines are asked of the
//! model, all at once, and the batch ends `completed`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use super::BatchModel;
use crate::client::batch_api::{self, BatchApi, LineResult, Status};
use crate::model::{BoxFuture, ChatModel, Message, ModelError, Request};

/// A batch API in this process over a chat model: see
/// [`BatchModel::local`](super::BatchModel::local).
pub struct LocalBatchApi<M> {
    model: M,
    polls: u32,
    batches: Mutex<Batches>,
}

#[derive(Default)]
struct Batches {
    created: u32,
    /// Each batch not yet read: its lines and the polls it has left in
    /// progress.
    running: HashMap<String, (Vec<(String, Value)>, u32)>,
}

impl<M: ChatModel + 'static> LocalBatchApi<M> {
    /// Batches whose lines `model` answers; each is in progress for one
    /// poll.
    pub fn new(model: M) -> Self {
        LocalBatchApi {
            model,
            polls: 1,
            batches: Mutex::default(),
        }
    }

    /// How many polls each batch stays in progress (default 1).
    pub fn polls(mut self, polls: u32) -> Self {
        self.polls = polls;
        self
    }

    /// The model that answers the lines.
    pub fn model(&self) -> &M {
        &self.model
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Batches> {
        self.batches.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<M: ChatModel + 'static> BatchModel<LocalBatchApi<M>> {
    /// A batch model whose batches run in this process, their lines
    /// answered by `model` (a [`ScriptedModel`](crate::ScriptedModel), a
    /// model of your own, or an online client): a batch job tried offline,
    /// with no server to write. Rounds, re-asks, custom ids, the journal
    /// and resumption work as with a provider; each batch is in progress
    /// for one poll ([`LocalBatchApi::polls`] to change it, through
    /// [`BatchModel::new`]). It gathers for 20 ms and polls every 10 ms.
    ///
    /// ```
    /// use twr_runtime::batch::BatchModel;
    /// use twr_runtime::{ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Total {
    ///     /// The order's total in euros.
    ///     euros: u32,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // Round one: both prompts in one batch; the second reply does not
    /// // parse, so its re-ask is round two.
    /// let batch = BatchModel::local(ScriptedModel::new([
    ///     "[Euros]\n45",
    ///     "[Euros]\nforty or so",
    ///     "[Euros]\n40",
    /// ]));
    /// let results = Think::new(&batch)
    ///     .concurrency(2)
    ///     .run_many::<Total>(["Order A: €45", "Order B: €40"])
    ///     .await;
    /// let totals: Vec<u32> = results.into_iter().map(|r| r.unwrap().value.euros).collect();
    /// assert_eq!(totals, [45, 40]);
    /// assert_eq!((batch.rounds(), batch.lines()), (2, 3));
    /// # }
    /// ```
    pub fn local(model: M) -> Self {
        BatchModel::new(LocalBatchApi::new(model))
            .gather_window(Duration::from_millis(20))
            .poll_interval(Duration::from_millis(10))
    }
}

impl<M: ChatModel + 'static> BatchApi for LocalBatchApi<M> {
    const PROVIDER: &'static str = "local";

    const MAX_LINES: usize = 100_000;

    const MAX_BYTES: usize = 1 << 30;

    fn online(&self) -> &dyn ChatModel {
        &self.model
    }

    /// The line is the request's messages.
    fn line(&self, request: Request<'_>) -> Result<Value, ModelError> {
        Ok(json!({ "messages": request.messages }))
    }

    fn submit<'a>(
        &'a self,
        lines: &'a [(String, Value)],
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            let mut batches = self.lock();
            batches.created += 1;
            let id = format!("local-{}", batches.created);
            batches
                .running
                .insert(id.clone(), (lines.to_vec(), self.polls));
            Ok(id)
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
        Box::pin(async move {
            let mut batches = self.lock();
            let Some((_, left)) = batches.running.get_mut(id) else {
                return Err(ModelError::Status {
                    status: 404,
                    message: format!("no local batch {id}"),
                    retry_after: None,
                });
            };
            if *left == 0 {
                return Ok(Status::Ended("completed".into()));
            }
            *left -= 1;
            Ok(Status::Running("in_progress".into()))
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
        Box::pin(async move {
            let lines = self.lock().running.remove(id).map(|(lines, _)| lines);
            let lines = lines.ok_or_else(|| ModelError::Status {
                status: 404,
                message: format!("no local batch {id}"),
                retry_after: None,
            })?;
            let asked = lines.into_iter().map(|(custom_id, line)| async move {
                let raw = line.to_string();
                let messages: Vec<Message> = match serde_json::from_value(line["messages"].clone())
                {
                    Ok(messages) => messages,
                    Err(why) => {
                        return batch_api::unreadable(
                            raw.as_bytes(),
                            &why,
                            &["custom_id"],
                            str::to_string,
                        )
                    }
                };
                let reply = self.model.chat(&messages).await;
                (custom_id, reply)
            });
            Ok(futures_util::future::join_all(asked).await)
        })
    }
}
