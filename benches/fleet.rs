//! The journal's fleet, measured (not a test: it prints figures).
//!
//! 1. Throughput: 10,000 prompts of one job leased to 1, 2, 4 and 8 worker
//!    processes (`tests/fleet_worker.rs`, each running its share with
//!    `Think::run_share`: only the prompts it leases) on one PostgreSQL
//!    journal, against a model server on 127.0.0.1 that answers every
//!    request after 50 ms. Twice: with 32 runs at a time per worker, where
//!    the machine's cores bound the fleet (the workers, the server and
//!    PostgreSQL share them), and with 4 at a time, where the model's
//!    latency does and the table shows what the fleet's coordination
//!    (leases, `SKIP LOCKED`, commits) costs as workers are added. Wall
//!    time from the first worker's start to the last one's exit, each
//!    worker's peak memory (VmHWM), the CPU time the workers used together
//!    per prompt, and the whole machine's CPU time per prompt (workers,
//!    server and PostgreSQL: `/proc/stat`).
//! 2. The journal's cost per recorded attempt: 2,000 runs of one attempt
//!    each, one after another, through a scripted model (no latency), with
//!    no journal, a SQLite journal and a PostgreSQL one: p50 and p99 of a
//!    run's time, and the journal's share (the run's time less the median
//!    run without one).
//!
//! Needs a PostgreSQL server: `TWR_TEST_POSTGRES_URL` (scripts/postgres.sh
//! start). Run: `cargo bench -p twr-tests --bench fleet`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use twr_runtime::journal::Journal;
use twr_runtime::{ScriptedModel, Sections, Think};

const PROMPTS: usize = 10_000;
const LATENCY: Duration = Duration::from_millis(50);
/// Runs at a time per worker: cores-bound, then latency-bound.
const AT_A_TIME: [usize; 2] = [32, 4];

#[derive(Debug, Sections)]
struct Fact {
    /// The number.
    answer: u32,
    /// Why.
    reason: String,
}

async fn answer(Json(body): Json<Value>) -> Json<Value> {
    tokio::time::sleep(LATENCY).await;
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
    Json(json!({
        "choices": [{"message": {"role": "assistant",
            "content": format!("[Answer]\n{}\n[Reason]\nIt is written in document {n}.", n % 97)},
            "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
    }))
}

/// A fresh database on the server of `url`, by URL.
async fn database(url: &str, name: &str) -> String {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let (base, _) = url.rsplit_once('/').unwrap();
    format!("{base}/{name}")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// One throughput table: 1, 2, 4 and 8 workers, `at_a_time` runs each.
async fn throughput(server_url: &str, base: &str, at_a_time: usize) {
    println!(
        "throughput: {PROMPTS} prompts, {}-ms server, {at_a_time} runs at a time per worker",
        LATENCY.as_millis()
    );
    println!(
    "| workers | wall time | prompts/s | x one worker | of linear | peak memory per worker | workers' CPU per prompt | machine's CPU per prompt |"
);
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut one = None;
    for workers in [1usize, 2, 4, 8] {
        let url = database(
            server_url,
            &format!("twr_bench_fleet_{at_a_time}_{workers}"),
        )
        .await;
        drop(Journal::postgres(&url).await.unwrap());
        let busy_before = machine_busy_ms();
        let started = Instant::now();
        let children: Vec<_> = (0..workers)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_fleet-worker"))
                    .args([
                        url.as_str(),
                        base,
                        "bench",
                        &PROMPTS.to_string(),
                        "60000",
                        &at_a_time.to_string(),
                        "share",
                    ])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut memory = Vec::new();
        let mut cpu_ms = 0u64;
        for child in children {
            let output = tokio::task::spawn_blocking(move || child.wait_with_output())
                .await
                .unwrap()
                .unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            if let Some(kb) = stderr
                .lines()
                .find_map(|line| line.strip_prefix("fleet-worker peak memory: "))
            {
                memory.push(kb.trim_end_matches(" kB").parse::<u64>().unwrap());
            }
            if let Some(ms) = stderr
                .lines()
                .find_map(|line| line.strip_prefix("fleet-worker cpu ms: "))
            {
                cpu_ms += ms.parse::<u64>().unwrap();
            }
        }
        let wall = started.elapsed();
        let machine_ms = machine_busy_ms().saturating_sub(busy_before);
        let rate = PROMPTS as f64 / wall.as_secs_f64();
        let base_rate = *one.get_or_insert(rate);
        let max_kb = memory.iter().max().copied().unwrap_or(0);
        println!(
            "| {workers} | {:.1} s | {rate:.0} | {:.2} | {:.2} | {:.1} MB | {:.2} ms | {:.2} ms |",
            wall.as_secs_f64(),
            rate / base_rate,
            rate / (base_rate * workers as f64),
            max_kb as f64 / 1024.0,
            cpu_ms as f64 / PROMPTS as f64,
            machine_ms as f64 / PROMPTS as f64
        );
    }
    println!();
}

/// The machine's busy CPU time so far, all cores together, in
/// milliseconds: `/proc/stat`'s first line, user, system, interrupts and
/// steal (clock ticks of 10 ms, the USER_HZ of every Linux this runs on).
/// Time of processes run under `nice` is left out, so a build niced
/// beside the bench does not count as the fleet's.
fn machine_busy_ms() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
        return 0;
    };
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|n| n.parse().ok())
        .collect();
    [0, 2, 5, 6, 7]
        .iter()
        .map(|&i| ticks.get(i).copied().unwrap_or(0))
        .sum::<u64>()
        * 10
}

#[tokio::main]
async fn main() {
    let Ok(server_url) = std::env::var("TWR_TEST_POSTGRES_URL") else {
        eprintln!("fleet bench: set TWR_TEST_POSTGRES_URL (scripts/postgres.sh start)");
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let app = Router::new().route("/v1/chat/completions", post(answer));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    for at_a_time in AT_A_TIME {
        throughput(&server_url, &base, at_a_time).await;
    }

    println!(
        "\ncost per recorded attempt: 2000 one-attempt runs, one after another, scripted model"
    );
    println!("| journal | run p50 | run p99 | journal's share p50 | journal's share p99 |");
    println!("| --- | --- | --- | --- | --- |");
    let dir = std::env::temp_dir().join(format!("twr-bench-fleet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pg_url = database(&server_url, "twr_bench_cost").await;
    let mut baseline = Duration::ZERO;
    for name in ["none", "SQLite", "PostgreSQL"] {
        let journal = match name {
            "SQLite" => Some(Journal::open(dir.join("cost.twr")).unwrap()),
            "PostgreSQL" => Some(Journal::postgres(&pg_url).await.unwrap()),
            _ => None,
        };
        let mut times = Vec::with_capacity(2000);
        for n in 0..2000 {
            let reply = format!(
                "[Answer]\n{}\n[Reason]\nIt is written in document {n}.",
                n % 97
            );
            let model = ScriptedModel::new([reply]);
            let mut think = Think::new(&model);
            if let Some(journal) = &journal {
                think = think.journal(journal.job("cost"));
            }
            let started = Instant::now();
            let fact = think
                .run::<Fact>(format!("document {n}"))
                .await
                .unwrap()
                .value;
            times.push(started.elapsed());
            assert_eq!(
                (fact.answer as usize, fact.reason.len() > 20),
                (n % 97, true)
            );
        }
        times.sort();
        let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
        if name == "none" {
            baseline = p50;
        }
        println!(
            "| {name} | {p50:.2?} | {p99:.2?} | {:.2?} | {:.2?} |",
            p50.saturating_sub(baseline),
            p99.saturating_sub(baseline)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
