//! The journal's tables in PostgreSQL, and the migrations that bring a
//! live database up to [`VERSION`].
//!
//! The tables are those of the SQLite file (see the module docs of
//! [`journal`](crate::journal)), named with a `twr_` prefix so that a
//! database shared with other programs keeps them apart. `twr_meta` holds
//! `schema_version`, the version of the tables; it only grows, one
//! migration at a time.

use deadpool_postgres::Client;

use crate::journal::error::JournalError;

/// The schema version this twr writes; it upgrades every older one.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

/// `MIGRATIONS[i]` takes a database of version `i` to version `i + 1`
/// (version 0: no twr tables). Each only adds, so an older database keeps
/// every record it had; the versions follow those of the SQLite file.
pub(crate) const MIGRATIONS: &[&str] = &[
    // Version 1: replies, the response cache, outcomes and batches.
    "CREATE TABLE twr_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE twr_replies (
        job                TEXT             NOT NULL,
        key                BYTEA            NOT NULL,
        occurrence         BIGINT           NOT NULL,
        model              TEXT             NOT NULL,
        content            TEXT             NOT NULL,
        reasoning          TEXT,
        prompt_tokens      BIGINT           NOT NULL,
        completion_tokens  BIGINT           NOT NULL,
        total_tokens       BIGINT           NOT NULL,
        cache_read_tokens  BIGINT           NOT NULL,
        cache_write_tokens BIGINT           NOT NULL,
        finish_reason      TEXT,
        cost               DOUBLE PRECISION,
        batch_id           TEXT,
        custom_id          TEXT,
        recorded_at_ms     BIGINT           NOT NULL,
        PRIMARY KEY (job, key, occurrence)
    );
    CREATE TABLE twr_cache (
        key                BYTEA  PRIMARY KEY,
        model              TEXT   NOT NULL,
        content            TEXT   NOT NULL,
        reasoning          TEXT,
        prompt_tokens      BIGINT NOT NULL,
        completion_tokens  BIGINT NOT NULL,
        total_tokens       BIGINT NOT NULL,
        cache_read_tokens  BIGINT NOT NULL,
        cache_write_tokens BIGINT NOT NULL,
        finish_reason      TEXT,
        recorded_at_ms     BIGINT NOT NULL
    );
    CREATE TABLE twr_outcomes (
        job               TEXT             NOT NULL,
        idx               BIGINT           NOT NULL,
        ok                BOOLEAN          NOT NULL,
        attempts          BIGINT           NOT NULL,
        prompt_tokens     BIGINT           NOT NULL,
        completion_tokens BIGINT           NOT NULL,
        cost              DOUBLE PRECISION,
        final_reply       TEXT,
        error             TEXT,
        recorded_at_ms    BIGINT           NOT NULL,
        PRIMARY KEY (job, idx)
    );
    CREATE TABLE twr_batches (
        batch_id        TEXT   PRIMARY KEY,
        job             TEXT   NOT NULL,
        provider        TEXT   NOT NULL,
        round           BIGINT NOT NULL,
        status          TEXT   NOT NULL,
        requests        BIGINT NOT NULL,
        submitted_at_ms BIGINT NOT NULL,
        updated_at_ms   BIGINT NOT NULL
    );
    CREATE TABLE twr_batch_requests (
        batch_id  TEXT  NOT NULL,
        custom_id TEXT  NOT NULL,
        key       BYTEA NOT NULL,
        PRIMARY KEY (batch_id, custom_id)
    );
    CREATE INDEX twr_batch_requests_by_key ON twr_batch_requests (key);
    CREATE INDEX twr_replies_by_line ON twr_replies (batch_id, custom_id);",
    // Version 2: the runs that ended with a typed value.
    "CREATE TABLE twr_typed_runs (
        job            TEXT    NOT NULL,
        shape          TEXT    NOT NULL,
        prompt         TEXT    NOT NULL,
        answer         TEXT    NOT NULL,
        constrained    BOOLEAN NOT NULL,
        attempts       BIGINT  NOT NULL,
        recorded_at_ms BIGINT  NOT NULL,
        PRIMARY KEY (job, shape, prompt)
    );",
    // Version 3: each problem feedback named, and whether it was fixed.
    "CREATE TABLE twr_feedback (
        job            TEXT    NOT NULL,
        model          TEXT    NOT NULL,
        problem        TEXT    NOT NULL,
        wording        TEXT    NOT NULL,
        constrained    BOOLEAN NOT NULL,
        fixed          BOOLEAN NOT NULL,
        recorded_at_ms BIGINT  NOT NULL
    );
    CREATE INDEX twr_feedback_by_job ON twr_feedback (job);",
    // Version 4: the prompts of a job run with a lease: who holds each and
    // until when (the server's clock, in ms), and how it ended.
    "CREATE TABLE twr_prompts (
        job            TEXT   NOT NULL,
        idx            BIGINT NOT NULL,
        state          TEXT   NOT NULL,
        holder         TEXT,
        lease_until_ms BIGINT,
        leases         BIGINT NOT NULL,
        PRIMARY KEY (job, idx)
    );",
    // Version 5: a batch is recorded before it is submitted, under an id
    // of its submitter's, and keeps that id once the provider names it.
    "ALTER TABLE twr_batches ADD COLUMN intent TEXT;
    CREATE INDEX twr_batches_by_intent ON twr_batches (intent);",
    // Version 6: how sure the model was: a reply's token log-probabilities
    // (JSON, NULL without), each section's confidence per attempt of a
    // typed run, and the value's sections to review, by prompt.
    "ALTER TABLE twr_replies ADD COLUMN logprobs TEXT;
    ALTER TABLE twr_cache ADD COLUMN logprobs TEXT;
    CREATE TABLE twr_confidences (
        job            TEXT             NOT NULL,
        prompt         TEXT             NOT NULL,
        attempt        BIGINT           NOT NULL,
        position       BIGINT           NOT NULL,
        field          TEXT             NOT NULL,
        confidence     DOUBLE PRECISION NOT NULL,
        measured       TEXT             NOT NULL,
        recorded_at_ms BIGINT           NOT NULL,
        PRIMARY KEY (job, prompt, attempt, position)
    );
    CREATE TABLE twr_reviews (
        job            TEXT             NOT NULL,
        prompt         TEXT             NOT NULL,
        position       BIGINT           NOT NULL,
        field          TEXT             NOT NULL,
        confidence     DOUBLE PRECISION NOT NULL,
        threshold      DOUBLE PRECISION NOT NULL,
        recorded_at_ms BIGINT           NOT NULL,
        PRIMARY KEY (job, prompt, position)
    );",
];

