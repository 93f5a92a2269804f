//! A fleet drains one job: 4 worker processes (`tests/fleet_worker.rs`)
//! run `run_many` over the same 2,000 prompts and the same PostgreSQL
//! journal, leasing each prompt to one worker at a time, against a model
//! server on 127.0.0.1 that fails requests (500s, 429s) and sends replies
//! that need a re-ask. Two workers are killed with SIGKILL mid-job.
//!
//! Checked afterwards: every prompt is typed exactly once in the job;
//! every call the server billed (a 200 with a reply) is in the job's
//! ledger except those in flight at the kills; the calls bought twice are
//! at most the calls in flight at the kills.
//!
//! A call in flight at the kills is one the server billed before the
//! last killed worker was dead and that the ledger never recorded: each
//! reply carries its call's number as its reasoning, which the ledger
//! keeps, so the count is exact whatever the load (a count of the requests
//! the server was answering at a kill misses the replies sent and not yet
//! recorded, which a loaded machine holds longer). No call billed after
//! the kills may be left out of the ledger. Runs when
//! `TWR_TEST_POSTGRES_URL` names a server (CI sets it).

use std::collections::{HashMap, HashSet};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::support::backends;

const PROMPTS: usize = 2_000;
const WORKERS: usize = 4;
const LEASE_MS: u64 = 2_000;
/// How long the server takes over each reply.
const LATENCY: Duration = Duration::from_millis(20);

/// The fake model: "document N" is answered with N mod 97; the first ask
/// of every 7th document gets a reply without its [Reason] (re-asked);
/// every 11th request fails with a 500 and every 13th with a 429 (retried
/// by the client, not billed). Every reply's reasoning is `call {n}`, its
/// request's number (counted as the request arrives). Counts what it billed
/// by request body, and the numbers of the billed calls.
#[derive(Clone, Default)]
struct Server {
    requests: Arc<AtomicUsize>,
    billed: Arc<Mutex<HashMap<String, usize>>>,
    billed_calls: Arc<Mutex<Vec<usize>>>,
}

async fn answer(State(server): State<Server>, Json(body): Json<Value>) -> Response {
    let nth = server.requests.fetch_add(1, Ordering::SeqCst) + 1;
    tokio::time::sleep(LATENCY).await;
    if nth.is_multiple_of(11) {
        return (StatusCode::INTERNAL_SERVER_ERROR, "overloaded").into_response();
    }
    if nth.is_multiple_of(13) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "0")],
            "slow down",
        )
            .into_response();
    }
    let messages = body["messages"].as_array().unwrap();
    let first = messages.iter().find(|m| m["role"] == "user").unwrap();
    let n: usize = first["content"]
        .as_str()
        .unwrap()
        .strip_prefix("document ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    let content = if n.is_multiple_of(7) && messages.len() <= 2 {
        format!("[Answer]\n{}", n % 97)
    } else {
        format!(
            "[Answer]\n{}\n[Reason]\nIt is written in document {n}.",
            n % 97
        )
    };
    *server
        .billed
        .lock()
        .unwrap()
        .entry(body["messages"].to_string())
        .or_default() += 1;
    server.billed_calls.lock().unwrap().push(nth);
    Json(json!({
        "choices": [{"message": {"role": "assistant", "content": content,
            "reasoning_content": format!("call {nth}")}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
    }))
    .into_response()
}

/// Where in `workers` the worker is that holds the most leases of the
/// job's prompts not yet typed, and how many; `None` when none holds any.
/// A lease's holder is its worker's process id, a dash and a random
/// number (`Job::lease_for`), and a leased prompt is one not yet typed.
async fn holding_most(
    admin: &tokio_postgres::Client,
    workers: &[(usize, Child)],
) -> Option<(usize, i64)> {
    let held: HashMap<u32, i64> = admin
        .query(
            "SELECT holder, count(*) FROM twr_prompts
             WHERE job = 'fleet' AND state = 'leased' GROUP BY holder",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .filter_map(|row| {
            let holder: &str = row.get(0);
            let pid = holder.split_once('-')?.0.parse().ok()?;
            Some((pid, row.get(1)))
        })
        .collect();
    workers
        .iter()
        .enumerate()
        .map(|(at, (_, child))| (at, held.get(&child.id()).copied().unwrap_or(0)))
        .filter(|&(_, leases)| leases > 0)
        .max_by_key(|&(_, leases)| leases)
}

