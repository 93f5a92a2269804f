//! `Think::escalate_to`: after `after` failed format attempts on the cheap
//! model, the remaining attempts go to the stronger one, with the same
//! private conversation; each attempt names the model that answered it.

use std::time::Duration;

use crate::support::think::*;
use twr_runtime::{AttemptKind, Message, ModelError, Reply, RetryPolicy, ScriptedModel, Think};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";

fn models(attempts: &[twr_runtime::Attempt]) -> Vec<&str> {
    attempts.iter().map(|a| a.model.as_str()).collect()
}

#[tokio::test]
async fn after_two_failed_attempts_the_strong_model_answers_the_same_conversation() {
    let cheap = ScriptedModel::new(["no sections at all", "[Plan]\nTemples\n[Days]\nthree"])
        .with_name("cheap-model");
    let strong = ScriptedModel::new(["[Days]\n3\n[Budget]\n500"]).with_name("strong-model");
    let outcome = Think::new(&cheap)
        .escalate_to(&strong, 2)
        .max_attempts(4)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            plan: "Temples".into(),
            days: 3,
            budget: 500,
        }
    );
    assert_eq!(
        models(&outcome.attempts),
        ["cheap-model", "cheap-model", "strong-model"]
    );
    assert_eq!(outcome.attempts[2].kind, AttemptKind::Merged);
    assert_eq!(cheap.calls(), 2);
    assert_eq!(strong.calls(), 1);
    // The strong model got exactly the request the cheap one would have got
    // next: the opening request, the latest failed reply and its feedback.
    let sent = &strong.requests()[0];
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0], cheap.requests()[0][0]);
    assert_eq!(
        sent[1],
        Message::assistant("[Plan]\nTemples\n[Days]\nthree")
    );
    assert_eq!(
        sent[2].content,
        outcome.attempts[1].sent_back.clone().unwrap()
    );
}

#[tokio::test]
async fn a_cheap_model_that_follows_the_format_never_escalates() {
    let cheap = ScriptedModel::new([GOOD]).with_name("cheap-model");
    let strong = ScriptedModel::new([GOOD]).with_name("strong-model");
    let outcome = Think::new(&cheap)
        .escalate_to(&strong, 1)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(models(&outcome.attempts), ["cheap-model"]);
    assert_eq!(strong.calls(), 0);
}

#[tokio::test]
async fn transport_retries_are_not_format_failures() {
    // The cheap model fails twice in transport, then answers in the format:
    // one format attempt, no escalation.
    let cheap = ScriptedModel::from_results([
        Err(ModelError::Timeout(Duration::from_millis(5))),
        Err(ModelError::EmptyReply),
        Ok(Reply::text(GOOD)),
    ])
    .with_name("cheap-model");
    let strong = ScriptedModel::new([GOOD]).with_name("strong-model");
    let outcome = Think::new(&cheap)
        .escalate_to(&strong, 1)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(models(&outcome.attempts), ["cheap-model"]);
    assert_eq!(outcome.attempts[0].transport_retries.len(), 2);
    assert_eq!(strong.calls(), 0);
}

#[tokio::test]
async fn a_failed_run_names_every_model_in_its_ledger() {
    let cheap = ScriptedModel::new(["nothing"]).with_name("cheap-model");
    let strong = ScriptedModel::new(["still nothing", "nothing either"]).with_name("strong-model");
    let error = Think::new(&cheap)
        .escalate_to(&strong, 1)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert_eq!(
        models(error.attempts()),
        ["cheap-model", "strong-model", "strong-model"]
    );
    assert_eq!(
        error.raw_replies(),
        ["nothing", "still nothing", "nothing either"]
    );
}
