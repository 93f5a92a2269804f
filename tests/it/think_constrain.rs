//! The constrained attempts of the loop: which attempts carry a grammar,
//! the grammar of only what still fails, a reply in a grammar's JSON schema
//! read back as sections, and the judges that still apply.

use std::collections::VecDeque;
use std::sync::Mutex;

use twr_runtime::grammar::{Format, Grammar};
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::{AttemptKind, ChatModel, ModelError, Reply, Sections, Think};

#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// How many days.
    #[section(validate = at_most_a_fortnight)]
    days: u32,
    /// The places, in order.
    plan: Vec<String>,
}

fn at_most_a_fortnight(days: &u32) -> Result<(), String> {
    if *days > 14 {
        return Err(format!(
            "{days} days is more than a fortnight; plan 14 or fewer"
        ));
    }
    Ok(())
}

/// A model that answers from a script and records the grammar each request
/// carried; it takes grammars in `takes` (none when `None`).
struct Enforcing {
    replies: Mutex<VecDeque<&'static str>>,
    takes: Option<Format>,
    grammars: Mutex<Vec<Option<Grammar>>>,
}

impl Enforcing {
    fn new(takes: Option<Format>, replies: &[&'static str]) -> Self {
        Enforcing {
            replies: Mutex::new(replies.iter().copied().collect()),
            takes,
            grammars: Mutex::new(Vec::new()),
        }
    }

    fn grammars(&self) -> Vec<Option<Grammar>> {
        self.grammars.lock().unwrap().clone()
    }
}

impl ChatModel for Enforcing {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        self.grammars
            .lock()
            .unwrap()
            .push(request.grammar().cloned());
        let reply = self.replies.lock().unwrap().pop_front();
        Box::pin(async move {
            let reply = reply.ok_or_else(|| ModelError::Config("the script ran out".into()))?;
            Ok(Response::from_reply(Reply::text(reply)))
        })
    }

    fn takes_grammar(&self) -> Option<Format> {
        self.takes
    }
}

fn constrained(attempts: &[twr_runtime::Attempt]) -> Vec<bool> {
    attempts.iter().map(|a| a.constrained).collect()
}

fn days_only() -> Grammar {
    Grammar::of::<Trip>().only(|spec| spec.field == "days")
}

const DAYS_WRONG: &str = "[Days]\nthree\n[Plan]\n- Gion\n- Nara";

#[tokio::test]
async fn the_last_attempt_is_constrained_to_what_still_fails_for_a_model_that_takes_grammars() {
    let model = Enforcing::new(Some(Format::Gbnf), &[DAYS_WRONG, "[Days]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 3,
            plan: vec!["Gion".into(), "Nara".into()]
        }
    );
    assert_eq!(model.grammars(), [None, Some(days_only())]);
    assert_eq!(constrained(&outcome.attempts), [false, true]);
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
}

#[tokio::test]
async fn a_model_that_takes_no_grammar_is_not_constrained_by_default() {
    let model = Enforcing::new(None, &[DAYS_WRONG, "[Days]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(model.grammars(), [None, None]);
    assert_eq!(constrained(&outcome.attempts), [false, false]);
}

#[tokio::test]
async fn the_first_attempt_stays_free_even_when_it_is_the_last() {
    let model = Enforcing::new(Some(Format::Gbnf), &[DAYS_WRONG]);
    let error = Think::new(&model)
        .max_attempts(1)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap_err();
    assert_eq!(model.grammars(), [None]);
    assert_eq!(constrained(error.attempts()), [false]);
}

#[tokio::test]
async fn constrain_after_sends_the_whole_grammar_first_to_any_model() {
    let model = Enforcing::new(Some(Format::Gbnf), &["[Days]\n2\n[Plan]\n- Gion"]);
    let outcome = Think::new(&model)
        .constrain_after(0)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(model.grammars(), [Some(Grammar::of::<Trip>())]);
    assert_eq!(constrained(&outcome.attempts), [true]);
}

/// A model that takes no grammar may ignore the one its request carries:
/// the ledger says what was sent, so its attempts are not constrained.
#[tokio::test]
async fn the_ledger_marks_no_attempt_constrained_for_a_model_that_takes_no_grammar() {
    let model = Enforcing::new(None, &["[Days]\n2\n[Plan]\n- Gion"]);
    let outcome = Think::new(&model)
        .constrain_after(0)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(model.grammars(), [Some(Grammar::of::<Trip>())]);
    assert_eq!(constrained(&outcome.attempts), [false]);
}

#[tokio::test]
async fn a_focused_question_is_constrained_to_the_sections_value_alone() {
    // Days wrong twice: a patch retry, then a question about it alone.
    let model = Enforcing::new(Some(Format::Gbnf), &[DAYS_WRONG, "[Days]\nfour days", "3"]);
    let outcome = Think::new(&model)
        .constrain_after(1)
        .max_attempts(3)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    assert_eq!(
        model.grammars(),
        [
            None,
            Some(days_only()),
            Grammar::of::<Trip>().value_of("days")
        ]
    );
    assert_eq!(outcome.attempts[2].kind, AttemptKind::Focused);
    assert_eq!(constrained(&outcome.attempts), [false, true, true]);
}

#[tokio::test]
async fn a_reply_in_the_json_schema_is_read_as_its_sections() {
    let json = r#"{"reasoning": "Kyoto is small.", "days": 2, "plan": ["Gion", "Nara"]}"#;
    let model = Enforcing::new(Some(Format::JsonSchema), &[json]);
    let outcome = Think::new(&model)
        .constrain_after(0)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 2,
            plan: vec!["Gion".into(), "Nara".into()]
        }
    );
    let attempt = &outcome.attempts[0];
    assert_eq!(&*attempt.raw, json, "the ledger keeps the reply as written");
    assert_eq!(attempt.reasoning.as_deref(), Some("Kyoto is small."));
    assert!(attempt.constrained);
}

