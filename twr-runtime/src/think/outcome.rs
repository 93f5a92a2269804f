//! The ledger of a run: one [`Attempt`] per model call, and the [`Outcome`].

use std::time::Duration;

use super::learn::Learned;
use crate::feedback::Feedback;
use crate::json::JsonProvenance;
use crate::model::{FinishReason, Message, Reply, Served, Usage};
use crate::text::SharedText;

/// What became of one model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttemptKind {
    /// The reply parsed on its own.
    Accepted,
    /// The reply did not parse on its own, but merged with the valid
    /// sections of earlier replies it did.
    Merged,
    /// The reply had format problems; they were sent back to the model.
    Rejected,
    /// The token limit cut the reply off. It got no format feedback: the
    /// model was asked for a shorter answer (see [`Think`](crate::Think)).
    Truncated,
    /// The reply was identical to the previous one; the run stopped.
    Repeated,
    /// The reply answered a focused question: one section still missing or
    /// wrong after a patch retry asked for it was asked for again as a
    /// plain question ("The total cost in dollars. Reply with only the
    /// number."), and the reply was read as that section. When the merged
    /// answer then parsed the run ended with [`Ending::Repaired`];
    /// otherwise the entry carries the problems left.
    Focused,
    /// The reply was stopped while it streamed: a section was already
    /// invalid, so the connection was closed and the rest never read
    /// ([`Think::early_abort`](crate::Think::early_abort)). [`Attempt::raw`]
    /// holds the text received so far, [`Attempt::feedback`] the reason;
    /// its feedback went out at once.
    Aborted,
    /// The reply parsed, but the loop's check
    /// ([`Think::check`](crate::Think::check)) refused the value: its text
    /// went back to the model as written ([`Attempt::feedback`] holds it as
    /// a [`ProblemKind::Check`](crate::feedback::ProblemKind::Check)).
    CheckFailed,
}

/// One request that failed: a transient failure that was retried before an
/// attempt got its reply ([`Attempt::transport_retries`]), or one of the
/// requests of a call that got no reply at all ([`FailedCall::failures`]),
/// the last of which was never retried (it ended the run). Named for what
/// it records, a failed request, not for what followed it (the
/// [`Progress::TransportRetry`](crate::Progress::TransportRetry) event is
/// sent only when a request is sent again).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FailedRequest {
    /// The error, as text: the `ModelError`'s message and each cause of
    /// its source chain, once each (never a key).
    pub error: String,
    /// The pause taken before the next request (zero when there was none:
    /// the run ended after this request).
    pub delay: Duration,
    /// The part of the reply that arrived before the request failed (a
    /// stream that broke or stalled, [`ModelError::Incomplete`](crate::ModelError::Incomplete)): what the
    /// model said, kept as it arrived and incomplete by definition. `None`
    /// when nothing arrived.
    pub partial: Option<Reply>,
}

/// The model call under way when a run ended without a value, when it had
/// sent at least one request: none of its requests got a usable reply.
///
/// With it the ledger of a [`ThinkError`](crate::ThinkError) accounts for
/// every request of the run: each attempt's reply and transport retries, and
/// these failures.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FailedCall {
    /// The number the attempt would have had.
    pub number: usize,
    /// Every request of the call, in order, each with its error; the last one
    /// is the failure that ended the run (or the request the time budget cut
    /// short).
    pub failures: Vec<FailedRequest>,
    /// Time from the call's first request to the end of the run.
    pub latency: Duration,
    /// Tokens of its failed requests (empty replies, partial replies), already
    /// in the run's usage.
    pub usage: Usage,
    /// What those tokens cost, when [`Think::prices`](crate::Think::prices)
    /// has a price for the model called.
    pub cost: Option<f64>,
}

