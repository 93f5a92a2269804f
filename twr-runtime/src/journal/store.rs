//! Reading and writing the journal's records (the schema is in the module
//! docs of [`journal`](super)).

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, OptionalExtension, Row};

use super::error::JournalError;
use super::key::RequestKey;
use super::Journal;
#[cfg(doc)]
use crate::feedback::ProblemKind;
use crate::feedback::Wording;
use crate::model::{FinishReason, Reply, Usage};

/// A reply to record in a job.
pub(crate) struct ReplyEntry<'a> {
    pub(crate) key: &'a RequestKey,
    pub(crate) occurrence: u32,
    pub(crate) model: &'a str,
    pub(crate) reply: &'a Reply,
    pub(crate) cost: Option<f64>,
    pub(crate) batch: Option<(&'a str, &'a str)>,
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

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A count as SQLite stores it (a signed 64-bit integer).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn finish_name(reason: &Option<FinishReason>) -> Option<&str> {
    reason.as_ref().map(FinishReason::as_str)
}

/// A reply from the columns `content, reasoning, prompt_tokens,
/// completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens,
/// finish_reason` starting at column `at`.
fn reply_at(row: &Row<'_>, at: usize) -> rusqlite::Result<Reply> {
    let tokens = |i: usize| -> rusqlite::Result<u64> {
        let n: i64 = row.get(at + i)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let usage = Usage::new(tokens(2)?, tokens(3)?)
        .with_total(tokens(4)?)
        .with_cache(tokens(5)?, tokens(6)?);
    let finish: Option<String> = row.get(at + 7)?;
    Ok(Reply {
        content: row.get(at)?,
        reasoning: row.get(at + 1)?,
        usage,
        finish_reason: finish.as_deref().map(FinishReason::from_server),
    })
}

pub(crate) fn reply(
    journal: &Journal,
    job: &str,
    key: &RequestKey,
    occurrence: u32,
) -> Result<Option<(Reply, Option<f64>)>, JournalError> {
    journal.with_connection(|c| {
        c.prepare_cached(
            "SELECT content, reasoning, prompt_tokens, completion_tokens, total_tokens,
                    cache_read_tokens, cache_write_tokens, finish_reason, cost
             FROM replies WHERE job = ?1 AND key = ?2 AND occurrence = ?3",
        )?
        .query_row(params![job, key.as_bytes(), occurrence], |row| {
            Ok((reply_at(row, 0)?, row.get::<_, Option<f64>>(8)?))
        })
        .optional()
    })
}

pub(crate) fn record_reply(
    journal: &Journal,
    job: &str,
    entry: &ReplyEntry<'_>,
) -> Result<(), JournalError> {
    let reply = entry.reply;
    let usage = reply.usage;
    let (batch_id, custom_id) = entry.batch.unzip();
    journal.with_connection(|c| {
        c.prepare_cached(
            "INSERT OR REPLACE INTO replies (job, key, occurrence, model, content, reasoning,
                prompt_tokens, completion_tokens, total_tokens, cache_read_tokens,
                cache_write_tokens, finish_reason, cost, batch_id, custom_id, recorded_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?
        .execute(params![
            job,
            entry.key.as_bytes(),
            entry.occurrence,
            entry.model,
            reply.content,
            reply.reasoning,
            count(usage.prompt_tokens),
            count(usage.completion_tokens),
            count(usage.total_tokens),
            count(usage.cache_read_tokens),
            count(usage.cache_write_tokens),
            finish_name(&reply.finish_reason),
            entry.cost,
            batch_id,
            custom_id,
            now_ms(),
        ])
        .map(drop)
    })
}

pub(crate) fn count_replies(journal: &Journal, job: &str) -> Result<u64, JournalError> {
    journal.with_connection(|c| {
        c.query_row(
            "SELECT count(*) FROM replies WHERE job = ?1",
            [job],
            |row| row.get::<_, i64>(0),
        )
        .map(|n| n as u64)
    })
}

pub(crate) fn cached(journal: &Journal, key: &RequestKey) -> Result<Option<Reply>, JournalError> {
    journal.with_connection(|c| {
        c.prepare_cached(
            "SELECT content, reasoning, prompt_tokens, completion_tokens, total_tokens,
                    cache_read_tokens, cache_write_tokens, finish_reason
             FROM cache WHERE key = ?1",
        )?
        .query_row([key.as_bytes()], |row| reply_at(row, 0))
        .optional()
    })
}

pub(crate) fn cache_reply(
    journal: &Journal,
    key: &RequestKey,
    model: &str,
    reply: &Reply,
) -> Result<(), JournalError> {
    let usage = reply.usage;
    journal.with_connection(|c| {
        c.prepare_cached(
            "INSERT OR REPLACE INTO cache (key, model, content, reasoning, prompt_tokens,
                completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens,
                finish_reason, recorded_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            key.as_bytes(),
            model,
            reply.content,
            reply.reasoning,
            count(usage.prompt_tokens),
            count(usage.completion_tokens),
            count(usage.total_tokens),
            count(usage.cache_read_tokens),
            count(usage.cache_write_tokens),
            finish_name(&reply.finish_reason),
            now_ms(),
        ])
        .map(drop)
    })
}

pub(crate) fn count_cached(journal: &Journal) -> Result<u64, JournalError> {
    journal.with_connection(|c| {
        c.query_row("SELECT count(*) FROM cache", [], |row| row.get::<_, i64>(0))
            .map(|n| n as u64)
    })
}

pub(crate) fn record_outcome(
    journal: &Journal,
    job: &str,
    outcome: &RecordedOutcome,
) -> Result<(), JournalError> {
    journal.with_connection(|c| {
        c.prepare_cached(
            "INSERT OR REPLACE INTO outcomes (job, idx, ok, attempts, prompt_tokens,
                completion_tokens, cost, final_reply, error, recorded_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            job,
            outcome.index as i64,
            outcome.ok,
            outcome.attempts as i64,
            count(outcome.usage.prompt_tokens),
            count(outcome.usage.completion_tokens),
            outcome.cost,
            outcome.final_reply,
            outcome.error,
            now_ms(),
        ])
        .map(drop)
    })
}