#[tokio::test]
async fn a_json_patch_is_merged_with_the_sections_kept() {
    let model = Enforcing::new(
        Some(Format::JsonSchema),
        &[DAYS_WRONG, r#"{"reasoning": null, "days": 4}"#],
    );
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 4,
            plan: vec!["Gion".into(), "Nara".into()]
        }
    );
    assert_eq!(model.grammars(), [None, Some(days_only())]);
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
}

#[tokio::test]
async fn a_constrained_reply_is_still_judged_by_the_validators() {
    // The grammar says "a whole number"; the validator says "at most 14".
    let model = Enforcing::new(Some(Format::Gbnf), &[DAYS_WRONG, "[Days]\n30"]);
    let error = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap_err();
    let last = error.attempts().last().unwrap();
    assert!(last.constrained);
    let problems = last.feedback.as_ref().unwrap().to_string();
    assert!(
        problems.contains("30 days is more than a fortnight"),
        "{problems}"
    );
}

#[tokio::test]
async fn a_repeated_reply_gets_the_next_attempt_constrained_instead_of_ending_the_run() {
    let model = Enforcing::new(
        Some(Format::Gbnf),
        &["Three days.", "Three days.", "[Days]\n3\n[Plan]\n- Gion"],
    );
    let outcome = Think::new(&model)
        .max_attempts(4)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    assert_eq!(
        model.grammars(),
        [None, None, Some(Grammar::of::<Trip>())],
        "the attempt after the repeat is constrained, not only the last"
    );
    let kinds: Vec<AttemptKind> = outcome.attempts.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            AttemptKind::Rejected,
            AttemptKind::Repeated,
            AttemptKind::Accepted
        ]
    );
}

#[tokio::test]
async fn a_repeated_reply_still_ends_the_run_of_a_model_that_takes_no_grammar() {
    let model = Enforcing::new(None, &["Three days.", "Three days."]);
    let error = Think::new(&model)
        .max_attempts(4)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap_err();
    assert_eq!(model.grammars(), [None, None]);
    assert_eq!(error.attempts().len(), 2);
    assert_eq!(error.attempts()[1].kind, AttemptKind::Repeated);
}

#[tokio::test]
async fn before_a_constrained_last_attempt_every_failing_section_is_asked_for_at_once() {
    // Twice no header at all: a model that does not follow the format,
    // which would get a focused question about one section; the last
    // attempt could not finish the answer with one section's value.
    let model = Enforcing::new(
        Some(Format::Gbnf),
        &["Three days.", "Kyoto is nice.", "[Days]\n4\n[Plan]\n- Gion"],
    );
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 4,
            plan: vec!["Gion".into()]
        }
    );
    assert_eq!(model.grammars()[2], Some(Grammar::of::<Trip>()));
}

#[derive(Debug, PartialEq, Sections)]
struct Verdict {
    /// How sure you are.
    #[section(min = 0, max = 1)]
    confidence: f64,
    /// Why.
    reason: String,
}

#[tokio::test]
async fn a_focused_question_about_a_bounded_number_says_its_bounds() {
    // Wrong twice: a patch retry, then a question about it alone.
    let model = twr_runtime::ScriptedModel::new([
        "[Confidence]\nhigh\n[Reason]\nThe data agree.",
        "[Confidence]\n1.5",
        "0.9",
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Verdict>("Is it safe?")
        .await
        .unwrap();
    assert_eq!(outcome.value.confidence, 0.9);
    assert_eq!(
        outcome.attempts[1].sent_back.as_deref(),
        Some("How sure you are. Reply with only the number from 0 to 1.")
    );
}
