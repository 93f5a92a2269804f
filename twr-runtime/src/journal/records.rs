//! The records a journal keeps, whatever [`Store`](super::store::Store)
//! keeps them: plain owned data, so that a store can hand them to another
//! thread or task.

use super::key::RequestKey;
#[cfg(doc)]
use crate::feedback::ProblemKind;
use crate::feedback::Wording;
use crate::model::{Reply, Usage};

/// A reply to record in a job: the reply to occurrence `occurrence` of
/// the request `key`, which `model` sent.
#[derive(Debug, Clone)]
pub(crate) struct ReplyEntry {
    pub(crate) key: RequestKey,
    pub(crate) occurrence: u32,
    pub(crate) model: String,
    pub(crate) reply: Reply,
    pub(crate) cost: Option<f64>,
    /// The batch and line that brought it, if a batch did.
    pub(crate) batch: Option<(String, String)>,
}

/// How one run of [`Think::run_many`](crate::Think::run_many) ended, as
/// the journal keeps it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecordedOutcome {
    /// The run's place in the input (from 0).
    pub index: usize,
    /// Whether it gave a value.
    pub ok: bool,
    /// Its attempts (model calls that returned a reply).
    pub attempts: usize,
    /// Its prompt and completion tokens.
    pub usage: Usage,
    /// Its cost, when its models had prices.
    pub cost: Option<f64>,
    /// The final answer's text, for a run that gave a value.
    pub final_reply: Option<String>,
    /// The error's message, for one that did not.
    pub error: Option<String>,
}

/// A run of a job that ended with a typed value, as the journal keeps it
/// (see [`Job::typed_runs`](super::Job::typed_runs)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TypedRun {
    /// The prompt's text as the program wrote it (no format guide; an
    /// attachment is not kept).
    pub prompt: String,
    /// The answer the value was read from, in the soft format: only the
    /// type's sections, each under its header, in declaration order
    /// (merged when it was put together over several replies, and in
    /// sections when the model wrote JSON under a grammar).
    pub answer: String,
    /// Whether the run sent a constrained attempt
    /// ([`Attempt::constrained`](crate::Attempt::constrained)).
    pub constrained: bool,
    /// Its attempts (model calls that returned a reply).
    pub attempts: usize,
}

/// One feedback the loop sent, as the journal records it: a problem it
/// named, how it was worded, and whether the next reply fixed it.
#[derive(Debug, Clone)]
pub(crate) struct FeedbackEvent {
    pub(crate) model: String,
    pub(crate) problem: &'static str,
    pub(crate) wording: Wording,
    pub(crate) constrained: bool,
    pub(crate) fixed: bool,
}

/// How often one wording of the feedback about one kind of problem was
/// followed by a reply that fixed it, for one model: a row of
/// [`Job::feedback_rates`](super::Job::feedback_rates).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FeedbackRate {
    /// The model that read the feedback (its
    /// [`name()`](crate::ChatModel::name), or the one its response named).
    pub model: String,
    /// The kind of problem named ([`ProblemKind::name`]: `missing`,
    /// `bad_value`, ...).
    pub problem: String,
    /// How the feedback was worded.
    pub wording: Wording,
    /// Whether the next attempt was constrained by a grammar (then the
    /// server, not the wording, kept the reply in the format).
    pub constrained: bool,
    /// How many times a section with this problem was named so.
    pub sent: u64,
    /// How many of those the next reply fixed: the section had no problem
    /// left (or the reply gave the value).
    pub fixed: u64,
}

impl FeedbackRate {
    /// `fixed / sent`, from 0 to 1.
    pub fn rate(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            self.fixed as f64 / self.sent as f64
        }
    }
}

/// Where the prompts of a job stand, across every process that runs it
/// ([`Job::progress`](super::Job::progress)). A prompt is counted once the
/// job has seen it: a run of many over a job with a
/// [lease](super::Job::lease_for) registers its prompts when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct JobProgress {
    /// Prompts no worker holds and none has ended (a lease that ran out,
    /// its worker gone, counts here).
    pub pending: usize,
    /// Prompts a worker holds, its lease running.
    pub leased: usize,
    /// Prompts that ended with a typed value.
    pub typed: usize,
    /// Prompts that ended without one.
    pub failed: usize,
}

/// What asking for the lease of a prompt got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Claim {
    /// This worker holds it now.
    Ours,
    /// Another worker holds it, its lease running.
    Held,
    /// It ended (in any worker): `ok` with a typed value, else with the
    /// recorded error.
    Ended { ok: bool, error: Option<String> },
}

