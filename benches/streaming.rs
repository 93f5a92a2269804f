//! The incremental section parser against the whole-reply parser, on the
//! same 1.5 MB reply in the same run:
//!
//! - `whole` (the ratio's base): one `parse_sections` of the whole reply;
//! - `stream/N`: the reply fed to [`SectionStream`] in N chunks (1, 100,
//!   10,000, 100,000), each section reported as it completes, then the
//!   value;
//! - `reparse/N`: what other structured-streaming libraries do, re-parsing
//!   the accumulated text after every chunk. Quadratic: measured up to 100
//!   chunks, and beyond that extrapolated from the time per chunk at 100
//!   (each re-parse reads on average half the reply, so the time grows
//!   with N).
//!
//! `cargo bench -p twr-tests --bench streaming` runs criterion on the measured cases,
//! then prints a Markdown table: for each chunk count the fastest of several
//! interleaved rounds and its ratio to one whole parse. The target is
//! `stream/100000` within 1.5x of `whole`. On a shared machine keep the run
//! short: `cargo bench -p twr-tests --bench streaming -- --sample-size 10 --warm-up-time 1
//! --measurement-time 2`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use twr_runtime::parse::{SectionStream, StreamEvent};
use twr_runtime::Sections;

#[path = "common/report.rs"]
mod report;
use report::{reply, Priority, Report, SIZE};

/// The chunk counts of the table.
const CHUNKS: [usize; 4] = [1, 100, 10_000, 100_000];

/// The most chunks the re-parsing approach is measured at.
const REPARSE_MEASURED: usize = 100;

/// `raw` in `n` pieces of about equal length, cut anywhere (mid-line,
/// mid-header, mid-tag), never inside a character.
fn chunks(raw: &str, n: usize) -> Vec<&str> {
    let size = raw.len().div_ceil(n).max(1);
    let mut pieces = Vec::with_capacity(n);
    let mut rest = raw;
    while !rest.is_empty() {
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

fn whole(raw: &str) -> usize {
    Report::parse_sections(raw).map_or(0, |report| report.plan.len())
}

/// The incremental parser: every chunk pushed, every completed section
/// looked at, then the value.
fn stream(pieces: &[&str]) -> usize {
    let mut stream = SectionStream::<Report>::new();
    let mut closed = 0;
    for piece in pieces {
        closed += count_closed(&stream.push(piece));
    }
    closed += count_closed(&stream.finish());
    black_box(closed);
    stream.value().map_or(0, |report| report.plan.len())
}

fn count_closed(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, StreamEvent::Closed(_)))
        .count()
}

/// The other libraries' way: the accumulated text parsed again after
/// every chunk.
fn reparse(pieces: &[&str]) -> usize {
    let mut text = String::new();
    let mut last = 0;
    for piece in pieces {
        text.push_str(piece);
        last = Report::parse_sections(&text).map_or(0, |report| report.plan.len());
        black_box(last);
    }
    last
}

fn criterion_benches(c: &mut Criterion, raw: &str) {
    let mut group = c.benchmark_group("streaming");
    group.throughput(Throughput::Bytes(raw.len() as u64));
    group.bench_function("whole", |b| b.iter(|| whole(black_box(raw))));
    for n in CHUNKS {
        let pieces = chunks(raw, n);
        group.bench_function(format!("stream/{n}"), |b| {
            b.iter(|| stream(black_box(&pieces)))
        });
    }
    let pieces = chunks(raw, REPARSE_MEASURED);
    group.bench_function(format!("reparse/{REPARSE_MEASURED}"), |b| {
        b.iter(|| reparse(black_box(&pieces)))
    });
    group.finish();
}

/// The fastest of `rounds` runs of each job, the jobs interleaved within
/// each round (load from other processes falls on all of them alike).
fn fastest(jobs: &[&dyn Fn() -> usize], rounds: usize) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; jobs.len()];
    for _ in 0..rounds {
        for (slot, job) in best.iter_mut().zip(jobs) {
            let start = Instant::now();
            black_box(job());
            *slot = (*slot).min(start.elapsed());
        }
    }
    best
}

