//! Patch retries (the default mode): only the failing sections are asked
//! for and merged with the valid ones; replies cut off by the token limit.

use crate::support::think::*;
use twr_runtime::run::{Ending, SectionSource};
use twr_runtime::{
    AttemptKind, Feedback, Message, RetryMode, ScriptedModel, Think, ThinkErrorKind,
};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";
const BAD_DAYS: &str =
    "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\nthree\n[Budget]\n500";

#[tokio::test]
async fn a_patch_asks_only_for_the_failing_section_and_is_merged() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(outcome.ending, Ending::Repaired(1));
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
    let feedback = patch_feedback(
        BAD_DAYS,
        "Reply with only the corrected [Days] section, under its header on a line of its own; I have kept the rest of your answer.",
    );
    assert_eq!(
        model.requests()[1],
        vec![
            prompt_with_guide(PROMPT),
            Message::assistant(BAD_DAYS),
            Message::user(feedback),
        ]
    );
    assert_eq!(
        outcome.sources,
        vec![
            SectionSource::new("[Plan]", 1),
            SectionSource::new("[Days]", 2),
            SectionSource::new("[Budget]", 1),
        ]
    );
    let merged = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n\n[Days]\n3\n\n[Budget]\n500";
    assert_eq!(outcome.final_reply(), merged);
    assert_eq!(
        outcome.final_exchange(),
        [Message::user(PROMPT), Message::assistant(merged)]
    );
}

#[tokio::test]
async fn patches_accumulate_over_several_attempts() {
    let r1 = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\nthree\n[Budget]\nfive hundred";
    let r2 = "[Days]\n3\n[Budget]\nabout 500";
    let model = ScriptedModel::new([r1, r2, "[Budget]\n500"]);
    // Without focused questions, the section still wrong is patched again.
    let outcome = Think::new(&model)
        .max_attempts(3)
        .focused_questions(false)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(outcome.ending, Ending::Repaired(2));
    // The second feedback is about the merged answer: only [Budget] is left.
    let merged_after_two =
        "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n\n[Days]\n3\n\n[Budget]\nabout 500";
    assert_eq!(
        model.requests()[2].last().unwrap().content,
        patch_feedback(
            merged_after_two,
            "Reply with only the corrected [Budget] section, under its header on a line of its own; I have kept the rest of your answer."
        )
    );
    assert_eq!(model.requests()[2][1], Message::assistant(r2));
}

#[tokio::test]
async fn a_full_re_answer_is_merged_too() {
    let r2 = "[Plan]\nShrines only\n[Days]\n3";
    let model = ScriptedModel::new([BAD_DAYS, r2]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value.plan, "Shrines only");
    assert_eq!(outcome.value.days, 3);
    assert_eq!(outcome.value.budget, 500);
    assert_eq!(outcome.ending, Ending::Repaired(1));
}

#[tokio::test]
async fn a_complete_second_reply_is_a_reask_not_a_repair() {
    let model = ScriptedModel::new([BAD_DAYS, GOOD]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(outcome.final_reply(), GOOD);
    assert!(outcome.sources.is_empty());
}

#[tokio::test]
async fn full_mode_does_not_merge() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3", GOOD]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Reasked(2));
    assert_eq!(outcome.attempts[1].feedback, Some(problems_of("[Days]\n3")));
}

#[tokio::test]
async fn exhaustion_in_patch_mode_keeps_every_raw_reply() {
    let replies = [BAD_DAYS, "[Days]\nthree, I think", "[Days]\nsome"];
    let model = ScriptedModel::new(replies);
    let error = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ThinkErrorKind::Exhausted),
        "{error:?}"
    );
    // Every reply is kept whole in the error's data.
    assert_eq!(error.raw_replies(), replies.to_vec());
    let kept: Vec<&str> = error.attempts().iter().map(|a| a.raw.as_str()).collect();
    assert_eq!(kept, replies);
    assert!(error.attempts().iter().all(|a| a.feedback.is_some()));
    // Its Debug output is short: one entry per attempt with the reply's
    // start and size.
    let debug = format!("{error:?}");
    assert!(debug.len() < 700, "{} bytes: {debug}", debug.len());
    for (n, raw) in replies.iter().enumerate() {
        let kind = if n == 2 { "Focused" } else { "Rejected" };
        let entry = format!("#{} {kind} by \"scripted\": ", n + 1);
        assert!(debug.contains(&entry), "{entry} not in {debug}");
        let size = format!("({} bytes)", raw.len());
        assert!(debug.contains(&size), "{size} not in {debug}");
    }
    assert!(
        debug.contains("\"[Plan]\\nVisit Kiyomizu-dera and Fushimi Inari\\n[Days]\\nthree\\n[B\"…"),
        "{debug}"
    );
}

