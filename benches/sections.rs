//! Throughput of the section parser beside floors measured on the same text
//! in the same run:
//!
//! - `lines_trim` (the ratio's base): visit every line and trim it, with no
//!   allocation: the least any line-based parser does;
//! - `lines_trim_to_string`: the same, collecting each trimmed line as an
//!   owned `String`, what a naive line-based parser does.
//!
//! `cargo bench -p twr-tests --bench sections` runs criterion on each, then prints a
//! Markdown table: the input's real size, and for each the fastest of many
//! interleaved rounds (load from other processes falls on all of them
//! alike), its throughput, its ratio to the floor and to owned lines. The
//! target is `parse_sections` within 3x of `lines_trim_to_string`.
//! The `list` group does the same on a reply of another shape: 2,000 lines
//! of reasoning, a 20,000-item list and two short sections (1.4 MB), with
//! the target `parse_sections` within 2x of `lines_trim_to_string`.
//! The `table` group reads a 1 MB table section, written as CSV and as a
//! markdown table, beside the `csv` crate deserializing the same CSV, and
//! prints its own table of the fastest interleaved rounds with the ratio to
//! the `csv` crate.
//! On a shared machine keep the run short:
//! `cargo bench -p twr-tests --bench sections -- --sample-size 10 --warm-up-time 1 --measurement-time 2`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use twr_runtime::parse::split_sections;
use twr_runtime::Sections;

#[path = "common/report.rs"]
mod report;
use report::{reply, Priority, Report, SIZE};

/// The floor: every line visited and trimmed, nothing allocated.
fn lines_trim(raw: &str) -> usize {
    raw.lines().map(|line| line.trim().len()).sum()
}

/// A naive line-based parser's work: every trimmed line as a `String`.
fn lines_trim_to_string(raw: &str) -> usize {
    raw.lines()
        .map(|line| line.trim().to_string())
        .collect::<Vec<_>>()
        .len()
}

fn split(raw: &str) -> usize {
    split_sections(raw, Report::specs()).len()
}

fn parse(raw: &str) -> usize {
    Report::parse_sections(raw).map_or(0, |report| report.plan.len())
}

type Run = fn(&str) -> usize;

/// A table's cases, floor first: criterion id, table label, code.
type Cases = [(&'static str, &'static str, Run); 4];

/// What the table compares, floor first.
const CASES: Cases = [
    (
        "lines_trim",
        "floor: `lines` + `trim`, no allocation",
        lines_trim,
    ),
    (
        "lines_trim_to_string",
        "`lines` + `trim` + `to_string`",
        lines_trim_to_string,
    ),
    (
        "split_sections",
        "`split_sections` (find the sections)",
        split,
    ),
    (
        "parse_sections",
        "`parse_sections` (sections, typed values, validation)",
        parse,
    ),
];

/// The `list` group's struct: a long list and two short sections.
#[derive(Debug, Sections)]
struct Catalog {
    /// One item per line.
    items: Vec<String>,
    summary: String,
    count: u32,
}

/// About 1.4 MB: 2,000 lines of reasoning, a list of 20,000 items, then
/// two short sections.
fn list_reply() -> String {
    let mut raw = String::from("<think>\n");
    for i in 1..=2_000 {
        raw.push_str(&format!(
            "Step {i}: the user wants every item listed; check the stock count and the colour again.\n"
        ));
    }
    raw.push_str("</think>\nHere is the catalog.\n\n[Items]\n");
    for i in 1..=20_000 {
        raw.push_str(&format!(
            "- Item {i}: a blue ceramic mug, 350 ml, dishwasher safe, boxed\n"
        ));
    }
    raw.push_str("\n[Summary]\nTwenty thousand mugs, all in stock.\n\n[Count]\n20000\n");
    raw
}

fn split_list(raw: &str) -> usize {
    split_sections(raw, Catalog::specs()).len()
}

fn parse_list(raw: &str) -> usize {
    Catalog::parse_sections(raw).map_or(0, |catalog| catalog.items.len())
}

