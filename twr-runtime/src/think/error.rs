//! [`ThinkError`]: why a run produced no value, with everything the model said.

use std::fmt;
use std::time::Duration;

use super::learn::Learned;
use super::outcome::{Attempt, AttemptKind, FailedCall};
use crate::feedback::Feedback;
use crate::model::{ModelError, Reply, Usage};

/// Which optional budget of [`Think`](crate::Think) ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BudgetLimit {
    /// `max_total_tokens`: total tokens over all replies.
    Tokens(u64),
    /// `max_requests`: requests to the model, transport retries included.
    Requests(usize),
    /// `max_duration`: wall time of the run.
    Duration(Duration),
}

impl fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetLimit::Tokens(n) => write!(f, "token budget of {n}"),
            BudgetLimit::Requests(n) => write!(f, "budget of {n} requests"),
            BudgetLimit::Duration(d) => write!(f, "time budget of {d:?}"),
        }
    }
}

/// Why [`Think::run`](crate::Think::run) returned no value: what went wrong
/// ([`ThinkError::kind`]) and the full ledger of the run.
///
/// The ledger keeps everything: each raw reply with its reasoning, the
/// problems found and the feedback sent ([`ThinkError::attempts`]), every
/// failed request with its error and pause (each attempt's
/// [`transport_retries`](crate::Attempt::transport_retries), then
/// [`ThinkError::failed_call`]), and the tokens used. Nothing the model said
/// is lost. `Display` is a short summary and `Debug` a few lines (one per
/// attempt); the data itself is reached through the accessors below.
///
/// ```
/// use twr_runtime::{RetryMode, ScriptedModel, Think, ThinkErrorKind};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["about six", "six-ish"]);
/// let error = Think::new(&model)
///     .max_attempts(2)
///     .run_with("How many legs has an insect?", |raw: &str| {
///         raw.trim().parse::<u32>().map_err(|_| "Write only the number.".into())
///     })
///     .await
///     .unwrap_err();
/// assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
/// assert_eq!(error.raw_replies(), ["about six", "six-ish"]);
/// # });
/// ```
pub struct ThinkError {
    kind: ThinkErrorKind,
    attempts: Vec<Attempt>,
    failed_call: Option<FailedCall>,
    usage: Usage,
    learned: Vec<Learned>,
}

/// Short, for `{:?}` (what `main` prints of an error it returns): the
/// kind, then one line's worth per attempt (its number, what became of it,
/// the model, the size of its reply, how many problems), the failed call's
/// last error, the usage. The replies themselves stay in the error's data
/// ([`attempts`](ThinkError::attempts), [`raw_replies`](ThinkError::raw_replies)),
/// where `{:#?}` of an attempt shows one whole.
impl fmt::Debug for ThinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Brief<'a>(&'a Attempt);
        impl fmt::Debug for Brief<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let attempt = self.0;
                let raw = attempt.raw.as_str();
                // The reply's start, enough to know it; all of it is in
                // the error's data.
                let start: String = raw.chars().take(REPLY_CHARS).collect();
                let more = if start.len() < raw.len() { "…" } else { "" };
                write!(
                    f,
                    "#{} {:?} by {:?}: {start:?}{more} ({} bytes)",
                    attempt.number,
                    attempt.kind,
                    attempt.model,
                    raw.len()
                )?;
                let problems = attempt.feedback.as_ref().map_or(&[][..], |p| p.problems());
                for (n, problem) in problems.iter().take(PROBLEMS).enumerate() {
                    let kind = format!("{:?}", problem.kind);
                    let kind = kind.split([' ', '(', '{']).next().unwrap_or_default();
                    let gap = if n == 0 { "; " } else { ", " };
                    write!(f, "{gap}{kind} {}", problem.header)?;
                }
                if problems.len() > PROBLEMS {
                    write!(f, " and {} more", problems.len() - PROBLEMS)?;
                }
                Ok(())
            }
        }
        /// How much of a reply, and how many of its problems, are shown.
        const REPLY_CHARS: usize = 60;
        const PROBLEMS: usize = 3;
        struct Failed<'a>(&'a FailedCall);
        impl fmt::Debug for Failed<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let call = self.0;
                write!(
                    f,
                    "#{}: {} requests failed",
                    call.number,
                    call.failures.len()
                )?;
                match call.failures.last() {
                    Some(last) => write!(f, ", the last with {:?}", last.error),
                    None => Ok(()),
                }
            }
        }
        let attempts: Vec<Brief<'_>> = self.attempts.iter().map(Brief).collect();
        f.debug_struct("ThinkError")
            .field("kind", &self.kind)
            .field("attempts", &attempts)
            .field("failed_call", &self.failed_call.as_ref().map(Failed))
            .field("usage", &self.usage)
            .field("learned", &self.learned.len())
            .finish()
    }
}

