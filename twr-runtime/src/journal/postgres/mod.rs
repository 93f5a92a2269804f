//! [`PostgresStore`]: a journal in a PostgreSQL database (feature
//! `postgres`), which many processes on many machines share.
//!
//! The driver is tokio-postgres, with deadpool-postgres's pool: each read
//! or write takes a connection of the pool for one statement (or one
//! transaction), so the processes of a job and the runs of one process
//! record in parallel. Writes not waited for go, in order, through one
//! task of the journal's own; every later read or write through the same
//! journal waits for those handed over before it, as with SQLite.

pub(crate) mod schema;
mod tls;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::Row;

use super::error::JournalError;
use super::key::RequestKey;
use super::records::{
    logprobs_json, logprobs_of, Claim, FeedbackRate, JobProgress, Lease, Measured,
    RecordedConfidence, RecordedOutcome, Review, TypedRun,
};
#[cfg(feature = "batch")]
use super::records::{BatchIntent, PendingLine};
use super::store::{Store, StoreFuture, Write};
#[cfg(feature = "batch")]
use super::store::{NOT_SUBMITTED, SUBMITTING};
use crate::feedback::Wording;
use crate::model::{FinishReason, Reply, Usage};

/// How many connections one process keeps at most.
const POOL_SIZE: usize = 16;

/// A journal's PostgreSQL database: see the module's docs.
pub(crate) struct PostgresStore {
    shared: Arc<Shared>,
    /// The writes not waited for, to the task that writes them in order.
    detached: tokio::sync::mpsc::UnboundedSender<(u64, Write)>,
}

/// What the store and its writing task share.
struct Shared {
    pool: Pool,
    /// The database, for errors and `Debug`: host, port and name, never
    /// the password.
    place: String,
    /// The number of the last write handed to the task.
    handed: AtomicU64,
    /// The number of the last write the task finished.
    written: tokio::sync::watch::Sender<u64>,
}

impl PostgresStore {
    /// Connects to the database at `url` (a PostgreSQL connection URL or
    /// key=value string), checks it, and migrates it to this twr's schema.
    pub(crate) async fn connect(url: &str) -> Result<PostgresStore, JournalError> {
        let (url, check) = tls::read(url);
        let config: tokio_postgres::Config = url.parse().map_err(|e| JournalError::Address {
            detail: format!("not a PostgreSQL connection URL: {e}"),
        })?;
        let place = place_of(&config);
        let manager = Manager::from_config(
            config,
            tls::config(&check)?,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .build()
            .map_err(|e| JournalError::Address {
                detail: format!("the connection pool could not be built: {e}"),
            })?;
        let mut client = pool.get().await.map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(source) if tls::untrusted(&source) => {
                JournalError::Certificate {
                    place: place.clone(),
                    checked: check.describe(),
                    source,
                }
            }
            other => pool_error(&place, other),
        })?;
        schema::migrate(&mut client, &place).await?;
        drop(client);
        let (written, _) = tokio::sync::watch::channel(0);
        let shared = Arc::new(Shared {
            pool,
            place,
            handed: AtomicU64::new(0),
            written,
        });
        let (detached, mut inbox) = tokio::sync::mpsc::unbounded_channel::<(u64, Write)>();
        let writer = Arc::clone(&shared);
        tokio::spawn(async move {
            while let Some((number, write)) = inbox.recv().await {
                if let Err(error) = writer.write(&write).await {
                    tracing::warn!(%error, "twr could not record {}", write.what());
                }
                writer.written.send_replace(number);
            }
        });
        Ok(PostgresStore { shared, detached })
    }

    /// Runs `f` with a connection of the pool, once every write handed
    /// over before it is written.
    fn run<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(
                &'c deadpool_postgres::Object,
            )
                -> crate::model::BoxFuture<'c, Result<T, tokio_postgres::Error>>
            + Send
            + 'static,
    {
        let shared = Arc::clone(&self.shared);
        let after = shared.handed.load(Ordering::SeqCst);
        let mut written = shared.written.subscribe();
        Box::pin(async move {
            if after > 0 {
                // The task never stops before the store does.
                let _ = written.wait_for(|&done| done >= after).await;
            }
            let client = shared.client().await?;
            f(&client)
                .await
                .map_err(|e| JournalError::from_postgres(&shared.place, e))
        })
    }
}