/// What the `list` group compares: the same floors, then the list reply's
/// own split and parse.
const LIST_CASES: Cases = [
    CASES[0],
    CASES[1],
    (
        "split_sections",
        "`split_sections` (find the sections)",
        split_list,
    ),
    (
        "parse_sections",
        "`parse_sections` (sections, typed values, validation)",
        parse_list,
    ),
];

fn criterion_benches(c: &mut Criterion, group: &str, raw: &str, cases: &Cases) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(raw.len() as u64));
    for &(id, _, run) in cases {
        group.bench_function(id, |b| b.iter(|| run(black_box(raw))));
    }
    group.finish();
}

/// The fastest of `rounds` runs of each case, the cases interleaved within
/// each round.
fn fastest(raw: &str, cases: &Cases, rounds: usize) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; cases.len()];
    for _ in 0..rounds {
        for (slot, &(_, _, run)) in best.iter_mut().zip(cases) {
            let start = Instant::now();
            black_box(run(black_box(raw)));
            *slot = (*slot).min(start.elapsed());
        }
    }
    best
}

fn summary(raw: &str, cases: &Cases) {
    const ROUNDS: usize = 200;
    let times = fastest(raw, cases, ROUNDS);
    let floor = times[0].as_secs_f64();
    println!(
        "\nInput: a {:.2} MB reply ({} bytes), fastest of {ROUNDS} interleaved rounds.\n",
        raw.len() as f64 / 1e6,
        raw.len()
    );
    let owned = times[1].as_secs_f64();
    println!("| | time | throughput | ratio to the floor | ratio to owned lines |");
    println!("| --- | --- | --- | --- | --- |");
    for ((_, name, _), time) in cases.iter().zip(&times) {
        let secs = time.as_secs_f64();
        println!(
            "| {name} | {:.3} ms | {:.0} MB/s | {:.2}x | {:.2}x |",
            secs * 1e3,
            raw.len() as f64 / 1e6 / secs,
            secs / floor,
            secs / owned
        );
    }
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct LineItem {
    item: String,
    quantity: u32,
    unit_price: f64,
    taxed: bool,
}

#[derive(Debug, Sections)]
struct Order {
    #[section(table)]
    items: Vec<LineItem>,
}

/// About `size` bytes of CSV line items, header first.
fn csv_rows(size: usize) -> String {
    let mut csv = String::from("item,quantity,unit_price,taxed\n");
    let mut i = 0;
    while csv.len() < size {
        i += 1;
        csv.push_str(&format!(
            "Espresso beans batch {i},{},{}.50,{}\n",
            i % 12,
            i % 100,
            if i % 3 == 0 { "yes" } else { "no" }
        ));
    }
    csv
}

/// The floor of the `table` group: the `csv` crate deserializing the rows
/// with serde; the number of rows read.
fn csv_floor(csv: &str) -> usize {
    csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(csv.as_bytes())
        .deserialize::<(String, u32, f64, String)>()
        .map(|row| row.map(|(_, quantity, _, _)| quantity))
        .collect::<Result<Vec<_>, _>>()
        .map_or(0, |v| v.len())
}

/// The rows of a table section read into `Vec<LineItem>`.
fn table_rows(raw: &str) -> usize {
    Order::parse_sections(raw).map_or(0, |o| o.items.len())
}

/// The inputs of the `table` group: the CSV alone (the floor's input), a
/// reply with it as the [Items] section, the same rows as a markdown table.
fn table_inputs() -> [String; 3] {
    let csv = csv_rows(1_000_000);
    let raw = format!("Here are the line items.\n\n[Items]\n{csv}\nThat is all.\n");
    let piped: String = csv
        .lines()
        .enumerate()
        .flat_map(|(i, line)| {
            let row = format!("| {} |\n", line.replace(',', " | "));
            let align = (i == 0).then(|| "|---|---|---|---|\n".to_owned());
            std::iter::once(row).chain(align)
        })
        .collect();
    let piped = format!("[Items]\n{piped}");
    [csv, raw, piped]
}

/// What the table group compares, floor first: criterion id, label, code,
/// input (an index into [`table_inputs`]).
const TABLE_CASES: [(&str, &str, Run, usize); 3] = [
    (
        "csv_crate_floor",
        "floor: the `csv` crate, serde rows",
        csv_floor,
        0,
    ),
    (
        "parse_sections_csv",
        "`parse_sections`, the table as CSV",
        table_rows,
        1,
    ),
    (
        "parse_sections_markdown",
        "`parse_sections`, the table as markdown",
        table_rows,
        2,
    ),
];

/// A table section read into typed rows, beside its floor: the `csv` crate
/// deserializing the same rows from the same CSV with serde.
fn bench_table(c: &mut Criterion, inputs: &[String; 3]) {
    let rows = inputs[0].lines().count() - 1;
    for (_, _, run, input) in TABLE_CASES {
        assert_eq!(run(&inputs[input]), rows, "every case reads every row");
    }
    let order = Order::parse_sections(&inputs[1]).expect("the bench table parses");
    assert!(order.items[2].taxed);

    let mut group = c.benchmark_group("table");
    group.throughput(Throughput::Bytes(inputs[0].len() as u64));
    for (id, _, run, input) in TABLE_CASES {
        group.bench_function(id, |b| b.iter(|| run(black_box(&inputs[input]))));
    }
    group.finish();
}

/// The table group's figures: the fastest of interleaved rounds, as
/// throughput over the CSV's bytes and as a ratio to the `csv` crate.
fn table_summary(inputs: &[String; 3]) {
    const ROUNDS: usize = 30;
    let mut best = [Duration::MAX; TABLE_CASES.len()];
    for _ in 0..ROUNDS {
        for (slot, (_, _, run, input)) in best.iter_mut().zip(TABLE_CASES) {
            let start = Instant::now();
            black_box(run(black_box(&inputs[input])));
            *slot = (*slot).min(start.elapsed());
        }
    }
    let csv = &inputs[0];
    println!(
        "\nInput: {} rows, {:.2} MB as CSV, {:.2} MB as a markdown table; fastest of {ROUNDS} interleaved rounds.\n",
        csv.lines().count() - 1,
        csv.len() as f64 / 1e6,
        inputs[2].len() as f64 / 1e6
    );
    let floor = best[0].as_secs_f64();
    println!("| | time | rows/s | ratio to the `csv` crate |");
    println!("| --- | --- | --- | --- |");
    let rows = (csv.lines().count() - 1) as f64;
    for ((_, name, _, _), time) in TABLE_CASES.iter().zip(&best) {
        let secs = time.as_secs_f64();
        println!(
            "| {name} | {:.2} ms | {:.1} M | {:.2}x |",
            secs * 1e3,
            rows / secs / 1e6,
            secs / floor
        );
    }
}

fn main() {
    let raw = reply(SIZE);
    // The bench measures a successful parse.
    let report = Report::parse_sections(&raw).expect("the bench reply parses");
    assert_eq!(report.budget_usd, 1200);
    assert_eq!(report.tags.len(), 3);
    assert!(report.timeline.starts_with("Morning: Fushimi Inari"));
    assert_eq!(report.notes, None);
    assert_eq!(report.priority, Priority::High);

    let list = list_reply();
    let catalog = Catalog::parse_sections(&list).expect("the list reply parses");
    assert_eq!(catalog.items.len(), 20_000);
    assert_eq!(
        catalog.items[41],
        "Item 42: a blue ceramic mug, 350 ml, dishwasher safe, boxed"
    );
    assert_eq!(catalog.summary, "Twenty thousand mugs, all in stock.");
    assert_eq!(catalog.count, 20_000);

    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion, "sections", &raw, &CASES);
    criterion_benches(&mut criterion, "list", &list, &LIST_CASES);
    let tables = table_inputs();
    bench_table(&mut criterion, &tables);
    criterion.final_summary();
    summary(&raw, &CASES);
    summary(&list, &LIST_CASES);
    table_summary(&tables);
}
