//! [`ChatModel`]: the trait every model implements, with its one seam
//! ([`ChatModel::call`]) and the methods built on it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::StreamExt as _;

use super::error::ModelError;
use super::logprob::TokenLogprob;
use super::message::{FinishReason, Message, Reply, Usage};
use super::seam::{Request, Response};
use crate::grammar::Format;

/// A boxed, sendable future, as returned by [`ChatModel::chat`].
///
/// Both boxed types the model's methods return are in [`model`](crate::model),
/// the seam's module: this one and [`BoxStream`]. `BoxStream` is at the crate
/// root too, beside [`ChatModel::chat_stream`], which returns it and which
/// the second round's names fix there; `BoxFuture` is named only by code
/// that writes a model ([`ChatModel::call`]), which imports `model::` anyway.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A boxed, sendable stream, as returned by [`ChatModel::chat_stream`]
/// (the `futures` crate's `BoxStream`).
pub use futures_util::stream::BoxStream;

/// A chat model: sends a conversation, returns one reply.
///
/// Object safe: use it as `&dyn ChatModel`, `Box<dyn ChatModel>` or
/// `Arc<dyn ChatModel>`.
///
/// **A model implements one method, [`call`](ChatModel::call)**: the seam,
/// a [`Request`](crate::model::Request) in and a
/// [`Response`](crate::model::Response) out (the reply as a stream of
/// [`Delta`]s, what the server said about its rate limits, where the reply
/// came from). Every other method is provided: [`chat`](ChatModel::chat)
/// and [`chat_stream`](ChatModel::chat_stream) are built on `call`, and
/// the loop itself calls only `call`, so a model answers every kind of
/// call, whole or streamed, the same way. A model that answers at once
/// gives its whole [`Reply`] as the response
/// ([`Response::from_reply`](crate::model::Response::from_reply)):
///
/// ```
/// use twr_runtime::model::{BoxFuture, Request, Response};
/// use twr_runtime::{ChatModel, Message, ModelError, Reply};
///
/// struct Echo;
///
/// impl ChatModel for Echo {
///     fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
///         let last = request.messages.last().map(|m| m.content.to_string()).unwrap_or_default();
///         Box::pin(async move { Ok(Response::from_reply(Reply::text(last))) })
///     }
///
///     fn name(&self) -> &str {
///         "echo"
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let reply = Echo.chat(&[Message::user("hello")]).await?;
/// assert_eq!(reply.content, "hello");
/// # Ok::<(), ModelError>(())
/// # }).unwrap();
/// ```
///
/// `call` is the one method without a default, so a model that forgets
/// it is a compile error, not a failure at run time:
///
/// ```compile_fail,E0046
/// use twr_runtime::ChatModel;
///
/// struct Silent;
///
/// impl ChatModel for Silent {} // error[E0046]: not all trait items implemented: `call`
/// ```
///
/// Shorter still, [`model::from_fn`](crate::model::from_fn) makes a model
/// of an async function of the conversation, with no trait to implement. A
/// model that streams implements `call` with a stream of pieces (and
/// [`streams`](ChatModel::streams)), and so does a wrapper (a limiter, a
/// breaker, a fallback), passing the request on and watching the response:
/// see [`crate::model`] for an example.
pub trait ChatModel: Send + Sync {
    /// The seam: sends `request` and returns the [`Response`] once the
    /// model has started answering, its reply as a stream of [`Delta`]s
    /// (pieces of [`Delta::Content`] and [`Delta::Reasoning`], then one
    /// [`Delta::Done`]) and what it said about its rate limits.
    ///
    /// With [`request.stream`](crate::model::Request::stream) the caller
    /// reads the pieces as they come, so a model that streams hands each
    /// one out as it arrives; without it, the caller waits for the whole
    /// reply anyway. A failure to start is the future's `Err`; a failure
    /// after that is the stream's last item (text already sent is part of
    /// the reply that broke off). Dropping the stream must stop the request
    /// (a client closes the connection, so the server stops generating).
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>>;