pub(crate) fn outcomes(journal: &Journal, job: &str) -> Result<Vec<RecordedOutcome>, JournalError> {
    journal.with_connection(|c| {
        let mut statement = c.prepare_cached(
            "SELECT idx, ok, attempts, prompt_tokens, completion_tokens, cost, final_reply, error
             FROM outcomes WHERE job = ?1 ORDER BY idx",
        )?;
        let rows = statement.query_map([job], |row| {
            let tokens = |i: usize| -> rusqlite::Result<u64> {
                Ok(u64::try_from(row.get::<_, i64>(i)?).unwrap_or(0))
            };
            Ok(RecordedOutcome {
                index: row.get::<_, i64>(0)? as usize,
                ok: row.get(1)?,
                attempts: row.get::<_, i64>(2)? as usize,
                usage: Usage::new(tokens(3)?, tokens(4)?),
                cost: row.get(5)?,
                final_reply: row.get(6)?,
                error: row.get(7)?,
            })
        })?;
        rows.collect()
    })
}

/// Records `run`, which ended with a value of the type of shape `shape`;
/// the same prompt run again (a resumption replaying it) replaces it.
pub(crate) fn record_typed(
    journal: &Journal,
    job: &str,
    shape: &str,
    run: &TypedRun,
) -> Result<(), JournalError> {
    journal.with_connection(|c| {
        c.prepare_cached(
            "INSERT OR REPLACE INTO typed_runs (job, shape, prompt, answer, constrained,
                attempts, recorded_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            job,
            shape,
            run.prompt,
            run.answer,
            run.constrained,
            run.attempts as i64,
            now_ms(),
        ])
        .map(drop)
    })
}

pub(crate) fn typed_runs(
    journal: &Journal,
    job: &str,
    shape: &str,
) -> Result<Vec<TypedRun>, JournalError> {
    journal.with_connection(|c| {
        let mut statement = c.prepare_cached(
            "SELECT prompt, answer, constrained, attempts FROM typed_runs
             WHERE job = ?1 AND shape = ?2 ORDER BY prompt",
        )?;
        let rows = statement.query_map([job, shape], |row| {
            Ok(TypedRun {
                prompt: row.get(0)?,
                answer: row.get(1)?,
                constrained: row.get(2)?,
                attempts: row.get::<_, i64>(3)? as usize,
            })
        })?;
        rows.collect()
    })
}

/// One feedback the loop sent, as the journal records it: a problem it
/// named, how it was worded, and whether the next reply fixed it.
pub(crate) struct FeedbackEvent<'a> {
    pub(crate) model: &'a str,
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

