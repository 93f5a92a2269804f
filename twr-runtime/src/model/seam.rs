//! What one call of a model carries: [`Request`] in, [`Response`] out.

use std::fmt;

use futures_util::StreamExt as _;
use tokio::time::Instant;

use super::chat::{BoxStream, Delta};
use super::error::{ErrorDetail, ModelError};
use super::limits::RateLimits;
use super::message::{Message, Reply};
use super::served::Served;
use crate::grammar::Grammar;

/// What one call asks of a model ([`ChatModel::call`](crate::ChatModel::call)):
/// the conversation, and whether the caller reads the reply piece by piece.
///
/// Built with [`Request::new`] and the `with_` methods; it may gain fields.
/// The crate's one `Request`: what the loop asks the model to write after a
/// rejected reply is a message, written by the kind of attempt it asks for,
/// not a request.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Request<'a> {
    /// The conversation to answer, oldest message first.
    pub messages: &'a [Message],
    /// True when the caller reads the reply as it is written (a streamed
    /// run of the loop, [`ChatModel::chat_stream`](crate::ChatModel::chat_stream)):
    /// a model that streams hands out each piece as it arrives. False when
    /// the caller waits for the whole reply
    /// ([`ChatModel::chat`](crate::ChatModel::chat)): the model may still
    /// stream on the wire, and hands the reply out once it is complete.
    pub stream: bool,
    /// When the caller stops waiting for the reply, on tokio's clock (the
    /// one [`tokio::time::timeout_at`] runs on); `None` when it waits as
    /// long as the model takes. The loop sets it to the end of its run's
    /// time ([`Think::max_duration`](crate::Think::max_duration)). A model
    /// that can tell what arrived so far ends its reply there, with that
    /// text kept in [`ModelError::Incomplete`] (its source a
    /// [`ModelError::Timeout`]), as the HTTP clients do; the caller stops
    /// waiting then anyway, and a model that ignores the deadline loses
    /// what it read with the dropped call.
    pub deadline: Option<Instant>,
    /// The grammar the reply must follow, when the loop constrains this
    /// attempt ([`Think::constrain_after`](crate::Think::constrain_after)):
    /// the sections still missing or wrong, or one section's value. A model
    /// whose server enforces grammars sends it in the rendering its
    /// [`takes_grammar`](crate::ChatModel::takes_grammar) names (the HTTP
    /// clients do, once told their server's
    /// [`Dialect`](crate::grammar::Dialect)); a model that takes none may
    /// ignore it, and its reply is read as any other.
    pub grammar: Option<&'a Grammar>,
    /// How many of `messages`, from the first, are the part that every
    /// request of the program repeats, whatever its prompt: the system
    /// text and the demonstrations the program wrote (and, for a run shown
    /// no learned demonstration, the caller's history too). A model with a
    /// prompt cache may mark the end of that part, so that it is read from
    /// the cache across prompts, not only across the attempts of one run
    /// ([`Anthropic`](crate::Anthropic) puts a `cache_control` breakpoint
    /// there). `0`, the default, says nothing; a model without such a cache
    /// ignores it. The loop sets it on every request; a request built by
    /// hand sets it with [`with_shared_prefix`](Self::with_shared_prefix).
    pub shared_prefix: usize,
    /// Whether the caller wants the log-probability of each token of the
    /// reply ([`Think::confidence`](crate::Think::confidence)): a model
    /// whose server gives them asks for them and hands them on in
    /// [`Reply::logprobs`](crate::Reply::logprobs) (the
    /// OpenAI-compatible and Gemini clients do); a model that cannot
    /// ignores it, and no confidence is read from its replies.
    pub logprobs: bool,
    /// Which of several replies to the same messages this request asks
    /// for ([`Think::samples`](crate::Think::samples)): `0` for the first
    /// (and only, without samples), `1..k` for the others. A model with a
    /// sampling seed adds it to the seed, so the samples differ (the HTTP
    /// clients do); the journal and the response cache keep each sample's
    /// reply apart.
    pub sample: u32,
    /// How many replies to the same messages this one call asks for: `1`
    /// (the default) for one; more only of a model that
    /// [`answers_n`](crate::ChatModel::answers_n), which answers them one after
    /// another in one response (see [`Response::from_replies`]), as many
    /// as its server gave (a server may give fewer). They are samples
    /// [`sample`](Self::sample)`..sample + n`: the journal and the
    /// response cache keep each apart under its sample's number, as if it
    /// had been asked alone. A model that does not take `n` ignores it
    /// and answers one.
    pub n: u32,
}

