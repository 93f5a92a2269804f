//! The SQL that reads and writes a SQLite journal's records (the schema is
//! in the module docs of [`journal`](crate::journal)). Each function runs
//! where the store runs its queue (see [`sqlite`](super)), never on an
//! async runtime's own threads.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::feedback::Wording;
use crate::journal::key::RequestKey;
use crate::journal::records::{
    logprobs_json, logprobs_of, Claim, FeedbackEvent, FeedbackRate, JobProgress, Lease, Measured,
    RecordedConfidence, RecordedOutcome, ReplyEntry, Review, RunConfidence, TypedRun,
};
#[cfg(feature = "batch")]
use crate::journal::records::{BatchIntent, PendingLine};
#[cfg(feature = "batch")]
use crate::journal::store::{NOT_SUBMITTED, SUBMITTING};
use crate::model::{FinishReason, Reply, Usage};

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

/// The columns a reply is read from ([`reply_at`]): with its token
/// log-probabilities in a file of schema version 6 on, without in an
/// older one opened read-only.
fn reply_columns(logprobs: bool) -> &'static str {
    if logprobs {
        "content, reasoning, prompt_tokens, completion_tokens, total_tokens,
         cache_read_tokens, cache_write_tokens, finish_reason, logprobs"
    } else {
        "content, reasoning, prompt_tokens, completion_tokens, total_tokens,
         cache_read_tokens, cache_write_tokens, finish_reason, NULL"
    }
}

/// A reply from the columns of [`reply_columns`] starting at column `at`.
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
        logprobs: logprobs_of(row.get::<_, Option<String>>(at + 8)?.as_deref()),
    })
}

/// The reply recorded for occurrence `occurrence` of `key` in `job`, with
/// its cost; `logprobs`: the file has the column of version 6.
pub(crate) fn reply(
    c: &Connection,
    job: &str,
    key: &RequestKey,
    occurrence: u32,
    logprobs: bool,
) -> rusqlite::Result<Option<(Reply, Option<f64>)>> {
    c.prepare_cached(&format!(
        "SELECT {}, cost FROM replies WHERE job = ?1 AND key = ?2 AND occurrence = ?3",
        reply_columns(logprobs)
    ))?
    .query_row(params![job, key.as_bytes(), occurrence], |row| {
        Ok((reply_at(row, 0)?, row.get::<_, Option<f64>>(9)?))
    })
    .optional()
}

pub(crate) fn record_reply(c: &Connection, job: &str, entry: &ReplyEntry) -> rusqlite::Result<()> {
    let reply = &entry.reply;
    let usage = reply.usage;
    let (batch_id, custom_id) = entry
        .batch
        .as_ref()
        .map(|(b, c)| (b.as_str(), c.as_str()))
        .unzip();
    {
        c.prepare_cached(
            "INSERT OR REPLACE INTO replies (job, key, occurrence, model, content, reasoning,
                prompt_tokens, completion_tokens, total_tokens, cache_read_tokens,
                cache_write_tokens, finish_reason, cost, batch_id, custom_id, recorded_at_ms,
                logprobs)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
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
            logprobs_json(&reply.logprobs),
        ])
        .map(drop)
    }
}

pub(crate) fn count_replies(c: &Connection, job: &str) -> rusqlite::Result<u64> {
    c.query_row(
        "SELECT count(*) FROM replies WHERE job = ?1",
        [job],
        |row| row.get::<_, i64>(0),
    )
    .map(|n| n as u64)
}

/// The cached reply to `key`; `logprobs`: the file has the column of
/// version 6.
pub(crate) fn cached(
    c: &Connection,
    key: &RequestKey,
    logprobs: bool,
) -> rusqlite::Result<Option<Reply>> {
    c.prepare_cached(&format!(
        "SELECT {} FROM cache WHERE key = ?1",
        reply_columns(logprobs)
    ))?
    .query_row([key.as_bytes()], |row| reply_at(row, 0))
    .optional()
}

pub(crate) fn cache_reply(
    c: &Connection,
    key: &RequestKey,
    model: &str,
    reply: &Reply,
) -> rusqlite::Result<()> {
    let usage = reply.usage;
    {
        c.prepare_cached(
            "INSERT OR REPLACE INTO cache (key, model, content, reasoning, prompt_tokens,
                completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens,
                finish_reason, recorded_at_ms, logprobs)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
            logprobs_json(&reply.logprobs),
        ])
        .map(drop)
    }
}

pub(crate) fn count_cached(c: &Connection) -> rusqlite::Result<u64> {
    c.query_row("SELECT count(*) FROM cache", [], |row| row.get::<_, i64>(0))
        .map(|n| n as u64)
}

pub(crate) fn record_outcome(
    c: &Connection,
    job: &str,
    outcome: &RecordedOutcome,
) -> rusqlite::Result<()> {
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
}

