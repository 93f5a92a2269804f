//! [`Fallback`]: several models, tried in order while they fail transiently.

use std::fmt;

use futures_util::future;
use futures_util::stream::{self, StreamExt as _};

use crate::model::{BoxFuture, ChatModel, ModelError, Request, Response};

/// A [`ChatModel`] that asks its models in order: when one fails with a
/// transient error (after its own retries, if it is wrapped in any; an open
/// [`CircuitBreaker`](crate::CircuitBreaker) included), the next one is
/// asked. A failure that asking again cannot fix (a bad key, a bad request,
/// a refusal) does not fall through silently: it is returned at once as
/// [`ModelError::Named`] naming the model. When every model failed
/// transiently, the last failure is returned, named the same way.
///
/// Its [`name()`](ChatModel::name) is the first model's; each
/// [`Response`] names the model that answered
/// ([`Response::model`]), so the ledger names the backup when it answers
/// and its tokens are priced at the backup's price.
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
    /// The first model's answer that starts well. For a whole reply, a
    /// model whose reply fails transiently is passed over for the next.
    /// For a streamed one, so is a model whose stream fails transiently
    /// before its first piece; once a piece has arrived the stream is that
    /// model's to the end (its text cannot be taken back), and an error
    /// after it is reported with that model's name. The rate limits are
    /// those of the model that answered, and the response names it.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let mut last = None;
            for model in &self.models {
                let answered = match model.call(request).await {
                    Ok(response) if request.stream => first_piece(response).await,
                    Ok(response) => whole(response).await,
                    Err(error) => Err(error),
                };
                let error = match answered {
                    Ok(mut response) => {
                        let name = model.name();
                        // A model that chose among models of its own (a
                        // fallback inside) has named the one that answered.
                        response.model.get_or_insert_with(|| name.to_string());
                        return Ok(response.map_deltas(|deltas| {
                            deltas
                                .map(move |item| item.map_err(|e| named(name, e)))
                                .boxed()
                        }));
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

    /// The rendering every model takes, when they all take the same: a
    /// reply is read the same way whichever model answers it.
    fn takes_grammar(&self) -> Option<crate::grammar::Format> {
        let first = self.models.first()?.takes_grammar()?;
        self.models
            .iter()
            .all(|model| model.takes_grammar() == Some(first))
            .then_some(first)
    }

    /// Whether every model takes `n`: a request for several replies may
    /// fall back to any of them.
    fn answers_n(&self) -> bool {
        !self.models.is_empty() && self.models.iter().all(|model| model.answers_n())
    }

    /// The smallest limit of the models that set one: a grammar fitted to
    /// it fits whichever model answers.
    fn reply_token_limit(&self) -> Option<u32> {
        self.models
            .iter()
            .filter_map(|model| model.reply_token_limit())
            .min()
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

/// `response` once its first piece has arrived: the piece is put back in
/// front. A stream that fails or ends before any piece is the error.
async fn first_piece(mut response: Response<'_>) -> Result<Response<'_>, ModelError> {
    match response.deltas.next().await {
        Some(Ok(first)) => {
            Ok(response
                .map_deltas(|rest| stream::once(future::ready(Ok(first))).chain(rest).boxed()))
        }
        Some(Err(error)) => Err(error),
        None => Err(ModelError::EmptyReply),
    }
}

/// `response` read whole, as one piece again (each of its replies, for a
/// request for several); its failure is the error.
async fn whole(response: Response<'_>) -> Result<Response<'_>, ModelError> {
    let (rate_limits, served, model) = (
        response.rate_limits,
        response.served.clone(),
        response.model.clone(),
    );
    let replies = response.into_replies().await?;
    let mut whole = Response::from_replies(replies)
        .with_rate_limits(rate_limits)
        .with_served(served);
    whole.model = model;
    Ok(whole)
}

/// `error`, said to come from the model named `model`.
fn named(model: &str, error: ModelError) -> ModelError {
    ModelError::Named {
        model: model.to_string(),
        source: Box::new(error),
    }
}