impl Shared {
    async fn client(&self) -> Result<deadpool_postgres::Object, JournalError> {
        self.pool
            .get()
            .await
            .map_err(|e| pool_error(&self.place, e))
    }

    /// Writes `write` in its own transaction.
    async fn write(&self, write: &Write) -> Result<(), JournalError> {
        let database = |e| JournalError::from_postgres(&self.place, e);
        let mut client = self.client().await?;
        match write {
            Write::Reply { job, entry } => {
                let reply = &entry.reply;
                let usage = reply.usage;
                let (batch_id, custom_id) = entry
                    .batch
                    .as_ref()
                    .map(|(b, c)| (b.as_str(), c.as_str()))
                    .unzip();
                client
                    .execute(
                        "INSERT INTO twr_replies (job, key, occurrence, model, content, reasoning,
                            prompt_tokens, completion_tokens, total_tokens, cache_read_tokens,
                            cache_write_tokens, finish_reason, cost, batch_id, custom_id,
                            recorded_at_ms, logprobs)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                            $15, $16, $17)
                         ON CONFLICT (job, key, occurrence) DO UPDATE SET
                            model = EXCLUDED.model, content = EXCLUDED.content,
                            reasoning = EXCLUDED.reasoning,
                            prompt_tokens = EXCLUDED.prompt_tokens,
                            completion_tokens = EXCLUDED.completion_tokens,
                            total_tokens = EXCLUDED.total_tokens,
                            cache_read_tokens = EXCLUDED.cache_read_tokens,
                            cache_write_tokens = EXCLUDED.cache_write_tokens,
                            finish_reason = EXCLUDED.finish_reason, cost = EXCLUDED.cost,
                            batch_id = EXCLUDED.batch_id, custom_id = EXCLUDED.custom_id,
                            recorded_at_ms = EXCLUDED.recorded_at_ms,
                            logprobs = EXCLUDED.logprobs",
                        &[
                            &&**job,
                            &entry.key.as_bytes().as_slice(),
                            &i64::from(entry.occurrence),
                            &entry.model,
                            &reply.content,
                            &reply.reasoning,
                            &count(usage.prompt_tokens),
                            &count(usage.completion_tokens),
                            &count(usage.total_tokens),
                            &count(usage.cache_read_tokens),
                            &count(usage.cache_write_tokens),
                            &reply.finish_reason.as_ref().map(FinishReason::as_str),
                            &entry.cost,
                            &batch_id,
                            &custom_id,
                            &now_ms(),
                            &logprobs_json(&reply.logprobs),
                        ],
                    )
                    .await
                    .map_err(database)?;
            }
            Write::Cache { key, model, reply } => {
                let usage = reply.usage;
                client
                    .execute(
                        "INSERT INTO twr_cache (key, model, content, reasoning, prompt_tokens,
                            completion_tokens, total_tokens, cache_read_tokens,
                            cache_write_tokens, finish_reason, recorded_at_ms, logprobs)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                         ON CONFLICT (key) DO UPDATE SET
                            model = EXCLUDED.model, content = EXCLUDED.content,
                            reasoning = EXCLUDED.reasoning,
                            prompt_tokens = EXCLUDED.prompt_tokens,
                            completion_tokens = EXCLUDED.completion_tokens,
                            total_tokens = EXCLUDED.total_tokens,
                            cache_read_tokens = EXCLUDED.cache_read_tokens,
                            cache_write_tokens = EXCLUDED.cache_write_tokens,
                            finish_reason = EXCLUDED.finish_reason,
                            recorded_at_ms = EXCLUDED.recorded_at_ms,
                            logprobs = EXCLUDED.logprobs",
                        &[
                            &key.as_bytes().as_slice(),
                            model,
                            &reply.content,
                            &reply.reasoning,
                            &count(usage.prompt_tokens),
                            &count(usage.completion_tokens),
                            &count(usage.total_tokens),
                            &count(usage.cache_read_tokens),
                            &count(usage.cache_write_tokens),
                            &reply.finish_reason.as_ref().map(FinishReason::as_str),
                            &now_ms(),
                            &logprobs_json(&reply.logprobs),
                        ],
                    )
                    .await
                    .map_err(database)?;
            }
            Write::Outcome { job, outcome } => {
                record_outcome(&client, job, outcome)
                    .await
                    .map_err(database)?;
            }
            Write::Ended {
                job,
                outcome,
                lease,
            } => {
                // The prompt's end and its outcome commit together, and
                // only while this worker's lease holds it.
                let transaction = client.transaction().await.map_err(database)?;
                let ended = transaction
                    .execute(
                        "UPDATE twr_prompts SET state = $4, holder = NULL, lease_until_ms = NULL
                         WHERE job = $1 AND idx = $2 AND state = 'leased' AND holder = $3",
                        &[
                            &&**job,
                            &(outcome.index as i64),
                            &&*lease.holder,
                            &if outcome.ok { "typed" } else { "failed" },
                        ],
                    )
                    .await
                    .map_err(database)?;
                if ended == 1 {
                    record_outcome(&transaction, job, outcome)
                        .await
                        .map_err(database)?;
                }
                transaction.commit().await.map_err(database)?;
            }
            Write::Typed { job, shape, run } => {
                client
                    .execute(
                        "INSERT INTO twr_typed_runs (job, shape, prompt, answer, constrained,
                            attempts, recorded_at_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)
                         ON CONFLICT (job, shape, prompt) DO UPDATE SET
                            answer = EXCLUDED.answer, constrained = EXCLUDED.constrained,
                            attempts = EXCLUDED.attempts,
                            recorded_at_ms = EXCLUDED.recorded_at_ms",
                        &[
                            &&**job,
                            shape,
                            &run.prompt,
                            &run.answer,
                            &run.constrained,
                            &(run.attempts as i64),
                            &now_ms(),
                        ],
                    )
                    .await
                    .map_err(database)?;
            }
            Write::Feedback { job, events } => {
                let transaction = client.transaction().await.map_err(database)?;
                let now = now_ms();
                for event in events {
                    transaction
                        .execute(
                            "INSERT INTO twr_feedback (job, model, problem, wording,
                                constrained, fixed, recorded_at_ms)
                             VALUES ($1, $2, $3, $4, $5, $6, $7)",
                            &[
                                &&**job,
                                &event.model,
                                &event.problem,
                                &event.wording.name(),
                                &event.constrained,
                                &event.fixed,
                                &now,
                            ],
                        )
                        .await
                        .map_err(database)?;
                }
                transaction.commit().await.map_err(database)?;
            }
            Write::Confidence { job, run } => {
                let transaction = client.transaction().await.map_err(database)?;
                let now = now_ms();
                for table in ["twr_confidences", "twr_reviews"] {
                    transaction
                        .execute(
                            &format!("DELETE FROM {table} WHERE job = $1 AND prompt = $2"),
                            &[&&**job, &run.prompt],
                        )
                        .await
                        .map_err(database)?;
                }
                let mut position = 0i64;
                let mut last_attempt = 0usize;
                for section in &run.attempts {
                    if section.attempt != last_attempt {
                        (position, last_attempt) = (0, section.attempt);
                    }
                    transaction
                        .execute(
                            "INSERT INTO twr_confidences (job, prompt, attempt, position, field,
                                confidence, measured, recorded_at_ms)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                            &[
                                &&**job,
                                &run.prompt,
                                &(section.attempt as i64),
                                &position,
                                &section.field,
                                &section.confidence,
                                &section.measured.name(),
                                &now,
                            ],
                        )
                        .await
                        .map_err(database)?;
                    position += 1;
                }
                if let Some((threshold, fields)) = &run.review {
                    for (position, (field, confidence)) in fields.iter().enumerate() {
                        transaction
                            .execute(
                                "INSERT INTO twr_reviews (job, prompt, position, field,
                                    confidence, threshold, recorded_at_ms)
                                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                                &[
                                    &&**job,
                                    &run.prompt,
                                    &(position as i64),
                                    field,
                                    confidence,
                                    threshold,
                                    &now,
                                ],
                            )
                            .await
                            .map_err(database)?;
                    }
                }
                transaction.commit().await.map_err(database)?;
            }
            #[cfg(feature = "batch")]
            Write::Batch {
                job,
                batch_id,
                provider,
                round,
                lines,
            } => {
                let transaction = client.transaction().await.map_err(database)?;
                // Recorded by the server's clock: a worker on another
                // machine judges how long it has been submitting by it.
                let insert = format!(
                    "INSERT INTO twr_batches (batch_id, job, provider, round, status,
                        requests, submitted_at_ms, updated_at_ms, intent)
                     VALUES ($1, $2, $3, $4, $5, $6, {NOW_MS}, {NOW_MS}, $1)
                     ON CONFLICT (batch_id) DO UPDATE SET job = EXCLUDED.job,
                        provider = EXCLUDED.provider, round = EXCLUDED.round,
                        status = EXCLUDED.status, requests = EXCLUDED.requests,
                        submitted_at_ms = EXCLUDED.submitted_at_ms,
                        updated_at_ms = EXCLUDED.updated_at_ms, intent = EXCLUDED.intent"
                );
                transaction
                    .execute(
                        &insert,
                        &[
                            batch_id,
                            &&**job,
                            provider,
                            &i64::from(*round),
                            &SUBMITTING,
                            &(lines.len() as i64),
                        ],
                    )
                    .await
                    .map_err(database)?;
                for (custom_id, key) in lines {
                    transaction
                        .execute(
                            "INSERT INTO twr_batch_requests (batch_id, custom_id, key)
                             VALUES ($1, $2, $3)
                             ON CONFLICT (batch_id, custom_id) DO UPDATE SET key = EXCLUDED.key",
                            &[batch_id, custom_id, &key.as_bytes().as_slice()],
                        )
                        .await
                        .map_err(database)?;
                }
                transaction.commit().await.map_err(database)?;
            }
            #[cfg(feature = "batch")]
            Write::Created { intent, batch_id } => {
                let transaction = client.transaction().await.map_err(database)?;
                transaction
                    .execute(
                        "UPDATE twr_batches SET batch_id = $2, status = 'submitted',
                            updated_at_ms = $3
                         WHERE batch_id = $1",
                        &[intent, batch_id, &now_ms()],
                    )
                    .await
                    .map_err(database)?;
                transaction
                    .execute(
                        "UPDATE twr_batch_requests SET batch_id = $2 WHERE batch_id = $1",
                        &[intent, batch_id],
                    )
                    .await
                    .map_err(database)?;
                transaction.commit().await.map_err(database)?;
            }
            #[cfg(feature = "batch")]
            Write::EndBatch { batch_id, status } => {
                client
                    .execute(
                        "UPDATE twr_batches SET status = $2, updated_at_ms = $3
                         WHERE batch_id = $1",
                        &[batch_id, status, &now_ms()],
                    )
                    .await
                    .map_err(database)?;
            }
        }
        Ok(())
    }
}