/// One format attempt: one reply of the model and what the loop made of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Attempt {
    /// 1-based position in the run.
    pub number: usize,
    /// What became of the reply.
    pub kind: AttemptKind,
    /// The [`name()`](crate::ChatModel::name) of the model that answered:
    /// the loop's model, or the stronger one after
    /// [`escalate_to`](crate::Think::escalate_to).
    pub model: String,
    /// The reply exactly as the model wrote it; shared with the transcript
    /// and the final answer, not copied.
    pub raw: SharedText,
    /// The model's reasoning, when the server sent it.
    pub reasoning: Option<String>,
    /// The format problems found (for a [`AttemptKind::Rejected`] reply, or
    /// the last problems of one that ended the run).
    pub feedback: Option<Feedback>,
    /// The message sent back to the model after this reply, if any.
    pub sent_back: Option<String>,
    /// Time from the first request of this attempt to its reply, transport
    /// retries and their pauses included.
    pub latency: Duration,
    /// Tokens of this attempt's reply (transport failures report none).
    /// Zero when the server reported none: see
    /// [`usage_reported`](Self::usage_reported).
    pub usage: Usage,
    /// Whether the server reported this reply's token counts. Many servers
    /// send none in a stream unless asked, and a reply stopped early never
    /// gets the stream's final event: `usage` is then zero because nothing
    /// was counted, not because nothing was used.
    pub usage_reported: bool,
    /// Why the model stopped writing, when the server said.
    pub finish_reason: Option<FinishReason>,
    /// The transient failures retried before the reply came.
    pub transport_retries: Vec<FailedRequest>,
    /// Whether the request carried a grammar the reply had to follow
    /// ([`Think::constrain_after`](crate::Think::constrain_after)).
    pub constrained: bool,
    /// Where the reply came from: the model now, the job's journal, or the
    /// response cache.
    pub served: Served,
    /// What [`usage`](Self::usage) cost, when
    /// [`Think::prices`](crate::Think::prices) has a price for
    /// [`model`](Self::model); `None` otherwise.
    pub cost: Option<f64>,
    /// For the reply that gave the value: how each `#[section(json)]`
    /// section (or the whole reply, with [`Think::run_json`](crate::Think::run_json))
    /// was obtained, its layer and the repairs applied. Empty for a rejected
    /// reply.
    pub json: Vec<JsonProvenance>,
    /// How sure the model was of each section of this reply, by field
    /// name, in `0.0..=1.0` ([`Think::confidence`](crate::Think::confidence)):
    /// the sections whose value's tokens came with log-probabilities, in
    /// the order of the type's sections. Empty when the run did not ask for
    /// them, the server gave none, or the reply was JSON in a grammar's
    /// schema.
    pub confidence: Vec<(&'static str, f64)>,
    /// Every reply to this attempt, when it was asked for several at
    /// once ([`Think::samples`](crate::Think::samples)), in the order
    /// asked: [`raw`](Self::raw) is the first, and the attempt's usage,
    /// cost and transport retries are theirs summed. The reply the loop
    /// read is the answer they agree on (see
    /// [`Outcome::final_reply`](crate::Outcome::final_reply)). Empty for
    /// an attempt asked once.
    pub samples: Vec<Sample>,
}

/// One of several replies to an attempt asked at once
/// ([`Think::samples`](crate::Think::samples)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Sample {
    /// The reply exactly as the model wrote it.
    pub raw: SharedText,
    /// The model's reasoning, when the server sent it.
    pub reasoning: Option<String>,
    /// Tokens of this reply (zero when the server reported none). Of
    /// several replies to one request (the server's `n`,
    /// [`ChatModel::answers_n`](crate::ChatModel::answers_n)), the first
    /// carries the whole call's tokens and the others none: the server
    /// counts them together, and the prompt was read once.
    pub usage: Usage,
    /// Why the model stopped writing, when the server said.
    pub finish_reason: Option<FinishReason>,
    /// Where the reply came from: the model now, the job's journal, or the
    /// response cache.
    pub served: Served,
    /// What [`usage`](Self::usage) cost, when it is known (of several
    /// replies to one request, the call's cost on the first, `0` on the
    /// others).
    pub cost: Option<f64>,
}

/// How a successful run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ending {
    /// The first reply parsed.
    FirstTry,
    /// The last reply parsed on its own after `n` re-asks.
    Reasked(usize),
    /// After `n` re-asks, the last reply merged with valid sections of earlier
    /// replies parsed (repaired locally, without asking for everything again).
    Repaired(usize),
}

/// Which reply a section of the final value came from (patch merges only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SectionSource {
    /// The section header, with brackets.
    pub header: &'static str,
    /// The 1-based number of the attempt whose reply supplied it.
    pub attempt: usize,
}

impl SectionSource {
    /// Section `header` came from attempt `attempt` (1-based).
    pub fn new(header: &'static str, attempt: usize) -> Self {
        SectionSource { header, attempt }
    }
}

