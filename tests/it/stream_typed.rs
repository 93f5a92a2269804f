//! Typed streaming for every section kind: tables, records and maps are
//! read from `on_section` and `stream` as the derive reads them.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Deserialize;
use twr_runtime::{ScriptedModel, Sections, Think};

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Row {
    item: String,
    qty: u32,
    price: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Meta {
    customer: String,
    paid: bool,
}

#[derive(Debug, Sections)]
struct Invoice {
    #[section(table)]
    rows: Vec<Row>,
    #[section(record)]
    meta: Meta,
    stock: BTreeMap<String, u32>,
    note: String,
}

const REPLY: &str = "Here it is.\n[Rows]\n| Item | Qty | Price |\n|---|---|---|\n| pen | 2 | $1.50 |\n| ink | 1 | $4 |\n\
[Meta]\n- Customer: Ada\n- Paid: yes\n[Stock]\npen: 40\nink: 3\n[Note]\nShip soon.";

fn rows() -> Vec<Row> {
    vec![
        Row {
            item: "pen".into(),
            qty: 2,
            price: 1.5,
        },
        Row {
            item: "ink".into(),
            qty: 1,
            price: 4.0,
        },
    ]
}

#[tokio::test]
async fn tables_records_and_maps_are_typed_as_they_complete() {
    let model = ScriptedModel::new([REPLY]).chunk_size(5);
    let seen = Mutex::new(Vec::new());
    let outcome = Think::new(&model)
        .on_section(|event| {
            let typed = match event.field {
                "rows" => format!("{:?}", event.table::<Row>()),
                "meta" => format!("{:?}", event.record::<Meta>()),
                "stock" => format!("{:?}", event.value::<BTreeMap<String, u32>>()),
                _ => format!("{:?}", event.value::<String>()),
            };
            seen.lock().unwrap().push((event.field, typed));
        })
        .run::<Invoice>("Read the invoice.")
        .await
        .unwrap();
    assert_eq!(outcome.value.rows, rows());
    assert_eq!(outcome.value.meta.customer, "Ada");
    assert_eq!(outcome.value.stock["pen"], 40);
    assert_eq!(outcome.value.note, "Ship soon.");
    assert_eq!(
        seen.into_inner().unwrap(),
        [
            ("rows", format!("{:?}", Ok::<_, ()>(rows()))),
            (
                "meta",
                format!(
                    "{:?}",
                    Ok::<_, ()>(Meta {
                        customer: "Ada".into(),
                        paid: true
                    })
                )
            ),
            (
                "stock",
                format!(
                    "{:?}",
                    Ok::<_, ()>(BTreeMap::from([
                        ("ink".to_owned(), 3),
                        ("pen".to_owned(), 40)
                    ]))
                )
            ),
            ("note", "Ok(\"Ship soon.\")".to_owned()),
        ]
    );
}

#[tokio::test]
async fn completed_sections_are_typed_too_and_a_wrong_kind_is_an_error() {
    let model = ScriptedModel::new([REPLY]).chunk_size(7);
    let checked = Mutex::new(0);
    Think::new(&model)
        .on_section(|event| {
            if event.field != "note" {
                return;
            }
            let completed = &event.completed;
            assert_eq!(completed.table::<Row>("rows").unwrap().unwrap(), rows());
            assert!(completed.record::<Meta>("meta").unwrap().unwrap().paid);
            // A table section is not a record, nor a record a table.
            assert_eq!(
                completed
                    .record::<Meta>("rows")
                    .unwrap()
                    .unwrap_err()
                    .to_string(),
                "the [Rows] section holds Table, not Record"
            );
            assert!(completed.table::<Row>("meta").unwrap().is_err());
            // Not a section of the type: nothing to read.
            assert!(completed.table::<Row>("nothing").is_none());
            *checked.lock().unwrap() += 1;
        })
        .run::<Invoice>("Read the invoice.")
        .await
        .unwrap();
    assert_eq!(*checked.lock().unwrap(), 1);
}

#[tokio::test]
async fn a_bad_cell_is_the_same_error_streamed_as_parsed() {
    let bad = REPLY.replace("| ink | 1 |", "| ink | one |");
    let model = ScriptedModel::new([bad.clone(), REPLY.to_owned()]).chunk_size(4);
    let streamed = Mutex::new(None);
    Think::new(&model)
        .early_abort(false)
        .on_section(|event| {
            if event.field == "rows" && event.attempt == 1 {
                *streamed.lock().unwrap() = Some(event.table::<Row>().unwrap_err());
            }
        })
        .run::<Invoice>("Read the invoice.")
        .await
        .unwrap();
    let error = streamed.into_inner().unwrap().unwrap();
    let parsed = Invoice::parse_sections(&bad).unwrap_err();
    let problem = &parsed.problems()[0];
    let twr_runtime::parse::ValueError::Rows(problems) = &error else {
        panic!("a table error names its cells: {error:?}");
    };
    assert_eq!(problems[0].kind, problem.kind);
    assert_eq!(problems[0].place, problem.place);
}
