//! Collects the [`Decoded`]s of a response, or of every event of a stream,
//! into one [`Reply`]; or, when the call fails after text arrived, into the
//! partial reply that [`ModelError::Incomplete`] keeps. For
//! [`ChatModel::chat_stream`](crate::ChatModel::chat_stream) it also hands
//! out each item as [`Delta`]s the moment it arrives: one reader, so the
//! streamed reply and the collected one are read by the same rules.

use std::sync::Arc;

use super::provider::Decoded;
use super::secret::Secrets;
use crate::model::{Delta, FinishReason, ModelError, Reply, TokenLogprob, Usage};
use crate::reasoning::{Event, ThinkSplitter};

/// A reply being put together from an adapter's [`Decoded`]s, whole or as
/// they stream in (then also handed out as deltas): where refusals are
/// decided, inline `<think>` blocks split off and keys scrubbed. Not the
/// model seam's `Gathered`, which puts a reply together from [`Delta`]s,
/// where all of that is done already.
#[derive(Default)]
pub(crate) struct DecodedReader {
    /// Visible text, with inline `<think>` blocks moved out as it arrives.
    splitter: ThinkSplitter,
    /// Reasoning sent in its own field or part.
    reasoning: String,
    refusal: Option<String>,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    /// The model the server said answered ([`Decoded::Model`]).
    response_model: Option<String>,
    /// The log-probabilities of the answer's tokens, when the server sent
    /// them.
    logprobs: Vec<TokenLogprob>,
    /// Whether any content or reasoning other than white space arrived.
    has_text: bool,
    /// When streaming: the deltas not yet handed out.
    deltas: Option<Deltas>,
    /// The call's credentials, scrubbed out of text kept in an error.
    secrets: Option<Arc<Secrets>>,
    /// Whether the items arriving belong to a reply other than the first
    /// ([`Decoded::Choice`]): a reader of one reply leaves them out.
    other_choice: bool,
}

impl DecodedReader {
    /// A reader that also makes [`Delta`]s of what arrives (take them
    /// with [`take_deltas`](Self::take_deltas)).
    pub(crate) fn streaming() -> Self {
        DecodedReader {
            deltas: Some(Deltas::default()),
            ..DecodedReader::default()
        }
    }

    /// The same reader, scrubbing `secrets` out of the text an error
    /// keeps (what arrived before a failure or a refusal): an error never
    /// shows a key, even one a server or proxy made the model's text echo.
    pub(crate) fn scrubbing(mut self, secrets: Arc<Secrets>) -> Self {
        self.secrets = Some(secrets);
        self
    }

    /// Applies one item.
    pub(crate) fn add(&mut self, item: Decoded) {
        let reply_item = !matches!(
            item,
            Decoded::Usage(_) | Decoded::Model(_) | Decoded::Choice(_)
        );
        if self.other_choice && reply_item {
            return;
        }
        match item {
            Decoded::Content(text) => {
                self.has_text |= !text.trim().is_empty();
                match &mut self.deltas {
                    Some(deltas) => self
                        .splitter
                        .push_observed(&text, &mut |event| deltas.event(event)),
                    None => self.splitter.push(&text),
                }
            }
            Decoded::Reasoning(text) => {
                self.has_text |= !text.trim().is_empty();
                if let Some(deltas) = &mut self.deltas {
                    deltas.reasoning(&text);
                }
                self.reasoning.push_str(&text);
            }
            Decoded::Refusal(text) => self.refusal.get_or_insert_with(String::new).push_str(&text),
            Decoded::Usage(usage) => self.usage = usage,
            Decoded::Finish(reason) => self.finish_reason = Some(reason),
            Decoded::Model(name) => self.response_model = Some(name),
            Decoded::Logprobs(tokens) => {
                if let Some(deltas) = &mut self.deltas {
                    deltas.out.push(Delta::Logprobs(tokens.clone()));
                }
                self.logprobs.extend(tokens);
            }
            Decoded::Choice(index) => self.other_choice = index != 0,
        }
    }

    /// The model the server said answered, when it named one.
    pub(crate) fn response_model(&self) -> Option<&str> {
        self.response_model.as_deref()
    }

    /// True once any content or reasoning arrived.
    pub(crate) fn has_text(&self) -> bool {
        self.has_text
    }

