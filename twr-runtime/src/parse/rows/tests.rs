use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Deserializer};

use super::*;

/// [`read_table_in`] with the built-in words.
pub(super) fn read_table<T: DeserializeOwned>(content: &str) -> Result<Vec<T>, RowsError> {
    read_table_in(content, &Phrases::ENGLISH)
}

/// [`read_record_in`] with the built-in words.
pub(super) fn read_record<T: DeserializeOwned>(content: &str) -> Result<T, RowsError> {
    read_record_in(content, &Phrases::ENGLISH)
}

#[derive(Debug, PartialEq, Deserialize)]
enum Unit {
    Piece,
    Kilogram,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Item {
    item: String,
    #[serde(rename = "Unit Price")]
    unit_price: f64,
    #[serde(alias = "qty")]
    quantity: u32,
    taxed: bool,
    note: Option<String>,
    #[serde(default)]
    unit: Option<Unit>,
}

fn item(name: &str, price: f64, quantity: u32, taxed: bool, note: Option<&str>) -> Item {
    Item {
        item: name.into(),
        unit_price: price,
        quantity,
        taxed,
        note: note.map(Into::into),
        unit: None,
    }
}

fn cell(row: usize, column: &str) -> Place {
    Place::Cell {
        row,
        column: column.into(),
    }
}

#[test]
fn a_pipe_table_reads_into_rows_with_coerced_cells() {
    let content = "Here you go:\n\n| Item | Unit Price ($) | Qty | Taxed | Note | Unit |\n|---|--:|--:|---|---|---|\n| Tea \\| green | $1,200.50 | 2 pcs | yes | N/A | piece |\n| Cake | 4 | 10 | No | fresh | - |\n| Jam | 3.5 | 1 | **true** |  |\n\nAnything else?";
    assert_eq!(
        read_table::<Item>(content),
        Ok(vec![
            Item {
                unit: Some(Unit::Piece),
                ..item("Tea | green", 1200.5, 2, true, None)
            },
            item("Cake", 4.0, 10, false, Some("fresh")),
            item("Jam", 3.5, 1, true, None),
        ])
    );
}

#[test]
fn csv_and_tsv_read_the_same_rows() {
    let want = Ok(vec![
        item("Tea, green", 1200.5, 2, true, None),
        item("Cake", 4.0, 10, false, Some("fresh")),
    ]);
    let csv = "item,unit_price,quantity,taxed,note\n\"Tea, green\",\"$1,200.50\",2,yes,\nCake,4,10,no,fresh";
    assert_eq!(read_table::<Item>(csv), want);
    let tsv = "ITEM\tUNIT-PRICE\tQUANTITY\tTAXED\tNOTE\nTea, green\t$1,200.50\t2\tyes\tnone\nCake\t4\t10\tno\tfresh";
    assert_eq!(read_table::<Item>(tsv), want);
}

#[test]
fn every_bad_cell_of_every_row_is_named() {
    let content = "| Item | Unit Price | Quantity | Taxed |\n|---|---|---|---|\n| Tea | 3 | 1 | yes |\n| Cake | about ten | a few | maybe |\n| Jam | | 2 | no |\n| Pie | 2 | 1 | yes | extra |";
    assert_eq!(
        read_table::<Item>(content),
        Err(RowsError {
            problems: vec![
                RowsProblem::BadValue {
                    at: cell(2, "Unit Price"),
                    expected: Expected::Number,
                    found: "about ten".into(),
                },
                RowsProblem::BadValue {
                    at: cell(2, "Quantity"),
                    expected: Expected::WholeNumber,
                    found: "a few".into(),
                },
                RowsProblem::BadValue {
                    at: cell(2, "Taxed"),
                    expected: Expected::YesNo,
                    found: "maybe".into(),
                },
                RowsProblem::Empty {
                    at: cell(3, "Unit Price")
                },
                RowsProblem::ExtraCells {
                    row: 4,
                    extra: "extra".into(),
                    columns: 4,
                },
            ],
            omitted: 0,
        })
    );
}

#[test]
fn a_missing_column_is_named_once_with_the_columns_there_are() {
    let content = "| Item | Price | Taxed |\n|---|---|---|\n| Tea | 3 | yes |\n| Cake | 4 | no |";
    assert_eq!(
        read_table::<Item>(content),
        Err(RowsError {
            problems: vec![
                RowsProblem::NoColumn {
                    column: "Unit Price".into(),
                    columns: vec!["Item".into(), "Price".into(), "Taxed".into()],
                },
                RowsProblem::NoColumn {
                    column: "Quantity".into(),
                    columns: vec!["Item".into(), "Price".into(), "Taxed".into()],
                },
            ],
            omitted: 0,
        })
    );
}

#[test]
fn a_ragged_row_leaves_its_last_fields_absent() {
    let content = "Item | Unit Price | Qty | Taxed | Note\nTea | 3 | 1 | yes\nCake | 4 | 2";
    assert_eq!(
        read_table::<Item>(content),
        Err(RowsError {
            problems: vec![RowsProblem::Empty {
                at: cell(2, "Taxed")
            }],
            omitted: 0,
        })
    );
    let content = "Item | Unit Price | Qty | Taxed | Note\nTea | 3 | 1 | yes";
    assert_eq!(
        read_table::<Item>(content),
        Ok(vec![item("Tea", 3.0, 1, true, None)])
    );
}

#[test]
fn choices_in_cells_list_their_variants() {
    let content = "item,unit price,qty,taxed,unit\nTea,1,1,yes,litre";
    assert_eq!(
        read_table::<Item>(content),
        Err(RowsError {
            problems: vec![RowsProblem::BadValue {
                at: cell(1, "unit"),
                expected: Expected::OneOf(&["Piece", "Kilogram"]),
                found: "litre".into(),
            }],
            omitted: 0,
        })
    );
}

#[test]
fn no_table_no_rows_and_the_problem_cap() {
    assert_eq!(
        read_table::<Item>("I could not find any items."),
        Err(RowsError::one(RowsProblem::NoTable {
            columns: vec![
                "Item".into(),
                "Unit Price".into(),
                "Quantity".into(),
                "Taxed".into(),
                "Note".into(),
                "Unit".into(),
            ]
        }))
    );
    assert_eq!(
        read_table::<Item>("| Item | Unit Price |\n|---|---|"),
        Err(RowsError::one(RowsProblem::NoRows))
    );
    let mut content = String::from("item,unit price,qty,taxed\n");
    for _ in 0..30 {
        content.push_str("Tea,x,1,yes\n");
    }
    let error = read_table::<Item>(&content).unwrap_err();
    assert_eq!((error.problems.len(), error.omitted), (MAX_PROBLEMS, 20));
}

#[test]
fn map_rows_keep_every_column_by_its_name() {
    let content = "| City | Days |\n|---|---|\n| Kyoto | 3 |\n| Nara | |";
    let row = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        read_table::<BTreeMap<String, String>>(content),
        Ok(vec![
            row(&[("City", "Kyoto"), ("Days", "3")]),
            row(&[("City", "Nara")]),
        ])
    );
}

