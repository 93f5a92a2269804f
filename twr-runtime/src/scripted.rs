//! [`ScriptedModel`]: a [`ChatModel`] that replays prepared replies, for
//! tests, examples and offline demos.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::model::{BoxFuture, ChatModel, FinishReason, Message, ModelError, Reply};

/// A model that replays a script of replies in order and records every
/// conversation it was sent.
///
/// ```
/// use twr_runtime::{ChatModel, Message, ScriptedModel};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["first reply", "second reply"]);
/// let reply = model.chat(&[Message::user("hello")]).await.unwrap();
/// assert_eq!(reply.content, "first reply");
/// assert_eq!(model.requests(), vec![vec![Message::user("hello")]]);
/// assert_eq!(model.remaining(), 1);
/// # });
/// ```
///
/// Script whole [`Reply`]s (usage, reasoning, a `length` finish) and errors
/// with [`ScriptedModel::from_results`]. A call after the script ran out
/// returns a [`ModelError::Other`] holding a [`ScriptExhausted`]: a clear,
/// non-transient error, never a panic.
pub struct ScriptedModel {
    name: String,
    script: Mutex<VecDeque<Result<Reply, ModelError>>>,
    requests: Mutex<Vec<Vec<Message>>>,
    scripted: usize,
}

impl ScriptedModel {
    /// Replays `replies` as plain text replies that ended normally
    /// (`finish_reason` [`FinishReason::Stop`], zero usage).
    pub fn new<I, S>(replies: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ScriptedModel::from_results(replies.into_iter().map(|text| {
            Ok(Reply {
                finish_reason: Some(FinishReason::Stop),
                ..Reply::text(text)
            })
        }))
    }

    /// Replays `replies` exactly as given.
    pub fn from_replies<I: IntoIterator<Item = Reply>>(replies: I) -> Self {
        ScriptedModel::from_results(replies.into_iter().map(Ok))
    }

    /// Replays replies and errors in order: an `Err` is returned from that
    /// call as it is, to exercise transport retries and error handling.
    pub fn from_results<I>(results: I) -> Self
    where
        I: IntoIterator<Item = Result<Reply, ModelError>>,
    {
        let script: VecDeque<_> = results.into_iter().collect();
        ScriptedModel {
            name: "scripted".to_string(),
            scripted: script.len(),
            script: Mutex::new(script),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Sets the name reported by [`ChatModel::name`] (default `scripted`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Every conversation sent so far, in order, one entry per call.
    pub fn requests(&self) -> Vec<Vec<Message>> {
        lock(&self.requests).clone()
    }

    /// How many calls were made (including calls after the script ran out).
    pub fn calls(&self) -> usize {
        lock(&self.requests).len()
    }

    /// How many scripted results have not been played yet.
    pub fn remaining(&self) -> usize {
        lock(&self.script).len()
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        lock(&self.requests).push(messages.to_vec());
        let next = lock(&self.script).pop_front();
        let scripted = self.scripted;
        Box::pin(async move {
            next.unwrap_or_else(|| Err(ModelError::Other(Box::new(ScriptExhausted { scripted }))))
        })
    }

    fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("name", &self.name)
            .field("scripted", &self.scripted)
            .field("remaining", &self.remaining())
            .field("calls", &self.calls())
            .finish()
    }
}

/// The error of a [`ScriptedModel`] asked for more replies than it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the ScriptedModel ran out of replies: it was given {scripted} and all were used; \
     script more replies or expect fewer calls"
)]
pub struct ScriptExhausted {
    /// How many results the script held.
    pub scripted: usize,
}

/// Locks a mutex, ignoring poisoning: the guarded data (a queue and a log)
/// stays consistent even if a holder panicked.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(future)
    }

    #[test]
    fn replays_in_order_then_reports_running_out() {
        let model = ScriptedModel::from_results([
            Ok(Reply::text("one")),
            Err(ModelError::Timeout(std::time::Duration::from_secs(1))),
        ]);
        let first = block_on(model.chat(&[Message::user("a")])).unwrap();
        assert_eq!(first.content, "one");
        let second = block_on(model.chat(&[Message::user("b")])).unwrap_err();
        assert!(matches!(second, ModelError::Timeout(_)));
        let third = block_on(model.chat(&[Message::user("c")])).unwrap_err();
        assert!(!third.is_transient());
        assert_eq!(
            third.to_string(),
            "the ScriptedModel ran out of replies: it was given 2 and all were used; \
             script more replies or expect fewer calls"
        );
        assert_eq!(model.calls(), 3);
        assert_eq!(model.remaining(), 0);
        assert_eq!(
            model.requests(),
            vec![
                vec![Message::user("a")],
                vec![Message::user("b")],
                vec![Message::user("c")]
            ]
        );
    }

    #[test]
    fn text_replies_end_normally_and_the_name_is_settable() {
        let model = ScriptedModel::new(["x"]).with_name("demo");
        assert_eq!(model.name(), "demo");
        let reply = block_on(model.chat(&[])).unwrap();
        assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
        assert!(!reply.is_truncated());
        assert_eq!(
            format!("{model:?}"),
            "ScriptedModel { name: \"demo\", scripted: 1, remaining: 0, calls: 1 }"
        );
    }
}