    /// The model this one wraps, when it is a wrapper of one model (a
    /// limiter, a meter, a logger): the one thing a wrapper forwards.
    /// Every method that describes the model ([`name`](ChatModel::name),
    /// [`request_options`](ChatModel::request_options),
    /// [`streams`](ChatModel::streams),
    /// [`takes_grammar`](ChatModel::takes_grammar),
    /// [`answers_n`](ChatModel::answers_n), and any added later)
    /// is by default the wrapped model's, so a wrapper that implements
    /// [`call`](ChatModel::call) and this keeps its model's constrained
    /// attempts (the loop constrains only a model that takes grammars), its
    /// one-request samples (the loop asks for several replies at once only
    /// of a model that takes `n`) and its journal keys (made of the name
    /// and the options). A wrapper that
    /// changes one of them implements that one too. See [`crate::model`]
    /// for an example.
    ///
    /// Provided: `None`, a model of its own.
    fn wrapped(&self) -> Option<&dyn ChatModel> {
        None
    }

    /// A short name for logs and tracing (the model id).
    ///
    /// Provided: the [`wrapped`](ChatModel::wrapped) model's, else `"model"`.
    fn name(&self) -> &str {
        self.wrapped().map_or("model", |model| model.name())
    }

    /// The options this model sends with every request that change what it
    /// answers (temperature, token limit, seed, extra body fields), as JSON;
    /// `None` when it has none. With [`name`](ChatModel::name) and the
    /// messages, they make the key of a request in the journal and the
    /// response cache (feature `journal`): a change of option is a new
    /// request, never a stale answer.
    ///
    /// Provided: the [`wrapped`](ChatModel::wrapped) model's, else `None`.
    /// The HTTP clients give theirs.
    fn request_options(&self) -> Option<serde_json::Value> {
        self.wrapped().and_then(|model| model.request_options())
    }

    /// Whether [`call`](ChatModel::call) with a request to stream delivers
    /// a reply piece by piece as the model writes it (default `false`: the
    /// whole reply as one piece). The loop streams, and stops a reply early
    /// when a section is already invalid, only for a model that says so.
    ///
    /// Provided: the [`wrapped`](ChatModel::wrapped) model's, else `false`.
    fn streams(&self) -> bool {
        self.wrapped().is_some_and(|model| model.streams())
    }

    /// The rendering of a grammar this model has its server enforce while
    /// it writes, when it takes one: the HTTP clients given a
    /// [`Dialect`](crate::grammar::Dialect) say its
    /// [`format`](crate::grammar::Dialect::format).
    ///
    /// By default the loop constrains the last attempt of a run only for a
    /// model that says it takes grammars, so a capable model that answers
    /// early never pays for one; a reply to a grammar in
    /// [`Format::JsonSchema`] is read back as the sections it holds
    /// ([`Grammar::read_json`](crate::grammar::Grammar::read_json)).
    ///
    /// Provided: the [`wrapped`](ChatModel::wrapped) model's, else `None`.
    fn takes_grammar(&self) -> Option<Format> {
        self.wrapped().and_then(|model| model.takes_grammar())
    }

    /// Whether one call of this model can answer with several replies to
    /// the same messages: asked with [`Request::n`](crate::model::Request::n)
    /// above 1, its response gives that many, one after another, each ended
    /// by its own [`Delta::Done`] (see
    /// [`Response::from_replies`](crate::model::Response::from_replies)),
    /// as OpenAI's `n` and Gemini's `candidateCount` do. The loop's samples
    /// ([`Think::samples`](crate::Think::samples)) are then one request, not
    /// `k`: the prompt is read and paid for once.
    ///
    /// A model that says so and answers fewer replies than asked (a server
    /// that ignores `n`) is not wrong: the loop asks the missing ones one
    /// by one. A model that does not say so is never asked for more than
    /// one.
    ///
    /// Provided: the [`wrapped`](ChatModel::wrapped) model's, else `false`.
    /// The HTTP clients say so when told their server takes it
    /// ([`HttpModel::takes_n`](crate::client::HttpModel::takes_n)).
    fn answers_n(&self) -> bool {
        self.wrapped().is_some_and(|model| model.answers_n())
    }