    /// The deltas made since the last call (none unless
    /// [`streaming`](Self::streaming)).
    pub(crate) fn take_deltas(&mut self) -> Vec<Delta> {
        self.deltas
            .as_mut()
            .map(|deltas| std::mem::take(&mut deltas.out))
            .unwrap_or_default()
    }

    /// Ends a stream that completed: the last deltas (text a tag held back
    /// at the very end), then [`Delta::Done`], or the error
    /// [`finish`](Self::finish) gives (an empty reply, a refusal).
    /// A reader that is not [`streaming`](Self::streaming) (a whole
    /// body) gives the whole reply as [`Delta::from_reply`] does.
    pub(crate) fn finish_stream(mut self) -> Vec<Result<Delta, ModelError>> {
        let Some(mut deltas) = self.deltas.take() else {
            return match self.finish() {
                Ok(reply) => Delta::from_reply(reply).into_iter().map(Ok).collect(),
                Err(error) => vec![Err(error)],
            };
        };
        let splitter = std::mem::take(&mut self.splitter);
        let (content, inline) = splitter.finish_observed(&mut |event| deltas.event(event));
        let mut out: Vec<Result<Delta, ModelError>> = deltas.out.into_iter().map(Ok).collect();
        let secrets = self.secrets.clone();
        let (reply, refusal) = self.into_reply(content, inline);
        out.push(
            check(reply, refusal, secrets.as_deref()).map(|reply| Delta::Done {
                usage: reply.usage,
                finish_reason: reply.finish_reason,
            }),
        );
        out
    }

    /// What arrived, as a reply, with no checks (for a failed call), its
    /// text scrubbed.
    pub(crate) fn partial(self) -> Reply {
        let secrets = self.secrets.clone();
        scrubbed(self.into_parts().0, secrets.as_deref())
    }

    /// The reply, or why there is none (see [`check`]); the loop asks for a
    /// shorter answer when the token limit explains an empty one.
    pub(crate) fn finish(self) -> Result<Reply, ModelError> {
        let secrets = self.secrets.clone();
        let (reply, refusal) = self.into_parts();
        check(reply, refusal, secrets.as_deref())
    }

    fn into_parts(mut self) -> (Reply, Option<String>) {
        let splitter = std::mem::take(&mut self.splitter);
        let (content, inline) = splitter.finish();
        self.into_reply(content, inline)
    }

    fn into_reply(self, content: String, inline: Option<String>) -> (Reply, Option<String>) {
        let field = self.reasoning.trim();
        let reasoning = match (field.is_empty(), inline) {
            (true, inline) => inline,
            (false, None) => Some(field.to_string()),
            (false, Some(inline)) => Some(format!("{field}\n{inline}")),
        };
        let reply = Reply {
            content,
            reasoning,
            usage: self.usage,
            finish_reason: self.finish_reason,
            logprobs: self.logprobs,
        };
        (reply, self.refusal)
    }
}

/// The replies of a response with several ([`Decoded::Choice`]), each put
/// together by its own [`DecodedReader`] under the same rules; the whole
/// response's usage and model go to the first.
pub(crate) struct ChoiceReaders {
    readers: Vec<DecodedReader>,
    /// The reply the items arriving belong to.
    current: usize,
    secrets: Arc<Secrets>,
}

impl ChoiceReaders {
    /// Readers scrubbing `secrets` out of the text an error keeps.
    pub(crate) fn new(secrets: Arc<Secrets>) -> Self {
        ChoiceReaders {
            readers: vec![DecodedReader::default().scrubbing(secrets.clone())],
            current: 0,
            secrets,
        }
    }

    /// Applies one item to the reply it belongs to.
    pub(crate) fn add(&mut self, item: Decoded) {
        match item {
            Decoded::Choice(index) => {
                // Replies are few (the `n` asked for): a reply named out of
                // order gets the readers before it, empty until they speak.
                let index = index as usize;
                while self.readers.len() <= index {
                    let reader = DecodedReader::default().scrubbing(self.secrets.clone());
                    self.readers.push(reader);
                }
                self.current = index;
            }
            Decoded::Usage(_) | Decoded::Model(_) => self.readers[0].add(item),
            item => self.readers[self.current].add(item),
        }
    }