/// A lease on a job's prompts: who holds them, and for how long each
/// lease runs unless renewed.
#[derive(Debug, Clone)]
pub(crate) struct Lease {
    pub(crate) holder: std::sync::Arc<str>,
    pub(crate) ms: i64,
}

/// A line of a job's batch that has no reply recorded yet.
#[cfg(feature = "batch")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingLine {
    /// The provider's batch id; while the batch is being submitted, the id
    /// its submitter recorded it under first (see [`BatchIntent`]).
    pub(crate) batch_id: String,
    pub(crate) custom_id: String,
    /// Whether the batch is being submitted: recorded, not yet known to
    /// have been created.
    pub(crate) submitting: bool,
}

/// What became of a batch recorded before it was created, by the id it was
/// recorded under.
#[cfg(feature = "batch")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BatchIntent {
    /// The provider created it, under this id.
    Created(String),
    /// Its submitter has not said yet; recorded this long ago (by the
    /// store's clock).
    Submitting { age: std::time::Duration },
    /// It was never created (the provider refused it, or its submitter
    /// was gone too long), or is not known.
    NotSubmitted,
}

/// How a section's confidence was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Measured {
    /// From the token log-probabilities the server gave with the reply
    /// ([`Think::confidence`](crate::Think::confidence)).
    Logprobs,
    /// The share of several replies that agreed on the value
    /// ([`Think::samples`](crate::Think::samples)).
    Agreement,
}

impl Measured {
    /// The name the journal stores: `logprobs` or `agreement`.
    pub fn name(self) -> &'static str {
        match self {
            Measured::Logprobs => "logprobs",
            Measured::Agreement => "agreement",
        }
    }

    /// The way named `name` ([`Measured::name`]); `None` for a name this
    /// twr does not know.
    pub fn from_name(name: &str) -> Option<Measured> {
        match name {
            "logprobs" => Some(Measured::Logprobs),
            "agreement" => Some(Measured::Agreement),
            _ => None,
        }
    }
}

/// How sure the model was of one section in one attempt of a run, as the
/// journal keeps it ([`Job::confidences`](super::Job::confidences)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecordedConfidence {
    /// The attempt's number in the run (from 1,
    /// [`Attempt::number`](crate::Attempt::number)).
    pub attempt: usize,
    /// The section's field name.
    pub field: String,
    /// Its confidence, in `0.0..=1.0`.
    pub confidence: f64,
    /// How it was measured.
    pub measured: Measured,
}

/// A typed prompt of a job whose value has sections to review: those
/// whose confidence was below [`Think::review_below`](crate::Think::review_below)'s
/// threshold ([`Job::needs_review`](super::Job::needs_review)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Review {
    /// The prompt's text as the program wrote it.
    pub prompt: String,
    /// The sections to review, in the order of the type's sections: each
    /// field name with the confidence of its value.
    pub fields: Vec<(String, f64)>,
    /// The threshold they fell below.
    pub threshold: f64,
}

/// What a run that ended typed measured, to record by its prompt: every
/// attempt's confidences, and the value's sections to review when the run
/// had a threshold.
#[derive(Debug, Clone)]
pub(crate) struct RunConfidence {
    pub(crate) prompt: String,
    pub(crate) attempts: Vec<RecordedConfidence>,
    pub(crate) review: Option<(f64, Vec<(String, f64)>)>,
}

/// Token log-probabilities as the journal stores them: JSON, `None` for a
/// reply that has none. A probability of zero (a log-probability of minus
/// infinity, which JSON cannot write) is stored as the lowest finite one.
pub(crate) fn logprobs_json(tokens: &[crate::model::TokenLogprob]) -> Option<String> {
    if tokens.is_empty() {
        return None;
    }
    let finite = |logprob: f64| {
        if logprob.is_finite() {
            logprob
        } else {
            f64::MIN
        }
    };
    let tokens: Vec<crate::model::TokenLogprob> = tokens
        .iter()
        .map(|token| crate::model::TokenLogprob {
            token: token.token.clone(),
            logprob: finite(token.logprob),
            top: token
                .top
                .iter()
                .map(|(text, logprob)| (text.clone(), finite(*logprob)))
                .collect(),
        })
        .collect();
    serde_json::to_string(&tokens).ok()
}

/// The token log-probabilities stored as `json` ([`logprobs_json`]); none
/// for a reply stored without them, or for a value that is not theirs (it
/// would be a made-up number).
pub(crate) fn logprobs_of(json: Option<&str>) -> Vec<crate::model::TokenLogprob> {
    json.and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}
