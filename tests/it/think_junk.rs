//! Junk the loop can see is not typed: a section whose value repeats a
//! sentence the loop wrote (a description of the guide, the feedback) or
//! is a placeholder counts as empty, in a first reply, a merged patch and
//! a constrained attempt alike; a right value that holds a line the guide
//! showed (a table's header row, an example's item) is no junk.

use std::collections::VecDeque;
use std::sync::Mutex;

use twr_runtime::grammar::Format;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::{AttemptKind, ChatModel, ModelError, Reply, Sections, Think};

#[derive(Debug, PartialEq, Sections)]
struct Event {
    /// The event's name, exactly as the text gives it.
    name: String,
    /// The year it takes place.
    year: u32,
    /// What to do to attend, one step a line.
    steps: Vec<String>,
}

/// A model that answers from a script and takes GBNF grammars.
struct Enforcing(Mutex<VecDeque<&'static str>>);

impl ChatModel for Enforcing {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let reply = self.0.lock().unwrap().pop_front();
        Box::pin(async move {
            let reply = reply.ok_or_else(|| ModelError::Config("the script ran out".into()))?;
            Ok(Response::from_reply(Reply::text(reply)))
        })
    }

    fn takes_grammar(&self) -> Option<Format> {
        Some(Format::Gbnf)
    }
}

fn problem_headers(attempt: &twr_runtime::Attempt) -> Vec<String> {
    attempt
        .feedback
        .as_ref()
        .map(|feedback| {
            feedback
                .problems()
                .iter()
                .map(|problem| problem.header.to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_copied_description_and_placeholders_are_empty_sections() {
    let model = Enforcing(Mutex::new(VecDeque::from([
        "[Name]\nThe event's name, exactly as the text gives it.\n[Year]\n2024\n[Steps]\n- [item1]\n- [item2]",
        "[Name]\nRock in Rio\n[Steps]\n- Buy a ticket\n- Take the metro",
    ])));
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Event>("Rock in Rio 2024: buy a ticket, take the metro.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Event {
            name: "Rock in Rio".into(),
            year: 2024,
            steps: vec!["Buy a ticket".into(), "Take the metro".into()],
        }
    );
    assert_eq!(problem_headers(&outcome.attempts[0]), ["[Name]", "[Steps]"]);
    assert!(outcome.attempts[0]
        .sent_back
        .as_deref()
        .unwrap()
        .contains("The [Name] section is empty."));
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
}

#[tokio::test]
async fn a_constrained_patch_that_repeats_the_feedback_is_not_typed() {
    let model = Enforcing(Mutex::new(VecDeque::from([
        "[Name]\n<name>\n[Year]\n2024\n[Steps]\n- Buy a ticket",
        // Constrained to the name: the model copies the feedback back.
        "[Name]\nThe [Name] section is empty.",
        // Failed twice: a focused question, its answer the value alone.
        "Rock in Rio",
    ])));
    let outcome = Think::new(&model)
        .max_attempts(3)
        .constrain_after(1)
        .run::<Event>("Rock in Rio 2024: buy a ticket.")
        .await
        .unwrap();
    assert_eq!(outcome.value.name, "Rock in Rio");
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, true, true]);
    assert_eq!(problem_headers(&outcome.attempts[0]), ["[Name]"]);
    assert_eq!(problem_headers(&outcome.attempts[1]), ["[Name]"]);
    assert_eq!(outcome.attempts[2].kind, AttemptKind::Focused);
}

/// A table's header row and a list example's item are lines of the guide,
/// not sentences: a right value that holds them is typed at once.
#[tokio::test]
async fn a_value_holding_a_line_of_the_guide_is_no_junk() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Row {
        item: String,
        qty: u32,
    }
    #[derive(Debug, Sections)]
    struct Order {
        #[section(table)]
        rows: Vec<Row>,
        /// What to see, one item per line.
        #[section(example = "1. Fushimi Inari at dawn\n2. Gion at dusk")]
        plan: Vec<String>,
    }
    let model = Enforcing(Mutex::new(VecDeque::from([
        "[Rows]\n| Item | Qty |\n|---|---|\n| pen | 2 |\n[Plan]\n1. Fushimi Inari at dawn, then Tofuku-ji\n2. Gion",
    ])));
    let outcome = Think::new(&model)
        .max_attempts(1)
        .run::<Order>("Read the order.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value.rows,
        [Row {
            item: "pen".into(),
            qty: 2
        }]
    );
    assert_eq!(
        outcome.value.plan,
        ["Fushimi Inari at dawn, then Tofuku-ji", "Gion"]
    );
}