fn worker(journal: &str, server: &str, job: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fleet-worker"))
        .args([
            journal,
            server,
            job,
            &PROMPTS.to_string(),
            &LEASE_MS.to_string(),
            "16",
            "many",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fleet worker (tests/fleet_worker.rs)")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_workers_drain_one_job_and_two_killed_ones_cost_only_their_calls_in_flight() {
    let Some(journal_url) = backends::postgres_database("fleet").await else {
        return;
    };
    let server = Server::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(answer))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    // The journal's tables exist before the workers start (they would
    // make them too, once, whoever came first).
    let journal = twr_runtime::journal::Journal::postgres(&journal_url)
        .await
        .unwrap();
    let job = journal.job("fleet");
    let (admin, connection) = tokio_postgres::connect(&journal_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);

    let started = Instant::now();
    // Each worker with its number.
    let mut workers: Vec<(usize, Child)> = (0..WORKERS)
        .map(|n| (n, worker(&journal_url, &base, "fleet")))
        .collect();

    // Kill a worker once 300 prompts are typed and another once 900 are,
    // each one seen then holding leases of prompts not yet typed (the one
    // holding the most). Which worker holds some changes as the job goes:
    // one slow to start, or one that fell behind and replays the prompts
    // others typed (run_many walks the prompts in order), holds none, and
    // killed then it would leave nothing for the others to take over.
    // The number of the last request that arrived before the last killed
    // worker was dead: no request of a killed worker comes after it.
    let mut asked_before_kills = 0;
    let mut kills = Vec::new();
    for at in [300, 900] {
        let (at_kill, leases) = loop {
            let typed = job.progress().await.unwrap().typed;
            if typed >= at {
                if let Some(found) = holding_most(&admin, &workers).await {
                    break found;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(300),
                "the fleet typed {typed} prompts in 300 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let (victim, mut killed) = workers.remove(at_kill);
        killed.kill().unwrap();
        let status = killed.wait().unwrap();
        assert!(!status.success(), "worker {victim} was killed mid-job");
        asked_before_kills = server.requests.load(Ordering::SeqCst);
        kills.push(format!("worker {victim} holding {leases} leases"));
    }

    // The other two drain the job, the killed ones' prompts included.
    for (n, survivor) in workers {
        let output = tokio::task::spawn_blocking(move || survivor.wait_with_output())
            .await
            .unwrap()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "worker {n}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            stdout.trim(),
            format!("typed {PROMPTS} of {PROMPTS}"),
            "worker {n}"
        );
    }
    let elapsed = started.elapsed();

    // Every prompt typed exactly once in the job.
    let progress = job.progress().await.unwrap();
    assert_eq!(
        (
            progress.pending,
            progress.leased,
            progress.typed,
            progress.failed
        ),
        (0, 0, PROMPTS, 0)
    );
    let outcomes = job.outcomes().await.unwrap();
    assert_eq!(outcomes.len(), PROMPTS);
    assert!(outcomes
        .iter()
        .enumerate()
        .all(|(n, o)| o.ok && o.index == n));
    let retaken: i64 = admin
        .query_one(
            "SELECT coalesce(sum(leases - 1), 0)::bigint FROM twr_prompts WHERE job = 'fleet'",
            &[],
        )
        .await
        .unwrap()
        .get(0);

    // Every billed call is in the ledger, but those in flight at the kills:
    // the calls billed before the last kill that no ledger line names.
    let billed: HashMap<String, usize> = server.billed.lock().unwrap().clone();
    let billed_calls: usize = billed.values().sum();
    let bought_twice: usize = billed.values().map(|&n| n - 1).sum();
    let recorded = job.replies().await.unwrap() as usize;
    let recorded_calls: HashSet<usize> = admin
        .query("SELECT reasoning FROM twr_replies WHERE job = 'fleet'", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| {
            let reasoning: String = row.get(0);
            reasoning.strip_prefix("call ").unwrap().parse().unwrap()
        })
        .collect();
    let (in_flight, after_kills): (Vec<usize>, Vec<usize>) = server
        .billed_calls
        .lock()
        .unwrap()
        .iter()
        .filter(|n| !recorded_calls.contains(n))
        .partition(|&&n| n <= asked_before_kills);
    assert_eq!(
        after_kills,
        Vec::<usize>::new(),
        "calls billed after the kills and left out of the ledger"
    );
    let in_flight_at_kills = in_flight.len();
    eprintln!(
        "fleet: {PROMPTS} prompts, {WORKERS} workers (2 killed) in {elapsed:.1?}: \
         {} requests, {billed_calls} billed, {recorded} in the ledger, {bought_twice} bought twice, \
         {in_flight_at_kills} in flight at the kills, {retaken} prompts taken over; killed: {}",
        server.requests.load(Ordering::SeqCst),
        kills.join(", ")
    );
    assert_eq!(
        recorded,
        billed.len(),
        "one recorded reply per distinct billed request"
    );
    // Each line of the ledger is a call the server billed, none twice.
    let billed_numbers: HashSet<usize> = server
        .billed_calls
        .lock()
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_eq!(recorded_calls.len(), recorded, "a call recorded twice");
    assert!(
        recorded_calls.is_subset(&billed_numbers),
        "a ledger line names no billed call"
    );
    assert_eq!(billed_calls - recorded, in_flight_at_kills);
    assert!(
        bought_twice <= in_flight_at_kills,
        "{bought_twice} calls bought twice, {in_flight_at_kills} in flight at the kills"
    );
    // Two workers died mid-job holding prompts that others took over.
    assert!(retaken > 0, "no prompt of a killed worker was taken over");
}
