//! `#[section(table)]`, `#[section(record)]` and map sections through the
//! derive: what they read, the feedback they give, the guide they write.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use twr_runtime::{
    feedback::{Place, ProblemKind},
    sections::Lang,
    Choice, Sections,
};

#[derive(Debug, PartialEq, Deserialize)]
struct Item {
    item: String,
    #[serde(alias = "qty")]
    quantity: u32,
    #[serde(rename = "Unit Price")]
    unit_price: f64,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Meta {
    number: String,
    customer: String,
    paid: bool,
}

#[derive(Debug, PartialEq, Clone, Copy, Choice)]
enum Stars {
    One,
    Two,
    Three,
}

#[derive(Debug, PartialEq, Sections)]
struct Invoice {
    /// The line items.
    #[section(table)]
    items: Vec<Item>,
    #[section(record, header = "[Header]")]
    meta: Meta,
    /// Hours per person.
    hours: BTreeMap<String, u32>,
    #[section(default)]
    ratings: HashMap<String, Stars>,
}

const REPLY: &str = "Sure, here it is.

## Items
| Item | Qty | Unit Price ($) | Note |
|------|----:|------:|------|
| Tea  | 2   | $3.50 | green |
| Cake | 1   | 4     |       |

[Header]
- **Number:** INV-7
- Customer: ACME Corp
- Paid: yes

[Hours]
Ada: 3 hours
Linus: 5
";

#[test]
fn reads_a_table_a_record_and_maps() {
    let invoice = Invoice::parse_sections(REPLY).unwrap();
    assert_eq!(
        invoice,
        Invoice {
            items: vec![
                Item {
                    item: "Tea".into(),
                    quantity: 2,
                    unit_price: 3.5,
                    note: Some("green".into()),
                },
                Item {
                    item: "Cake".into(),
                    quantity: 1,
                    unit_price: 4.0,
                    note: None,
                },
            ],
            meta: Meta {
                number: "INV-7".into(),
                customer: "ACME Corp".into(),
                paid: true,
            },
            hours: BTreeMap::from([("Ada".into(), 3), ("Linus".into(), 5)]),
            ratings: HashMap::new(),
        }
    );
    let with_ratings = format!("{REPLY}\n[Ratings]\nKyoto: three\nNara: **two**");
    assert_eq!(
        Invoice::parse_sections(&with_ratings).unwrap().ratings,
        HashMap::from([("Kyoto".into(), Stars::Three), ("Nara".into(), Stars::Two)])
    );
}

#[test]
fn feedback_names_each_row_column_and_label() {
    let reply = "[Items]
| Item | Unit Price |
|---|---|
| Tea | about ten |
| Cake | | 
[Header]
Number: 7
Status: sent
Paid: maybe
[Hours]
Ada: a few
Linus: 5";
    let feedback = Invoice::parse_sections(reply).unwrap_err();
    let places: Vec<(&str, Option<Place>)> = feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), p.place.clone()))
        .collect();
    let cell = |row, column: &str| {
        Some(Place::Cell {
            row,
            column: column.into(),
        })
    };
    let label = |label: &str| Some(Place::Label(label.into()));
    assert_eq!(
        places,
        [
            ("[Items]", None),
            ("[Items]", cell(1, "Unit Price")),
            ("[Items]", cell(2, "Unit Price")),
            ("[Header]", None),
            ("[Header]", label("Paid")),
            ("[Header]", label("Customer")),
            ("[Hours]", label("Ada")),
        ]
    );
    assert_eq!(
        feedback.to_string(),
        "Thank you. A few parts of your answer need fixing:

1. The table in [Items] has no column Quantity; its columns are Item, Unit Price.
   For example:
   [Items]
   | Item | Quantity | Unit Price | Note |
   |---|---|---|---|
   | <free text> | <a single whole number> | <a single number> | <free text> |

2. In [Items], row 1, column Unit Price: 'about ten' is not a single number.

3. In [Items], row 2, column Unit Price is empty.

4. In [Header], the line 'Status' names no field; the labels are Number, Customer, Paid.
   For example:
   [Header]
   Number: <free text>
   Customer: <free text>
   Paid: <yes or no>

5. In [Header], Paid: 'maybe' is not yes or no.

6. The [Header] section has no line for Customer; please add one: Customer: ...

7. In [Hours], Ada: 'a few' is not a single whole number.

Please write those sections again: each header on a line of its own, followed by its content."
    );
    assert_eq!(
        feedback.problems()[4].kind,
        ProblemKind::BadValue {
            expected: twr_runtime::parse::Expected::YesNo,
            found: "maybe".into()
        }
    );
}

#[test]
fn chinese_feedback_for_a_cell() {
    #[derive(Debug, Sections)]
    #[sections(lang = "zh")]
    #[allow(dead_code)]
    struct Order {
        #[section(table, header = "【明细】")]
        items: Vec<Item>,
    }
    let feedback =
        Order::parse_sections("【明细】\nitem,quantity,unit price\n茶,两个,3").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "【明细】 中第 1 行“quantity”列：“两个”应该是一个整数。\n\n请重新写出这个部分：标题单独占一行，内容写在标题下面。"
    );
    assert_eq!(Order::lang(), Lang::Zh);
}

#[test]
fn the_guide_shows_an_example_table_and_record_lines() {
    assert_eq!(
        Invoice::format_guide(),
        "Think it through freely first. Then give your final answer in the sections below, each header on a line of its own followed by its content.

[Items]
The line items.

[Header]
One line per field, written `Label: value`.

[Hours]
Hours per person.

[Ratings] (optional)
One line per entry, written `Name: value`.

Example answer:

[Items]
| Item | Quantity | Unit Price | Note |
|---|---|---|---|
| <free text> | <a single whole number> | <a single number> | <free text> |
[Header]
Number: <free text>
Customer: <free text>
Paid: <yes or no>
[Hours]
Name 1: <a single whole number>
Name 2: <a single whole number>
[Ratings]
Name 1: <one of: One, Two, Three>
Name 2: <one of: One, Two, Three>

After any thinking, begin your final answer with [Items] on a line of its own."
    );
}

#[test]
fn a_given_example_wins_over_the_built_one() {
    #[derive(Debug, Sections)]
    #[allow(dead_code)]
    struct Order {
        #[section(table, example = "item,quantity,unit price\nTea,2,3.50")]
        items: Vec<Item>,
    }
    assert!(Order::format_guide().contains("[Items]\nitem,quantity,unit price\nTea,2,3.50\n\n"));
    let feedback = Order::parse_sections("[Items]\nnothing here").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The [Items] section should hold a table with the columns Item, Quantity, Unit Price, Note; there is none.
For example:
[Items]
item,quantity,unit price
Tea,2,3.50

Please write that section again: the header on a line of its own, followed by its content."
    );
}
