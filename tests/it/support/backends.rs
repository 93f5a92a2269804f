//! The journal's backends, for tests that run against each: a SQLite file,
//! and a PostgreSQL database when `TWR_TEST_POSTGRES_URL` names a server
//! (`scripts/postgres.sh start` starts one; CI sets it, and there a missing
//! server fails the test instead of leaving PostgreSQL untested).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use twr_runtime::journal::Journal;

/// Where a test's journal lives; [`Backend::open`] opens it again as a
/// new process would.
#[derive(Debug, Clone)]
pub enum Backend {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database of its own, by URL.
    Postgres(String),
}

impl Backend {
    /// Opens the journal (a new handle: a new process's view).
    pub async fn open(&self) -> Journal {
        match self {
            Backend::Sqlite(path) => Journal::open(path).unwrap(),
            Backend::Postgres(url) => Journal::postgres(url).await.unwrap(),
        }
    }
}

/// A fresh SQLite file for the test `name`.
pub fn sqlite(name: &str) -> Backend {
    let dir = std::env::temp_dir().join(format!("twr-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Backend::Sqlite(dir.join("journal.twr"))
}

/// Every backend for the test `name`: SQLite, and PostgreSQL when a server
/// is given.
pub async fn all(name: &str) -> Vec<Backend> {
    let mut backends = vec![sqlite(name)];
    if let Some(url) = postgres_database(name).await {
        backends.push(Backend::Postgres(url));
    }
    backends
}

/// The URL of the test server, if there is one; under CI there must be.
pub fn postgres_server() -> Option<String> {
    match std::env::var("TWR_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI must test the journal on PostgreSQL: set TWR_TEST_POSTGRES_URL (scripts/postgres.sh start)"
            );
            None
        }
    }
}

/// A new, empty database on the test server for the test `name`, by URL;
/// `None` without a server.
pub async fn postgres_database(name: &str) -> Option<String> {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let server = postgres_server()?;
    let database = format!(
        "twr_{}_{}_{}",
        name.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        std::process::id(),
        MADE.fetch_add(1, Ordering::SeqCst)
    );
    let (client, connection) = tokio_postgres::connect(&server, tokio_postgres::NoTls)
        .await
        .expect("the test PostgreSQL server of TWR_TEST_POSTGRES_URL");
    let connection = tokio::spawn(connection);
    for statement in [
        format!("DROP DATABASE IF EXISTS {database}"),
        format!("CREATE DATABASE {database}"),
    ] {
        client.batch_execute(&statement).await.unwrap();
    }
    drop(client);
    let _ = connection.await;
    Some(with_database(&server, &database))
}

/// `url` naming `database` instead of its own.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_end = base
        .find("://")
        .map(|at| at + 3)
        .and_then(|start| base[start..].find('/').map(|slash| start + slash))
        .unwrap_or(base.len());
    let mut out = format!("{}/{database}", &base[..authority_end]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}