pub(crate) fn outcomes(c: &Connection, job: &str) -> rusqlite::Result<Vec<RecordedOutcome>> {
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
}

/// Records `run`, which ended with a value of the type of shape `shape`;
/// the same prompt run again (a resumption replaying it) replaces it.
pub(crate) fn record_typed(
    c: &Connection,
    job: &str,
    shape: &str,
    run: &TypedRun,
) -> rusqlite::Result<()> {
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
}

pub(crate) fn typed_runs(
    c: &Connection,
    job: &str,
    shape: &str,
) -> rusqlite::Result<Vec<TypedRun>> {
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
}

/// Records `events`, the feedback of one attempt and what the next reply
/// made of it, in one transaction.
pub(crate) fn record_feedback(
    c: &Connection,
    job: &str,
    events: &[FeedbackEvent],
) -> rusqlite::Result<()> {
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
}

pub(crate) fn feedback_rates(c: &Connection, job: &str) -> rusqlite::Result<Vec<FeedbackRate>> {
    let rows: Vec<(String, String, String, bool, i64, i64)> = {
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
        rows.collect::<rusqlite::Result<_>>()
    }?;
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
    c: &Connection,
    job: &str,
    batch_id: &str,
    provider: &str,
    round: u32,
    lines: &[(String, RequestKey)],
) -> rusqlite::Result<()> {
    let transaction = c.unchecked_transaction()?;
    let now = now_ms();
    transaction.execute(
        "INSERT OR REPLACE INTO batches (batch_id, job, provider, round, status, requests,
            submitted_at_ms, updated_at_ms, intent)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?1)",
        params![
            batch_id,
            job,
            provider,
            round,
            SUBMITTING,
            lines.len() as i64,
            now
        ],
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
}

#[cfg(feature = "batch")]
pub(crate) fn batch_created(c: &Connection, intent: &str, batch_id: &str) -> rusqlite::Result<()> {
    let transaction = c.unchecked_transaction()?;
    transaction.execute(
        "UPDATE batches SET batch_id = ?2, status = 'submitted', updated_at_ms = ?3
         WHERE batch_id = ?1",
        params![intent, batch_id, now_ms()],
    )?;
    transaction.execute(
        "UPDATE batch_requests SET batch_id = ?2 WHERE batch_id = ?1",
        params![intent, batch_id],
    )?;
    transaction.commit()
}

