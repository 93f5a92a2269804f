//! [`Fallback`]: several models, tried in order while they fail transiently.

use std::fmt;

use futures_util::future;
use futures_util::stream::{self, StreamExt as _};

use super::RateLimits;
use crate::model::{
    BoxFuture, BoxStream, ChatModel, Delta, Message, ModelError, Reply, StreamWithLimits,
};

/// A [`ChatModel`] that asks its models in order: when one fails with a
/// transient error (after its own retries, if it is wrapped in any; an open
/// [`CircuitBreaker`](crate::CircuitBreaker) included), the next one is
/// asked. A failure that asking again cannot fix (a bad key, a bad request,
/// a refusal) does not fall through silently: it is returned at once as
/// [`ModelError::Named`] naming the model. When every model failed
/// transiently, the last failure is returned, named the same way.
///
/// Its [`name()`](ChatModel::name) is the first model's.
///
/// ```
/// use twr_runtime::{ChatModel, Fallback, ScriptedModel};
///
/// let model = Fallback::new(vec![
///     Box::new(ScriptedModel::new(["cheap answer"])) as Box<dyn ChatModel>,
///     Box::new(ScriptedModel::new(["backup answer"])),
/// ]);
/// ```
pub struct Fallback {
    models: Vec<Box<dyn ChatModel>>,
}

impl Fallback {
    /// Tries `models` in this order. An empty list makes every call fail
    /// with [`ModelError::Config`].
    pub fn new(models: Vec<Box<dyn ChatModel>>) -> Self {
        Fallback { models }
    }

    /// The models, in the order they are tried.
    pub fn models(&self) -> &[Box<dyn ChatModel>] {
        &self.models
    }
}

impl fmt::Debug for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.models.iter().map(|m| m.name()).collect();
        f.debug_struct("Fallback").field("models", &names).finish()
    }
}

impl ChatModel for Fallback {
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        Box::pin(async move { Ok(self.chat_with_limits(messages).await?.0) })
    }

    /// The answering model's reply and rate limits.
    fn chat_with_limits<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(Reply, RateLimits), ModelError>> {
        Box::pin(async move {
            let mut last = None;
            for model in &self.models {
                match model.chat_with_limits(messages).await {
                    Ok(answer) => return Ok(answer),
                    Err(error) => {
                        let transient = error.is_transient();
                        let error = ModelError::Named {
                            model: model.name().to_string(),
                            source: Box::new(error),
                        };
                        if !transient {
                            return Err(error);
                        }
                        tracing::debug!(error = %error, "falling back to the next model");
                        last = Some(error);
                    }
                }
            }
            Err(last.unwrap_or_else(|| {
                ModelError::Config("a Fallback needs at least one model".into())
            }))
        })
    }

    /// The first model's stream that starts well: a model whose stream
    /// fails transiently before its first piece is passed over for the
    /// next, as in [`chat`](ChatModel::chat). Once a piece has arrived the
    /// stream is that model's to the end (its text cannot be taken back),
    /// and an error after it is reported with that model's name.
    fn chat_stream<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxStream<'a, Result<Delta, ModelError>> {
        crate::model::opened(self.chat_stream_with_limits(messages))
    }

    /// [`chat_stream`](ChatModel::chat_stream)'s stream, and the rate
    /// limits of the model whose stream it is.
    fn chat_stream_with_limits<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<StreamWithLimits<'a>, ModelError>> {
        Box::pin(async move {
            let mut last = None;
            for model in &self.models {
                let first = match model.chat_stream_with_limits(messages).await {
                    Ok((mut deltas, limits)) => match deltas.next().await {
                        Some(Ok(first)) => Ok((first, deltas, limits)),
                        Some(Err(error)) => Err(error),
                        None => Err(ModelError::EmptyReply),
                    },
                    Err(error) => Err(error),
                };
                let error = match first {
                    Ok((first, deltas, limits)) => {
                        let name = model.name();
                        let rest = deltas.map(move |item| item.map_err(|e| named(name, e)));
                        let deltas = stream::once(future::ready(Ok(first))).chain(rest);
                        return Ok((deltas.boxed(), limits));
                    }
                    Err(error) => error,
                };
                let transient = error.is_transient();
                let error = named(model.name(), error);
                if !transient {
                    return Err(error);
                }
                tracing::debug!(error = %error, "falling back to the next model");
                last = Some(error);
            }
            Err(last.unwrap_or_else(|| {
                ModelError::Config("a Fallback needs at least one model".into())
            }))
        })
    }

    /// Whether the first model streams.
    fn streams(&self) -> bool {
        self.models.first().is_some_and(|m| m.streams())
    }

    fn name(&self) -> &str {
        self.models.first().map_or("fallback", |m| m.name())
    }

    /// Each model's name and options, in order: the reply may come from
    /// any of them.
    fn request_options(&self) -> Option<serde_json::Value> {
        let models: Vec<serde_json::Value> = self
            .models
            .iter()
            .map(|model| serde_json::json!([model.name(), model.request_options()]))
            .collect();
        Some(serde_json::Value::Array(models))
    }
}

/// `error`, said to come from the model named `model`.
fn named(model: &str, error: ModelError) -> ModelError {
    ModelError::Named {
        model: model.to_string(),
        source: Box::new(error),
    }
}
