//! [`from_fn`]: a model made of an async function of the conversation, for
//! a model of your own with no trait to implement (as tower's `service_fn`
//! makes a service of a function).

use std::fmt;
use std::future::Future;

use super::chat::{BoxFuture, ChatModel};
use super::error::ModelError;
use super::message::{Message, Reply};
use super::seam::{Request, Response};

/// A [`ChatModel`] whose replies come from `answer`, an async function of
/// the conversation (oldest message first) to the whole [`Reply`].
///
/// Each call gets its own copy of the messages (cheap: a message's text and
/// attachments are shared, not copied), so the future owns what it reads
/// and can hold on to it across `.await`s. Its name is `"model"` until
/// [`FromFn::with_name`] gives it one (the name keys prices and the
/// journal, and names the model in the ledger). It answers each call with
/// the whole reply as one piece; a model that streams implements
/// [`ChatModel::call`] itself.
///
/// ```
/// use twr_runtime::{model, Reply, Think};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// // A "model" that counts the words of the question.
/// let counter = model::from_fn(|messages| async move {
///     let asked = messages.last().map(|m| m.content.split_whitespace().count()).unwrap_or(0);
///     Ok(Reply::text(asked.to_string()))
/// })
/// .with_name("word-counter");
/// let outcome = Think::new(&counter)
///     .run_with("one two three", |raw: &str| {
///         raw.parse::<u32>().map_err(|_| "Write only the number.".into())
///     })
///     .await?;
/// assert_eq!(outcome.value, 3);
/// assert_eq!(outcome.attempts[0].model, "word-counter");
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
pub fn from_fn<F, Fut>(answer: F) -> FromFn<F>
where
    F: Fn(Vec<Message>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Reply, ModelError>> + Send + 'static,
{
    FromFn {
        answer,
        name: String::from("model"),
    }
}

/// The model [`from_fn`] makes.
#[derive(Clone)]
pub struct FromFn<F> {
    answer: F,
    name: String,
}

impl<F> FromFn<F> {
    /// The same model, named `name` ([`ChatModel::name`]).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromFn")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<F, Fut> ChatModel for FromFn<F>
where
    F: Fn(Vec<Message>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Reply, ModelError>> + Send + 'static,
{
    /// `answer`'s reply to the request's messages, as one piece.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let reply = (self.answer)(request.messages.to_vec());
        Box::pin(async move { Ok(Response::from_reply(reply.await?)) })
    }

    fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt as _;

    use super::*;
    use crate::model::{Delta, FinishReason, Usage};

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(future)
    }

    #[test]
    fn a_function_answers_chat_and_streams_with_its_reply_and_its_errors() {
        let model = from_fn(|messages: Vec<Message>| async move {
            match messages.len() {
                0 => Err(ModelError::Refused("nothing asked".into())),
                n => Ok(Reply::text(format!("{n} messages"))
                    .with_reasoning("counted")
                    .with_usage(Usage::new(3, 2))
                    .with_finish_reason(FinishReason::Stop)),
            }
        });
        assert_eq!(model.name(), "model");
        assert!(!model.streams());
        let asked = [Message::system("s"), Message::user("q")];
        let reply = block_on(model.chat(&asked)).unwrap();
        assert_eq!(
            reply,
            Reply::text("2 messages")
                .with_reasoning("counted")
                .with_usage(Usage::new(3, 2))
                .with_finish_reason(FinishReason::Stop)
        );
        let pieces: Vec<_> = block_on(model.chat_stream(&asked[1..]).collect());
        assert_eq!(
            pieces.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            [
                Delta::Reasoning("counted".into()),
                Delta::Content("1 messages".into()),
                Delta::Done {
                    usage: Usage::new(3, 2),
                    finish_reason: Some(FinishReason::Stop)
                },
            ]
        );
        let error = block_on(model.chat(&[])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the model server refused to answer: nothing asked"
        );
        let named = model.with_name("counter");
        assert_eq!(named.name(), "counter");
        assert_eq!(format!("{named:?}"), r#"FromFn { name: "counter", .. }"#);
    }
}