impl<'a> Request<'a> {
    /// A request for the whole reply to `messages`.
    pub fn new(messages: &'a [Message]) -> Self {
        Request {
            messages,
            stream: false,
            deadline: None,
            grammar: None,
            shared_prefix: 0,
            logprobs: false,
            sample: 0,
            n: 1,
        }
    }

    /// How many replies this one call asks for (see
    /// [`Request::n`](Request#structfield.n)).
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The same request, asking for `n` replies in one response, of a
    /// model that [`answers_n`](crate::ChatModel::answers_n) (`0` counts as
    /// `1`).
    pub fn with_n(mut self, n: u32) -> Self {
        self.n = n.max(1);
        self
    }

    /// Which sample this request asks for (see
    /// [`Request::sample`](Request#structfield.sample)).
    pub fn sample(&self) -> u32 {
        self.sample
    }

    /// The same request, asking for sample `sample` of several replies to
    /// the same messages.
    pub fn with_sample(mut self, sample: u32) -> Self {
        self.sample = sample;
        self
    }

    /// Whether the caller wants the log-probability of each token of the
    /// reply (see [`Request::logprobs`](Request#structfield.logprobs)).
    pub fn wants_logprobs(&self) -> bool {
        self.logprobs
    }

    /// The same request, asking for the log-probability of each token of
    /// the reply when `logprobs` is true.
    pub fn with_logprobs(mut self, logprobs: bool) -> Self {
        self.logprobs = logprobs;
        self
    }

    /// The grammar the reply must follow, if any (see
    /// [`Request::grammar`](Request#structfield.grammar)).
    pub fn grammar(&self) -> Option<&'a Grammar> {
        self.grammar
    }

    /// The same request, its reply constrained to `grammar`.
    pub fn with_grammar(mut self, grammar: &'a Grammar) -> Self {
        self.grammar = Some(grammar);
        self
    }

    /// The same request, read piece by piece when `stream` is true.
    pub fn with_stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// The same request, its first `messages` the part every request of
    /// the program repeats (see [`Request::shared_prefix`](Request#structfield.shared_prefix)).
    pub fn with_shared_prefix(mut self, messages: usize) -> Self {
        self.shared_prefix = messages;
        self
    }

    /// How many of the messages, from the first, every request of the
    /// program repeats (see
    /// [`Request::shared_prefix`](Request#structfield.shared_prefix)).
    pub fn shared_prefix(&self) -> usize {
        self.shared_prefix
    }

    /// The same request, waited for until `deadline` (see
    /// [`Request::deadline`]).
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }
}

/// What a model answered to one call ([`ChatModel::call`](crate::ChatModel::call)):
/// the reply as a stream of [`Delta`]s, and what the response said about
/// the server's rate limits.
///
/// Built with [`Response::new`] (a stream) or [`Response::from_reply`] (a
/// whole reply) and the `with_` methods; it may gain fields.
#[non_exhaustive]
pub struct Response<'a> {
    /// The reply, piece by piece: [`Delta::Content`] and
    /// [`Delta::Reasoning`], then one [`Delta::Done`]. An `Err` item ends it
    /// (the text before it is part of a reply that broke off); a stream
    /// that ends without `Done` was cut short.
    pub deltas: BoxStream<'a, Result<Delta, ModelError>>,
    /// What the response's headers said about the server's rate limits;
    /// empty when they said nothing, or when no server is involved.
    pub rate_limits: RateLimits,
    /// Where the reply comes from: [`Served::Live`] unless the model
    /// answers from elsewhere (a batch model names its batch and line).
    pub served: Served,
    /// The name of the model that answered, when it is not the one called
    /// (`None`: the model called answered, as its
    /// [`name()`](crate::ChatModel::name) says). A wrapper that chooses
    /// among models sets it to the one that answered
    /// ([`Fallback`](crate::Fallback)), so that the ledger names it and
    /// prices its tokens ([`Attempt::model`](crate::Attempt::model)).
    pub model: Option<String>,
    /// What the reply cost when that is known already: the cost a journal
    /// recorded when the reply was first paid for, nothing for a reply
    /// from the response cache. `None`: the reply is paid now, and the
    /// loop prices its usage at the answering model's price
    /// ([`Think::prices`](crate::Think::prices)).
    pub cost: Option<f64>,
}

