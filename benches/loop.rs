//! The loop's own cost: a run of `Think::new(&ScriptedModel).run::<Report>`
//! beside `Report::parse_sections` alone on the same replies, in the same
//! run. The scripted model answers at once, so what the run adds is the
//! loop itself: the prompt and its format guide, the conversation, reading
//! the reply (split into sections, parsed), the ledger.
//!
//! The cases, each a pair (the ratio's base first):
//!
//! - a first-try parse of a realistic reply (about 3 KB: reasoning, a plan,
//!   a timeline, four short sections), and of the 1.43 MB reply of
//!   `benches/sections.rs`;
//! - a patch run on the 1.43 MB reply: its `[Budget]` says a word instead
//!   of a number, the second reply is only `[Budget]`; the base is
//!   `parse_sections` of each reply once, the least a loop that reads each
//!   reply once does;
//! - a streamed first try of the realistic reply, in pieces of 64
//!   characters: each section is checked as it completes, then the reply
//!   is read whole from the sections the stream found.
//!
//! Building the scripted model (a copy of its replies) is outside the
//! timed part. `cargo bench -p twr-tests --bench loop` runs criterion on
//! each, then prints a Markdown table: for each the fastest of many
//! interleaved rounds and the run's ratio to parsing alone. The target is a
//! first-try run within 1.2x of `parse_sections`. On a shared machine keep
//! the run short: `cargo bench -p twr-tests --bench loop -- --sample-size 10
//! --warm-up-time 1 --measurement-time 2`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use tokio::runtime::Runtime;
use twr_runtime::{ScriptedModel, Sections, Think};

#[path = "common/report.rs"]
mod report;
use report::{reply, Priority, Report, SIZE};

/// The size of the realistic reply.
const SMALL: usize = 3_000;

/// The replies the cases read.
struct Inputs {
    small: String,
    large: String,
    /// The large reply with a `[Budget]` the parser rejects.
    broken: String,
    /// The patch: only the section that failed.
    patch: String,
}

impl Inputs {
    fn new() -> Self {
        let large = reply(SIZE);
        let broken = large.replace(
            "[Budget]: about $1,200 in total",
            "[Budget]: about twelve hundred dollars",
        );
        assert_ne!(broken, large, "the bench reply has its [Budget] line");
        Inputs {
            small: reply(SMALL),
            large,
            broken,
            patch: "[Budget]\n$1,200\n".to_owned(),
        }
    }

    /// A case's replies, in the order the model gives them.
    fn script(&self, case: Case) -> Vec<&str> {
        match case {
            Case::Small => vec![&self.small],
            Case::Large => vec![&self.large],
            Case::Patch => vec![&self.broken, &self.patch],
            Case::Streamed => vec![&self.small],
        }
    }
}

#[derive(Clone, Copy)]
enum Case {
    Small,
    Large,
    Patch,
    Streamed,
}

/// The pieces a streamed case's model sends its reply in, in characters.
const PIECE: usize = 64;

/// Each case: criterion id, table label.
const CASES: [(Case, &str, &str); 4] = [
    (Case::Small, "small", "first try, a realistic reply (3 KB)"),
    (Case::Large, "large", "first try, the 1.43 MB reply"),
    (
        Case::Patch,
        "patch",
        "a patch run: the 1.43 MB reply, then `[Budget]`",
    ),
    (
        Case::Streamed,
        "streamed",
        "first try, the realistic reply streamed in pieces of 64 characters",
    ),
];

/// Parsing alone: each reply of the script parsed once; the number of
/// replies that parsed.
fn parse_alone(script: &[&str]) -> usize {
    script
        .iter()
        .filter(|raw| Report::parse_sections(raw).is_ok())
        .count()
}

/// A whole run of the loop over a model that answers with `script`; the
/// number of attempts.
fn run(runtime: &Runtime, model: ScriptedModel) -> usize {
    runtime.block_on(async {
        let outcome = Think::new(&model)
            .run::<Report>("Plan a trip to Kyoto.")
            .await
            .expect("the scripted run parses");
        let report = &outcome.value;
        assert_eq!(report.budget_usd, 1200);
        assert!(!report.plan.is_empty());
        assert!(report.timeline.starts_with("Morning: Fushimi Inari"));
        assert_eq!(report.notes, None);
        assert_eq!(report.priority, Priority::High);
        assert_eq!(report.tags, ["kyoto", "temples", "food"]);
        outcome.attempts.len()
    })
}

fn model(case: Case, script: &[&str]) -> ScriptedModel {
    let model = ScriptedModel::new(script.iter().map(|raw| raw.to_string()));
    match case {
        Case::Streamed => model.chunk_size(PIECE),
        _ => model,
    }
}

fn criterion_benches(c: &mut Criterion, runtime: &Runtime, inputs: &Inputs) {
    let mut group = c.benchmark_group("loop");
    for (case, id, _) in CASES {
        let script = inputs.script(case);
        group.bench_function(format!("{id}/parse_sections"), |b| {
            b.iter(|| parse_alone(black_box(&script)))
        });
        group.bench_function(format!("{id}/run"), |b| {
            b.iter_batched(
                || model(case, &script),
                |model| run(runtime, black_box(model)),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// The fastest of `rounds` runs of each case's parse and run, interleaved
/// within each round: `(parse, run)` per case.
fn fastest(runtime: &Runtime, inputs: &Inputs, rounds: usize) -> Vec<(Duration, Duration)> {
    let mut best = vec![(Duration::MAX, Duration::MAX); CASES.len()];
    for _ in 0..rounds {
        for (slot, (case, _, _)) in best.iter_mut().zip(CASES) {
            let script = inputs.script(case);
            let start = Instant::now();
            black_box(parse_alone(black_box(&script)));
            slot.0 = slot.0.min(start.elapsed());

            let model = model(case, &script);
            let start = Instant::now();
            black_box(run(runtime, black_box(model)));
            slot.1 = slot.1.min(start.elapsed());
        }
    }
    best
}

fn summary(runtime: &Runtime, inputs: &Inputs) {
    const ROUNDS: usize = 100;
    let times = fastest(runtime, inputs, ROUNDS);
    println!("\nFastest of {ROUNDS} interleaved rounds.\n");
    println!("| run | `parse_sections` alone | the loop's run | ratio |");
    println!("| --- | --- | --- | --- |");
    for ((_, _, name), (parse, run)) in CASES.iter().zip(&times) {
        let (parse, run) = (parse.as_secs_f64(), run.as_secs_f64());
        println!(
            "| {name} | {} | {} | {:.2}x |",
            show(parse),
            show(run),
            run / parse
        );
    }
}

/// A time in the unit that reads best.
fn show(secs: f64) -> String {
    if secs < 1e-3 {
        format!("{:.1} µs", secs * 1e6)
    } else {
        format!("{:.3} ms", secs * 1e3)
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
    let inputs = Inputs::new();
    // Every case measures what it says: a first try parses, a patch run
    // fails once then parses.
    for (case, _, _) in CASES {
        let script = inputs.script(case);
        let attempts = run(&runtime, model(case, &script));
        assert_eq!(attempts, script.len());
        let parsed = parse_alone(&script);
        assert_eq!(parsed, usize::from(!matches!(case, Case::Patch)));
    }

    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion, &runtime, &inputs);
    criterion.final_summary();
    summary(&runtime, &inputs);
}
