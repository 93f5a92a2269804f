//! Property tests: rows and records written from random values under every
//! shape a model uses read back exactly; no input panics.

use proptest::prelude::*;
use serde::Deserialize;

use super::tests::{read_record, read_table};
use crate::parse::value::none_word;
use crate::phrases::Phrases;

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
enum Kind {
    Food,
    Drink,
    #[serde(rename = "Gift Card")]
    GiftCard,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Line {
    name: String,
    unit_price: f64,
    #[serde(alias = "qty")]
    quantity: u32,
    taxed: bool,
    note: Option<String>,
    kind: Kind,
}

/// Text a model might put in a cell: no line breaks or backslashes, not
/// blank, no surrounding spaces; pipes, commas and quotes included.
fn text() -> impl Strategy<Value = String> {
    "[A-Za-z0-9é中][A-Za-z0-9é中 ,.;:'\"|()&$%#!?=+-]{0,16}"
        .prop_map(|s| s.trim_end().to_owned())
        .prop_filter("not an N/A word", |s| !none_word(s, &Phrases::ENGLISH))
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::Food), Just(Kind::Drink), Just(Kind::GiftCard)]
}

fn line() -> impl Strategy<Value = Line> {
    (
        text(),
        -1.0e6f64..1.0e6,
        any::<u32>(),
        any::<bool>(),
        proptest::option::of(text()),
        kind(),
    )
        .prop_map(|(name, unit_price, quantity, taxed, note, kind)| Line {
            name,
            unit_price,
            quantity,
            taxed,
            note,
            kind,
        })
}

/// How one value is written: `style` picks among the ways a model writes it.
fn written(line: &Line, column: usize, style: u8) -> String {
    match column {
        0 => line.name.clone(),
        1 if style.is_multiple_of(2) || line.unit_price < 0.0 => line.unit_price.to_string(),
        1 => format!("${}", line.unit_price),
        2 if style.is_multiple_of(2) => line.quantity.to_string(),
        2 => format!("{} pcs", line.quantity),
        3 => match (line.taxed, style % 3) {
            (true, 0) => "yes".into(),
            (true, 1) => "True".into(),
            (true, _) => "YES, taxed".into(),
            (false, 0) => "no".into(),
            (false, 1) => "false".into(),
            (false, _) => "No.".into(),
        },
        4 => match (&line.note, style % 3) {
            (Some(note), _) => note.clone(),
            (None, 0) => String::new(),
            (None, 1) => "N/A".into(),
            (None, _) => "-".into(),
        },
        _ => match (line.kind, style % 2) {
            (Kind::Food, 0) => "food".into(),
            (Kind::Food, _) => "FOOD".into(),
            (Kind::Drink, _) => "Drink".into(),
            (Kind::GiftCard, 0) => "gift card".into(),
            (Kind::GiftCard, _) => "Gift-Card".into(),
        },
    }
}

/// Column names as a model spells them.
const NAMES: [[&str; 3]; 6] = [
    ["Name", "name", "**Name**"],
    ["Unit Price", "unit_price", "UNIT-PRICE ($)"],
    ["Quantity", "Qty", "quantity"],
    ["Taxed", "taxed", "TAXED"],
    ["Note", "Note (optional)", "NOTE"],
    ["Kind", "kind", "Kind"],
];

#[derive(Debug, Clone, Copy)]
enum Shape {
    PipeOuterAligned,
    PipeOuter,
    PipeBareAligned,
    PipeBare,
    Csv,
    Tsv,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::PipeOuterAligned),
        Just(Shape::PipeOuter),
        Just(Shape::PipeBareAligned),
        Just(Shape::PipeBare),
        Just(Shape::Csv),
        Just(Shape::Tsv),
    ]
}

fn pipe_row(cells: &[String], outer: bool) -> String {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    if outer {
        format!("| {} |", cells.join(" | "))
    } else {
        cells.join(" | ")
    }
}

