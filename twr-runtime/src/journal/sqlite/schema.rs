//! The journal's schema: created in a new file, checked in an existing one.
//! The schema is documented in the module docs of [`journal`](super).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::journal::error::JournalError;

/// `PRAGMA application_id` of a twr journal: "twr1" in ASCII.
pub(crate) const APPLICATION_ID: i64 = 0x7477_7231;

/// The schema version this twr writes (`PRAGMA user_version`). It reads
/// every version from 1 on: an older file is brought up to this one when
/// it is opened for writing (see [`MIGRATIONS`]).
pub(crate) const VERSION: i64 = 1 + MIGRATIONS.len() as i64;

/// The tables of schema version 1, as the first journals were made. Never
/// changed: a new file is made as version 1 and brought up to [`VERSION`]
/// by the same migrations as an old file, so both end with one schema.
const CREATE_V1: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE replies (
    job               TEXT    NOT NULL,
    key               BLOB    NOT NULL,
    occurrence        INTEGER NOT NULL,
    model             TEXT    NOT NULL,
    content           TEXT    NOT NULL,
    reasoning         TEXT,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    total_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    finish_reason     TEXT,
    cost              REAL,
    batch_id          TEXT,
    custom_id         TEXT,
    recorded_at_ms    INTEGER NOT NULL,
    PRIMARY KEY (job, key, occurrence)
) WITHOUT ROWID;
CREATE TABLE cache (
    key               BLOB    PRIMARY KEY,
    model             TEXT    NOT NULL,
    content           TEXT    NOT NULL,
    reasoning         TEXT,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    total_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    finish_reason     TEXT,
    recorded_at_ms    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE outcomes (
    job               TEXT    NOT NULL,
    idx               INTEGER NOT NULL,
    ok                INTEGER NOT NULL,
    attempts          INTEGER NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost              REAL,
    final_reply       TEXT,
    error             TEXT,
    recorded_at_ms    INTEGER NOT NULL,
    PRIMARY KEY (job, idx)
) WITHOUT ROWID;
CREATE TABLE batches (
    batch_id          TEXT    PRIMARY KEY,
    job               TEXT    NOT NULL,
    provider          TEXT    NOT NULL,
    round             INTEGER NOT NULL,
    status            TEXT    NOT NULL,
    requests          INTEGER NOT NULL,
    submitted_at_ms   INTEGER NOT NULL,
    updated_at_ms     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE batch_requests (
    batch_id          TEXT    NOT NULL,
    custom_id         TEXT    NOT NULL,
    key               BLOB    NOT NULL,
    PRIMARY KEY (batch_id, custom_id)
) WITHOUT ROWID;
CREATE INDEX batch_requests_by_key ON batch_requests (key);
CREATE INDEX replies_by_line ON replies (batch_id, custom_id);
";

/// The migrations: `MIGRATIONS[i]` takes a file of version `i + 1` to
/// version `i + 2`. Each only adds, so that a version-1 file keeps every
/// record it had.
const MIGRATIONS: &[&str] = &[
    // Version 2: the runs of a job that ended with a typed value, with the
    // prompt as written and the answer in the soft format (see
    // `journal::store::record_typed`).
    "CREATE TABLE typed_runs (
        job               TEXT    NOT NULL,
        shape             TEXT    NOT NULL,
        prompt            TEXT    NOT NULL,
        answer            TEXT    NOT NULL,
        constrained       INTEGER NOT NULL,
        attempts          INTEGER NOT NULL,
        recorded_at_ms    INTEGER NOT NULL,
        PRIMARY KEY (job, shape, prompt)
    ) WITHOUT ROWID;",
    // Version 3: each problem the loop's feedback named, how the feedback
    // was worded, and whether the next reply fixed it (see
    // `journal::store::record_feedback`).
    "CREATE TABLE feedback (
        job               TEXT    NOT NULL,
        model             TEXT    NOT NULL,
        problem           TEXT    NOT NULL,
        wording           TEXT    NOT NULL,
        constrained       INTEGER NOT NULL,
        fixed             INTEGER NOT NULL,
        recorded_at_ms    INTEGER NOT NULL
    );
    CREATE INDEX feedback_by_job ON feedback (job);",
    // Version 4: the prompts of a job run with a lease
    // (`Job::lease_for`): who holds each and until when, and how it ended
    // (see `journal::sqlite::queries::claim`).
    "CREATE TABLE prompts (
        job               TEXT    NOT NULL,
        idx               INTEGER NOT NULL,
        state             TEXT    NOT NULL,
        holder            TEXT,
        lease_until_ms    INTEGER,
        leases            INTEGER NOT NULL,
        PRIMARY KEY (job, idx)
    ) WITHOUT ROWID;",
    // Version 5: a batch is recorded before it is submitted, under an id
    // of its submitter's, and keeps that id once the provider names it
    // (see `journal::sqlite::queries::batch_created`).
    "ALTER TABLE batches ADD COLUMN intent TEXT;
    CREATE INDEX batches_by_intent ON batches (intent);",
    // Version 6: how sure the model was. A reply's token log-probabilities
    // (JSON, NULL when it came without them), so that a replayed or cached
    // reply keeps its confidences; each section's confidence per attempt of
    // a typed run, and the value's sections to review, by prompt (see
    // `journal::sqlite::queries::record_confidence`).
    "ALTER TABLE replies ADD COLUMN logprobs TEXT;
    ALTER TABLE cache ADD COLUMN logprobs TEXT;
    CREATE TABLE confidences (
        job               TEXT    NOT NULL,
        prompt            TEXT    NOT NULL,
        attempt           INTEGER NOT NULL,
        position          INTEGER NOT NULL,
        field             TEXT    NOT NULL,
        confidence        REAL    NOT NULL,
        measured          TEXT    NOT NULL,
        recorded_at_ms    INTEGER NOT NULL,
        PRIMARY KEY (job, prompt, attempt, position)
    ) WITHOUT ROWID;
    CREATE TABLE reviews (
        job               TEXT    NOT NULL,
        prompt            TEXT    NOT NULL,
        position          INTEGER NOT NULL,
        field             TEXT    NOT NULL,
        confidence        REAL    NOT NULL,
        threshold         REAL    NOT NULL,
        recorded_at_ms    INTEGER NOT NULL,
        PRIMARY KEY (job, prompt, position)
    ) WITHOUT ROWID;",
];

