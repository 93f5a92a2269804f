//! [`ThinkError`]: why a run produced no value, with everything the model said.

use std::fmt;
use std::time::Duration;

use super::outcome::{Attempt, AttemptKind};
use crate::feedback::Feedback;
use crate::model::{ModelError, Usage};

/// Which optional budget of [`Think`](crate::Think) ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// Why [`Think::run`](crate::Think::run) returned no value.
///
/// Every variant keeps the full ledger: each raw reply, its reasoning, the
/// problems found and the feedback sent, so nothing the model said is lost.
/// `Display` is a short summary; `Debug` shows everything.
#[derive(Debug)]
#[non_exhaustive]
pub enum ThinkError {
    /// Every format attempt was used and no reply (or merge) parsed.
    Exhausted {
        /// The ledger, one entry per reply.
        attempts: Vec<Attempt>,
        /// Tokens used.
        usage: Usage,
    },
    /// The model sent the same reply as the time before: asking again would
    /// only burn the budget, so the run stopped early.
    RepeatedReply {
        /// The ledger; the last entry is the repeat.
        attempts: Vec<Attempt>,
        /// Tokens used.
        usage: Usage,
    },
    /// An optional budget ran out before a reply parsed.
    Budget {
        /// The budget that ran out.
        limit: BudgetLimit,
        /// The ledger.
        attempts: Vec<Attempt>,
        /// Tokens used.
        usage: Usage,
    },
    /// The model could not be reached or refused the request: a non-transient
    /// error (400, 401, 403, 404, a bad configuration, ...) at once, or a
    /// transient one after the transport retries were spent.
    Model {
        /// The last error, with the server's own message.
        source: ModelError,
        /// How many transport retries were made before giving up.
        retries: u32,
        /// The ledger of the replies received before the failure.
        attempts: Vec<Attempt>,
        /// Tokens used.
        usage: Usage,
    },
}

impl ThinkError {
    /// The ledger: one entry per reply received.
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            ThinkError::Exhausted { attempts, .. }
            | ThinkError::RepeatedReply { attempts, .. }
            | ThinkError::Budget { attempts, .. }
            | ThinkError::Model { attempts, .. } => attempts,
        }
    }

    /// Tokens used before the run ended.
    pub fn usage(&self) -> Usage {
        match self {
            ThinkError::Exhausted { usage, .. }
            | ThinkError::RepeatedReply { usage, .. }
            | ThinkError::Budget { usage, .. }
            | ThinkError::Model { usage, .. } => *usage,
        }
    }

    /// Every raw reply, in order.
    pub fn raw_replies(&self) -> Vec<&str> {
        self.attempts().iter().map(|a| a.raw.as_str()).collect()
    }

    /// The model error, for [`ThinkError::Model`].
    pub fn model_error(&self) -> Option<&ModelError> {
        match self {
            ThinkError::Model { source, .. } => Some(source),
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
        let Some(problems) = &last.problems else {
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
        let replies = plural(self.attempts().len(), "reply", "replies");
        match self {
            ThinkError::Exhausted { attempts, .. } => {
                write!(
                    f,
                    "the model gave no valid answer in {}",
                    plural(attempts.len(), "attempt", "attempts")
                )?;
                self.write_last_problem(f)?;
                f.write_str(" (every reply is kept in this error; see its Debug output)")
            }
            ThinkError::RepeatedReply { attempts, .. } => {
                write!(
                    f,
                    "the model repeated its previous reply word for word at attempt {}, so the loop stopped early",
                    attempts.len()
                )?;
                self.write_last_problem(f)
            }
            ThinkError::Budget { limit, usage, .. } => {
                write!(
                    f,
                    "the {limit} ran out after {replies} ({} tokens) before a valid answer",
                    usage.total_tokens
                )?;
                self.write_last_problem(f)
            }
            ThinkError::Model {
                source, retries, ..
            } => {
                write!(f, "the model call failed")?;
                if *retries > 0 {
                    write!(
                        f,
                        " after {}",
                        plural(*retries as usize, "retry", "retries")
                    )?;
                }
                write!(f, ": {source}")
            }
        }
    }
}

impl std::error::Error for ThinkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ThinkError::Model { source, .. } => Some(source),
            _ => None,
        }
    }
}
