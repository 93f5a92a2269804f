//! [`ScriptedModel`]: a [`ChatModel`] that replays prepared replies, for
//! tests, examples and offline demos.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::grammar::Format;
use futures_util::stream::{self, StreamExt as _};

use crate::model::{
    BoxFuture, ChatModel, Delta, FinishReason, Message, ModelError, Reply, Request, Response,
    ScriptExhausted,
};

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
///
/// With [`ScriptedModel::chunk_size`] it streams: [`ChatModel::chat_stream`]
/// replays each reply in pieces, so streaming runs are testable offline.
pub struct ScriptedModel {
    name: String,
    script: Mutex<VecDeque<Result<Reply, ModelError>>>,
    requests: Mutex<Vec<Vec<Message>>>,
    scripted: usize,
    chunk_size: Option<usize>,
    grammar: Option<Format>,
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
            chunk_size: None,
            grammar: None,
        }
    }

    /// Streams: [`ChatModel::chat_stream`] replays each reply in pieces of
    /// `chars` characters (never splitting a character; `0` is taken as 1),
    /// its reasoning first, then its content, then [`Delta::Done`] with its
    /// usage and finish reason. Pieces end anywhere: mid-line, mid-header,
    /// mid-tag. A scripted [`ModelError::Incomplete`] streams its partial
    /// reply, then fails with its source, as a connection that breaks
    /// mid-reply does. [`ChatModel::streams`] becomes `true`; `chat` is
    /// unchanged.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use twr_runtime::{ChatModel, Delta, ScriptedModel};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let model = ScriptedModel::new(["[Plan]\nGo"]).chunk_size(4);
    /// let pieces: Vec<Delta> = model.chat_stream(&[]).map(Result::unwrap).collect().await;
    /// assert_eq!(pieces[..3], [
    ///     Delta::Content("[Pla".into()),
    ///     Delta::Content("n]\nG".into()),
    ///     Delta::Content("o".into()),
    /// ]);
    /// assert!(matches!(pieces[3], Delta::Done { .. }));
    /// # });
    /// ```
    pub fn chunk_size(mut self, chars: usize) -> Self {
        self.chunk_size = Some(chars.max(1));
        self
    }

    /// Sets the name reported by [`ChatModel::name`] (default `scripted`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The same model, saying it takes grammars in `format`
    /// ([`ChatModel::takes_grammar`]), as a client told its server's
    /// dialect does: the loop constrains its attempts as it would that
    /// client's, and the ledger marks them constrained. The replies are
    /// the script's all the same.
    pub fn with_grammar_format(mut self, format: Format) -> Self {
        self.grammar = Some(format);
        self
    }

    /// Every conversation sent so far, in order, one entry per call: each
    /// message whole, with its images and documents
    /// ([`Message::attachments`]), whose bytes are the caller's own, not
    /// copies.
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
    /// The next scripted result: a reply as one piece, or, with
    /// [`chunk_size`](ScriptedModel::chunk_size) and a request to stream,
    /// in pieces; an error as the call's error (a scripted
    /// [`ModelError::Incomplete`] streamed in pieces is its partial text,
    /// then its source).
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        lock(&self.requests).push(request.messages.to_vec());
        let next = lock(&self.script).pop_front().unwrap_or_else(|| {
            Err(ModelError::Other(Box::new(ScriptExhausted {
                scripted: self.scripted,
            })))
        });
        let response = match (self.chunk_size.filter(|_| request.stream), next) {
            (Some(chars), Ok(reply)) => Ok(streamed(pieces(reply, chars, Ok(())))),
            (Some(chars), Err(ModelError::Incomplete { partial, source })) => {
                Ok(streamed(pieces(*partial, chars, Err(*source))))
            }
            (_, next) => next.map(Response::from_reply),
        };
        Box::pin(std::future::ready(response))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn streams(&self) -> bool {
        self.chunk_size.is_some()
    }

    /// The format given to [`with_grammar_format`](ScriptedModel::with_grammar_format); `None` without.
    fn takes_grammar(&self) -> Option<Format> {
        self.grammar
    }
}

/// A response of `deltas`, handed out one by one.
fn streamed(deltas: Vec<Result<Delta, ModelError>>) -> Response<'static> {
    Response::new(stream::iter(deltas).boxed())
}

