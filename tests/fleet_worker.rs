//! One worker of the fleet test (`tests/it/journal_fleet.rs`) and the
//! fleet bench (`benches/fleet.rs`): runs `run_many` (or, with `share`,
//! `run_share`) over a job whose prompts are leased, on the PostgreSQL
//! journal, against the test's model server, and prints how its runs
//! ended. Started as a child process, and killed with SIGKILL, by that
//! test; not a program for anything else.
//!
//! Arguments: journal URL, model server base URL, job name, prompts,
//! lease in milliseconds, concurrency, and `many` or `share`.

use std::time::Duration;

use futures_util::StreamExt as _;

use twr_runtime::journal::Journal;
use twr_runtime::{OpenAiCompatible, RetryPolicy, Sections, Think};

/// What the test's server answers: a number and a reason.
#[derive(Debug, Sections)]
struct Fact {
    /// The number.
    answer: u32,
    /// Why.
    reason: String,
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [journal, server, job, prompts, lease_ms, concurrency, mode] = &args[..] else {
        eprintln!(
            "usage: fleet-worker JOURNAL_URL SERVER_URL JOB PROMPTS LEASE_MS CONCURRENCY many|share"
        );
        std::process::exit(2);
    };
    let journal = Journal::postgres(journal).await.expect("the journal");
    let lease = Duration::from_millis(lease_ms.parse().expect("lease ms"));
    let job = journal.job(job.as_str()).lease_for(lease);
    let prompts: usize = prompts.parse().expect("prompts");
    let model = OpenAiCompatible::new(server, "fleet");
    let policy = RetryPolicy::default()
        .max_retries(20)
        .base_delay(Duration::from_millis(5))
        .max_delay(Duration::from_millis(50));
    let think = Think::new(&model)
        .journal(job)
        .retry_policy(policy)
        .max_attempts(4)
        .concurrency(concurrency.parse().expect("concurrency"));
    let prompt_list = (0..prompts).map(|n| format!("document {n}"));
    // `many`: every prompt's result, in input order; `share`: only those
    // of the prompts this worker ran.
    let results: Vec<(usize, _)> = match mode.as_str() {
        "many" => think
            .run_many::<Fact>(prompt_list)
            .await
            .into_iter()
            .enumerate()
            .collect(),
        "share" => think.run_share::<Fact>(prompt_list).collect().await,
        other => panic!("mode {other:?}: many or share"),
    };
    // Every value is the one its document asked for.
    let typed = results
        .iter()
        .filter(|(n, r)| {
            r.as_ref().is_ok_and(|o| {
                o.value.answer as usize == n % 97
                    && o.value.reason == format!("It is written in document {n}.")
            })
        })
        .count();
    for (n, result) in &results {
        if let Err(error) = result {
            eprintln!("document {n}: {error}");
        }
    }
    if mode == "share" {
        println!("ran {}", results.len());
    }
    println!("typed {typed} of {prompts}");
    // For the fleet bench: the most memory this process held.
    if let Some(peak) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_string()))
        })
    {
        eprintln!("fleet-worker peak memory: {peak}");
    }
    // For the fleet bench: the CPU time this process used (user and
    // system, in clock ticks of 1/100 s: fields 14 and 15 of its stat,
    // counted after the name's closing parenthesis).
    if let Some(ticks) = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            let fields: Vec<u64> = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .skip(11)
                .take(2)
                .map(|field| field.parse().ok())
                .collect::<Option<_>>()?;
            Some(fields.iter().sum::<u64>())
        })
    {
        eprintln!("fleet-worker cpu ms: {}", ticks * 10);
    }
}