#[derive(Debug, PartialEq, Deserialize)]
struct Invoice {
    #[serde(alias = "No")]
    number: String,
    date: String,
    total: f64,
    paid: bool,
    #[serde(default)]
    tags: Vec<String>,
    due: Option<String>,
}

#[test]
fn a_record_reads_every_line_shape() {
    let content = "Here are the details:\n- **Number:** INV-7\nDate — 2025-05-01\n**Total**: $1,250.00\nPaid: yes\nTags:\n- rush\n- gift\nDue: N/A";
    assert_eq!(
        read_record::<Invoice>(content),
        Ok(Invoice {
            number: "INV-7".into(),
            date: "2025-05-01".into(),
            total: 1250.0,
            paid: true,
            tags: vec!["rush".into(), "gift".into()],
            due: None,
        })
    );
    // One line, items split at commas; the last line for a field wins.
    let content = "No: 8\nDate: today\nTotal: 3\nPaid: no\nTags: a, b\nTotal: 4";
    assert_eq!(
        read_record::<Invoice>(content).map(|i| (i.number, i.total, i.tags)),
        Ok(("8".into(), 4.0, vec!["a".into(), "b".into()]))
    );
}

#[test]
fn a_record_names_missing_empty_unknown_and_bad_lines() {
    let content = "Number: 7\nDate:\nTotal: about ten\nStatus: sent\nPaid yes";
    assert_eq!(
        read_record::<Invoice>(content),
        Err(RowsError {
            problems: vec![
                RowsProblem::UnknownLabel {
                    label: "Status".into(),
                    labels: vec![
                        "Number".into(),
                        "Date".into(),
                        "Total".into(),
                        "Paid".into(),
                        "Tags".into(),
                        "Due".into(),
                    ],
                },
                RowsProblem::BadValue {
                    at: Place::Label("Total".into()),
                    expected: Expected::Number,
                    found: "about ten".into(),
                },
                RowsProblem::Empty {
                    at: Place::Label("Date".into())
                },
            ],
            omitted: 0,
        })
    );
    // `Paid yes` has no colon but starts with a field's name: read.
    assert_eq!(
        read_record::<Invoice>("Number: 7\nDate: x\nTotal: 1")
            .unwrap_err()
            .problems,
        vec![RowsProblem::NoLabel {
            label: "Paid".into()
        }]
    );
    assert_eq!(
        read_record::<Invoice>("Nothing to report."),
        Err(RowsError::one(RowsProblem::NoLines {
            labels: vec![
                "Number".into(),
                "Date".into(),
                "Total".into(),
                "Paid".into(),
                "Tags".into(),
                "Due".into(),
            ]
        }))
    );
}