/// The milliseconds of the server's clock, in SQL: leases on many machines
/// run out by one clock.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// Records how run `outcome.index` of `job` ended (replacing an older
/// record).
async fn record_outcome(
    client: &impl deadpool_postgres::GenericClient,
    job: &str,
    outcome: &RecordedOutcome,
) -> Result<u64, tokio_postgres::Error> {
    client
        .execute(
            "INSERT INTO twr_outcomes (job, idx, ok, attempts, prompt_tokens,
                completion_tokens, cost, final_reply, error, recorded_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (job, idx) DO UPDATE SET
                ok = EXCLUDED.ok, attempts = EXCLUDED.attempts,
                prompt_tokens = EXCLUDED.prompt_tokens,
                completion_tokens = EXCLUDED.completion_tokens,
                cost = EXCLUDED.cost, final_reply = EXCLUDED.final_reply,
                error = EXCLUDED.error, recorded_at_ms = EXCLUDED.recorded_at_ms",
            &[
                &job,
                &(outcome.index as i64),
                &outcome.ok,
                &(outcome.attempts as i64),
                &count(outcome.usage.prompt_tokens),
                &count(outcome.usage.completion_tokens),
                &outcome.cost,
                &outcome.final_reply,
                &outcome.error,
                &now_ms(),
            ],
        )
        .await
}