    /// The model the server said answered, when it named one.
    pub(crate) fn response_model(&self) -> Option<&str> {
        self.readers[0].response_model()
    }

    /// True once any reply's content or reasoning arrived.
    pub(crate) fn has_text(&self) -> bool {
        self.readers.iter().any(DecodedReader::has_text)
    }

    /// What arrived of the first reply, for a failed call.
    pub(crate) fn partial(self) -> Reply {
        self.readers
            .into_iter()
            .next()
            .map(DecodedReader::partial)
            .unwrap_or_default()
    }

    /// Each reply in order, or why the first has none. A later reply that
    /// fails (empty, refused) is left out, said in a warning: the replies
    /// that came are kept, and the loop asks for the missing ones alone.
    pub(crate) fn finish(self) -> Result<Vec<Reply>, ModelError> {
        let mut replies = Vec::with_capacity(self.readers.len());
        for (index, reader) in self.readers.into_iter().enumerate() {
            match reader.finish() {
                Ok(reply) => replies.push(reply),
                Err(error) if index == 0 => return Err(error),
                Err(error) => {
                    tracing::warn!(choice = index, error = %error, "twr left out one of several replies");
                }
            }
        }
        Ok(replies)
    }
}

/// The reply, or why there is none: an empty answer is an error unless the
/// token limit explains it, and a refusal or a content filter's silence is a
/// refusal, not a glitch to retry.
///
/// A reply a filter or a refusal stopped (`content_filter`, Gemini's
/// `SAFETY`, Anthropic's `refusal`) is never an answer, even with text:
/// that text was cut off where the server stopped it. It is a
/// [`ModelError::Refused`] with the server's words (or the model's refusal
/// text), inside [`ModelError::Incomplete`] with what arrived when anything
/// did (its text scrubbed of `secrets`).
fn check(
    reply: Reply,
    refusal: Option<String>,
    secrets: Option<&Secrets>,
) -> Result<Reply, ModelError> {
    let refusal = refusal
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty());
    if reply.finish_reason == Some(FinishReason::ContentFilter) {
        let refused = ModelError::Refused(
            refusal.unwrap_or_else(|| "the server's content filter stopped the reply".to_string()),
        );
        let said = |text: &str| !text.trim().is_empty();
        if said(&reply.content) || reply.reasoning.as_deref().is_some_and(said) {
            return Err(ModelError::Incomplete {
                partial: Box::new(scrubbed(reply, secrets)),
                source: Box::new(refused),
            });
        }
        return Err(refused);
    }
    if !reply.content.trim().is_empty() {
        return Ok(reply);
    }
    if let Some(refusal) = refusal {
        return Err(ModelError::Refused(refusal));
    }
    match &reply.finish_reason {
        Some(FinishReason::Length) => Ok(reply),
        _ => Err(ModelError::EmptyReply),
    }
}

/// `reply` with `secrets` replaced in its text, for an error to keep.
fn scrubbed(mut reply: Reply, secrets: Option<&Secrets>) -> Reply {
    if let Some(secrets) = secrets {
        reply.content = secrets.scrub(&reply.content);
        reply.reasoning = reply.reasoning.map(|text| secrets.scrub(&text));
    }
    reply
}

/// The deltas of a streamed reply, made from what the reasoning lexer finds
/// in the content and from the reasoning fields, as they arrive.
///
/// The content deltas are the text outside `<think>` blocks, as
/// [`Reply::content`] is: after a block, the white space that starts the
/// answer is dropped and white space is handed out only once more text
/// follows it (`chat` trims the answer around a removed block). A closing
/// tag with no opening tag before it (the chat template opened the block in
/// the prompt) can only be recognised after the text before it went out as
/// content: it is then sent as content too, `</think>`, so a reader of the
/// content (the section parser is one) knows the text before it was
/// reasoning, as it would in the whole reply.
#[derive(Default)]
struct Deltas {
    out: Vec<Delta>,
    /// A block (or a lone closing tag) was seen: the answer is trimmed.
    saw_block: bool,
    /// Text other than white space went out as content since then.
    started: bool,
    /// White space after the last content sent, held back while a block was
    /// seen (it is dropped if nothing follows).
    held: String,
    /// Reasoning went out: the next block is joined with a line break.
    reasoning_sent: bool,
}

