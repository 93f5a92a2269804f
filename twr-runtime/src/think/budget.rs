//! The optional budgets of a run: total tokens, requests and wall time.

use std::time::{Duration, Instant};

use super::error::BudgetLimit;
use crate::model::Usage;

/// Counts what a run has used against its optional limits.
pub(crate) struct Budget {
    max_tokens: Option<u64>,
    max_requests: Option<usize>,
    max_duration: Option<Duration>,
    started: Instant,
    requests: usize,
    tokens: u64,
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
            tokens: 0,
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

    /// `Err` once the token budget is spent.
    pub(crate) fn check_tokens(&self) -> Result<(), BudgetLimit> {
        match self.max_tokens {
            Some(max) if self.tokens >= max => Err(BudgetLimit::Tokens(max)),
            _ => Ok(()),
        }
    }

    /// Counts the tokens of a reply.
    pub(crate) fn add_usage(&mut self, usage: Usage) {
        self.tokens = self.tokens.saturating_add(usage.total_tokens);
    }

    /// Wall time left, when there is a time budget.
    pub(crate) fn time_left(&self) -> Option<Duration> {
        self.max_duration
            .map(|max| max.saturating_sub(self.started.elapsed()))
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
