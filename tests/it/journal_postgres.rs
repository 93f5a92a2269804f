//! The journal on PostgreSQL, where it differs from a file: its address,
//! its schema's versions in a live database, and a connection lost in the
//! middle of a run. The journal's behaviour on both backends is in
//! `journal_resume.rs`. The tests that need a server run when
//! `TWR_TEST_POSTGRES_URL` names one (`scripts/postgres.sh start`); CI sets
//! it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use twr_runtime::journal::{Journal, JournalError};
use twr_runtime::{model, ModelError, Reply, ScriptedModel, Sections, Think};

use crate::support::backends;

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// A connection to the test database (not through the journal), for what
/// a test does behind the journal's back.
async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

#[tokio::test]
async fn a_wrong_address_is_a_clear_error_that_keeps_the_password_out() {
    let error = Journal::postgres("http://example.com/not a database")
        .await
        .unwrap_err();
    assert!(matches!(error, JournalError::Address { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("the twr journal's address is wrong: not a PostgreSQL connection URL: "),
        "{error}"
    );

    // Nothing listens on port 1.
    let error = Journal::postgres("postgres://twr:s3cret@127.0.0.1:1/jobs?connect_timeout=5")
        .await
        .unwrap_err();
    assert!(
        matches!(&error, JournalError::Postgres { place, .. } if place == "postgres://127.0.0.1:1/jobs"),
        "{error:?}"
    );
    // Its own level, then the driver's error as its source.
    assert_eq!(
        error.to_string(),
        "the twr journal postgres://127.0.0.1:1/jobs failed on the PostgreSQL server"
    );
    let driver = std::error::Error::source(&error).unwrap();
    assert!(driver.downcast_ref::<tokio_postgres::Error>().is_some());
    let shown = format!("{} {error:?}", crate::support::report(&error));
    assert!(
        shown.starts_with(
            "the twr journal postgres://127.0.0.1:1/jobs failed on the PostgreSQL server: \
             error connecting to server"
        ),
        "{shown}"
    );
    assert!(!shown.contains("s3cret"), "{shown}");
}

#[tokio::test]
async fn a_database_of_a_newer_schema_is_refused_and_left_as_it_is() {
    let Some(url) = backends::postgres_database("newer").await else {
        return;
    };
    drop(Journal::postgres(&url).await.unwrap());
    let client = admin(&url).await;
    client
        .execute(
            "UPDATE twr_meta SET value = '99' WHERE key = 'schema_version'",
            &[],
        )
        .await
        .unwrap();
    let error = Journal::postgres(&url).await.unwrap_err();
    assert!(
        matches!(
            error,
            JournalError::Version {
                found: 99,
                supported: 6,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .ends_with("is a twr journal of schema version 99; this twr reads version 6 (a newer twr wrote it)"),
        "{error}"
    );
    let version: String = client
        .query_one(
            "SELECT value FROM twr_meta WHERE key = 'schema_version'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, "99");
}

#[tokio::test]
async fn an_older_database_is_upgraded_in_place_once_by_workers_starting_together() {
    let Some(url) = backends::postgres_database("older").await else {
        return;
    };
    // A database of schema version 1 with a job's reply: the tables of
    // version 1, as a twr of then made them, and that reply.
    let journal = Journal::postgres(&url).await.unwrap();
    let model = ScriptedModel::new(["[Number]\n4"]);
    Think::new(&model)
        .journal(journal.job("old"))
        .run::<Doubled>("item 2")
        .await
        .unwrap();
    drop(journal);
    let client = admin(&url).await;
    client
        .batch_execute(
            "DROP TABLE twr_typed_runs; DROP TABLE twr_feedback; DROP TABLE twr_prompts;
             DROP INDEX twr_batches_by_intent; ALTER TABLE twr_batches DROP COLUMN intent;
             DROP TABLE twr_confidences; DROP TABLE twr_reviews;
             ALTER TABLE twr_replies DROP COLUMN logprobs; ALTER TABLE twr_cache DROP COLUMN logprobs;
             UPDATE twr_meta SET value = '1' WHERE key = 'schema_version';",
        )
        .await
        .unwrap();

    // Four workers start at once: one upgrades, the others find it done.
    let opened = futures_util::future::join_all((0..4).map(|_| Journal::postgres(&url))).await;
    let journals: Vec<Journal> = opened.into_iter().map(Result::unwrap).collect();
    let meta: Vec<(String, String)> = client
        .query("SELECT key, value FROM twr_meta ORDER BY key", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let by = format!("twr-runtime {}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        meta,
        [
            ("created_by".to_string(), by.clone()),
            ("migrated_by".to_string(), by),
            ("schema_version".to_string(), "6".to_string()),
        ]
    );
    // The reply of version 1 is replayed; the new tables work.
    let job = journals[3].job("old");
    let empty = ScriptedModel::new(Vec::<String>::new());
    let again = Think::new(&empty)
        .journal(job.clone())
        .run::<Doubled>("item 2")
        .await
        .unwrap();
    assert_eq!((again.value.number, empty.calls()), (4, 0));
    assert_eq!(job.replies().await.unwrap(), 1);
    assert!(job.feedback_rates().await.unwrap().is_empty());
    let typed = job.typed_runs::<Doubled>().await.unwrap();
    assert_eq!(
        typed
            .iter()
            .map(|run| (run.prompt.as_str(), run.answer.as_str()))
            .collect::<Vec<_>>(),
        [("item 2", "[Number]\n4")]
    );
    // So do version 6's: a reply's log-probabilities and the confidences.
    let logprobs = twr_runtime::Reply::text("[Number]\n6").with_logprobs(vec![
        twr_runtime::model::TokenLogprob {
            token: "[Number]\n".into(),
            logprob: 0.0,
            top: vec![],
        },
        twr_runtime::model::TokenLogprob {
            token: "6".into(),
            logprob: 0.5f64.ln(),
            top: vec![],
        },
    ]);
    let model = ScriptedModel::from_replies([logprobs]);
    let sure = Think::new(&model)
        .confidence(true)
        .review_below(0.9)
        .journal(job.clone())
        .run::<Doubled>("item 3")
        .await
        .unwrap();
    assert_eq!(sure.needs_review(), ["number"]);
    let recorded = job.confidences("item 3").await.unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].field, "number");
    assert!((recorded[0].confidence - 0.5).abs() < 1e-12);
    assert_eq!(job.needs_review().await.unwrap()[0].prompt, "item 3");
}

/// A TCP proxy from 127.0.0.1 to `target` that can be cut: every
/// connection through it is closed and no new one is taken, as when a
/// database server goes away.
struct Proxy {
    port: u16,
    cut: Arc<AtomicBool>,
    tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Proxy {
    async fn start(target: String) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(AtomicBool::new(false));
        let tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let (accepting, held) = (cut.clone(), tasks.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if accepting.load(Ordering::SeqCst) {
                    continue;
                }
                let target = target.clone();
                held.lock().unwrap().push(tokio::spawn(async move {
                    let mut outbound = tokio::net::TcpStream::connect(target).await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }));
            }
        });
        tasks.lock().unwrap().push(accept);
        Proxy { port, cut, tasks }
    }

    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for task in self.tasks.lock().unwrap().iter().skip(1) {
            task.abort();
        }
    }
}

#[tokio::test]
async fn a_connection_lost_mid_run_ends_it_with_the_reply_kept_and_nothing_half_recorded() {
    let Some(url) = backends::postgres_database("lost").await else {
        return;
    };
    let config: tokio_postgres::Config = url.parse().unwrap();
    let tokio_postgres::config::Host::Tcp(host) = &config.get_hosts()[0] else {
        panic!("the test server is reached over TCP")
    };
    let proxy = Proxy::start(format!("{host}:{}", config.get_ports()[0])).await;
    let through = url.replacen(
        &format!(":{}/", config.get_ports()[0]),
        &format!(":{}/", proxy.port),
        1,
    );
    let journal = Journal::postgres(&format!("{through}?connect_timeout=5"))
        .await
        .unwrap();
    let job = journal.job("lost");

    // The first run is recorded; the server goes away while the model
    // writes the second run's reply.
    let cut = Arc::new(Mutex::new(Some(proxy)));
    let cutting = cut.clone();
    let model = model::from_fn(move |messages| {
        let cutting = cutting.clone();
        async move {
            let asked = messages.last().unwrap().content.to_string();
            if asked.starts_with("item 3") {
                if let Some(proxy) = cutting.lock().unwrap().as_ref() {
                    proxy.cut();
                }
            }
            let n: u32 = asked[5..6].parse().unwrap();
            Ok(Reply::text(format!("[Number]\n{}", 2 * n)))
        }
    });
    let think = Think::new(&model).journal(job.clone());
    assert_eq!(
        think.run::<Doubled>("item 2").await.unwrap().value.number,
        4
    );
    let error = think.run::<Doubled>("item 3").await.unwrap_err();
    let model_error = error.model_error().unwrap();
    // The reply is kept, with the journal's error as the reason.
    assert_eq!(model_error.partial().unwrap().content, "[Number]\n6");
    let ModelError::Incomplete { source, .. } = model_error else {
        panic!("{model_error:?}")
    };
    let ModelError::Other(inner) = &**source else {
        panic!("{source:?}")
    };
    let journal_error = inner.downcast_ref::<JournalError>().unwrap();
    assert!(
        matches!(
            journal_error,
            JournalError::Lost { .. } | JournalError::Postgres { .. }
        ),
        "{journal_error:?}"
    );
    assert!(
        journal_error.to_string().starts_with("the twr journal"),
        "{journal_error}"
    );

    // Straight to the server: the first run's reply, nothing of the second.
    let direct = Journal::postgres(&url).await.unwrap();
    let client = admin(&url).await;
    let rows: Vec<String> = client
        .query("SELECT content FROM twr_replies WHERE job = 'lost'", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(rows, ["[Number]\n4"]);
    assert_eq!(direct.job("lost").replies().await.unwrap(), 1);
}

/// `url` with `sslmode` set to `mode` (the test server's URL has no query).
fn with_sslmode(url: &str, mode: &str) -> String {
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}sslmode={mode}")
}

/// The test server speaks TLS with a certificate signed by an authority
/// made at its start (`scripts/postgres.sh`, when `openssl` is there; CI sets
/// `TWR_TEST_POSTGRES_TLS` to say it must). `sslmode=require` encrypts
/// without checking the certificate, as libpq does: a run is recorded and
/// read back over TLS, and the server sees the journal's connections
/// encrypted. `sslmode=verify-full` checks it against the platform's
/// certificates and refuses it with a clear error naming the place.
#[tokio::test]
async fn tls_require_records_and_reads_and_verify_full_refuses_a_self_signed_server() {
    let Some(url) = backends::postgres_database("tls").await else {
        return;
    };
    let client = admin(&url).await;
    let ssl: String = client.query_one("SHOW ssl", &[]).await.unwrap().get(0);
    if ssl != "on" {
        assert!(
            std::env::var_os("TWR_TEST_POSTGRES_TLS").is_none(),
            "TWR_TEST_POSTGRES_TLS is set, yet the test server has ssl = {ssl}"
        );
        eprintln!(
            "skipped: the test server has no TLS (scripts/postgres.sh turns it on with openssl)"
        );
        return;
    }
    let database: String = client
        .query_one("SELECT current_database()", &[])
        .await
        .unwrap()
        .get(0);

    let journal = Journal::postgres(&with_sslmode(&url, "require"))
        .await
        .unwrap();
    let model = ScriptedModel::new(["[Number]\n4"]);
    let job = journal.job("tls");
    let first = Think::new(&model)
        .journal(job.clone())
        .run::<Doubled>("item 2")
        .await
        .unwrap();
    assert_eq!(first.value, Doubled { number: 4 });
    // Read back over a new journal: the run replays the recorded reply,
    // and the model is asked nothing more.
    drop(journal);
    let journal = Journal::postgres(&with_sslmode(&url, "require"))
        .await
        .unwrap();
    let job = journal.job("tls");
    let second = Think::new(&model)
        .journal(job.clone())
        .run::<Doubled>("item 2")
        .await
        .unwrap();
    assert_eq!(second.value, Doubled { number: 4 });
    assert_eq!(model.calls(), 1);
    assert_eq!(job.replies().await.unwrap(), 1);
    let encrypted: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
             WHERE a.datname = $1 AND s.ssl",
            &[&database],
        )
        .await
        .unwrap()
        .get(0);
    assert!(encrypted >= 1, "no connection of the journal was encrypted");
    drop(journal);

    let error = Journal::postgres(&with_sslmode(&url, "verify-full"))
        .await
        .unwrap_err();
    let place = url.replace("twr@", "");
    assert!(
        matches!(&error, JournalError::Certificate { place: p, .. } if *p == place),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the twr journal {place}: the server's TLS certificate is not trusted (checked \
             with sslmode=verify-full: against the platform's certificate authorities and the \
             host name; name the authority that signed it with sslrootcert=FILE, or use \
             sslmode=require to encrypt without checking it)"
        )
    );
    let shown = crate::support::report(&error);
    assert!(shown.contains("invalid peer certificate"), "{shown}");
}