#[tokio::test]
async fn max_attempts_one_makes_exactly_one_call() {
    let model = ScriptedModel::new(["[Plan]\nTemples", GOOD]);
    let error = Think::new(&model)
        .max_attempts(1)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    assert_eq!(model.calls(), 1);
    assert_eq!(model.remaining(), 1);
    assert_eq!(error.raw_replies(), vec!["[Plan]\nTemples"]);
    assert_eq!(error.attempts()[0].sent_back, None);
    assert_eq!(
        error.to_string(),
        "the model gave no valid answer in 1 attempt; the last reply still had 2 problems, the first: \
         The [Days] section is missing. Please add it: the header [Days] on a line of its own, then its content. \
         (every reply is kept in this error; see its attempts())"
    );
}

#[tokio::test]
async fn escalation_in_patch_mode_shows_the_full_example() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\nthree days", "[Days]\n3"]);
    // Without focused questions (see think_small_models.rs for them).
    let outcome = Think::new(&model)
        .max_attempts(3)
        .focused_questions(false)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Repaired(2));
    let requests = model.requests();
    assert!(!requests[1].last().unwrap().content.contains(GUIDE));
    assert_eq!(
        requests[2].last().unwrap().content,
        format!(
            "The [Days] section needs a change: write a single whole number such as 3, not 'three days'.\n\
             For example:\n[Days]\n3\n\n\
             Reply with only the corrected [Days] section, under its header on a line of its own; \
             I have kept the rest of your answer.\n\n\
             These are the same problems as in your previous answer. Please follow the format exactly; \
             here it is again, with a complete example answer:\n\n{GUIDE}"
        )
    );
}

