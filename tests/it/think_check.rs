//! The loop's asynchronous check (`Think::check`): a rule that needs the
//! world, run on each value that parsed. Its refusal goes to the model as
//! written, costs an attempt and is its own kind in the ledger.

use std::collections::HashSet;

use twr_runtime::run::Ending;
use twr_runtime::{
    feedback::ProblemKind, AttemptKind, ScriptedModel, Sections, Think, ThinkErrorKind,
};

#[derive(Debug, PartialEq, Sections)]
struct Lookup {
    order_id: u32,
    /// Why the customer wrote.
    reason: String,
}

const WRONG: &str = "[Order Id]\n17\n[Reason]\nLate parcel.";
const RIGHT: &str = "[Order Id]\n42\n[Reason]\nLate parcel.";

/// An order book the check reads, borrowed by the check and its futures.
fn orders() -> HashSet<u32> {
    HashSet::from([42, 43])
}

#[tokio::test]
async fn a_refused_value_is_sent_back_in_the_checks_own_words() {
    let orders = orders();
    let model = ScriptedModel::new([WRONG, RIGHT]);
    let think = Think::new(&model);
    let outcome = think
        .check(|lookup: &Lookup| {
            let (orders, id) = (&orders, lookup.order_id);
            async move {
                // Answered later, as a database would.
                tokio::task::yield_now().await;
                if orders.contains(&id) {
                    Ok(())
                } else {
                    Err(format!(
                        "There is no order {id}; the customer's orders are 42 and 43."
                    ))
                }
            }
        })
        .run("Which order is this about?")
        .await
        .unwrap();
    assert_eq!(outcome.value.order_id, 42);
    assert_eq!(outcome.ending, Ending::Reasked(1));
    let kinds: Vec<AttemptKind> = outcome.attempts.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AttemptKind::CheckFailed, AttemptKind::Accepted]);
    let refused = &outcome.attempts[0];
    assert_eq!(refused.raw, WRONG);
    assert_eq!(
        refused.feedback.as_ref().unwrap().problems()[0].kind,
        ProblemKind::Check {
            message: "There is no order 17; the customer's orders are 42 and 43.".into()
        }
    );
    assert_eq!(
        refused.sent_back.as_deref(),
        Some(
            "There is no order 17; the customer's orders are 42 and 43.\n\n\
             Reply with your whole answer again, every section included and each header on a \
             line of its own, with these fixes made."
        )
    );
    // The model saw its reply, then exactly that message.
    let second = &model.requests()[1];
    assert_eq!(second[1].content, WRONG);
    assert_eq!(second[2].content, refused.sent_back.clone().unwrap());
}

#[tokio::test]
async fn a_check_that_never_passes_spends_the_attempts_and_keeps_every_reply() {
    let model = ScriptedModel::new([WRONG, RIGHT, WRONG]);
    let think = Think::new(&model).max_attempts(3);
    let error = think
        .check(|_: &Lookup| async { Err::<(), _>("The order system is closed today.") })
        .run("Which order is this about?")
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    assert_eq!(error.raw_replies(), [WRONG, RIGHT, WRONG]);
    assert!(error
        .attempts()
        .iter()
        .all(|attempt| attempt.kind == AttemptKind::CheckFailed));
    assert_eq!(model.calls(), 3);
}

#[tokio::test]
async fn a_format_problem_is_fixed_before_the_check_runs() {
    let checked = std::sync::Mutex::new(Vec::new());
    let model = ScriptedModel::new(["[Order Id]\nforty-two\n[Reason]\nLate parcel.", RIGHT]);
    let think = Think::new(&model);
    let outcome = think
        .check(|lookup: &Lookup| {
            checked.lock().unwrap().push(lookup.order_id);
            async { Ok::<(), String>(()) }
        })
        .run("Which order is this about?")
        .await
        .unwrap();
    assert_eq!(outcome.value.order_id, 42);
    // Checked once: the first reply never gave a value.
    assert_eq!(checked.into_inner().unwrap(), [42]);
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
}

#[tokio::test]
async fn in_chinese_the_request_is_chinese_and_the_checks_words_are_its_own() {
    #[derive(Debug, Sections)]
    #[sections(lang = "zh")]
    struct Id {
        #[section(header = "[订单号]")]
        id: u32,
    }
    let model = ScriptedModel::new(["[订单号]\n17", "[订单号]\n42"]);
    let think = Think::new(&model);
    let outcome = think
        .check(|id: &Id| {
            let id = id.id;
            async move {
                if id == 42 {
                    Ok(())
                } else {
                    Err(format!("没有订单 {id}。"))
                }
            }
        })
        .run("哪个订单？")
        .await
        .unwrap();
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some("没有订单 17。\n\n请重新写出包含所有部分的完整回答，并做好这些修改。")
    );
}