/// The tables every file of version `version` has.
fn tables(version: i64) -> &'static [&'static str] {
    const V1: &[&str] = &[
        "meta",
        "replies",
        "cache",
        "outcomes",
        "batches",
        "batch_requests",
    ];
    const V2: &[&str] = &[
        "meta",
        "replies",
        "cache",
        "outcomes",
        "batches",
        "batch_requests",
        "typed_runs",
    ];
    const V3: &[&str] = &[
        "meta",
        "replies",
        "cache",
        "outcomes",
        "batches",
        "batch_requests",
        "typed_runs",
        "feedback",
    ];
    const V4: &[&str] = &[
        "meta",
        "replies",
        "cache",
        "outcomes",
        "batches",
        "batch_requests",
        "typed_runs",
        "feedback",
        "prompts",
    ];
    const V6: &[&str] = &[
        "meta",
        "replies",
        "cache",
        "outcomes",
        "batches",
        "batch_requests",
        "typed_runs",
        "feedback",
        "prompts",
        "confidences",
        "reviews",
    ];
    match version {
        ..=1 => V1,
        2 => V2,
        3 => V3,
        4 | 5 => V4,
        _ => V6,
    }
}

/// Opens the journal at `path`: creates the schema in a new (absent or
/// empty) file, checks it in an existing one and, opened for writing,
/// brings an older one up to [`VERSION`]. Returns the connection and the
/// file's schema version (older than [`VERSION`] only when it was opened
/// read-only).
pub(crate) fn open(path: &Path, read_only: bool) -> Result<(Connection, i64), JournalError> {
    let sqlite = |e| JournalError::from_sqlite(path, e);
    let flags = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
    };
    let connection =
        Connection::open_with_flags(path, flags).map_err(|e| match e.sqlite_error_code() {
            // A file that cannot be created or opened for writing.
            Some(rusqlite::ErrorCode::CannotOpen) if !read_only && !path.exists() => {
                JournalError::ReadOnly {
                    path: path.to_path_buf(),
                }
            }
            _ => sqlite(e),
        })?;
    // Another connection (a second process resuming too early) waits a
    // little instead of failing at once.
    connection
        .busy_timeout(std::time::Duration::from_secs(5))
        .map_err(sqlite)?;
    let application_id: i64 = connection
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .map_err(sqlite)?;
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(sqlite)?;
    let tables: i64 = connection
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .map_err(sqlite)?;
    let version = match (application_id, tables) {
        (0, 0) if !read_only => {
            create(&connection).map_err(sqlite)?;
            VERSION
        }
        (0, 0) => {
            return Err(JournalError::Corrupt {
                path: path.to_path_buf(),
                detail: "the file is empty, and opened read-only it cannot become a journal".into(),
            })
        }
        (APPLICATION_ID, _) => {
            check(&connection, path, version)?;
            if read_only || version == VERSION {
                version
            } else {
                migrate(&connection, version).map_err(sqlite)?;
                check(&connection, path, VERSION)?;
                VERSION
            }
        }
        (0, _) => {
            return Err(JournalError::Foreign {
                path: path.to_path_buf(),
                found: format!("{tables} schema objects and no application id"),
            })
        }
        (other, _) => {
            return Err(JournalError::Foreign {
                path: path.to_path_buf(),
                found: format!("application id {other:#x}"),
            })
        }
    };
    if !read_only {
        // WAL: a record is durable when its transaction commits, and
        // readers never block the writer. NORMAL is durable across a killed
        // process (not across a power cut between checkpoints).
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
    }
    Ok((connection, version))
}

