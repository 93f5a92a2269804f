//! The optional budgets of a run: total tokens, requests and wall time.
//!
//! The budget is also the one place where a run's token usage is summed:
//! [`Outcome::usage`](super::Outcome::usage) and
//! [`ThinkError::usage`](super::ThinkError::usage) are read from it, so what is
//! reported and what is checked against `max_total_tokens` cannot drift apart.

use std::time::Duration;

// tokio's clock, not std's: it is the clock `tokio::time::timeout` and
// `sleep` run on, so deadlines agree with it (and tests can pause it).
use tokio::time::Instant;

use super::error::BudgetLimit;
use crate::model::Usage;

/// Counts what a run has used against its optional limits.
pub(crate) struct Budget {
    max_tokens: Option<u64>,
    max_requests: Option<usize>,
    max_duration: Option<Duration>,
    started: Instant,
    requests: usize,
    used: Usage,
}

impl Budget {
    pub(crate) fn new(
        max_tokens: Option<u64>,
        max_requests: Option<usize>,
        max_duration: Option<Duration>,
    ) -> Self {
        Budget {
            max_tokens,
            max_requests,
            max_duration,
            started: Instant::now(),
            requests: 0,
            used: Usage::default(),
        }
    }

    /// Whether one more request may be sent; counts it when it may.
    pub(crate) fn take_request(&mut self) -> Result<(), BudgetLimit> {
        self.check_tokens()?;
        if let Some(max) = self.max_requests {
            if self.requests >= max {
                return Err(BudgetLimit::Requests(max));
            }
        }
        if let (Some(max), Some(left)) = (self.max_duration, self.time_left()) {
            if left.is_zero() {
                return Err(BudgetLimit::Duration(max));
            }
        }
        self.requests += 1;
        Ok(())
    }

    /// A budget for one of several calls made at once
    /// ([`Think::samples`](crate::Think::samples)): the same limits and
    /// clock, and what was used so far. Each call checks its requests and
    /// tokens against it; [`join`](Self::join) takes back what they used.
    pub(crate) fn fork(&self) -> Budget {
        Budget {
            max_tokens: self.max_tokens,
            max_requests: self.max_requests,
            max_duration: self.max_duration,
            started: self.started,
            requests: self.requests,
            used: self.used,
        }
    }

    /// Counts what `forks`, forked from this budget as it is, used.
    pub(crate) fn join(&mut self, forks: &[Budget]) {
        let (requests, used) = (self.requests, self.used);
        for fork in forks {
            self.requests += fork.requests.saturating_sub(requests);
            self.used = sum(self.used, minus(fork.used, used));
        }
    }

    /// `Err` once the token budget is spent.
    pub(crate) fn check_tokens(&self) -> Result<(), BudgetLimit> {
        match self.max_tokens {
            Some(max) if self.used.total_tokens >= max => Err(BudgetLimit::Tokens(max)),
            _ => Ok(()),
        }
    }

    /// Counts the tokens of one response. Every response is counted here
    /// exactly once, whether it became an attempt or was retried.
    pub(crate) fn add_usage(&mut self, usage: Usage) {
        self.used = sum(self.used, usage);
    }

    /// The tokens used so far, summed over every response.
    pub(crate) fn used(&self) -> Usage {
        self.used
    }

    /// Wall time left, when there is a time budget.
    pub(crate) fn time_left(&self) -> Option<Duration> {
        self.max_duration
            .map(|max| max.saturating_sub(self.started.elapsed()))
    }

    /// When the run's time is up, when it has a time budget (one too long
    /// for the clock is none).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.max_duration
            .and_then(|max| self.started.checked_add(max))
    }

    /// The time budget, to report that it ran out.
    pub(crate) fn duration_limit(&self) -> BudgetLimit {
        BudgetLimit::Duration(self.max_duration.unwrap_or_default())
    }

    /// Wall time since the run started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// `a - b`, each count at least zero.
fn minus(a: Usage, b: Usage) -> Usage {
    let mut left = a;
    left.prompt_tokens = a.prompt_tokens.saturating_sub(b.prompt_tokens);
    left.completion_tokens = a.completion_tokens.saturating_sub(b.completion_tokens);
    left.total_tokens = a.total_tokens.saturating_sub(b.total_tokens);
    left.cache_read_tokens = a.cache_read_tokens.saturating_sub(b.cache_read_tokens);
    left.cache_write_tokens = a.cache_write_tokens.saturating_sub(b.cache_write_tokens);
    left
}

/// `a + b`, saturating: the counts come from the server, which may send
/// anything.
pub(crate) fn sum(a: Usage, b: Usage) -> Usage {
    Usage {
        prompt_tokens: a.prompt_tokens.saturating_add(b.prompt_tokens),
        completion_tokens: a.completion_tokens.saturating_add(b.completion_tokens),
        total_tokens: a.total_tokens.saturating_add(b.total_tokens),
        cache_read_tokens: a.cache_read_tokens.saturating_add(b.cache_read_tokens),
        cache_write_tokens: a.cache_write_tokens.saturating_add(b.cache_write_tokens),
    }
}