#[cfg(feature = "batch")]
pub(crate) fn batch_intent(c: &Connection, intent: &str) -> rusqlite::Result<BatchIntent> {
    let row: Option<(String, String, i64)> = c
        .query_row(
            "SELECT batch_id, status, submitted_at_ms FROM batches WHERE intent = ?1",
            params![intent],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    Ok(match row {
        None => BatchIntent::NotSubmitted,
        Some((_, status, _)) if status == NOT_SUBMITTED => BatchIntent::NotSubmitted,
        Some((_, status, since)) if status == SUBMITTING => BatchIntent::Submitting {
            age: std::time::Duration::from_millis(now_ms().saturating_sub(since).max(0) as u64),
        },
        Some((batch_id, _, _)) => BatchIntent::Created(batch_id),
    })
}

#[cfg(feature = "batch")]
pub(crate) fn end_batch(c: &Connection, batch_id: &str, status: &str) -> rusqlite::Result<()> {
    c.execute(
        "UPDATE batches SET status = ?2, updated_at_ms = ?3 WHERE batch_id = ?1",
        params![batch_id, status, now_ms()],
    )
    .map(drop)
}

#[cfg(feature = "batch")]
pub(crate) fn pending_lines(
    c: &Connection,
    job: &str,
    key: &RequestKey,
) -> rusqlite::Result<Vec<PendingLine>> {
    let mut statement = c.prepare_cached(
        "SELECT l.batch_id, l.custom_id, b.status = ?3
         FROM batch_requests l JOIN batches b ON b.batch_id = l.batch_id
         WHERE b.job = ?1 AND l.key = ?2 AND b.status <> ?4
           AND NOT EXISTS (SELECT 1 FROM replies r
                           WHERE r.batch_id = l.batch_id AND r.custom_id = l.custom_id)
         ORDER BY b.submitted_at_ms, l.custom_id",
    )?;
    let rows = statement.query_map(
        params![job, key.as_bytes(), SUBMITTING, NOT_SUBMITTED],
        |row| {
            Ok(PendingLine {
                batch_id: row.get(0)?,
                custom_id: row.get(1)?,
                submitting: row.get(2)?,
            })
        },
    )?;
    rows.collect()
}

#[cfg(feature = "batch")]
pub(crate) fn answered_lines(
    c: &Connection,
    job: &str,
    batch_id: &str,
) -> rusqlite::Result<Vec<String>> {
    let mut statement =
        c.prepare_cached("SELECT custom_id FROM replies WHERE job = ?1 AND batch_id = ?2")?;
    let rows = statement.query_map(params![job, batch_id], |row| row.get(0))?;
    rows.collect()
}

/// Makes prompts `0..count` of `job` known, as pending, in one
/// transaction.
pub(crate) fn register_prompts(c: &Connection, job: &str, count: usize) -> rusqlite::Result<()> {
    let transaction = c.unchecked_transaction()?;
    {
        let mut insert = transaction.prepare_cached(
            "INSERT OR IGNORE INTO prompts (job, idx, state, leases) VALUES (?1, ?2, 'pending', 0)",
        )?;
        for index in 0..count {
            insert.execute(params![job, index as i64])?;
        }
    }
    transaction.commit()
}

/// Leases prompt `index` of `job` to `lease`'s holder when it is pending,
/// its lease ran out, or the holder holds it already; else says where it
/// stands. SQLite has one writer at a time, so the update is the whole
/// claim (PostgreSQL's skips rows other workers are claiming).
pub(crate) fn claim(
    c: &Connection,
    job: &str,
    index: usize,
    lease: &Lease,
) -> rusqlite::Result<Claim> {
    let now = now_ms();
    let index = index as i64;
    c.prepare_cached(
        "INSERT OR IGNORE INTO prompts (job, idx, state, leases) VALUES (?1, ?2, 'pending', 0)",
    )?
    .execute(params![job, index])?;
    let taken = c
        .prepare_cached(
            "UPDATE prompts SET state = 'leased', holder = ?3, lease_until_ms = ?4 + ?5,
                leases = leases + 1
             WHERE job = ?1 AND idx = ?2
               AND (state = 'pending' OR (state = 'leased' AND (lease_until_ms < ?4 OR holder = ?3)))",
        )?
        .execute(params![job, index, &*lease.holder, now, lease.ms])?;
    if taken == 1 {
        return Ok(Claim::Ours);
    }
    c.prepare_cached(
        "SELECT p.state, o.ok, o.error FROM prompts p
         LEFT JOIN outcomes o ON o.job = p.job AND o.idx = p.idx
         WHERE p.job = ?1 AND p.idx = ?2",
    )?
    .query_row(params![job, index], |row| {
        let state: String = row.get(0)?;
        Ok(match state.as_str() {
            "typed" | "failed" => Claim::Ended {
                ok: state == "typed",
                error: row.get(2)?,
            },
            _ => Claim::Held,
        })
    })
}

/// Leases the first prompt of `job` in `from..below` that is pending or
/// whose lease ran out to `lease`'s holder, in one statement (the file has
/// one writer at a time); `None` when there is none there. The scan runs
/// along the primary key from `from`, so a worker that moves `from` on
/// past what it claimed never reads the ended prompts behind it again.
pub(crate) fn claim_next(
    c: &Connection,
    job: &str,
    from: usize,
    below: usize,
    lease: &Lease,
) -> rusqlite::Result<Option<usize>> {
    c.prepare_cached(
        "UPDATE prompts SET state = 'leased', holder = ?4, lease_until_ms = ?5 + ?6,
            leases = leases + 1
         WHERE job = ?1 AND idx = (
            SELECT idx FROM prompts
            WHERE job = ?1 AND idx >= ?2 AND idx < ?3
              AND (state = 'pending' OR (state = 'leased' AND lease_until_ms < ?5))
            ORDER BY idx LIMIT 1)
         RETURNING idx",
    )?
    .query_row(
        params![
            job,
            from as i64,
            below as i64,
            &*lease.holder,
            now_ms(),
            lease.ms
        ],
        |row| row.get::<_, i64>(0),
    )
    .optional()
    .map(|index| index.map(|index| index as usize))
}

/// Renews `lease` on prompt `index` of `job`; `false` when it lost it.
pub(crate) fn renew(
    c: &Connection,
    job: &str,
    index: usize,
    lease: &Lease,
) -> rusqlite::Result<bool> {
    let renewed = c
        .prepare_cached(
            "UPDATE prompts SET lease_until_ms = ?4 + ?5
             WHERE job = ?1 AND idx = ?2 AND state = 'leased' AND holder = ?3",
        )?
        .execute(params![
            job,
            index as i64,
            &*lease.holder,
            now_ms(),
            lease.ms
        ])?;
    Ok(renewed == 1)
}

/// Records how leased prompt `outcome.index` of `job` ended, with the
/// prompt's end, in one transaction, while `lease` holds it.
pub(crate) fn record_ended(
    c: &Connection,
    job: &str,
    outcome: &RecordedOutcome,
    lease: &Lease,
) -> rusqlite::Result<()> {
    let transaction = c.unchecked_transaction()?;
    let ended = transaction
        .prepare_cached(
            "UPDATE prompts SET state = ?4, holder = NULL, lease_until_ms = NULL
             WHERE job = ?1 AND idx = ?2 AND state = 'leased' AND holder = ?3",
        )?
        .execute(params![
            job,
            outcome.index as i64,
            &*lease.holder,
            if outcome.ok { "typed" } else { "failed" },
        ])?;
    if ended == 1 {
        record_outcome(&transaction, job, outcome)?;
    }
    transaction.commit()
}

/// Where `job`'s prompts stand; a lease that ran out is pending.
pub(crate) fn progress(c: &Connection, job: &str) -> rusqlite::Result<JobProgress> {
    let mut statement = c.prepare_cached(
        "SELECT CASE WHEN state = 'leased' AND lease_until_ms < ?2 THEN 'pending' ELSE state END,
                count(*)
         FROM prompts WHERE job = ?1 GROUP BY 1",
    )?;
    let rows = statement.query_map(params![job, now_ms()], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as usize))
    })?;
    let mut progress = JobProgress::default();
    for row in rows {
        let (state, count) = row?;
        match state.as_str() {
            "pending" => progress.pending += count,
            "leased" => progress.leased += count,
            "typed" => progress.typed += count,
            "failed" => progress.failed += count,
            _ => {}
        }
    }
    Ok(progress)
}