/// `reply` as deltas of `chars` characters, then `Done` (or `end`'s error).
fn pieces(
    reply: Reply,
    chars: usize,
    end: Result<(), ModelError>,
) -> Vec<Result<Delta, ModelError>> {
    let mut deltas = Vec::new();
    let reasoning = reply.reasoning.unwrap_or_default();
    deltas.extend(split(&reasoning, chars).map(|piece| Ok(Delta::Reasoning(piece.to_owned()))));
    deltas.extend(split(&reply.content, chars).map(|piece| Ok(Delta::Content(piece.to_owned()))));
    if !reply.logprobs.is_empty() {
        deltas.push(Ok(Delta::Logprobs(reply.logprobs)));
    }
    deltas.push(end.map(|()| Delta::Done {
        usage: reply.usage,
        finish_reason: reply.finish_reason,
    }));
    deltas
}

/// `text` in pieces of `chars` characters (the last may be shorter).
fn split(text: &str, chars: usize) -> impl Iterator<Item = &str> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .nth(chars)
            .map_or(rest.len(), |(at, _)| at);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("ScriptedModel");
        out.field("name", &self.name)
            .field("scripted", &self.scripted)
            .field("remaining", &self.remaining())
            .field("calls", &self.calls());
        if let Some(chars) = self.chunk_size {
            out.field("chunk_size", &chars);
        }
        if let Some(format) = self.grammar {
            out.field("grammar", &format);
        }
        out.finish()
    }
}

/// Locks a mutex, ignoring poisoning: the guarded data (a queue and a log)
/// stays consistent even if a holder panicked.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

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

    fn stream(model: &ScriptedModel) -> Vec<Result<Delta, String>> {
        use futures_util::StreamExt as _;
        block_on(model.chat_stream(&[Message::user("q")]).collect::<Vec<_>>())
            .into_iter()
            .map(|item| item.map_err(|e| e.to_string()))
            .collect()
    }

    fn content(piece: &str) -> Result<Delta, String> {
        Ok(Delta::Content(piece.to_owned()))
    }

    #[test]
    fn chunks_are_whole_characters_reasoning_first_then_done() {
        let model = ScriptedModel::from_replies([Reply {
            content: "[计划]\r\né!".into(),
            reasoning: Some("hmm".into()),
            usage: Usage::new(3, 4),
            finish_reason: Some(FinishReason::Length),
            logprobs: Vec::new(),
        }])
        .chunk_size(2);
        assert!(model.streams());
        assert_eq!(
            stream(&model),
            [
                Ok(Delta::Reasoning("hm".into())),
                Ok(Delta::Reasoning("m".into())),
                content("[计"),
                content("划]"),
                content("\r\n"),
                content("é!"),
                Ok(Delta::Done {
                    usage: Usage::new(3, 4),
                    finish_reason: Some(FinishReason::Length)
                }),
            ]
        );
        assert_eq!(model.requests(), vec![vec![Message::user("q")]]);
        assert_eq!(
            format!("{model:?}"),
            "ScriptedModel { name: \"scripted\", scripted: 1, remaining: 0, calls: 1, chunk_size: 2 }"
        );
    }

    #[test]
    fn a_scripted_break_streams_its_partial_text_then_fails() {
        let model = ScriptedModel::from_results([
            Err(ModelError::Incomplete {
                partial: Box::new(Reply::text("[Plan]\nGo")),
                source: Box::new(ModelError::Interrupted("connection reset".into())),
            }),
            Err(ModelError::Timeout(std::time::Duration::from_secs(2))),
        ])
        .chunk_size(7);
        assert_eq!(
            stream(&model),
            [
                content("[Plan]\n"),
                content("Go"),
                Err("the reply broke off: connection reset".into()),
            ]
        );
        assert_eq!(
            stream(&model),
            [Err("the model server did not answer within 2s".into())]
        );
        assert_eq!(
            stream(&model),
            [Err(
                "the ScriptedModel ran out of replies: it was given 2 and all were used; \
                  script more replies or expect fewer calls"
                    .into()
            )]
        );
        assert_eq!(model.calls(), 3);
    }

    #[test]
    fn without_chunk_size_the_stream_is_the_whole_reply() {
        let model = ScriptedModel::new(["whole reply"]);
        assert!(!model.streams());
        assert_eq!(
            stream(&model),
            [
                content("whole reply"),
                Ok(Delta::Done {
                    usage: Usage::default(),
                    finish_reason: Some(FinishReason::Stop)
                }),
            ]
        );
        assert_eq!(model.calls(), 1);
    }
}