impl<'a> Response<'a> {
    /// A response whose reply is `deltas`, with no rate limits.
    pub fn new(deltas: BoxStream<'a, Result<Delta, ModelError>>) -> Self {
        Response {
            deltas,
            rate_limits: RateLimits::default(),
            served: Served::Live,
            model: None,
            cost: None,
        }
    }

    /// A whole reply as a response: its reasoning (if any), its content,
    /// then `Done` ([`Delta::from_reply`]).
    pub fn from_reply(reply: Reply) -> Self {
        let deltas = Delta::from_reply(reply).into_iter().map(Ok);
        Response::new(futures_util::stream::iter(deltas).boxed())
    }

    /// Several whole replies to one request for them
    /// ([`Request::n`](Request#structfield.n)) as one response: each in
    /// turn as [`Delta::from_reply`] gives it, so each ends with its own
    /// [`Delta::Done`]. Give the call's token counts on the first reply
    /// and none on the others (see [`Delta::Done`]). No replies at all is
    /// a stream that ends without `Done`: the call was cut short.
    ///
    /// ```
    /// use twr_runtime::model::Response;
    /// use twr_runtime::{Reply, Usage};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let response = Response::from_replies(vec![
    ///     Reply::text("Oslo").with_usage(Usage::new(100, 6)),
    ///     Reply::text("Bergen"),
    /// ]);
    /// let replies = response.into_replies().await.unwrap();
    /// assert_eq!(replies.len(), 2);
    /// assert_eq!((replies[0].usage.prompt_tokens, replies[1].content.as_str()), (100, "Bergen"));
    /// # });
    /// ```
    pub fn from_replies(replies: Vec<Reply>) -> Self {
        let deltas = replies
            .into_iter()
            .flat_map(Delta::from_reply)
            .map(Ok)
            .collect::<Vec<_>>();
        Response::new(futures_util::stream::iter(deltas).boxed())
    }

    /// The same response with `rate_limits`.
    pub fn with_rate_limits(mut self, rate_limits: RateLimits) -> Self {
        self.rate_limits = rate_limits;
        self
    }

    /// The same response, saying where its reply comes from.
    pub fn with_served(mut self, served: Served) -> Self {
        self.served = served;
        self
    }

    /// The same response, answered by the model named `model` (see
    /// [`Response::model`]).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same response, its reply's cost known already (see
    /// [`Response::cost`]).
    pub fn with_cost(mut self, cost: f64) -> Self {
        self.cost = Some(cost);
        self
    }

    /// The same response with its reply stream passed through `change`:
    /// how a wrapper watches or rewrites the pieces of the model it wraps,
    /// keeping everything else the response says.
    pub fn map_deltas<'b>(
        self,
        change: impl FnOnce(
            BoxStream<'a, Result<Delta, ModelError>>,
        ) -> BoxStream<'b, Result<Delta, ModelError>>,
    ) -> Response<'b> {
        Response {
            deltas: change(self.deltas),
            rate_limits: self.rate_limits,
            served: self.served,
            model: self.model,
            cost: self.cost,
        }
    }

    /// Reads the reply to its end: the pieces of content and of reasoning
    /// joined, with the usage and finish reason of `Done`.
    ///
    /// An error item after some text gives [`ModelError::Incomplete`],
    /// which keeps that text; a stream that ends without `Done` is
    /// [`ModelError::Interrupted`] (with the text kept the same way).
    pub async fn into_reply(self) -> Result<Reply, ModelError> {
        let mut deltas = self.deltas;
        let mut gathered = Gathered::default();
        while let Some(item) = deltas.next().await {
            if let Some(ended) = gathered.push(item) {
                return ended;
            }
        }
        Err(gathered.cut_short())
    }
}