/// The key of the advisory lock migrations hold ("twr1"), so that workers
/// starting together migrate once: the others wait, then find nothing to do.
const MIGRATION_LOCK: i64 = 0x7477_7231;

/// Brings the database up to [`VERSION`] in one transaction, or refuses a
/// database of a newer version. `place` names it in errors.
pub(crate) async fn migrate(client: &mut Client, place: &str) -> Result<(), JournalError> {
    let database = |source| JournalError::from_postgres(place, source);
    let transaction = client.transaction().await.map_err(database)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(database)?;
    let version = version(&transaction).await.map_err(database)?;
    if version > VERSION {
        return Err(JournalError::Version {
            path: place.into(),
            found: version,
            supported: VERSION,
        });
    }
    if version == VERSION {
        return Ok(());
    }
    for migration in &MIGRATIONS[version as usize..] {
        transaction
            .batch_execute(migration)
            .await
            .map_err(database)?;
    }
    let by = format!("twr-runtime {}", env!("CARGO_PKG_VERSION"));
    let marks = if version == 0 {
        "created_by"
    } else {
        "migrated_by"
    };
    transaction
        .execute(
            "INSERT INTO twr_meta (key, value) VALUES ($1, $2), ('schema_version', $3)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&marks, &by, &VERSION.to_string()],
        )
        .await
        .map_err(database)?;
    // A failure before this leaves the database as it was.
    transaction.commit().await.map_err(database)
}

/// The database's schema version: 0 when it has no twr tables.
async fn version(
    client: &impl deadpool_postgres::GenericClient,
) -> Result<i64, tokio_postgres::Error> {
    let has_meta: bool = client
        .query_one("SELECT to_regclass('twr_meta') IS NOT NULL", &[])
        .await?
        .get(0);
    if !has_meta {
        return Ok(0);
    }
    let row = client
        .query_opt(
            "SELECT value FROM twr_meta WHERE key = 'schema_version'",
            &[],
        )
        .await?;
    // A version that is not a number is not one this twr wrote.
    Ok(row
        .and_then(|row| row.get::<_, String>(0).parse().ok())
        .unwrap_or(i64::MAX))
}