/// Host, port and database of `config`, never its password.
fn place_of(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let database = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("postgres");
    format!("postgres://{host}:{port}/{database}")
}

/// A connection the pool could not give.
fn pool_error(place: &str, error: deadpool_postgres::PoolError) -> JournalError {
    match error {
        deadpool_postgres::PoolError::Backend(source) => JournalError::from_postgres(place, source),
        other => JournalError::Lost {
            detail: format!("{place}: {other}"),
        },
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A count as a BIGINT.
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A token count read back.
fn tokens(row: &Row, i: usize) -> u64 {
    u64::try_from(row.get::<_, i64>(i)).unwrap_or(0)
}

/// A reply from the columns `content, reasoning, prompt_tokens,
/// completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens,
/// finish_reason, logprobs`.
fn reply_of(row: &Row) -> Reply {
    let usage = Usage::new(tokens(row, 2), tokens(row, 3))
        .with_total(tokens(row, 4))
        .with_cache(tokens(row, 5), tokens(row, 6));
    let finish: Option<String> = row.get(7);
    Reply {
        content: row.get(0),
        reasoning: row.get(1),
        usage,
        finish_reason: finish.as_deref().map(FinishReason::from_server),
        logprobs: logprobs_of(row.get::<_, Option<String>>(8).as_deref()),
    }
}

impl Store for PostgresStore {
    fn write(&self, write: Write) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        let after = shared.handed.load(Ordering::SeqCst);
        let mut written = shared.written.subscribe();
        Box::pin(async move {
            if after > 0 {
                let _ = written.wait_for(|&done| done >= after).await;
            }
            shared.write(&write).await
        })
    }

    fn write_detached(&self, write: Write) {
        let number = self.shared.handed.fetch_add(1, Ordering::SeqCst) + 1;
        if let Err(error) = self.detached.send((number, write)) {
            tracing::warn!(
                "twr could not record {}: the journal's writer stopped",
                error.0 .1.what()
            );
        }
    }

    fn flush(&self) -> StoreFuture<()> {
        let after = self.shared.handed.load(Ordering::SeqCst);
        let mut written = self.shared.written.subscribe();
        Box::pin(async move {
            if after > 0 {
                let _ = written.wait_for(|&done| done >= after).await;
            }
            Ok(())
        })
    }

    fn reply(
        &self,
        job: &str,
        key: RequestKey,
        occurrence: u32,
    ) -> StoreFuture<Option<(Reply, Option<f64>)>> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let row = client
                    .query_opt(
                        "SELECT content, reasoning, prompt_tokens, completion_tokens,
                            total_tokens, cache_read_tokens, cache_write_tokens, finish_reason,
                            logprobs, cost
                         FROM twr_replies WHERE job = $1 AND key = $2 AND occurrence = $3",
                        &[&job, &key.as_bytes().as_slice(), &i64::from(occurrence)],
                    )
                    .await?;
                Ok(row.map(|row| (reply_of(&row), row.get::<_, Option<f64>>(9))))
            })
        })
    }

    fn count_replies(&self, job: &str) -> StoreFuture<u64> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let row = client
                    .query_one("SELECT count(*) FROM twr_replies WHERE job = $1", &[&job])
                    .await?;
                Ok(row.get::<_, i64>(0) as u64)
            })
        })
    }

    fn cached(&self, key: RequestKey) -> StoreFuture<Option<Reply>> {
        self.run(move |client| {
            Box::pin(async move {
                let row = client
                    .query_opt(
                        "SELECT content, reasoning, prompt_tokens, completion_tokens,
                            total_tokens, cache_read_tokens, cache_write_tokens, finish_reason,
                            logprobs
                         FROM twr_cache WHERE key = $1",
                        &[&key.as_bytes().as_slice()],
                    )
                    .await?;
                Ok(row.as_ref().map(reply_of))
            })
        })
    }

    fn count_cached(&self) -> StoreFuture<u64> {
        self.run(move |client| {
            Box::pin(async move {
                let row = client
                    .query_one("SELECT count(*) FROM twr_cache", &[])
                    .await?;
                Ok(row.get::<_, i64>(0) as u64)
            })
        })
    }

    fn outcomes(&self, job: &str) -> StoreFuture<Vec<RecordedOutcome>> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT idx, ok, attempts, prompt_tokens, completion_tokens, cost,
                            final_reply, error
                         FROM twr_outcomes WHERE job = $1 ORDER BY idx",
                        &[&job],
                    )
                    .await?;
                Ok(rows
                    .iter()
                    .map(|row| RecordedOutcome {
                        index: row.get::<_, i64>(0) as usize,
                        ok: row.get(1),
                        attempts: row.get::<_, i64>(2) as usize,
                        usage: Usage::new(tokens(row, 3), tokens(row, 4)),
                        cost: row.get(5),
                        final_reply: row.get(6),
                        error: row.get(7),
                    })
                    .collect())
            })
        })
    }

    fn typed_runs(&self, job: &str, shape: &str) -> StoreFuture<Vec<TypedRun>> {
        let (job, shape) = (job.to_string(), shape.to_string());
        self.run(move |client| {
            Box::pin(async move {
                // Ordered by the prompt's bytes, as SQLite orders them, not
                // by the database's locale.
                let rows = client
                    .query(
                        "SELECT prompt, answer, constrained, attempts FROM twr_typed_runs
                         WHERE job = $1 AND shape = $2 ORDER BY prompt COLLATE \"C\"",
                        &[&job, &shape],
                    )
                    .await?;
                Ok(rows
                    .iter()
                    .map(|row| TypedRun {
                        prompt: row.get(0),
                        answer: row.get(1),
                        constrained: row.get(2),
                        attempts: row.get::<_, i64>(3) as usize,
                    })
                    .collect())
            })
        })
    }

    fn feedback_rates(&self, job: &str) -> StoreFuture<Vec<FeedbackRate>> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT model, problem, wording, constrained, count(*),
                            count(*) FILTER (WHERE fixed)
                         FROM twr_feedback WHERE job = $1
                         GROUP BY model, problem, wording, constrained
                         ORDER BY model COLLATE \"C\", problem COLLATE \"C\",
                            wording COLLATE \"C\", constrained",
                        &[&job],
                    )
                    .await?;
                // A wording this twr does not know (written by a newer one)
                // is left out: it cannot be chosen here.
                Ok(rows
                    .iter()
                    .filter_map(|row| {
                        Some(FeedbackRate {
                            model: row.get(0),
                            problem: row.get(1),
                            wording: Wording::from_name(row.get(2))?,
                            constrained: row.get(3),
                            sent: row.get::<_, i64>(4) as u64,
                            fixed: row.get::<_, i64>(5) as u64,
                        })
                    })
                    .collect())
            })
        })
    }

    fn confidences(&self, job: &str, prompt: &str) -> StoreFuture<Vec<RecordedConfidence>> {
        let (job, prompt) = (job.to_string(), prompt.to_string());
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT attempt, field, confidence, measured FROM twr_confidences
                         WHERE job = $1 AND prompt = $2 ORDER BY attempt, position",
                        &[&job, &prompt],
                    )
                    .await?;
                // A way this twr does not know (written by a newer one) is
                // left out rather than misnamed.
                Ok(rows
                    .iter()
                    .filter_map(|row| {
                        Some(RecordedConfidence {
                            attempt: row.get::<_, i64>(0) as usize,
                            field: row.get(1),
                            confidence: row.get(2),
                            measured: Measured::from_name(row.get(3))?,
                        })
                    })
                    .collect())
            })
        })
    }

    fn needs_review(&self, job: &str) -> StoreFuture<Vec<Review>> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                // Ordered by the prompt's bytes, as SQLite orders them.
                let rows = client
                    .query(
                        "SELECT prompt, field, confidence, threshold FROM twr_reviews
                         WHERE job = $1 ORDER BY prompt COLLATE \"C\", position",
                        &[&job],
                    )
                    .await?;
                let mut out: Vec<Review> = Vec::new();
                for row in &rows {
                    let (prompt, field): (String, String) = (row.get(0), row.get(1));
                    let confidence: f64 = row.get(2);
                    match out.last_mut() {
                        Some(review) if review.prompt == prompt => {
                            review.fields.push((field, confidence))
                        }
                        _ => out.push(Review {
                            prompt,
                            fields: vec![(field, confidence)],
                            threshold: row.get(3),
                        }),
                    }
                }
                Ok(out)
            })
        })
    }

    fn register_prompts(&self, job: &str, count: usize) -> StoreFuture<()> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                // Typed as BIGINT: the count is sent as one (an untyped
                // `$2 - 1` beside `0` is taken as an INTEGER, and the
                // statement refused).
                client
                    .execute(
                        "INSERT INTO twr_prompts (job, idx, state, leases)
                         SELECT $1, g, 'pending', 0 FROM generate_series(0::bigint, $2::bigint - 1) g
                         ON CONFLICT (job, idx) DO NOTHING",
                        &[&job, &(count as i64)],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn claim(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<Claim> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |client| {
            Box::pin(async move {
                let index = index as i64;
                client
                    .execute(
                        "INSERT INTO twr_prompts (job, idx, state, leases)
                         VALUES ($1, $2, 'pending', 0) ON CONFLICT (job, idx) DO NOTHING",
                        &[&job, &index],
                    )
                    .await?;
                // A row another worker is claiming right now is skipped,
                // not waited for: that worker gets it.
                let taken = client
                    .query_opt(
                        &format!(
                            "WITH free AS (
                                SELECT job, idx FROM twr_prompts
                                WHERE job = $1 AND idx = $2
                                  AND (state = 'pending' OR (state = 'leased'
                                       AND (lease_until_ms < {NOW_MS} OR holder = $3)))
                                FOR UPDATE SKIP LOCKED)
                             UPDATE twr_prompts p SET state = 'leased', holder = $3,
                                lease_until_ms = {NOW_MS} + $4, leases = p.leases + 1
                             FROM free WHERE p.job = free.job AND p.idx = free.idx
                             RETURNING p.idx"
                        ),
                        &[&job, &index, &&*lease.holder, &lease.ms],
                    )
                    .await?;
                if taken.is_some() {
                    return Ok(Claim::Ours);
                }
                let row = client
                    .query_opt(
                        "SELECT p.state, o.error FROM twr_prompts p
                         LEFT JOIN twr_outcomes o ON o.job = p.job AND o.idx = p.idx
                         WHERE p.job = $1 AND p.idx = $2",
                        &[&job, &index],
                    )
                    .await?;
                Ok(match row {
                    Some(row) if matches!(row.get::<_, &str>(0), "typed" | "failed") => {
                        Claim::Ended {
                            ok: row.get::<_, &str>(0) == "typed",
                            error: row.get(1),
                        }
                    }
                    _ => Claim::Held,
                })
            })
        })
    }

    fn claim_next(
        &self,
        job: &str,
        from: usize,
        below: usize,
        lease: &Lease,
    ) -> StoreFuture<Option<usize>> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |client| {
            Box::pin(async move {
                // Along the primary key from `from`: the ended prompts
                // behind a worker's place are never read again, and a row
                // another worker is claiming right now is skipped.
                let taken = client
                    .query_opt(
                        &format!(
                            "WITH free AS (
                                SELECT job, idx FROM twr_prompts
                                WHERE job = $1 AND idx >= $2 AND idx < $3
                                  AND (state = 'pending' OR (state = 'leased'
                                       AND lease_until_ms < {NOW_MS}))
                                ORDER BY idx LIMIT 1
                                FOR UPDATE SKIP LOCKED)
                             UPDATE twr_prompts p SET state = 'leased', holder = $4,
                                lease_until_ms = {NOW_MS} + $5, leases = p.leases + 1
                             FROM free WHERE p.job = free.job AND p.idx = free.idx
                             RETURNING p.idx"
                        ),
                        &[
                            &job,
                            &(from as i64),
                            &(below as i64),
                            &&*lease.holder,
                            &lease.ms,
                        ],
                    )
                    .await?;
                Ok(taken.map(|row| row.get::<_, i64>(0) as usize))
            })
        })
    }

    fn renew(&self, job: &str, index: usize, lease: &Lease) -> StoreFuture<bool> {
        let (job, lease) = (job.to_string(), lease.clone());
        self.run(move |client| {
            Box::pin(async move {
                let renewed = client
                    .execute(
                        &format!(
                            "UPDATE twr_prompts SET lease_until_ms = {NOW_MS} + $4
                             WHERE job = $1 AND idx = $2 AND state = 'leased' AND holder = $3"
                        ),
                        &[&job, &(index as i64), &&*lease.holder, &lease.ms],
                    )
                    .await?;
                Ok(renewed == 1)
            })
        })
    }

    fn progress(&self, job: &str) -> StoreFuture<JobProgress> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        &format!(
                            "SELECT CASE WHEN state = 'leased' AND lease_until_ms < {NOW_MS}
                                    THEN 'pending' ELSE state END AS s, count(*)
                             FROM twr_prompts WHERE job = $1 GROUP BY s"
                        ),
                        &[&job],
                    )
                    .await?;
                let mut progress = JobProgress::default();
                for row in &rows {
                    let count = row.get::<_, i64>(1) as usize;
                    match row.get::<_, &str>(0) {
                        "pending" => progress.pending += count,
                        "leased" => progress.leased += count,
                        "typed" => progress.typed += count,
                        "failed" => progress.failed += count,
                        _ => {}
                    }
                }
                Ok(progress)
            })
        })
    }

    #[cfg(feature = "batch")]
    fn pending_lines(&self, job: &str, key: RequestKey) -> StoreFuture<Vec<PendingLine>> {
        let job = job.to_string();
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT l.batch_id, l.custom_id, b.status = $3
                         FROM twr_batch_requests l JOIN twr_batches b ON b.batch_id = l.batch_id
                         WHERE b.job = $1 AND l.key = $2 AND b.status <> $4
                           AND NOT EXISTS (SELECT 1 FROM twr_replies r
                               WHERE r.batch_id = l.batch_id AND r.custom_id = l.custom_id)
                         ORDER BY b.submitted_at_ms, l.custom_id COLLATE \"C\"",
                        &[
                            &job,
                            &key.as_bytes().as_slice(),
                            &SUBMITTING,
                            &NOT_SUBMITTED,
                        ],
                    )
                    .await?;
                Ok(rows
                    .iter()
                    .map(|row| PendingLine {
                        batch_id: row.get(0),
                        custom_id: row.get(1),
                        submitting: row.get(2),
                    })
                    .collect())
            })
        })
    }

    #[cfg(feature = "batch")]
    fn batch_intent(&self, intent: &str) -> StoreFuture<BatchIntent> {
        let intent = intent.to_string();
        self.run(move |client| {
            Box::pin(async move {
                // The age by the server's clock, as leases are.
                let query = format!(
                    "SELECT batch_id, status, GREATEST(0, {NOW_MS} - submitted_at_ms)
                     FROM twr_batches WHERE intent = $1"
                );
                let row = client.query_opt(&query, &[&intent]).await?;
                Ok(match row {
                    None => BatchIntent::NotSubmitted,
                    Some(row) => {
                        let status: String = row.get(1);
                        if status == NOT_SUBMITTED {
                            BatchIntent::NotSubmitted
                        } else if status == SUBMITTING {
                            let age: i64 = row.get(2);
                            BatchIntent::Submitting {
                                age: std::time::Duration::from_millis(age as u64),
                            }
                        } else {
                            BatchIntent::Created(row.get(0))
                        }
                    }
                })
            })
        })
    }

    #[cfg(feature = "batch")]
    fn answered_lines(&self, job: &str, batch_id: &str) -> StoreFuture<Vec<String>> {
        let (job, batch_id) = (job.to_string(), batch_id.to_string());
        self.run(move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT custom_id FROM twr_replies WHERE job = $1 AND batch_id = $2",
                        &[&job, &batch_id],
                    )
                    .await?;
                Ok(rows.iter().map(|row| row.get(0)).collect())
            })
        })
    }
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.shared.place)
            .finish_non_exhaustive()
    }
}