impl Response<'_> {
    /// Reads every reply of a response to a request for several
    /// ([`Request::n`](Request#structfield.n)) to its end: each reply is
    /// what came before its [`Delta::Done`], as
    /// [`into_reply`](Self::into_reply) reads one. A response of one reply
    /// gives one.
    ///
    /// An error item fails the whole response as it fails `into_reply`
    /// (the text of the reply it broke off kept in
    /// [`ModelError::Incomplete`]); so does a stream that ends in the
    /// middle of a reply, or before any.
    pub async fn into_replies(self) -> Result<Vec<Reply>, ModelError> {
        let mut deltas = self.deltas;
        let mut gathered = Gathered::default();
        let mut replies = Vec::new();
        // Whether anything arrived since the last `Done`: a reply begun and
        // never ended was cut short.
        let mut begun = false;
        while let Some(item) = deltas.next().await {
            begun = true;
            match gathered.push(item) {
                None => continue,
                Some(Ok(reply)) => {
                    replies.push(reply);
                    begun = false;
                }
                Some(Err(error)) => return Err(error),
            }
        }
        if begun || replies.is_empty() {
            return Err(gathered.cut_short());
        }
        Ok(replies)
    }
}

/// A reply gathered from its deltas as they arrive: the one reading of a
/// stream of [`Delta`]s, for [`Response::into_reply`] and for the loop,
/// which watches the pieces as it gathers them. (An HTTP client puts its
/// provider's decoded items together first, in its own `DecodedReader`.)
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    reply: Reply,
}

impl Gathered {
    /// Takes the next item of the stream: the reply when it is `Done`, the
    /// failure (with the text so far kept) when it is an error, else
    /// `None`, and the stream goes on.
    pub(crate) fn push(
        &mut self,
        item: Result<Delta, ModelError>,
    ) -> Option<Result<Reply, ModelError>> {
        match item {
            Ok(Delta::Content(text)) => self.reply.content.push_str(&text),
            Ok(Delta::Reasoning(text)) => self
                .reply
                .reasoning
                .get_or_insert_with(String::new)
                .push_str(&text),
            Ok(Delta::Logprobs(tokens)) => self.reply.logprobs.extend(tokens),
            Ok(Delta::Done {
                usage,
                finish_reason,
            }) => {
                let mut reply = std::mem::take(&mut self.reply);
                reply.usage = usage;
                reply.finish_reason = finish_reason;
                return Some(Ok(reply));
            }
            Err(error) => return Some(Err(incomplete(error, std::mem::take(&mut self.reply)))),
        }
        None
    }

    /// The reply so far, as it stands (a reply stopped before its end).
    pub(crate) fn into_partial(self) -> Reply {
        self.reply
    }

    /// The failure of a stream that ended without `Done`, with the text
    /// so far kept.
    pub(crate) fn cut_short(self) -> ModelError {
        incomplete(cut_short(), self.reply)
    }
}

impl fmt::Debug for Response<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("rate_limits", &self.rate_limits)
            .field("served", &self.served)
            .field("model", &self.model)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

/// The failure of a stream of deltas that ended without [`Delta::Done`].
pub(crate) fn cut_short() -> ModelError {
    ModelError::Interrupted(ErrorDetail::new(
        "the stream ended before the reply was complete (no Delta::Done)",
    ))
}

/// A stream's failure, with the text that arrived before it kept (in
/// [`ModelError::Incomplete`], unless it is one already).
pub(crate) fn incomplete(error: ModelError, partial: Reply) -> ModelError {
    let has_text = !partial.content.trim().is_empty()
        || partial
            .reasoning
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty());
    match error {
        ModelError::Incomplete { .. } => error,
        error if has_text => ModelError::Incomplete {
            partial: Box::new(partial),
            source: Box::new(error),
        },
        error => error,
    }
}