/// Creates the schema of [`VERSION`] in an empty database, in one
/// transaction: version 1, then every migration.
fn create(connection: &Connection) -> rusqlite::Result<()> {
    let batch = format!(
        "BEGIN;
         {CREATE_V1}
         {}
         INSERT INTO meta (key, value) VALUES ('created_by', 'twr-runtime {}');
         PRAGMA application_id = {APPLICATION_ID};
         PRAGMA user_version = {VERSION};
         COMMIT;",
        MIGRATIONS.concat(),
        env!("CARGO_PKG_VERSION")
    );
    connection.execute_batch(&batch)
}

/// Brings a file of schema `version` up to [`VERSION`], in one
/// transaction: a failure leaves it as it was. Another process migrating
/// the same file at once waits on the write lock and then finds nothing
/// left to do (`BEGIN IMMEDIATE` takes the lock before the version is read
/// again).
fn migrate(connection: &Connection, version: i64) -> rusqlite::Result<()> {
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let migrated = (|| {
        let now: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let from = now.max(version).max(1);
        if from >= VERSION {
            return Ok(());
        }
        for migration in &MIGRATIONS[(from - 1) as usize..] {
            connection.execute_batch(migration)?;
        }
        connection.execute_batch(&format!(
            "INSERT OR REPLACE INTO meta (key, value)
                 VALUES ('migrated_by', 'twr-runtime {}');
             PRAGMA user_version = {VERSION};",
            env!("CARGO_PKG_VERSION")
        ))
    })();
    match migrated {
        Ok(()) => connection.execute_batch("COMMIT"),
        Err(error) => {
            let _ = connection.execute_batch("ROLLBACK");
            Err(error)
        }
    }
}