impl Deltas {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Content { text, .. } => self.content(text),
            Event::Reasoning { text, .. } => self.reasoning(text),
            Event::Open => {
                if self.reasoning_sent {
                    self.out.push(Delta::Reasoning("\n".to_string()));
                }
                self.saw_block = true;
            }
            Event::Close => {}
            Event::LoneClose => {
                self.out.push(Delta::Content("</think>".to_string()));
                self.saw_block = true;
                self.started = false;
                self.held.clear();
            }
        }
    }

    fn reasoning(&mut self, text: &str) {
        if !text.is_empty() {
            self.reasoning_sent = true;
            self.out.push(Delta::Reasoning(text.to_string()));
        }
    }

    fn content(&mut self, text: &str) {
        if !self.saw_block {
            self.started |= !text.trim().is_empty();
            if !text.is_empty() {
                self.out.push(Delta::Content(text.to_string()));
            }
            return;
        }
        let text = if self.started {
            text
        } else {
            text.trim_start()
        };
        let body = text.trim_end().len();
        if body == 0 {
            self.held.push_str(text);
            return;
        }
        let mut item = std::mem::take(&mut self.held);
        item.push_str(&text[..body]);
        self.held.push_str(&text[body..]);
        self.started = true;
        self.out.push(Delta::Content(item));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(decoded: Vec<Decoded>) -> DecodedReader {
        let mut reader = DecodedReader::default();
        for item in decoded {
            reader.add(item);
        }
        reader
    }

    #[test]
    fn reasoning_fields_come_before_inline_blocks() {
        let reply = collect(vec![
            Decoded::Reasoning(" field ".into()),
            Decoded::Content("<think>inline</think>\nAnswer".into()),
            Decoded::Usage(Usage::new(1, 2)),
            Decoded::Usage(Usage::new(3, 4)),
            Decoded::Finish(FinishReason::Stop),
        ])
        .finish()
        .unwrap();
        assert_eq!(
            reply,
            Reply {
                content: "Answer".into(),
                reasoning: Some("field\ninline".into()),
                usage: Usage::new(3, 4),
                finish_reason: Some(FinishReason::Stop),
                logprobs: Vec::new(),
            }
        );
    }

    #[test]
    fn empty_answers_refusals_and_filters() {
        let refused = collect(vec![
            Decoded::Refusal("No.".into()),
            Decoded::Content(" ".into()),
        ]);
        assert!(!refused.has_text());
        assert!(matches!(refused.finish(), Err(ModelError::Refused(m)) if m == "No."));
        let filtered = collect(vec![Decoded::Finish(FinishReason::ContentFilter)]);
        assert!(!filtered.has_text());
        assert!(matches!(filtered.finish(), Err(ModelError::Refused(m))
            if m == "the server's content filter stopped the reply"));
        // Text a filter stopped is kept, with the server's words.
        let stopped = collect(vec![
            Decoded::Content("[Plan]\nGo ea".into()),
            Decoded::Refusal("Gemini stopped the reply (finishReason SAFETY)".into()),
            Decoded::Finish(FinishReason::ContentFilter),
        ]);
        match stopped.finish() {
            Err(ModelError::Incomplete { partial, source }) => {
                assert_eq!(partial.content, "[Plan]\nGo ea");
                assert!(matches!(*source, ModelError::Refused(m)
                    if m == "Gemini stopped the reply (finishReason SAFETY)"));
            }
            other => panic!("{other:?}"),
        }
        let cut = collect(vec![Decoded::Finish(FinishReason::Length)]);
        assert_eq!(cut.finish().unwrap().content, "");
        let empty = collect(vec![Decoded::Content("<think>only</think>".into())]);
        assert!(matches!(empty.finish(), Err(ModelError::EmptyReply)));
    }

    #[test]
    fn a_partial_reply_keeps_what_arrived() {
        let partial = collect(vec![
            Decoded::Reasoning("why".into()),
            Decoded::Content("Half an ans".into()),
        ]);
        assert!(partial.has_text());
        assert_eq!(
            partial.partial(),
            Reply {
                content: "Half an ans".into(),
                reasoning: Some("why".into()),
                ..Reply::default()
            }
        );
    }
}
