//! One model call with its transport retries: transient failures and empty
//! replies are retried with backoff, under the run's budgets.

use std::time::{Duration, Instant};

use super::budget::Budget;
use super::error::BudgetLimit;
use super::outcome::TransportRetry;
use crate::model::{ChatModel, Message, ModelError, Reply, Usage};
use crate::retry::RetryPolicy;

/// Why one model call (with its transport retries) gave no reply.
pub(crate) enum CallFailure {
    Budget(BudgetLimit),
    Model { source: ModelError, retries: u32 },
}

/// A reply and what it took to get it.
pub(crate) struct Call {
    pub(crate) reply: Reply,
    pub(crate) retries: Vec<TransportRetry>,
    pub(crate) latency: Duration,
    /// Tokens of empty replies that were retried.
    pub(crate) wasted: Usage,
}

/// One model call, with transport retries under `policy`.
pub(crate) async fn call<M: ChatModel + ?Sized>(
    model: &M,
    policy: &RetryPolicy,
    messages: &[Message],
    budget: &mut Budget,
    attempt: usize,
) -> Result<Call, CallFailure> {
    let started = Instant::now();
    let mut retries: Vec<TransportRetry> = Vec::new();
    let mut wasted = Usage::default();
    loop {
        budget.take_request().map_err(CallFailure::Budget)?;
        let result = match budget.time_left() {
            Some(left) => match tokio::time::timeout(left, model.chat(messages)).await {
                Ok(result) => result,
                Err(_) => return Err(CallFailure::Budget(budget.duration_limit())),
            },
            None => model.chat(messages).await,
        };
        let error = match result {
            // An empty reply cut off by the limit (a reasoning model that
            // spent every token thinking) is a truncation, not a transport
            // failure: asking again unchanged would fail the same way.
            Ok(reply) if reply.content.trim().is_empty() && !reply.is_truncated() => {
                wasted += reply.usage;
                budget.add_usage(reply.usage);
                ModelError::EmptyReply
            }
            Ok(reply) => {
                return Ok(Call {
                    reply,
                    retries,
                    latency: started.elapsed(),
                    wasted,
                })
            }
            Err(error) => error,
        };
        let done = retries.len() as u32;
        if !error.is_transient() || done >= policy.max_retries {
            return Err(CallFailure::Model {
                source: error,
                retries: done,
            });
        }
        let delay = policy.delay_for(done, error.retry_after());
        if budget.time_left().is_some_and(|left| left <= delay) {
            return Err(CallFailure::Budget(budget.duration_limit()));
        }
        tracing::warn!(
            attempt,
            retry = done + 1,
            delay_ms = delay.as_millis() as u64,
            error = %error,
            "twr transport retry"
        );
        retries.push(TransportRetry {
            error: error.to_string(),
            delay,
        });
        tokio::time::sleep(delay).await;
    }
}
