//! The think-with-retry loop with a scripted model: success, exhaustion,
//! attempts, the private conversation, escalation, repeats, hooks, usage.

use std::sync::{Arc, Mutex};

use crate::support::think::*;
use twr_runtime::run::Ending;
use twr_runtime::{
    think_with_retry, AttemptKind, ChatModel, Feedback, Message, RetryMode, ScriptedModel, Think,
    ThinkError, ThinkErrorKind,
};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";
const WHOLE: &str =
    "Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made.";

#[tokio::test]
async fn first_try_success_sends_the_prompt_with_the_guide() {
    let model = ScriptedModel::new([GOOD]);
    let trip = think_with_retry::<Trip>(&model, PROMPT).await.unwrap();
    assert_eq!(trip, good_trip());
    assert_eq!(model.requests(), vec![vec![prompt_with_guide(PROMPT)]]);
}

#[tokio::test]
async fn outcome_records_a_first_try() {
    let model = ScriptedModel::from_replies([reply_with_usage(GOOD, 120, 30)]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(outcome.ending, Ending::FirstTry);
    assert_eq!(outcome.attempts.len(), 1);
    let attempt = &outcome.attempts[0];
    assert_eq!(attempt.number, 1);
    assert_eq!(attempt.kind, AttemptKind::Accepted);
    assert_eq!(attempt.raw, GOOD);
    assert_eq!(attempt.feedback, None);
    assert_eq!(attempt.sent_back, None);
    assert!(attempt.transport_retries.is_empty());
    assert_eq!(outcome.usage.total_tokens, 150);
    assert_eq!(
        outcome.final_exchange(),
        [Message::user(PROMPT), Message::assistant(GOOD)]
    );
    assert_eq!(
        outcome.transcript,
        vec![prompt_with_guide(PROMPT), Message::assistant(GOOD)]
    );
}

#[tokio::test]
async fn works_with_dyn_box_and_arc_models() {
    let boxed: Box<dyn ChatModel> = Box::new(ScriptedModel::new([GOOD]));
    assert_eq!(
        Think::new(&boxed).run::<Trip>(PROMPT).await.unwrap().value,
        good_trip()
    );
    let dynamic: &dyn ChatModel = &ScriptedModel::new([GOOD]);
    assert_eq!(
        Think::new(dynamic).run::<Trip>(PROMPT).await.unwrap().value,
        good_trip()
    );
    let shared: Arc<dyn ChatModel> = Arc::new(ScriptedModel::new([GOOD]));
    assert_eq!(
        think_with_retry::<Trip>(&shared, PROMPT).await.unwrap(),
        good_trip()
    );
}

#[tokio::test]
async fn full_mode_exhaustion_keeps_every_reply_and_feedback() {
    let replies = [
        "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500",
        "[Plan]\nTemples\n[Days]\n3",
        "I would love to help plan Kyoto!",
    ];
    let model = ScriptedModel::new(replies);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Exhausted),
        "{error:?}"
    );
    assert_eq!(error.raw_replies(), replies.to_vec());
    assert_eq!(model.calls(), 3);
    for (attempt, raw) in error.attempts().iter().zip(replies) {
        assert_eq!(attempt.kind, AttemptKind::Rejected);
        assert_eq!(attempt.feedback.as_ref(), Some(&problems_of(raw)));
    }
    // The last reply's feedback was never sent: there was no attempt left.
    assert!(error.attempts()[1].sent_back.is_some());
    assert_eq!(error.attempts()[2].sent_back, None);
    assert_eq!(
        error.to_string(),
        "the model gave no valid answer in 3 attempts; the last reply still had 3 problems, the first: \
         The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, then its content. \
         (every reply is kept in this error; see its attempts())"
    );
    let debug = format!("{error:?}");
    for raw in replies {
        assert!(debug.contains(&format!("{raw:?}")), "Debug lacks {raw:?}");
    }
}

#[tokio::test]
async fn full_mode_conversation_is_private_and_bounded() {
    let history = vec![
        Message::user("I like temples."),
        Message::assistant("Kyoto has many."),
    ];
    let r1 = "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500";
    let r2 = "[Plan]\nTemples\n[Days]\n3\n[Budget]\nfive hundred";
    let model = ScriptedModel::new([r1, r2, GOOD]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .system("You are a careful planner.")
        .history(&history)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Reasked(2));
    let base = vec![
        Message::system("You are a careful planner."),
        history[0].clone(),
        history[1].clone(),
        prompt_with_guide(PROMPT),
    ];
    let feedback1 = patch_feedback(r1, WHOLE);
    let feedback2 = patch_feedback(r2, WHOLE);
    let with = |raw: &str, feedback: &str| {
        let mut messages = base.clone();
        messages.push(Message::assistant(raw));
        messages.push(Message::user(feedback));
        messages
    };
    assert_eq!(
        model.requests(),
        vec![base.clone(), with(r1, &feedback1), with(r2, &feedback2)]
    );
    let mut transcript = base.clone();
    transcript.extend([
        Message::assistant(r1),
        Message::user(feedback1.clone()),
        Message::assistant(r2),
        Message::user(feedback2.clone()),
        Message::assistant(GOOD),
    ]);
    assert_eq!(outcome.transcript, transcript);
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(feedback1.as_str())
    );
    assert_eq!(
        outcome.final_exchange(),
        [Message::user(PROMPT), Message::assistant(GOOD)]
    );
}