fn delimited(rows: &[Vec<String>], delimiter: u8) -> String {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    for row in rows {
        writer.write_record(row).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

/// A table of `lines` in `shape`, columns in `order`, among prose.
fn table(
    lines: &[Line],
    shape: Shape,
    order: &[usize],
    spelling: usize,
    style: u8,
    crlf: bool,
) -> String {
    let header: Vec<String> = order
        .iter()
        .map(|&c| NAMES[c][spelling % 3].to_owned())
        .collect();
    let rows: Vec<Vec<String>> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            order
                .iter()
                .map(|&c| written(line, c, style.wrapping_add(i as u8)))
                .collect()
        })
        .collect();
    let mut all = vec![header];
    all.extend(rows);
    let body = match shape {
        Shape::Csv => format!("```csv\n{}```", delimited(&all, b',')),
        Shape::Tsv => delimited(&all, b'\t'),
        pipe => {
            let outer = matches!(pipe, Shape::PipeOuterAligned | Shape::PipeOuter);
            let aligned = matches!(pipe, Shape::PipeOuterAligned | Shape::PipeBareAligned);
            let mut out = vec![pipe_row(&all[0], outer)];
            if aligned {
                out.push(pipe_row(&vec!["---".to_owned(); order.len()], outer));
            }
            out.extend(all[1..].iter().map(|row| pipe_row(row, outer)));
            out.join("\n")
        }
    };
    let text = format!(
        "Here is the table you asked for.\n\n{body}\n\nLet me know if anything is missing."
    );
    if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Meta {
    #[serde(rename = "Invoice Number")]
    invoice_number: String,
    customer: String,
    total: f64,
    paid: bool,
    note: Option<String>,
    kind: Kind,
}

fn meta() -> impl Strategy<Value = Meta> {
    (
        text(),
        text(),
        -1.0e6f64..1.0e6,
        any::<bool>(),
        proptest::option::of(text()),
        kind(),
    )
        .prop_map(|(invoice_number, customer, total, paid, note, kind)| Meta {
            invoice_number,
            customer,
            total,
            paid,
            note,
            kind,
        })
}

const LABELS: [[&str; 3]; 6] = [
    ["Invoice Number", "invoice_number", "INVOICE-NUMBER"],
    ["Customer", "customer", "CUSTOMER"],
    ["Total", "total", "Total (USD)"],
    ["Paid", "paid", "PAID"],
    ["Note", "note", "Note"],
    ["Kind", "kind", "KIND"],
];

/// One record line in one of the shapes models write.
fn record_line(label: &str, value: &str, shape: u8) -> String {
    match shape % 6 {
        0 => format!("{label}: {value}"),
        1 => format!("- {label}: {value}"),
        2 => format!("**{label}:** {value}"),
        3 => format!("* **{label}**: {value}"),
        4 => format!("{label} — {value}"),
        _ => format!("{label}：{value}"),
    }
}

fn record(meta: &Meta, order: &[usize], spelling: usize, shapes: &[u8], style: u8) -> String {
    let as_line = Line {
        name: meta.invoice_number.clone(),
        unit_price: meta.total,
        quantity: 0,
        taxed: meta.paid,
        note: meta.note.clone(),
        kind: meta.kind,
    };
    let mut out = vec!["Here are the invoice details:".to_owned()];
    for (i, &field) in order.iter().enumerate() {
        let value = match field {
            1 => meta.customer.clone(),
            field => written(&as_line, [0, 0, 1, 3, 4, 5][field], style),
        };
        // An optional value left blank is best left out.
        if value.is_empty() {
            continue;
        }
        out.push(record_line(
            LABELS[field][spelling % 3],
            &value,
            shapes[i % shapes.len()],
        ));
    }
    out.push(String::new());
    out.push("Thanks, and let me know.".to_owned());
    out.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tables_read_back_exactly_under_every_shape(
        lines in proptest::collection::vec(line(), 1..8),
        shape in shape(),
        order in Just((0..6).collect::<Vec<usize>>()).prop_shuffle(),
        spelling in 0usize..3,
        style in any::<u8>(),
        crlf in any::<bool>(),
    ) {
        let content = table(&lines, shape, &order, spelling, style, crlf);
        prop_assert_eq!(read_table::<Line>(&content), Ok(lines), "{}", content);
    }

    #[test]
    fn records_read_back_exactly_under_every_shape(
        meta in meta(),
        order in Just((0..6).collect::<Vec<usize>>()).prop_shuffle(),
        spelling in 0usize..3,
        shapes in proptest::collection::vec(any::<u8>(), 1..6),
        style in any::<u8>(),
    ) {
        let content = record(&meta, &order, spelling, &shapes, style);
        prop_assert_eq!(read_record::<Meta>(&content), Ok(meta), "{}", content);
    }

    #[test]
    fn no_input_panics(content in "[|,\t\\\\\"\n:*a-z0-9 -]{0,200}") {
        let _ = read_table::<Line>(&content);
        let _ = read_record::<Meta>(&content);
        let _ = read_table::<std::collections::HashMap<String, String>>(&content);
        let _ = read_record::<std::collections::BTreeMap<String, u32>>(&content);
    }
}