/// What ended a run without a value; the ledger is in [`ThinkError`].
#[derive(Debug)]
#[non_exhaustive]
pub enum ThinkErrorKind {
    /// Every format attempt was used and no reply (or merge) parsed.
    Exhausted,
    /// The model sent the same reply as the time before: asking again would
    /// only burn the budget, so the run stopped early. The last attempt of
    /// the ledger is the repeat. (A model that takes grammars, or a run with
    /// [`Think::constrain_after`](crate::Think::constrain_after), gets its
    /// next attempt constrained instead, while attempts are left.)
    RepeatedReply,
    /// An optional budget ran out before a reply parsed.
    Budget {
        /// The budget that ran out.
        limit: BudgetLimit,
    },
    /// The model could not be reached or refused the request: a non-transient
    /// error (400, 401, 403, 404, a bad configuration, ...) at once, or a
    /// transient one after the transport retries were spent. Every request
    /// of that call is in [`ThinkError::failed_call`].
    Model {
        /// The last error, with the server's own message.
        source: ModelError,
        /// How many transport retries were made before giving up.
        retries: u32,
    },
}

impl ThinkError {
    /// An error of `kind` with the run's ledger.
    pub(crate) fn new(
        kind: ThinkErrorKind,
        attempts: Vec<Attempt>,
        failed_call: Option<FailedCall>,
        usage: Usage,
    ) -> Self {
        ThinkError {
            kind,
            attempts,
            failed_call,
            usage,
            learned: Vec::new(),
        }
    }

    /// The same error with the demonstrations the run was shown.
    pub(crate) fn with_learned(mut self, learned: Vec<Learned>) -> Self {
        self.learned = learned;
        self
    }

    /// The demonstrations learned from earlier runs that the run was shown
    /// ([`Think::learn_from`](crate::Think::learn_from)), in the order
    /// shown; empty without.
    pub fn learned(&self) -> &[Learned] {
        &self.learned
    }

    /// What went wrong.
    pub fn kind(&self) -> &ThinkErrorKind {
        &self.kind
    }

    /// The ledger: one entry per reply received.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// The ledger, by value.
    pub fn into_attempts(self) -> Vec<Attempt> {
        self.attempts
    }

    /// The call under way when the run ended, if it had sent any request:
    /// its failed requests, each with its error and pause.
    pub fn failed_call(&self) -> Option<&FailedCall> {
        self.failed_call.as_ref()
    }

    /// The number of requests the run sent: one per reply, one per
    /// transport retry, and those of the failed call.
    pub fn requests(&self) -> usize {
        let replies: usize = self
            .attempts
            .iter()
            .map(|a| 1 + a.transport_retries.len())
            .sum();
        replies + self.failed_call.as_ref().map_or(0, |c| c.failures.len())
    }