#[tokio::test]
async fn a_truncated_reply_keeps_its_complete_sections_and_asks_for_the_rest_briefly() {
    // The cut went through [Budget]: "5" may be the start of "500" or "5000".
    let cut = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\n3\n[Budget]\n5";
    let model = ScriptedModel::from_results([
        Ok(truncated(cut)),
        Ok(reply_with_usage("[Budget]\n500", 1, 1)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(outcome.ending, Ending::Repaired(1));
    let first = &outcome.attempts[0];
    assert_eq!(first.kind, AttemptKind::Truncated);
    assert_eq!(first.feedback, None, "a cut reply gets no format feedback");
    let expected = "Your answer was cut off by the length limit before it was finished. \
                    I have kept the complete [Plan] and [Days] sections. \
                    Please write only the [Budget] section, under its header on a line of its own, and keep it short so that it fits. \
                    Start with the header [Budget] on a line of its own.";
    assert_eq!(first.sent_back.as_deref(), Some(expected));
    assert_eq!(
        model.requests()[1],
        vec![
            prompt_with_guide(PROMPT),
            Message::assistant(cut),
            Message::user(expected),
        ]
    );
}

/// The cut section is told by where it lies in the reply, also when a
/// reasoning block sits between the sections.
#[tokio::test]
async fn a_truncated_reply_with_reasoning_between_sections_keeps_its_complete_sections() {
    let cut = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n<think>how many days?</think>\n\
               [Days]\n3\n[Budget]\n5";
    let model = ScriptedModel::from_results([
        Ok(truncated(cut)),
        Ok(reply_with_usage("[Budget]\n500", 1, 1)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Your answer was cut off by the length limit before it was finished. \
             I have kept the complete [Plan] and [Days] sections. \
             Please write only the [Budget] section, under its header on a line of its own, and keep it short so that it fits. \
             Start with the header [Budget] on a line of its own."
        )
    );
}

#[tokio::test]
async fn a_truncated_reply_with_no_complete_section_asks_for_everything_briefly() {
    let cut = "[Plan]\nDay one: Kiyomizu-dera, then a long walk through";
    let model = ScriptedModel::from_results([Ok(truncated(cut)), Ok(reply_with_usage(GOOD, 1, 1))]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Your answer was cut off by the length limit before it was finished. \
             Please write only the [Plan], [Days] and [Budget] sections, each under its header on a line of its own, and keep it short so that it fits. \
             Start with the header [Plan] on a line of its own."
        )
    );
}

#[tokio::test]
async fn a_truncated_reply_that_parses_is_still_not_accepted_whole() {
    // Every section is there, but [Budget] may have been cut mid-number.
    let cut = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\n3\n[Budget]\n50";
    let model = ScriptedModel::from_results([
        Ok(truncated(cut)),
        Ok(reply_with_usage("[Budget]\n500", 1, 1)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value.budget, 500);
}

#[tokio::test]
async fn full_mode_and_run_with_ask_for_a_shorter_whole_answer_after_a_cut() {
    let whole = "Your answer was cut off by the length limit before it was finished. \
                 Please write the whole answer again, shorter, so that it fits: keep each part brief.";
    let model = ScriptedModel::from_results([
        Ok(truncated("[Plan]\nA very long")),
        Ok(reply_with_usage(GOOD, 1, 1)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Truncated);
    assert_eq!(outcome.attempts[0].sent_back.as_deref(), Some(whole));

    let model = ScriptedModel::from_results([Ok(truncated("4")), Ok(reply_with_usage("42", 1, 1))]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run_with("Six times seven?", |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|e| Feedback::message(e.to_string()))
        })
        .await
        .unwrap();
    assert_eq!(outcome.value, 42, "the cut '4' was not accepted");
    assert_eq!(model.requests()[1].last().unwrap().content, whole);
}

#[tokio::test]
async fn a_truncated_attempt_counts_toward_max_attempts() {
    let model = ScriptedModel::from_results([
        Ok(truncated("[Plan]\nLong")),
        Ok(truncated("[Plan]\nLonger")),
    ]);
    let error = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    assert_eq!(
        error.to_string(),
        "the model gave no valid answer in 2 attempts; the last reply was cut off by the token limit \
         (every reply is kept in this error; see its attempts())"
    );
}

/// `Trip` with Chinese feedback.
#[derive(Debug)]
struct ZhTrip(Trip);

impl twr_runtime::Sections for ZhTrip {
    fn specs() -> &'static [twr_runtime::SectionSpec] {
        Trip::specs()
    }
    fn format_guide() -> String {
        Trip::format_guide()
    }
    fn parse_sections(raw: &str) -> Result<Self, Feedback> {
        Trip::parse_sections(raw).map(ZhTrip).map_err(|english| {
            let mut chinese = Feedback::new(twr_runtime::sections::Lang::Zh);
            for problem in english.into_problems() {
                chinese.push(problem);
            }
            chinese
        })
    }
    fn lang() -> twr_runtime::sections::Lang {
        twr_runtime::sections::Lang::Zh
    }
}

#[tokio::test]
async fn the_loop_speaks_the_types_language() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<ZhTrip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value.0, good_trip());
    let sent = outcome.attempts[0].sent_back.as_deref().unwrap();
    assert_eq!(
        sent,
        "[Days] 部分需要修改：write a single whole number such as 3, not 'three'。\n例如：\n[Days]\n3\n\n\
         请只回复改正后的[Days]部分，写在各自的标题下；回答的其余部分我已保留。"
    );

    let model = ScriptedModel::from_results([
        Ok(truncated("[Plan]\n很长")),
        Ok(reply_with_usage(GOOD, 1, 1)),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<ZhTrip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some("你的回答因长度限制被截断，没有写完。请只写[Plan]、[Days]和[Budget]部分，每部分写在其标题下，并尽量简短，以免再次被截断。请从标题[Plan]开始，标题单独占一行。")
    );
}

#[tokio::test]
async fn with_nothing_to_keep_a_patch_retry_asks_for_the_whole_answer() {
    let raw = "1. Fushimi Inari at dawn\n2. Gion at dusk";
    let model = ScriptedModel::new([raw, GOOD]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Reasked(1));
    let expected = patch_feedback(
        raw,
        "Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made.",
    );
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(expected.as_str())
    );
}
