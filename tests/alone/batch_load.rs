//! Load (issue 22.6): 10,000 prompts in three rounds of re-asks through the
//! emulated OpenAI Batch API, with the journal on disk, and the process's
//! peak resident memory read from `/proc/self/status` (`VmHWM`, reset
//! before the job through `/proc/self/clear_refs`).
//!
//! In this binary, not `tests/it/`: the peak resident set is the whole
//! process's, so no other test may run meanwhile (it holds [`crate::ALONE`]).
//! `cargo test --test alone batch_load -- --nocapture` prints the figures.

use std::time::{Duration, Instant};

use crate::openai_batch::{item_of, OpenAiBatchServer};
use serde_json::Value;
use twr_runtime::batch::BatchModel;
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::Journal;
use twr_runtime::{OpenAiCompatible, RetryPolicy, Sections, Think};

const PROMPTS: u32 = 10_000;

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// Even items are typed in round one; odd ones need a re-ask (round two);
/// items ending in 5 need another (round three).
fn answer(body: &Value) -> String {
    let n = item_of(body);
    let messages = body["messages"].as_array().unwrap();
    let good = format!("[Number]\n{}", 2 * n);
    if messages.len() == 1 {
        return if n % 2 == 1 {
            "[Number]\nabout that".into()
        } else {
            good
        };
    }
    let replied = messages[messages.len() - 2]["content"].as_str().unwrap();
    if n % 10 == 5 && replied.contains("about that") {
        "[Number]\nroughly".into()
    } else {
        good
    }
}

/// Resets the peak resident set to the current one (Linux: writing 5 to
/// `clear_refs`); false where it cannot be reset.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak resident set of this process so far, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_prompts_in_three_rounds_within_a_memory_bound() {
    let _alone = crate::ALONE.lock().await;
    let server = OpenAiBatchServer::start(answer, vec![]).await;
    let dir = std::env::temp_dir().join(format!("twr-batch-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = Journal::open(dir.join("load.twr")).unwrap();
    let job = journal.job("load");
    assert!(
        reset_peak_rss(),
        "the peak resident set cannot be reset here"
    );
    let before = peak_rss_kib();
    let started = Instant::now();
    let client = OpenAiCompatible::new(&server.url, "gpt-test").api_key("sk-load");
    let model = BatchModel::openai(client)
        .journal(job.clone())
        .gather_window(Duration::from_millis(500))
        .poll_interval(Duration::from_millis(20));
    let prompts: Vec<String> = (0..PROMPTS).map(|n| format!("item {n}")).collect();
    let mut typed = 0u32;
    let mut cost = 0.0;
    let mut wrong = Vec::new();
    {
        let results = Think::new(&model)
            .journal(job.clone())
            .concurrency(PROMPTS as usize)
            .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
            .prices(
                Prices::new().with("gpt-test", Price::per_million(2.0, 8.0).batch_discount(0.5)),
            )
            .run_many::<Doubled>(prompts)
            .await;
        for (n, result) in results.iter().enumerate() {
            match result {
                Ok(outcome) if outcome.value.number == 2 * n as u32 => {
                    typed += 1;
                    cost += outcome.cost().unwrap();
                }
                _ => wrong.push(n),
            }
        }
    }
    let elapsed = started.elapsed();
    let peak = peak_rss_kib();
    assert!(
        wrong.is_empty(),
        "{} runs went wrong, first {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    assert_eq!(typed, PROMPTS);
    // Three rounds: 10,000 prompts, 5,000 re-asks, 1,000 more.
    assert_eq!((server.batches(), server.lines()), (3, 16_000));
    assert_eq!(model.rounds(), 3);
    assert!(server.asked().iter().all(|&n| n == 1));
    assert_eq!(job.replies().unwrap(), 16_000);
    assert_eq!(job.outcomes().unwrap().len(), PROMPTS as usize);
    let file = std::fs::metadata(dir.join("load.twr")).unwrap().len()
        + std::fs::metadata(dir.join("load.twr-wal")).map_or(0, |m| m.len());
    println!(
        "10,000 prompts, 3 rounds, 16,000 batch lines: {:.1} s, peak RSS {} MiB \
         (before the job {} MiB), journal {} MiB, cost ${cost:.2}",
        elapsed.as_secs_f64(),
        peak / 1024,
        before / 1024,
        file / (1024 * 1024),
    );
    // Measured: 273 MiB in a debug build, the emulator and its files
    // included; it grows with the prompts of a round (about 26 KiB each:
    // every run of the round is a live future waiting for its line, and
    // every outcome is returned), so the bound catches a run that holds
    // much more per prompt than that, or anything held twice over.
    assert!(peak < 400 * 1024, "peak RSS {peak} KiB");
}