    /// The most tokens this model is asked to write in one reply (the
    /// `max_tokens` its requests are sent with), when it sets a limit. The
    /// loop cuts a constrained attempt's grammar to it
    /// ([`Grammar::fit_tokens`](crate::grammar::Grammar::fit_tokens)), so
    /// a constrained reply is never cut off by the limit.
    ///
    /// Provided: `None`. The HTTP clients give theirs; wrappers give their
    /// model's.
    fn reply_token_limit(&self) -> Option<u32> {
        None
    }

    /// Sends `messages` and returns the model's whole reply.
    ///
    /// Provided for every model, and nothing to implement:
    /// [`call`](ChatModel::call)'s response read to its end
    /// ([`Response::into_reply`](crate::model::Response::into_reply)).
    fn chat<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let response = self.call(Request::new(messages));
        Box::pin(async move { response.await?.into_reply().await })
    }

    /// Sends `messages` and returns the reply as it is written: pieces of
    /// [`Delta::Content`] and [`Delta::Reasoning`], then one [`Delta::Done`].
    ///
    /// Provided for every model, and nothing to implement:
    /// [`call`](ChatModel::call) with a request to stream, a failure to
    /// start given as the stream's one item.
    ///
    /// An `Err` item ends the stream; text already sent is part of the reply
    /// that broke off. Dropping the stream stops the request.
    fn chat_stream<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> BoxStream<'a, Result<Delta, ModelError>> {
        opened(self.call(Request::new(messages).with_stream(true)))
    }
}

/// One piece of a reply streamed by [`ChatModel::chat_stream`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta {
    /// The next piece of the visible answer.
    Content(String),
    /// The next piece of the model's reasoning (a `reasoning_content`
    /// field, a thought part, or an inline `<think>` block split off).
    Reasoning(String),
    /// The log-probabilities of the next tokens of the reply, in order
    /// (when the request asked for them and the server gave them): they
    /// go to [`Reply::logprobs`](crate::Reply::logprobs).
    Logprobs(Vec<TokenLogprob>),
    /// The reply is complete: token counts (zero when the server reported
    /// none) and why the model stopped, when the server said.
    ///
    /// A response to a request for several replies
    /// ([`Request::n`](crate::model::Request::n)) gives them one after
    /// another, each ended by its own `Done`; the first carries the
    /// whole call's token counts (the prompt was read once, and the
    /// server counts the tokens of every reply together), the others
    /// none, so that adding up every `Done` counts the call once.
    Done {
        /// Token counts of the reply; zero when the server sent none.
        usage: Usage,
        /// Why the model stopped, when the server said.
        finish_reason: Option<FinishReason>,
    },
}

impl Delta {
    /// A whole reply as deltas: its reasoning (if any), its content, its
    /// tokens' log-probabilities (if any), `Done`.
    pub fn from_reply(reply: Reply) -> Vec<Delta> {
        let mut deltas = Vec::with_capacity(4);
        if let Some(reasoning) = reply.reasoning {
            deltas.push(Delta::Reasoning(reasoning));
        }
        deltas.push(Delta::Content(reply.content));
        if !reply.logprobs.is_empty() {
            deltas.push(Delta::Logprobs(reply.logprobs));
        }
        deltas.push(Delta::Done {
            usage: reply.usage,
            finish_reason: reply.finish_reason,
        });
        deltas
    }
}

/// The deltas of the response `opening` gives, as one stream: a failure to
/// open is its one item.
fn opened<'a>(
    opening: BoxFuture<'a, Result<Response<'a>, ModelError>>,
) -> BoxStream<'a, Result<Delta, ModelError>> {
    Box::pin(
        futures_util::stream::once(opening).flat_map(|result| match result {
            Ok(response) => response.deltas,
            Err(error) => Box::pin(futures_util::stream::once(std::future::ready(Err(error)))),
        }),
    )
}