/// Records what the typed run of `run.prompt` measured, in one
/// transaction: the prompt's earlier records (a run of it that went
/// otherwise) are replaced.
pub(crate) fn record_confidence(
    c: &Connection,
    job: &str,
    run: &RunConfidence,
) -> rusqlite::Result<()> {
    let transaction = c.unchecked_transaction()?;
    let now = now_ms();
    transaction
        .prepare_cached("DELETE FROM confidences WHERE job = ?1 AND prompt = ?2")?
        .execute([job, run.prompt.as_str()])?;
    transaction
        .prepare_cached("DELETE FROM reviews WHERE job = ?1 AND prompt = ?2")?
        .execute([job, run.prompt.as_str()])?;
    let mut position = 0i64;
    let mut last_attempt = 0usize;
    for section in &run.attempts {
        if section.attempt != last_attempt {
            (position, last_attempt) = (0, section.attempt);
        }
        transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO confidences (job, prompt, attempt, position, field,
                    confidence, measured, recorded_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                job,
                run.prompt,
                section.attempt as i64,
                position,
                section.field,
                section.confidence,
                section.measured.name(),
                now,
            ])?;
        position += 1;
    }
    if let Some((threshold, fields)) = &run.review {
        for (position, (field, confidence)) in fields.iter().enumerate() {
            transaction
                .prepare_cached(
                    "INSERT OR REPLACE INTO reviews (job, prompt, position, field, confidence,
                        threshold, recorded_at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    job,
                    run.prompt,
                    position as i64,
                    field,
                    confidence,
                    threshold,
                    now,
                ])?;
        }
    }
    transaction.commit()
}

/// The confidences recorded for the typed run of `prompt` in `job`, by
/// attempt and section.
pub(crate) fn confidences(
    c: &Connection,
    job: &str,
    prompt: &str,
) -> rusqlite::Result<Vec<RecordedConfidence>> {
    let mut statement = c.prepare_cached(
        "SELECT attempt, field, confidence, measured FROM confidences
         WHERE job = ?1 AND prompt = ?2 ORDER BY attempt, position",
    )?;
    let rows = statement.query_map([job, prompt], |row| {
        Ok((
            row.get::<_, i64>(0)? as usize,
            row.get::<_, String>(1)?,
            row.get::<_, f64>(2)?,
            row.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (attempt, field, confidence, measured) = row?;
        // A way this twr does not know (written by a newer one) is left
        // out rather than misnamed.
        if let Some(measured) = Measured::from_name(&measured) {
            out.push(RecordedConfidence {
                attempt,
                field,
                confidence,
                measured,
            });
        }
    }
    Ok(out)
}

/// The typed prompts of `job` with sections to review, by prompt.
pub(crate) fn needs_review(c: &Connection, job: &str) -> rusqlite::Result<Vec<Review>> {
    let mut statement = c.prepare_cached(
        "SELECT prompt, field, confidence, threshold FROM reviews
         WHERE job = ?1 ORDER BY prompt, position",
    )?;
    let rows = statement.query_map([job], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, f64>(2)?,
            row.get::<_, f64>(3)?,
        ))
    })?;
    let mut out: Vec<Review> = Vec::new();
    for row in rows {
        let (prompt, field, confidence, threshold) = row?;
        match out.last_mut() {
            Some(review) if review.prompt == prompt => review.fields.push((field, confidence)),
            _ => out.push(Review {
                prompt,
                fields: vec![(field, confidence)],
                threshold,
            }),
        }
    }
    Ok(out)
}