    /// Tokens used before the run ended (every response counted once).
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// What the run cost before it ended: its attempts'
    /// [`cost`](Attempt::cost) and the failed call's (`None` when no model
    /// called had a price; see [`Think::prices`](crate::Think::prices)).
    pub fn cost(&self) -> Option<f64> {
        let attempts = self.attempts.iter().map(|a| a.cost);
        crate::cost::sum_known(attempts.chain(self.failed_call.iter().map(|c| c.cost)))
    }

    /// Every raw reply, in order.
    pub fn raw_replies(&self) -> Vec<&str> {
        self.attempts().iter().map(|a| a.raw.as_str()).collect()
    }

    /// Every reply that arrived only in part (a stream that broke or stalled,
    /// [`ModelError::Incomplete`]), in the order received: from the
    /// attempts' transport retries, then from the failed call.
    pub fn incomplete_replies(&self) -> Vec<&Reply> {
        let retried = self.attempts.iter().flat_map(|a| &a.transport_retries);
        let failed = self.failed_call.iter().flat_map(|c| &c.failures);
        retried
            .chain(failed)
            .filter_map(|failure| failure.partial.as_ref())
            .collect()
    }

    /// The model error, for [`ThinkErrorKind::Model`].
    pub fn model_error(&self) -> Option<&ModelError> {
        match &self.kind {
            ThinkErrorKind::Model { source, .. } => Some(source),
            _ => None,
        }
    }

    /// The budget that ran out, for [`ThinkErrorKind::Budget`].
    pub fn budget_limit(&self) -> Option<BudgetLimit> {
        match &self.kind {
            ThinkErrorKind::Budget { limit } => Some(*limit),
            _ => None,
        }
    }

    /// Writes what was still wrong with the last reply, if anything.
    fn write_last_problem(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(last) = self
            .attempts()
            .iter()
            .rev()
            .find(|a| a.kind != AttemptKind::Repeated)
        else {
            return Ok(());
        };
        if last.kind == AttemptKind::Truncated {
            return f.write_str("; the last reply was cut off by the token limit");
        }
        let Some(problems) = &last.feedback else {
            return Ok(());
        };
        let count = problems.problems().len();
        // The first problem's own sentence, without the message's intro,
        // numbering or example block.
        let mut only_first = Feedback::new(problems.lang());
        if let Some(problem) = problems.problems().first() {
            only_first.push(problem.clone());
        }
        let text = only_first.to_string();
        let first = text.lines().next().unwrap_or_default();
        match count {
            0 => Ok(()),
            1 => write!(f, "; the last reply still had 1 problem: {first}"),
            n => write!(
                f,
                "; the last reply still had {n} problems, the first: {first}"
            ),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl fmt::Display for ThinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let replies = plural(self.attempts.len(), "reply", "replies");
        match &self.kind {
            ThinkErrorKind::Exhausted => {
                write!(
                    f,
                    "the model gave no valid answer in {}",
                    plural(self.attempts.len(), "attempt", "attempts")
                )?;
                self.write_last_problem(f)?;
                f.write_str(" (every reply is kept in this error; see its attempts())")
            }
            ThinkErrorKind::RepeatedReply => {
                write!(
                    f,
                    "the model repeated its previous reply word for word at attempt {}, so the loop stopped early",
                    self.attempts.len()
                )?;
                self.write_last_problem(f)
            }
            ThinkErrorKind::Budget { limit } => {
                write!(
                    f,
                    "the {limit} ran out after {replies} ({} tokens) before a valid answer",
                    self.usage.total_tokens
                )?;
                self.write_last_problem(f)
            }
            // The model error is the source: a chain prints it next.
            ThinkErrorKind::Model { retries, .. } => {
                write!(f, "the model call failed")?;
                if *retries > 0 {
                    write!(
                        f,
                        " after {}",
                        plural(*retries as usize, "retry", "retries")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ThinkError {
    /// For [`ThinkErrorKind::Model`], the [`ModelError`]: this error's text
    /// says only that the call failed, so a chain printer (anyhow's `{:#}`)
    /// says each level once, and `downcast_ref::<ModelError>()` reaches it.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.model_error()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
