//! [`JournalError`]: why a journal could not be opened, read or written.

use std::fmt;
use std::path::PathBuf;

/// Why a [`Journal`](super::Journal) could not be opened, read or written.
///
/// Opening never starts over silently: a file that is not a twr journal, a
/// damaged one, or one written by a newer twr is an error naming the file,
/// and the file is left as it was.
///
/// `Display` says this level; the driver's error of
/// [`Sqlite`](Self::Sqlite) and `Postgres` is its
/// [`source()`](std::error::Error::source), printed next by a chain
/// printer (anyhow's `{:#}`) and reached with `downcast_ref`.
#[derive(Debug)]
#[non_exhaustive]
pub enum JournalError {
    /// The file is not a SQLite database at all (another program's file,
    /// or one damaged beyond recognition).
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file is a SQLite database of another program: it has no twr
    /// journal mark (`PRAGMA application_id`).
    Foreign {
        /// The file.
        path: PathBuf,
        /// What it has instead.
        found: String,
    },
    /// The file is a twr journal whose schema this version cannot read:
    /// a newer twr wrote it.
    Version {
        /// The file.
        path: PathBuf,
        /// Its schema version (`PRAGMA user_version`).
        found: i64,
        /// The version this twr reads and writes.
        supported: i64,
    },
    /// The file is a twr journal, but SQLite's integrity check or the
    /// schema check found damage.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What the check reported.
        detail: String,
    },
    /// The disk (or the journal's [`size_limit`](super::Journal::size_limit))
    /// is full: the last record was not written.
    Full {
        /// The file.
        path: PathBuf,
    },
    /// The journal cannot be written: the file or its directory is
    /// read-only, or it was opened with
    /// [`open_read_only`](super::Journal::open_read_only).
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// A record in the journal does not have the shape this twr writes.
    Record {
        /// What is wrong with it.
        detail: String,
    },
    /// The journal's connection was lost (its thread stopped, or its
    /// database server went away) before the record or read was done:
    /// what was not committed was not recorded.
    Lost {
        /// What was lost, and how.
        detail: String,
    },
    /// The address given to
    /// [`Journal::postgres`](super::Journal::postgres) is not one: not a
    /// PostgreSQL connection URL, or one whose TLS could not be set up.
    Address {
        /// What is wrong with it.
        detail: String,
    },
    /// A failure of the PostgreSQL server or of the connection to it (it
    /// refused the connection or the password, or a statement failed),
    /// with the driver's own error.
    #[cfg(feature = "postgres")]
    #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
    Postgres {
        /// The database: `postgres://host:port/name`, never the password.
        place: String,
        /// The driver's error.
        source: tokio_postgres::Error,
    },
    /// The PostgreSQL server's TLS certificate was refused: the URL asks
    /// for it to be checked (`sslmode=verify-full` or `verify-ca`, or a
    /// root certificate named with `sslrootcert`) and the certificate
    /// authorities trusted (those of `sslrootcert`, else the platform's) do
    /// not vouch for it, or it names another host (`verify-full`).
    /// `sslmode=require` without `sslrootcert` encrypts without checking it.
    #[cfg(feature = "postgres")]
    #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
    Certificate {
        /// The database: `postgres://host:port/name`, never the password.
        place: String,
        /// What it was checked against, as the URL asked: `sslmode=verify-full:
        /// against the platform's certificate authorities and the host name`.
        checked: String,
        /// The driver's error, with the TLS library's reason.
        source: tokio_postgres::Error,
    },
    /// Any other failure of SQLite (a locked file, an I/O error), with
    /// SQLite's own error.
    Sqlite {
        /// The file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::NotADatabase { path } => write!(
                f,
                "{} is not a twr journal (not a SQLite database); \
                 choose another path, or move the file away",
                path.display()
            ),
            JournalError::Foreign { path, found } => write!(
                f,
                "{} is a SQLite database of another program ({found}), not a twr journal; \
                 it was left untouched",
                path.display()
            ),
            JournalError::Version {
                path,
                found,
                supported,
            } => write!(
                f,
                "{} is a twr journal of schema version {found}; this twr reads version \
                 {supported} (a newer twr wrote it)",
                path.display()
            ),
            JournalError::Corrupt { path, detail } => {
                write!(f, "the twr journal {} is damaged: {detail}", path.display())
            }
            JournalError::Full { path } => write!(
                f,
                "the twr journal {} cannot grow (the disk or its size limit is full); \
                 the last record was not written",
                path.display()
            ),
            JournalError::ReadOnly { path } => write!(
                f,
                "the twr journal {} is read-only; nothing can be recorded in it",
                path.display()
            ),
            JournalError::Record { detail } => {
                write!(f, "a record of the twr journal is malformed: {detail}")
            }
            JournalError::Lost { detail } => {
                write!(f, "the twr journal's connection was lost: {detail}")
            }
            JournalError::Address { detail } => {
                write!(f, "the twr journal's address is wrong: {detail}")
            }
            // The driver's error is the source: a chain prints it next.
            #[cfg(feature = "postgres")]
            JournalError::Postgres { place, .. } => {
                write!(f, "the twr journal {place} failed on the PostgreSQL server")
            }
            #[cfg(feature = "postgres")]
            JournalError::Certificate { place, checked, .. } => write!(
                f,
                "the twr journal {place}: the server's TLS certificate is not trusted \
                 (checked with {checked}; name the authority that signed it with \
                 sslrootcert=FILE, or use sslmode=require to encrypt without checking it)"
            ),
            JournalError::Sqlite { path, .. } => {
                write!(f, "the twr journal {} failed in SQLite", path.display())
            }
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Sqlite { source, .. } => Some(source),
            #[cfg(feature = "postgres")]
            JournalError::Postgres { source, .. } => Some(source),
            #[cfg(feature = "postgres")]
            JournalError::Certificate { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl JournalError {
    /// The driver's error `source` on the database at `place`: a lost
    /// connection is [`JournalError::Lost`].
    #[cfg(feature = "postgres")]
    pub(crate) fn from_postgres(place: &str, source: tokio_postgres::Error) -> Self {
        if source.is_closed() {
            return JournalError::Lost {
                detail: format!("{place}: {source}"),
            };
        }
        JournalError::Postgres {
            place: place.to_string(),
            source,
        }
    }

    /// SQLite's error `source` on the journal at `path`, by its kind.
    pub(crate) fn from_sqlite(path: &std::path::Path, source: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => JournalError::NotADatabase { path },
            Some(ErrorCode::DiskFull) => JournalError::Full { path },
            Some(ErrorCode::ReadOnly) => JournalError::ReadOnly { path },
            Some(ErrorCode::DatabaseCorrupt) => JournalError::Corrupt {
                path,
                detail: source.to_string(),
            },
            _ => JournalError::Sqlite { path, source },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_sqlite_failure_says_its_level_and_its_source_is_sqlites_error() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".to_string()),
        );
        let error = JournalError::from_sqlite(std::path::Path::new("/data/jobs.db"), busy);
        assert!(matches!(error, JournalError::Sqlite { .. }), "{error:?}");
        // Each level once, as a chain printer (anyhow's `{:#}`) shows it.
        let mut texts = vec![error.to_string()];
        let mut source = error.source();
        while let Some(cause) = source {
            texts.push(cause.to_string());
            source = cause.source();
        }
        assert_eq!(
            texts[..2],
            [
                "the twr journal /data/jobs.db failed in SQLite",
                "database is locked"
            ]
        );
        let cause = error.source().unwrap().downcast_ref::<rusqlite::Error>();
        assert_eq!(
            cause.and_then(rusqlite::Error::sqlite_error_code),
            Some(rusqlite::ErrorCode::DatabaseBusy)
        );
    }
}