#[test]
fn a_map_record_keeps_every_label() {
    let content = "Ratings:\n- Kyoto: 5\n- Nara: 4 stars\n- Osaka: -";
    assert_eq!(
        read_record::<HashMap<String, u8>>(content),
        Ok(HashMap::from([("Kyoto".into(), 5), ("Nara".into(), 4)]))
    );
    assert_eq!(
        read_record::<BTreeMap<String, u8>>("Kyoto: 5\nNara: lots\nOsaka: 300"),
        Err(RowsError {
            problems: vec![
                RowsProblem::BadValue {
                    at: Place::Label("Nara".into()),
                    expected: Expected::WholeNumber,
                    found: "lots".into(),
                },
                RowsProblem::BadValue {
                    at: Place::Label("Osaka".into()),
                    expected: Expected::WholeNumberBetween {
                        min: "0".into(),
                        max: "255".into()
                    },
                    found: "300".into(),
                },
            ],
            omitted: 0,
        })
    );
}

#[test]
fn a_bad_list_item_in_a_cell_is_named() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Row {
        name: String,
        scores: Vec<u8>,
    }
    assert_eq!(
        read_table::<Row>("name,scores\nAda,\"1; 2; x\"")
            .unwrap_err()
            .problems,
        vec![RowsProblem::BadItem {
            at: cell(1, "scores"),
            index: 3,
            item: "x".into(),
            expected: Expected::WholeNumber,
        }]
    );
}

#[test]
fn a_custom_deserializer_message_is_kept() {
    fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let n = u32::deserialize(d)?;
        if n == 0 {
            return Err(serde::de::Error::custom("must be at least 1"));
        }
        Ok(n)
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Row {
        name: String,
        #[serde(deserialize_with = "positive")]
        count: u32,
    }
    assert_eq!(
        read_table::<Row>("name | count\nA | 0\nB | 2")
            .unwrap_err()
            .problems,
        vec![RowsProblem::Unreadable {
            at: cell(1, "count"),
            message: "must be at least 1".into(),
            found: "0".into(),
        }]
    );
}