/// The typed value and the full record of how it was obtained.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Outcome<T> {
    /// The parsed value.
    pub value: T,
    /// The ledger: one entry per model call that returned a reply.
    pub attempts: Vec<Attempt>,
    /// Token usage summed over every attempt.
    pub usage: Usage,
    /// The private retry conversation as a log: the caller's messages, the
    /// prompt with its format guide, then every reply and every message sent
    /// back, in order. (Each request carried only the latest failed reply
    /// and its feedback; this log keeps them all.)
    pub transcript: Vec<Message>,
    /// How the run ended.
    pub ending: Ending,
    /// For a [`Ending::Repaired`] value: where each section came from.
    pub sources: Vec<SectionSource>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// The demonstrations learned from earlier runs that the run was shown
    /// ([`Think::learn_from`](crate::Think::learn_from)), in the order
    /// shown; empty without.
    pub learned: Vec<Learned>,
    pub(crate) prompt: Message,
    pub(crate) final_reply: SharedText,
    /// Each section's confidence, from the reply it came from.
    pub(crate) confidence: Vec<(&'static str, f64)>,
    /// The fields below [`Think::review_below`](crate::Think::review_below).
    pub(crate) needs_review: Vec<&'static str>,
}

impl<T> Outcome<T> {
    /// The clean pair to append to the caller's main conversation: the prompt
    /// as the caller wrote it (no format guide; its attachments, shared, not
    /// copied) and the final answer (for a repaired value, the merged
    /// sections), without any retry traffic.
    pub fn final_exchange(&self) -> [Message; 2] {
        [
            self.prompt.clone(),
            Message::assistant(self.final_reply.clone()),
        ]
    }

    /// The final answer's text: the accepted reply, or the merged sections.
    pub fn final_reply(&self) -> &str {
        &self.final_reply
    }

    /// Number of model calls that returned a reply.
    pub fn attempt_count(&self) -> usize {
        self.attempts.len()
    }

    /// What the run cost: the sum of its attempts' [`Attempt::cost`]
    /// (`None` when no attempt's model had a price; see
    /// [`Think::prices`](crate::Think::prices)).
    pub fn cost(&self) -> Option<f64> {
        crate::cost::sum_known(self.attempts.iter().map(|a| a.cost))
    }

    /// Maps the value, keeping the record.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        Outcome {
            value: f(self.value),
            attempts: self.attempts,
            usage: self.usage,
            transcript: self.transcript,
            ending: self.ending,
            sources: self.sources,
            elapsed: self.elapsed,
            learned: self.learned,
            prompt: self.prompt,
            final_reply: self.final_reply,
            confidence: self.confidence,
            needs_review: self.needs_review,
        }
    }

    /// How sure the model was of the section of field `field` (its Rust
    /// name, `"price"`), in `0.0..=1.0`, read from the log-probabilities of
    /// its value's tokens in the reply it came from (for a repaired value,
    /// the patch or focused reply that supplied it); `None` when it was
    /// not measured: the run did not ask
    /// ([`Think::confidence`](crate::Think::confidence)), the server gave
    /// no log-probabilities (Anthropic), the reply was JSON in a grammar's
    /// schema, or the type has no such field.
    ///
    /// By the kind of the value:
    ///
    /// - **a bool, a choice** (and an optional section, whose value may be
    ///   "none"): the probability of the alternative written against the
    ///   other alternatives the server listed at the value's first token
    ///   (tokens that begin no alternative count for neither), so 0.5 is a
    ///   coin toss between two answers;
    /// - **a number**: the product of the probabilities of its tokens with
    ///   digits: the probability of writing exactly that number, as one
    ///   wrong digit makes another number;
    /// - **text, lists and the rest**: the geometric mean of the
    ///   probabilities of the value's tokens (white space and list markers
    ///   left out), which does not fall with the length of a right text.
    ///
    /// Under a grammar ([`Think::constrain_after`](crate::Think::constrain_after)),
    /// a token the grammar wrote alone (the server listed no other, at
    /// probability 1) does not count: a value made only of such tokens
    /// scores 0.0, since the model chose none of it.
    pub fn confidence(&self, field: &str) -> Option<f64> {
        self.confidence
            .iter()
            .find(|(name, _)| *name == field)
            .map(|&(_, confidence)| confidence)
    }

    /// The fields whose confidence is below the threshold of
    /// [`Think::review_below`](crate::Think::review_below), in the order of
    /// the type's sections: values a person should look at before they are
    /// used. Empty without a threshold, and for fields not measured (see
    /// [`confidence`](Self::confidence)). Not an error: the value is typed.
    pub fn needs_review(&self) -> &[&'static str] {
        &self.needs_review
    }
}