/// Checks an existing journal: its version, SQLite's quick integrity
/// check, and that every table of the schema is there.
fn check(connection: &Connection, path: &Path, version: i64) -> Result<(), JournalError> {
    let corrupt = |detail: String| JournalError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    if version > VERSION {
        return Err(JournalError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    if version < 1 {
        return Err(corrupt(format!(
            "it is marked as a twr journal but has schema version {version}"
        )));
    }
    let verdict: String = connection
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(|e| JournalError::from_sqlite(path, e))?;
    if verdict != "ok" {
        return Err(corrupt(verdict));
    }
    for table in tables(version) {
        let found: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |row| row.get(0),
            )
            .map_err(|e| JournalError::from_sqlite(path, e))?;
        if found != 1 {
            return Err(corrupt(format!("the table {table} is missing")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("twr-schema-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("journal.twr")
    }

    #[test]
    fn a_new_file_gets_the_versioned_schema_and_opens_again() {
        let path = temp("new");
        drop(Journal::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        let id: i64 = connection
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!((id, version), (0x7477_7231, 6));
        let created: String = connection
            .query_row("SELECT value FROM meta WHERE key = 'created_by'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(
            created,
            format!("twr-runtime {}", env!("CARGO_PKG_VERSION"))
        );
        drop(connection);
        Journal::open(&path).unwrap();
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_refused_and_left_alone() {
        let path = temp("text");
        let text = "id,total\n1,20\n".repeat(200);
        std::fs::write(&path, &text).unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            matches!(error, JournalError::NotADatabase { .. }),
            "{error:?}"
        );
        assert!(error.to_string().ends_with("is not a twr journal (not a SQLite database); choose another path, or move the file away"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn another_programs_database_is_foreign() {
        let path = temp("foreign");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            matches!(&error, JournalError::Foreign { found, .. } if found == "1 schema objects and no application id"),
            "{error:?}"
        );
        let path = temp("foreign-id");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA application_id = 42; CREATE TABLE t (x);")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("(application id 0x2a), not a twr journal"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_newer_or_broken_journal_is_an_error_not_a_restart() {
        let path = temp("newer");
        drop(Journal::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 7;")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            matches!(
                error,
                JournalError::Version {
                    found: 7,
                    supported: 6,
                    ..
                }
            ),
            "{error:?}"
        );

        let path = temp("dropped-table");
        drop(Journal::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .execute_batch("DROP TABLE outcomes;")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "the twr journal {} is damaged: the table outcomes is missing",
                path.display()
            )
        );

        // Pages overwritten with garbage past the header.
        let path = temp("garbage");
        let journal = Journal::open(&path).unwrap();
        let job = journal.job("j");
        for n in 0..200u32 {
            let key =
                crate::journal::RequestKey::new("m", None, &[crate::Message::user(n.to_string())]);
            job.record(crate::journal::ReplyEntry {
                key,
                occurrence: 0,
                model: "m".into(),
                reply: crate::Reply::text("x".repeat(500)),
                cost: None,
                batch: None,
            })
            .await
            .unwrap();
        }
        drop(job);
        drop(journal);
        let mut bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 16 * 4096, "{}", bytes.len());
        for byte in &mut bytes[4096 + 100..12 * 4096] {
            *byte = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            matches!(
                error,
                JournalError::Corrupt { .. } | JournalError::NotADatabase { .. }
            ),
            "{error:?}"
        );
    }

    /// A file as the first journals were made: schema version 1, one
    /// reply recorded.
    fn version_1_file(name: &str) -> std::path::PathBuf {
        let path = temp(name);
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch(&format!(
                "BEGIN; {CREATE_V1}
                 INSERT INTO meta (key, value) VALUES ('created_by', 'twr-runtime 0.1.0');
                 INSERT INTO replies VALUES ('j', x'00', 0, 'm', '[A]\nold', NULL,
                     1, 2, 3, 0, 0, 'stop', NULL, NULL, NULL, 0);
                 PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1; COMMIT;"
            ))
            .unwrap();
        path
    }

    fn user_version(path: &Path) -> i64 {
        Connection::open(path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }

    #[tokio::test]
    async fn a_version_1_file_is_read_as_it_is_and_migrated_when_opened_for_writing() {
        let path = version_1_file("v1");
        // Read-only: read as it is, left as it is.
        let journal = Journal::open_read_only(&path).unwrap();
        assert_eq!(journal.job("j").replies().await.unwrap(), 1);
        drop(journal);
        assert_eq!(user_version(&path), 1);

        let journal = Journal::open(&path).unwrap();
        assert_eq!(journal.job("j").replies().await.unwrap(), 1);
        drop(journal);
        assert_eq!(user_version(&path), VERSION);
        let connection = Connection::open(&path).unwrap();
        let typed: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'typed_runs'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let created: String = connection
            .query_row("SELECT value FROM meta WHERE key = 'created_by'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!((typed, created.as_str()), (1, "twr-runtime 0.1.0"));
        drop(connection);
        // Opened again, it is a current journal.
        Journal::open(&path).unwrap();
        assert_eq!(user_version(&path), VERSION);
    }

    /// A file as twr wrote it at schema version 5: one reply recorded in a
    /// job and one cached, neither with log-probabilities.
    fn version_5_file(name: &str) -> std::path::PathBuf {
        let path = temp(name);
        let connection = Connection::open(&path).unwrap();
        let migrations = MIGRATIONS[..4].join("\n");
        connection
            .execute_batch(&format!(
                "BEGIN; {CREATE_V1} {migrations}
                 INSERT INTO meta (key, value) VALUES ('created_by', 'twr-runtime 0.1.0');
                 INSERT INTO replies VALUES ('j', x'00', 0, 'm', '[A]\nold', NULL,
                     1, 2, 3, 0, 0, 'stop', NULL, NULL, NULL, 0);
                 INSERT INTO cache VALUES (x'01', 'm', '[A]\ncached', NULL,
                     1, 2, 3, 0, 0, 'stop', 0);
                 PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 5; COMMIT;"
            ))
            .unwrap();
        path
    }

    #[tokio::test]
    async fn a_version_5_file_gains_the_confidences_and_keeps_its_replies() {
        let path = version_5_file("v5");
        let old = crate::journal::RequestKey::new("m", None, &[crate::Message::user("x")]);
        // Read-only: read as it is (no column of log-probabilities), with
        // no confidences, and left as it is.
        let journal = Journal::open_read_only(&path).unwrap();
        let job = journal.job("j");
        assert_eq!(job.replies().await.unwrap(), 1);
        assert!(job.needs_review().await.unwrap().is_empty());
        assert!(job.confidences("p").await.unwrap().is_empty());
        assert_eq!(journal.cache().len().await.unwrap(), 1);
        drop((job, journal));
        assert_eq!(user_version(&path), 5);

        // Opened for writing: version 6, the records kept, the new
        // columns and tables there.
        let journal = Journal::open(&path).unwrap();
        assert_eq!(user_version(&path), 6);
        assert_eq!(journal.job("j").replies().await.unwrap(), 1);
        assert_eq!(journal.cache().len().await.unwrap(), 1);
        let connection = Connection::open(&path).unwrap();
        let (content, logprobs): (String, Option<String>) = connection
            .query_row("SELECT content, logprobs FROM replies", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((content.as_str(), logprobs), ("[A]\nold", None));
        let cached: Option<String> = connection
            .query_row("SELECT logprobs FROM cache", [], |r| r.get(0))
            .unwrap();
        assert_eq!(cached, None);
        for table in ["confidences", "reviews"] {
            let n: i64 = connection
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0, "{table}");
        }
        // A reply with log-probabilities is kept with them.
        let reply = crate::Reply::text("[A]\nnew").with_logprobs(vec![
            crate::model::TokenLogprob {
                token: "[A]\n".into(),
                logprob: 0.0,
                top: vec![],
            },
            crate::model::TokenLogprob {
                token: "new".into(),
                logprob: f64::NEG_INFINITY,
                top: vec![("new".into(), -0.25), ("old".into(), -1.5)],
            },
        ]);
        let job = journal.job("j");
        job.record(crate::journal::ReplyEntry {
            key: old,
            occurrence: 0,
            model: "m".into(),
            reply,
            cost: None,
            batch: None,
        })
        .await
        .unwrap();
        let (back, _) = job.replay(&old, 0).await.unwrap().unwrap();
        assert_eq!(back.logprobs.len(), 2);
        assert_eq!(
            back.logprobs[1].top,
            vec![("new".into(), -0.25), ("old".into(), -1.5)]
        );
        // Minus infinity, which JSON cannot write, as the lowest number.
        assert_eq!(back.logprobs[1].logprob, f64::MIN);
        assert_eq!(back.logprobs[1].probability(), 0.0);
    }

    #[test]
    fn a_current_file_without_its_feedback_table_is_refused() {
        let path = temp("v3-no-feedback");
        drop(Journal::open(&path).unwrap());
        assert_eq!(user_version(&path), 6);
        Connection::open(&path)
            .unwrap()
            .execute_batch("DROP TABLE feedback;")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(
            matches!(&error, JournalError::Corrupt { detail, .. } if detail == "the table feedback is missing"),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn a_migration_that_fails_leaves_the_file_as_it_was() {
        let path = version_1_file("v1-clash");
        // A table in the way of the migration's.
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE typed_runs (x);")
            .unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(matches!(error, JournalError::Sqlite { .. }), "{error:?}");
        assert_eq!(user_version(&path), 1);
        assert_eq!(
            Journal::open_read_only(&path)
                .unwrap()
                .job("j")
                .replies()
                .await
                .unwrap(),
            1
        );
    }
}
