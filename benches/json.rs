//! `twr_runtime::json` against `serde_json` and two repair crates, on a
//! generated ~1.4 MB array of objects in three forms: valid, wrapped in prose
//! and a ```json fence, and broken (single quotes, `True`/`False`/`None`,
//! trailing commas).
//!
//! Run with `cargo bench -p twr-tests --bench json`. After criterion's report, a summary
//! table (MB/s, ratio to `serde_json::from_str::<Value>` on the valid form,
//! and whether each library returned the right value) is printed in Markdown.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use serde_json::Value;

/// Objects in the generated array (about 1.4 MB of pretty-printed JSON).
const OBJECTS: usize = 6_400;

/// The three forms of the same value.
struct Forms {
    value: Value,
    valid: String,
    fenced: String,
    broken: String,
}

fn forms() -> Forms {
    let cities = ["Kyoto", "Osaka", "Nara", "Kobe", "Tokyo"];
    let mut valid = String::from("[\n");
    let mut broken = String::from("[\n");
    for i in 0..OBJECTS {
        let city = cities[i % cities.len()];
        let active = i % 3 == 0;
        let score = (i % 400) as f64 / 4.0;
        let note = if i % 7 == 0 {
            "null".to_owned()
        } else {
            format!("\"Visit {city} temple #{i}, then lunch\"")
        };
        let sep = if i + 1 == OBJECTS { "" } else { "," };
        writeln!(
            valid,
            "  {{\n    \"id\": {i},\n    \"name\": \"Item {i}\",\n    \"city\": \"{city}\",\n    \
             \"active\": {active},\n    \"score\": {score},\n    \"tags\": [\"day-{d}\", \"budget\", \"{city}\"],\n    \
             \"note\": {note},\n    \"days\": [{a}, {b}, {c}]\n  }}{sep}",
            d = i % 5,
            a = i % 3,
            b = i % 5,
            c = i % 7,
        )
        .unwrap();
        let py_note = note.replace('"', "'").replace("null", "None");
        let py_active = if active { "True" } else { "False" };
        writeln!(
            broken,
            "  {{\n    'id': {i},\n    'name': 'Item {i}',\n    'city': '{city}',\n    \
             'active': {py_active},\n    'score': {score},\n    'tags': ['day-{d}', 'budget', '{city}',],\n    \
             'note': {py_note},\n    'days': [{a}, {b}, {c},],\n  }},",
            d = i % 5,
            a = i % 3,
            b = i % 5,
            c = i % 7,
        )
        .unwrap();
    }
    valid.push(']');
    broken.push(']');
    let fenced = format!(
        "Here is the data you asked for. I checked every entry twice.\n\n```json\n{valid}\n```\n\n\
         Let me know if you need the list in another format."
    );
    let value: Value = serde_json::from_str(&valid).unwrap();
    Forms {
        value,
        valid,
        fenced,
        broken,
    }
}

type Parser = fn(&str) -> Option<Value>;

fn twr(text: &str) -> Option<Value> {
    twr_runtime::json::extract_value(text).ok()
}

fn llm_json(text: &str) -> Option<Value> {
    llm_json::loads(text, &llm_json::RepairOptions::default()).ok()
}

fn jsonrepair(text: &str) -> Option<Value> {
    let repaired = jsonrepair_rs::jsonrepair(text).ok()?;
    serde_json::from_str(&repaired).ok()
}

fn serde(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

const LIBRARIES: [(&str, Parser); 3] = [
    ("twr", twr),
    ("llm_json", llm_json),
    ("jsonrepair-rs", jsonrepair),
];

fn criterion_benches(c: &mut Criterion, forms: &Forms) {
    let inputs = [
        ("valid", &forms.valid),
        ("fenced", &forms.fenced),
        ("broken", &forms.broken),
    ];
    let mut group = c.benchmark_group("json");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    group.throughput(Throughput::Bytes(forms.valid.len() as u64));
    group.bench_function("serde_json/valid", |b| {
        b.iter(|| serde(black_box(&forms.valid)))
    });
    for (form, text) in inputs {
        group.throughput(Throughput::Bytes(text.len() as u64));
        for (name, parse) in LIBRARIES {
            group.bench_function(format!("{name}/{form}"), |b| {
                b.iter(|| parse(black_box(text)))
            });
        }
    }
    group.finish();
}

/// The fastest of `runs` rounds for each parser, rounds interleaved so that
/// load from other processes falls on all of them alike; the minimum is the
/// estimate least disturbed by a shared machine.
fn fastest(parsers: &[(Parser, &str)], runs: usize) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; parsers.len()];
    for _ in 0..runs {
        for (slot, &(parse, text)) in best.iter_mut().zip(parsers) {
            let start = Instant::now();
            black_box(parse(black_box(text)));
            *slot = slot.min(start.elapsed().as_secs_f64());
        }
    }
    best
}

/// What a parser returned, when it is not the right value.
fn describe(got: Option<Value>, want: &Value) -> String {
    match got {
        None => "error".to_owned(),
        Some(v) if &v == want => "yes".to_owned(),
        Some(Value::Array(items)) => format!("NO ({} items)", items.len()),
        Some(Value::Object(members)) => format!("NO (an object of {} keys)", members.len()),
        Some(Value::String(s)) => format!("NO (a string of {} bytes)", s.len()),
        Some(other) => format!("NO ({other})"),
    }
}

fn summary(forms: &Forms) {
    const RUNS: usize = 100;
    let mb = |text: &str| text.len() as f64 / 1e6;
    let inputs = [
        ("valid", forms.valid.as_str()),
        ("fenced", forms.fenced.as_str()),
        ("broken", forms.broken.as_str()),
    ];
    let mut parsers: Vec<(Parser, &str)> = vec![(serde as Parser, forms.valid.as_str())];
    for (_, text) in inputs {
        for (_, parse) in LIBRARIES {
            parsers.push((parse, text));
        }
    }
    let times = fastest(&parsers, RUNS);
    let base = times[0];
    println!(
        "\nInput: {OBJECTS} objects, valid {:.2} MB, fenced {:.2} MB, broken {:.2} MB; \
         serde_json::from_str::<Value> on valid: {:.0} MB/s (fastest of {RUNS} interleaved rounds).\n",
        mb(&forms.valid),
        mb(&forms.fenced),
        mb(&forms.broken),
        mb(&forms.valid) / base
    );
    println!("| form | twr MB/s | ratio to serde_json | llm_json MB/s | jsonrepair-rs MB/s | correct? twr / llm_json / jsonrepair-rs |");
    println!("|---|---|---|---|---|---|");
    for (i, (form, text)) in inputs.into_iter().enumerate() {
        let row = &times[1 + i * LIBRARIES.len()..1 + (i + 1) * LIBRARIES.len()];
        // Correctness, outside the timed runs: recorded, not asserted, so a
        // peer's wrong answer shows in the table.
        let marks: Vec<String> = LIBRARIES
            .iter()
            .map(|(_, parse)| describe(parse(text), &forms.value))
            .collect();
        println!(
            "| {form} | {:.0} | {:.2}x | {:.0} | {:.0} | {} |",
            mb(text) / row[0],
            row[0] / base,
            mb(text) / row[1],
            mb(text) / row[2],
            marks.join(" / ")
        );
    }
    // twr itself must be right on every form.
    for (form, text) in inputs {
        assert_eq!(twr(text).as_ref(), Some(&forms.value), "twr on {form}");
    }
}

fn main() {
    let forms = forms();
    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion, &forms);
    criterion.final_summary();
    summary(&forms);
}