fn summary(raw: &str) {
    const ROUNDS: usize = 60;
    const REPARSE_ROUNDS: usize = 5;
    let pieces: Vec<Vec<&str>> = CHUNKS.iter().map(|&n| chunks(raw, n)).collect();
    let whole_job = || whole(raw);
    let mut jobs: Vec<&dyn Fn() -> usize> = vec![&whole_job];
    let streams: Vec<Box<dyn Fn() -> usize + '_>> = pieces
        .iter()
        .map(|p| Box::new(move || stream(p)) as Box<dyn Fn() -> usize>)
        .collect();
    jobs.extend(streams.iter().map(|job| job.as_ref()));
    let times = fastest(&jobs, ROUNDS);
    let base = times[0].as_secs_f64();
    // Re-parsing: measured where it finishes in reasonable time.
    let measured: Vec<usize> = CHUNKS
        .iter()
        .copied()
        .filter(|&n| n <= REPARSE_MEASURED)
        .collect();
    let reparse_jobs: Vec<Box<dyn Fn() -> usize + '_>> = measured
        .iter()
        .map(|&n| {
            let p = chunks(raw, n);
            Box::new(move || reparse(&p)) as Box<dyn Fn() -> usize>
        })
        .collect();
    let reparse_refs: Vec<&dyn Fn() -> usize> = reparse_jobs.iter().map(|j| j.as_ref()).collect();
    let reparse_times = fastest(&reparse_refs, REPARSE_ROUNDS);
    // Beyond: N re-parses of on average half the reply, from the time per
    // chunk at the largest count measured.
    let per_chunk = reparse_times.last().map_or(0.0, |t| t.as_secs_f64())
        / *measured.last().unwrap_or(&1) as f64;

    println!(
        "\nInput: a {:.2} MB reply ({} bytes); fastest of {ROUNDS} interleaved rounds \
         (re-parsing: {REPARSE_ROUNDS}).\n",
        raw.len() as f64 / 1e6,
        raw.len()
    );
    println!(
        "One whole `parse_sections`: {:.2} ms ({:.0} MB/s).\n",
        base * 1e3,
        raw.len() as f64 / 1e6 / base
    );
    println!("| chunks | `SectionStream` | ratio to one whole parse | re-parse the accumulated text after every chunk | ratio to one whole parse |");
    println!("| --- | --- | --- | --- | --- |");
    for (i, &n) in CHUNKS.iter().enumerate() {
        let secs = times[i + 1].as_secs_f64();
        let (reparse, note) = match measured.iter().position(|&m| m == n) {
            Some(j) => (reparse_times[j].as_secs_f64(), ""),
            None => (per_chunk * n as f64, " (extrapolated)"),
        };
        println!(
            "| {n} | {:.2} ms | {:.2}x | {}{note} | {:.0}x{note} |",
            secs * 1e3,
            secs / base,
            human(reparse),
            reparse / base
        );
    }
}

/// Seconds for the table: ms below a second, s above, min above a minute.
fn human(secs: f64) -> String {
    if secs < 1.0 {
        format!("{:.1} ms", secs * 1e3)
    } else if secs < 120.0 {
        format!("{secs:.1} s")
    } else {
        format!("{:.0} min", secs / 60.0)
    }
}

fn main() {
    let raw = reply(SIZE);
    // The bench measures a successful parse, and the stream gives the same
    // value however the reply is chunked.
    let report = Report::parse_sections(&raw).expect("the bench reply parses");
    assert_eq!(report.budget_usd, 1200);
    assert_eq!(report.priority, Priority::High);
    assert_eq!(report.tags.len(), 3);
    assert!(report.timeline.starts_with("Morning: Fushimi Inari"));
    assert_eq!(report.notes, None);
    for n in CHUNKS {
        assert_eq!(stream(&chunks(&raw, n)), report.plan.len(), "{n} chunks");
        assert!(chunks(&raw, n).len() <= n, "{n} chunks");
    }

    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion, &raw);
    criterion.final_summary();
    summary(&raw);
}