/// The test server's certificate authority, from `TWR_TEST_POSTGRES_CA`
/// (`scripts/postgres.sh ca`); `None` (the test skipped) without it,
/// unless `TWR_TEST_POSTGRES_TLS` says the server must have one.
fn test_ca() -> Option<std::path::PathBuf> {
    match std::env::var_os("TWR_TEST_POSTGRES_CA") {
        Some(path) => Some(path.into()),
        None => {
            assert!(
                std::env::var_os("TWR_TEST_POSTGRES_TLS").is_none(),
                "TWR_TEST_POSTGRES_TLS is set without TWR_TEST_POSTGRES_CA"
            );
            eprintln!("skipped: set TWR_TEST_POSTGRES_CA=$(scripts/postgres.sh ca)");
            None
        }
    }
}

/// `sslrootcert` names the authority that signed the server's certificate,
/// as libpq reads it: `verify-full` takes the server at 127.0.0.1 (its
/// certificate names it) and records a run over TLS; connected to the same
/// address under another host name (`hostaddr`), `verify-full` refuses the
/// certificate for the name while `verify-ca`, which checks only who
/// signed it, takes it; an authority that signed nothing of the server's
/// is refused with the file it came from in the error; a missing file is a
/// clear error before any connection.
#[tokio::test]
async fn sslrootcert_trusts_the_authority_it_names_and_verify_ca_ignores_the_host_name() {
    let Some(url) = backends::postgres_database("rootcert").await else {
        return;
    };
    let Some(ca) = test_ca() else { return };
    let with = |url: &str, query: &str| {
        let joiner = if url.contains('?') { '&' } else { '?' };
        format!("{url}{joiner}{query}")
    };
    let ca_query = format!("sslrootcert={}", ca.display());

    let journal = Journal::postgres(&with(&url, &format!("sslmode=verify-full&{ca_query}")))
        .await
        .unwrap();
    let model = ScriptedModel::new(["[Number]\n4"]);
    let outcome = Think::new(&model)
        .journal(journal.job("rootcert"))
        .run::<Doubled>("item 2")
        .await
        .unwrap();
    assert_eq!(outcome.value, Doubled { number: 4 });
    assert_eq!(journal.job("rootcert").replies().await.unwrap(), 1);
    drop(journal);

    // The same server under a name its certificate does not hold.
    let renamed = url.replacen("@127.0.0.1:", "@db.invalid:", 1);
    let renamed = with(&renamed, "hostaddr=127.0.0.1");
    let error = Journal::postgres(&with(&renamed, &format!("sslmode=verify-full&{ca_query}")))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, JournalError::Certificate { checked, .. }
        if *checked == format!(
            "sslmode=verify-full: against the certificate authorities in {} and the host name",
            ca.display()
        )),
        "{error:?}"
    );
    let shown = crate::support::report(&error);
    assert!(shown.contains("not valid for name"), "{shown}");
    let journal = Journal::postgres(&with(&renamed, &format!("sslmode=verify-ca&{ca_query}")))
        .await
        .unwrap();
    assert_eq!(journal.job("rootcert").replies().await.unwrap(), 1);
    drop(journal);

    // An authority of its own, which signed nothing of the server's.
    let dir = std::env::temp_dir().join(format!("twr-rootcert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let other = dir.join("other-ca.crt");
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=another CA", "-keyout"])
        .arg(dir.join("other-ca.key"))
        .arg("-out")
        .arg(&other)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let error = Journal::postgres(&with(
        &url,
        &format!("sslmode=verify-ca&sslrootcert={}", other.display()),
    ))
    .await
    .unwrap_err();
    let place = url.replace("twr@", "");
    assert_eq!(
        error.to_string(),
        format!(
            "the twr journal {place}: the server's TLS certificate is not trusted (checked \
             with sslmode=verify-ca: against the certificate authorities in {}; name the \
             authority that signed it with sslrootcert=FILE, or use sslmode=require to \
             encrypt without checking it)",
            other.display()
        )
    );

    let missing = dir.join("missing.crt");
    let error = Journal::postgres(&with(
        &url,
        &format!("sslmode=verify-full&sslrootcert={}", missing.display()),
    ))
    .await
    .unwrap_err();
    assert!(
        matches!(&error, JournalError::Address { detail }
            if detail.starts_with(&format!("sslrootcert={}: ", missing.display()))),
        "{error:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
