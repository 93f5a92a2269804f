//! Throughput of the section parser beside a floor: splitting the same text
//! into trimmed owned lines, the least any line-based parser does.
//!
//! `cargo bench --bench sections` prints MB/s for each; the target is
//! `parse_sections` within 3x of the floor. The `table` group reads a 1 MB
//! table section beside the `csv` crate deserializing the same CSV.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use twr_runtime::parse::split_sections;
use twr_runtime::{Choice, Sections};

#[derive(Debug, PartialEq, Choice)]
enum Priority {
    Low,
    Medium,
    High,
}

#[derive(Debug, Sections)]
struct Report {
    /// The steps, one per line.
    #[section(aliases = ["Steps"])]
    plan: Vec<String>,
    timeline: String,
    #[section(header = "[Budget]")]
    budget_usd: u32,
    notes: Option<String>,
    priority: Priority,
    #[section(default)]
    tags: Vec<String>,
}

/// A long, realistic reply: reasoning, a preamble, markdown headers of every
/// style, lists, prose with colons and brackets, a draft section repeated.
fn reply(size: usize) -> String {
    let mut raw = String::from(
        "<think>\nThe user wants a plan. I will list [Plan] steps, then the timeline.\nBudget: maybe $900?\n</think>\n\
         Sure! Here is a careful plan for the trip.\n\n**Plan:**\n- draft step\n\n",
    );
    raw.push_str("## Plan\n");
    let mut i = 0;
    while raw.len() < size * 6 / 10 {
        i += 1;
        raw.push_str(&format!(
            "{i}. Visit the temple of day {i} early, before the crowds: see [the gardens] and take notes.\n   Then walk to the next district.\n"
        ));
    }
    raw.push_str("\n---\n\n**[Timeline]**\n");
    while raw.len() < size * 95 / 100 {
        raw.push_str("Morning: Fushimi Inari (arrive at 7:00). Afternoon: Arashiyama, bamboo grove. Evening: Gion.\n");
    }
    raw.push_str("\n[Budget]: about $1,200 in total\n\nNotes: N/A\n\n【Priority】：High\n\n### Tags\n- kyoto\n- temples\n- food\n");
    raw
}

fn bench(c: &mut Criterion) {
    let raw = reply(1_500_000);
    // The bench measures a successful parse.
    let report = Report::parse_sections(&raw).expect("the bench reply parses");
    assert_eq!(report.budget_usd, 1200);
    assert_eq!(report.tags.len(), 3);
    assert!(report.timeline.starts_with("Morning: Fushimi Inari"));
    assert_eq!(report.notes, None);
    assert_eq!(report.priority, Priority::High);

    let mut group = c.benchmark_group("sections");
    group.throughput(Throughput::Bytes(raw.len() as u64));
    group.bench_function("lines_floor", |b| {
        b.iter(|| {
            black_box(&raw)
                .lines()
                .map(|l| l.trim().to_string())
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("split_sections", |b| {
        b.iter(|| split_sections(black_box(&raw), Report::specs()).len())
    });
    group.bench_function("parse_sections", |b| {
        b.iter(|| Report::parse_sections(black_box(&raw)).map(|r| r.plan.len()))
    });
    group.finish();
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

/// A table section read into typed rows, beside its floor: the `csv` crate
/// deserializing the same rows from the same CSV with serde.
fn bench_table(c: &mut Criterion) {
    let csv = csv_rows(1_000_000);
    let raw = format!("Here are the line items.\n\n[Items]\n{csv}\nThat is all.\n");
    let rows = csv.lines().count() - 1;
    let floor = |csv: &str| {
        csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(csv.as_bytes())
            .deserialize::<(String, u32, f64, String)>()
            .map(|row| row.map(|(_, quantity, _, _)| quantity))
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.len())
    };
    assert_eq!(floor(&csv).ok(), Some(rows));
    let order = Order::parse_sections(&raw).expect("the bench table parses");
    assert_eq!(order.items.len(), rows);
    assert!(order.items[2].taxed);

    let mut group = c.benchmark_group("table");
    group.throughput(Throughput::Bytes(raw.len() as u64));
    group.bench_function("csv_crate_floor", |b| b.iter(|| floor(black_box(&csv))));
    group.bench_function("parse_sections_csv", |b| {
        b.iter(|| Order::parse_sections(black_box(&raw)).map(|o| o.items.len()))
    });
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
    group.bench_function("parse_sections_markdown", |b| {
        b.iter(|| Order::parse_sections(black_box(&piped)).map(|o| o.items.len()))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_table);
criterion_main!(benches);