#[tokio::test]
async fn the_same_problems_twice_escalate_with_the_full_example() {
    let r1 = "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500";
    let r2 = "[Plan]\nShrines\n[Days]\nthree days\n[Budget]\n500";
    let model = ScriptedModel::new([r1, r2, GOOD]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    let requests = model.requests();
    let first = &requests[1].last().unwrap().content;
    let second = &requests[2].last().unwrap().content;
    assert_eq!(first, &patch_feedback(r1, WHOLE));
    assert!(!first.contains("Example answer:"));
    assert_eq!(
        second,
        &format!(
            "{}\n\nThese are the same problems as in your previous answer. Please follow the format exactly; here it is again, with a complete example answer:\n\n{GUIDE}",
            patch_feedback(r2, WHOLE)
        )
    );
}

#[tokio::test]
async fn different_problems_do_not_escalate() {
    let r1 = "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500";
    let r2 = "[Plan]\nTemples\n[Days]\n3\n[Budget]\nfive hundred";
    let model = ScriptedModel::new([r1, r2, GOOD]);
    Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        model.requests()[2].last().unwrap().content,
        patch_feedback(r2, WHOLE)
    );
}

#[tokio::test]
async fn an_identical_reply_stops_the_loop_early() {
    let bad = "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500";
    let model = ScriptedModel::new([bad, &format!("{bad}\n"), GOOD, GOOD]);
    let error = Think::new(&model)
        .max_attempts(4)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::RepeatedReply),
        "{error:?}"
    );
    assert_eq!(model.calls(), 2);
    assert_eq!(error.attempts()[1].kind, AttemptKind::Repeated);
    assert_eq!(error.attempts()[1].feedback, Some(problems_of(bad)));
    let problems = problems_of(bad).to_string();
    assert_eq!(
        error.to_string(),
        format!(
            "the model repeated its previous reply word for word at attempt 2, so the loop stopped early; the last reply still had 1 problem: {}",
            problems.lines().next().unwrap()
        )
    );
}

#[tokio::test]
async fn the_hook_sees_every_attempt() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let model = ScriptedModel::new(["nothing useful", GOOD]);
    Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .on_attempt(move |attempt| {
            log.lock()
                .unwrap()
                .push((attempt.number, attempt.kind, attempt.raw.to_string()))
        })
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            (1, AttemptKind::Rejected, "nothing useful".to_string()),
            (2, AttemptKind::Accepted, GOOD.to_string()),
        ]
    );
}

#[tokio::test]
async fn run_with_takes_any_parser_and_adds_no_guide() {
    let range = 1..=10u32;
    let parse = |raw: &str| -> Result<u32, Feedback> {
        match raw.trim().parse::<u32>() {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(Feedback::message(format!(
                "Answer with one whole number from 1 to 10; you wrote '{}'.",
                raw.trim()
            ))),
        }
    };
    let model = ScriptedModel::new(["about six", "6"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run_with("How many legs has an insect?", parse)
        .await
        .unwrap();
    assert_eq!(outcome.value, 6);
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(
        model.requests(),
        vec![
            vec![Message::user("How many legs has an insect?")],
            vec![
                Message::user("How many legs has an insect?"),
                Message::assistant("about six"),
                Message::user(
                    "Answer with one whole number from 1 to 10; you wrote 'about six'.\n\n\
                     Please answer again with these fixes made."
                ),
            ],
        ]
    );
}

#[tokio::test]
async fn usage_is_summed_over_attempts() {
    let model = ScriptedModel::from_replies([
        reply_with_usage("no sections at all", 100, 40),
        reply_with_usage(GOOD, 180, 35),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.usage.prompt_tokens, 280);
    assert_eq!(outcome.usage.completion_tokens, 75);
    assert_eq!(outcome.usage.total_tokens, 355);
    assert_eq!(outcome.attempts[0].usage.total_tokens, 140);
    assert_eq!(outcome.attempts[1].usage.total_tokens, 215);
}

#[tokio::test]
async fn reasoning_is_kept_in_the_ledger() {
    let mut reply = reply_with_usage(GOOD, 1, 1);
    reply.reasoning = Some("Kyoto has many temples; three days is enough.".to_string());
    let model = ScriptedModel::from_replies([reply]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(
        outcome.attempts[0].reasoning.as_deref(),
        Some("Kyoto has many temples; three days is enough.")
    );
}

#[test]
fn runs_are_send_and_errors_are_send_sync() {
    fn send<T: Send>(_: &T) {}
    fn send_sync_static<T: Send + Sync + 'static>() {}
    let model = ScriptedModel::new([GOOD]);
    let think = Think::new(&model);
    let run = think.run::<Trip>(PROMPT);
    send(&run);
    let range = 1..=10u32;
    let run_with = think.run_with(PROMPT, |raw: &str| {
        raw.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| range.contains(n))
            .ok_or_else(|| Feedback::message("a number from 1 to 10"))
    });
    send(&run_with);
    send_sync_static::<ThinkError>();
    send_sync_static::<twr_runtime::Outcome<Trip>>();
}

#[tokio::test]
async fn max_attempts_zero_still_makes_one_call() {
    let model = ScriptedModel::new(["no sections", GOOD]);
    let error = Think::new(&model)
        .max_attempts(0)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    assert_eq!(model.calls(), 1);
}