/// A reference or smart pointer to a model is that model: every method it
/// may implement goes to the model itself (so a wrapper's own `name` or
/// `streams` is never replaced by the trait's default; `chat` and
/// `chat_stream` are built on the forwarded `call`). One list for the three
/// pointer types, so a new method is forwarded once.
macro_rules! forward_chat_model {
    ($($pointer:ty),+ $(,)?) => {$(
        impl<M: ChatModel + ?Sized> ChatModel for $pointer {
            fn call<'a>(
                &'a self,
                request: Request<'a>,
            ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
                (**self).call(request)
            }
            fn wrapped(&self) -> Option<&dyn ChatModel> {
                (**self).wrapped()
            }
            fn name(&self) -> &str {
                (**self).name()
            }
            fn request_options(&self) -> Option<serde_json::Value> {
                (**self).request_options()
            }
            fn streams(&self) -> bool {
                (**self).streams()
            }
            fn takes_grammar(&self) -> Option<Format> {
                (**self).takes_grammar()
            }
            fn answers_n(&self) -> bool {
                (**self).answers_n()
            }
            fn reply_token_limit(&self) -> Option<u32> {
                (**self).reply_token_limit()
            }
        }
    )+};
}

forward_chat_model!(&M, Box<M>, Arc<M>);

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures_util::StreamExt as _;

    use super::*;
    use crate::model::{ErrorDetail, Request, Response};
    use crate::ScriptedModel;

    /// A model that answers at once with a whole reply (or fails to
    /// start), as users write them.
    struct Fixed(Result<Reply, fn() -> ModelError>);

    impl ChatModel for Fixed {
        fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
            let result = self.0.clone().map_err(|make| make());
            Box::pin(async move { result.map(Response::from_reply) })
        }
    }

    /// A model streaming its pieces, as a model that streams (or a
    /// wrapper) writes it.
    struct Pieces(Vec<Result<Delta, fn() -> ModelError>>);

    impl ChatModel for Pieces {
        fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
            let items: Vec<_> = self
                .0
                .iter()
                .map(|item| item.clone().map_err(|make| make()))
                .collect();
            let deltas = futures_util::stream::iter(items).boxed();
            Box::pin(async move { Ok(Response::new(deltas)) })
        }
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(future)
    }

    fn collect(stream: BoxStream<'_, Result<Delta, ModelError>>) -> Vec<Result<Delta, String>> {
        block_on(stream.collect::<Vec<_>>())
            .into_iter()
            .map(|item| item.map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn the_provided_stream_is_the_whole_reply_in_one_piece() {
        let model = Fixed(Ok(Reply {
            content: "[Plan]\nGo".into(),
            reasoning: Some("why".into()),
            usage: Usage::new(5, 6),
            finish_reason: Some(FinishReason::Stop),
            logprobs: Vec::new(),
        }));
        assert!(!model.streams());
        assert_eq!(
            collect(model.chat_stream(&[])),
            [
                Ok(Delta::Reasoning("why".into())),
                Ok(Delta::Content("[Plan]\nGo".into())),
                Ok(Delta::Done {
                    usage: Usage::new(5, 6),
                    finish_reason: Some(FinishReason::Stop)
                }),
            ]
        );
        let failing = Fixed(Err(|| ModelError::EmptyReply));
        assert_eq!(
            collect(failing.chat_stream(&[])),
            [Err("the model sent an empty reply".to_string())]
        );
    }

    #[test]
    fn a_model_of_whole_replies_answers_calls_with_its_reply_unchanged() {
        let reply = Reply {
            content: "[Plan]\nGo".into(),
            reasoning: Some(String::new()),
            usage: Usage::new(5, 6).with_total(12),
            finish_reason: Some(FinishReason::Length),
            logprobs: Vec::new(),
        };
        let model = Fixed(Ok(reply.clone()));
        let messages = [Message::user("q")];
        let response = block_on(model.call(Request::new(&messages))).unwrap();
        assert!(response.rate_limits.is_empty());
        assert_eq!(block_on(response.into_reply()).unwrap(), reply);
        let failing = Fixed(Err(|| ModelError::Refused("no".into())));
        let error = block_on(failing.call(Request::new(&messages)))
            .err()
            .unwrap();
        assert_eq!(error.to_string(), "the model server refused to answer: no");
    }

    #[test]
    fn a_model_of_pieces_answers_chat_with_the_pieces_gathered() {
        let model = Pieces(vec![
            Ok(Delta::Reasoning("hm".into())),
            Ok(Delta::Content("[Plan]\n".into())),
            Ok(Delta::Reasoning("m".into())),
            Ok(Delta::Content("Go".into())),
            Ok(Delta::Done {
                usage: Usage::new(1, 2),
                finish_reason: Some(FinishReason::Stop),
            }),
        ]);
        let reply = block_on(model.chat(&[])).unwrap();
        assert_eq!(
            reply,
            Reply::text("[Plan]\nGo")
                .with_reasoning("hmm")
                .with_usage(Usage::new(1, 2))
                .with_finish_reason(FinishReason::Stop)
        );
        assert_eq!(collect(model.chat_stream(&[])).len(), 5);

        // A stream that breaks keeps what arrived; one that just ends is
        // interrupted.
        let broken = Pieces(vec![
            Ok(Delta::Content("[Plan]\nG".into())),
            Err(|| ModelError::Interrupted("connection reset".into())),
        ]);
        let error = block_on(broken.chat(&[])).unwrap_err();
        assert_eq!(error.partial(), Some(&Reply::text("[Plan]\nG")));
        assert_eq!(
            crate::model::error::report(&error),
            "the reply was cut off (8 bytes of it had arrived and are kept): \
             the reply broke off: connection reset"
        );
        let cut = Pieces(vec![Ok(Delta::Content("[Pl".into()))]);
        let error = block_on(cut.chat(&[])).unwrap_err();
        assert_eq!(error.partial(), Some(&Reply::text("[Pl")));
        assert!(error.is_transient());
        let silent = Pieces(vec![Err(|| {
            ModelError::Connect(ErrorDetail::new("refused"))
        })]);
        let error = block_on(silent.chat(&[])).unwrap_err();
        assert!(matches!(error, ModelError::Connect(_)), "{error:?}");
    }

    #[test]
    fn a_wrapper_around_a_model_of_whole_replies_answers_both_ways() {
        /// Forwards the request it gets, unchanged, as a wrapper does.
        struct Wrapper<M>(M);
        impl<M: ChatModel> ChatModel for Wrapper<M> {
            fn call<'a>(
                &'a self,
                request: Request<'a>,
            ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
                self.0.call(request)
            }
        }
        let model = Wrapper(Fixed(Ok(Reply::text("inner"))));
        assert_eq!(block_on(model.chat(&[])).unwrap(), Reply::text("inner"));
        assert_eq!(
            collect(model.chat_stream(&[]))[0],
            Ok(Delta::Content("inner".into()))
        );
    }

    #[test]
    fn references_boxes_and_arcs_forward_the_stream() {
        let chunked = || ScriptedModel::new(["abcde"]).chunk_size(2);
        let pieces = |deltas: Vec<Result<Delta, String>>| deltas.len();
        let model = chunked();
        let by_ref: &dyn ChatModel = &model;
        assert!(by_ref.streams());
        assert_eq!(pieces(collect((&by_ref).chat_stream(&[]))), 4);
        let boxed: Box<dyn ChatModel> = Box::new(chunked());
        assert!(boxed.streams());
        assert_eq!(pieces(collect(boxed.chat_stream(&[]))), 4);
        let shared: Arc<dyn ChatModel> = Arc::new(chunked());
        assert!(shared.streams());
        assert_eq!(pieces(collect(shared.chat_stream(&[]))), 4);
    }
}