/// Records `events`, the feedback of one attempt and what the next reply
/// made of it, in one transaction.
pub(crate) fn record_feedback(
    journal: &Journal,
    job: &str,
    events: &[FeedbackEvent<'_>],
) -> Result<(), JournalError> {
    journal.with_connection(|c| {
        let transaction = c.unchecked_transaction()?;
        let now = now_ms();
        for event in events {
            transaction
                .prepare_cached(
                    "INSERT INTO feedback (job, model, problem, wording, constrained, fixed,
                        recorded_at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    job,
                    event.model,
                    event.problem,
                    event.wording.name(),
                    event.constrained,
                    event.fixed,
                    now,
                ])?;
        }
        transaction.commit()
    })
}

pub(crate) fn feedback_rates(
    journal: &Journal,
    job: &str,
) -> Result<Vec<FeedbackRate>, JournalError> {
    let rows: Vec<(String, String, String, bool, i64, i64)> = journal.with_connection(|c| {
        let mut statement = c.prepare_cached(
            "SELECT model, problem, wording, constrained, count(*), sum(fixed) FROM feedback
             WHERE job = ?1 GROUP BY model, problem, wording, constrained
             ORDER BY model, problem, wording, constrained",
        )?;
        let rows = statement.query_map([job], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
            ))
        })?;
        rows.collect()
    })?;
    // A wording this twr does not know (written by a newer one) is left
    // out: it cannot be chosen here.
    Ok(rows
        .into_iter()
        .filter_map(|(model, problem, wording, constrained, sent, fixed)| {
            Some(FeedbackRate {
                model,
                problem,
                wording: Wording::from_name(&wording)?,
                constrained,
                sent: sent as u64,
                fixed: fixed as u64,
            })
        })
        .collect())
}

#[cfg(feature = "batch")]
pub(crate) fn record_batch(
    journal: &Journal,
    job: &str,
    batch_id: &str,
    provider: &str,
    round: u32,
    lines: &[(&str, &RequestKey)],
) -> Result<(), JournalError> {
    journal.with_connection(|c| {
        let transaction = c.unchecked_transaction()?;
        let now = now_ms();
        transaction.execute(
            "INSERT OR REPLACE INTO batches (batch_id, job, provider, round, status, requests,
                submitted_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, 'submitted', ?5, ?6, ?6)",
            params![batch_id, job, provider, round, lines.len() as i64, now],
        )?;
        {
            let mut insert = transaction.prepare_cached(
                "INSERT OR REPLACE INTO batch_requests (batch_id, custom_id, key)
                 VALUES (?1, ?2, ?3)",
            )?;
            for (custom_id, key) in lines {
                insert.execute(params![batch_id, custom_id, key.as_bytes()])?;
            }
        }
        transaction.commit()
    })
}

#[cfg(feature = "batch")]
pub(crate) fn end_batch(
    journal: &Journal,
    batch_id: &str,
    status: &str,
) -> Result<(), JournalError> {
    journal.with_connection(|c| {
        c.execute(
            "UPDATE batches SET status = ?2, updated_at_ms = ?3 WHERE batch_id = ?1",
            params![batch_id, status, now_ms()],
        )
        .map(drop)
    })
}

#[cfg(feature = "batch")]
pub(crate) fn pending_lines(
    journal: &Journal,
    job: &str,
    key: &RequestKey,
) -> Result<Vec<(String, String)>, JournalError> {
    journal.with_connection(|c| {
        let mut statement = c.prepare_cached(
            "SELECT l.batch_id, l.custom_id
             FROM batch_requests l JOIN batches b ON b.batch_id = l.batch_id
             WHERE b.job = ?1 AND l.key = ?2
               AND NOT EXISTS (SELECT 1 FROM replies r
                               WHERE r.batch_id = l.batch_id AND r.custom_id = l.custom_id)
             ORDER BY b.submitted_at_ms, l.custom_id",
        )?;
        let rows = statement.query_map(params![job, key.as_bytes()], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
        rows.collect()
    })
}

#[cfg(feature = "batch")]
pub(crate) fn answered_lines(
    journal: &Journal,
    job: &str,
    batch_id: &str,
) -> Result<Vec<String>, JournalError> {
    journal.with_connection(|c| {
        let mut statement =
            c.prepare_cached("SELECT custom_id FROM replies WHERE job = ?1 AND batch_id = ?2")?;
        let rows = statement.query_map(params![job, batch_id], |row| row.get(0))?;
        rows.collect()
    })
}
