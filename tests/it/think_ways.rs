//! Enums of section sets in the loop: the reply's headers choose the way;
//! a reply with no way or with two gets feedback naming the enum; patch
//! retries stay within the chosen way and a reply that switches ways is
//! read as a new answer; streamed replies report the way at its first
//! header, and a mixed one is stopped there.

use std::sync::Mutex;

use futures_util::StreamExt as _;
use twr_runtime::run::Ending;
use twr_runtime::{
    feedback::ProblemKind, AttemptKind, Message, Progress, ScriptedModel, Sections, Think,
};

#[derive(Debug, Clone, PartialEq, Sections)]
struct FinalAnswer {
    /// The answer, in one or two sentences.
    #[section(example = "Paris is the capital of France.")]
    answer: String,
    /// How sure you are, from 1 to 5.
    confidence: u8,
}

#[derive(Debug, Clone, PartialEq, Sections)]
enum Step {
    /// Search the web before answering.
    Search {
        /// What to type into the search box.
        #[section(example = "capital of France")]
        query: String,
        /// Why the search is needed.
        reason: String,
    },
    /// Answer now.
    Answer(FinalAnswer),
}

#[derive(Debug, Clone, PartialEq, Sections)]
struct AgentStep {
    thought: String,
    #[section(flatten)]
    next: Step,
}

const PROMPT: &str = "What is the capital of France?";
const SEARCH: &str = "[Query]\ncapital of France\n[Reason]\nI should check.";
const ANSWER: &str = "[Answer]\nParis.\n[Confidence]\n5";
const MIXED: &str =
    "[Query]\ncapital of France\n[Reason]\nI should check.\n[Answer]\nParis.\n[Confidence]\n4";

fn paris() -> Step {
    Step::Answer(FinalAnswer {
        answer: "Paris.".into(),
        confidence: 5,
    })
}

#[tokio::test]
async fn the_reply_chooses_the_way_and_the_prompt_offers_every_way() {
    let model = ScriptedModel::new([SEARCH]);
    let outcome = Think::new(&model).run::<Step>(PROMPT).await.unwrap();
    assert_eq!(
        outcome.value,
        Step::Search {
            query: "capital of France".into(),
            reason: "I should check.".into()
        }
    );
    assert_eq!(
        model.requests()[0],
        [Message::user(format!(
            "{PROMPT}\n\n{}",
            Step::format_guide()
        ))]
    );
}

#[tokio::test]
async fn a_mixed_reply_is_asked_again_in_one_way() {
    let model = ScriptedModel::new([MIXED, ANSWER]);
    let outcome = Think::new(&model).run::<Step>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, paris());
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Your answer mixes the ways of Step: it has sections of Search ([Query] and [Reason]) \
             and Answer ([Answer] and [Confidence]). Choose one way and write only its sections: \
             Search ([Query] and [Reason]) or Answer ([Answer] and [Confidence]).\n\n\
             Reply with your whole answer again, in one way only, each header on a line of its \
             own, with these fixes made."
        )
    );
    // The kept sections of the way not taken are not merged into it.
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Accepted);
    assert_eq!(outcome.ending, Ending::Reasked(1));
}

#[tokio::test]
async fn a_reply_with_no_way_gets_the_ways_in_chinese_too() {
    #[derive(Debug, PartialEq, Sections)]
    #[sections(lang = "zh")]
    enum Reply {
        Search {
            #[section(header = "[查询]")]
            query: String,
        },
        Answer {
            #[section(header = "[回答]")]
            answer: String,
        },
    }
    let model = ScriptedModel::new(["巴黎。", "[回答]\n巴黎"]);
    let outcome = Think::new(&model).run::<Reply>(PROMPT).await.unwrap();
    assert_eq!(
        outcome.value,
        Reply::Answer {
            answer: "巴黎".into()
        }
    );
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "你的回答里没有Reply的任何部分。请选择一种方式，写出它的部分：Search（[查询]）或Answer（[回答]）。\n\n\
             请只用一种方式重新写出完整回答，每个标题单独占一行，并做好这些修改。"
        )
    );
}

#[tokio::test]
async fn a_patch_retry_stays_within_the_chosen_way() {
    let model = ScriptedModel::new([
        "[Thought]\nI am not sure.\n[Query]\ncapital of France",
        "[Reason]\nTo be sure.",
    ]);
    let outcome = Think::new(&model).run::<AgentStep>(PROMPT).await.unwrap();
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "The [Reason] section is missing. Please add it: the header [Reason] on a line of \
             its own, then its content.\nFor example:\n[Reason]\n<free text>\n\n\
             Reply with only the corrected [Reason] section, under its header on a line of its \
             own; I have kept the rest of your answer."
        )
    );
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
    assert_eq!(
        outcome.value.next,
        Step::Search {
            query: "capital of France".into(),
            reason: "To be sure.".into()
        }
    );
}

#[tokio::test]
async fn a_reply_that_switches_way_is_a_new_answer_not_a_merge() {
    let model = ScriptedModel::new([
        "[Thought]\nI am not sure.\n[Query]\ncapital of France",
        ANSWER,
    ]);
    let outcome = Think::new(&model).run::<AgentStep>(PROMPT).await.unwrap();
    assert_eq!(
        outcome.value,
        AgentStep {
            thought: "I am not sure.".into(),
            next: paris()
        }
    );
    // The shared section is kept; the first way's [Query] is not.
    let sources: Vec<(&str, usize)> = outcome
        .sources
        .iter()
        .map(|source| (source.header, source.attempt))
        .collect();
    assert_eq!(
        sources,
        [("[Thought]", 1), ("[Answer]", 2), ("[Confidence]", 2)]
    );
    assert_eq!(
        outcome.final_exchange()[1].content,
        "[Thought]\nI am not sure.\n\n[Answer]\nParis.\n\n[Confidence]\n5"
    );
}

#[tokio::test]
async fn streamed_sections_know_their_way_at_its_first_header() {
    let model = ScriptedModel::new([format!("[Thought]\nEasy.\n{ANSWER}")]).chunk_size(3);
    let seen = Mutex::new(Vec::new());
    let think = Think::new(&model).on_section(|event| {
        seen.lock().unwrap().push(format!(
            "{} {:?} {:?}",
            event.header,
            event.variant,
            event.completed.variant("Step")
        ));
    });
    let mut progress = Box::pin(think.stream::<AgentStep>(PROMPT));
    let mut notes = Vec::new();
    while let Some(event) = progress.next().await {
        match event {
            Progress::Chosen {
                attempt,
                enum_name,
                variant,
            } => notes.push(format!("{attempt}: {enum_name} takes {variant}")),
            Progress::SectionComplete(section) => notes.push(section.header.to_owned()),
            Progress::Finished(outcome) => {
                assert_eq!(outcome.unwrap().value.next, paris());
            }
            _ => {}
        }
    }
    // The [Answer] header line closes [Thought] and opens the way.
    drop(progress);
    drop(think);
    assert_eq!(
        notes,
        [
            "[Thought]",
            "1: Step takes Answer",
            "[Answer]",
            "[Confidence]"
        ]
    );
    assert_eq!(
        seen.into_inner().unwrap(),
        [
            "[Thought] None None",
            "[Answer] Some(\"Answer\") Some(\"Answer\")",
            "[Confidence] Some(\"Answer\") Some(\"Answer\")",
        ]
    );
}

#[tokio::test]
async fn a_mixed_stream_is_stopped_at_the_first_header_of_its_second_way() {
    let model = ScriptedModel::new([MIXED, ANSWER]).chunk_size(4);
    let think = Think::new(&model);
    let mut progress = Box::pin(think.stream::<Step>(PROMPT));
    let mut notes = Vec::new();
    let mut outcome = None;
    while let Some(event) = progress.next().await {
        match event {
            Progress::Chosen {
                attempt, variant, ..
            } => notes.push(format!("{attempt}: {variant}")),
            Progress::SectionComplete(section) => {
                notes.push(format!("{}: {}", section.attempt, section.header))
            }
            Progress::Aborted {
                attempt,
                header,
                received,
            } => notes.push(format!(
                "{attempt}: stopped at {header} after {received} bytes"
            )),
            Progress::Finished(result) => outcome = Some(result.unwrap()),
            _ => {}
        }
    }
    assert_eq!(
        notes,
        [
            "1: Search",
            "1: [Query]",
            "1: [Reason]",
            "1: stopped at [Answer] after 60 bytes",
            "2: Answer",
            "2: [Answer]",
            "2: [Confidence]",
        ]
    );
    let outcome = outcome.unwrap();
    assert_eq!(outcome.value, paris());
    let stopped = &outcome.attempts[0];
    assert_eq!(stopped.kind, AttemptKind::Aborted);
    assert_eq!(
        stopped.raw,
        "[Query]\ncapital of France\n[Reason]\nI should check.\n[Answer]\n"
    );
    assert_eq!(
        stopped.feedback.as_ref().unwrap().problems()[0].kind,
        ProblemKind::MixedWays {
            enum_name: "Step".into(),
            found: vec![
                twr_runtime::feedback::Way::new(
                    "Search",
                    vec!["[Query]".into(), "[Reason]".into()]
                ),
                twr_runtime::feedback::Way::new("Answer", vec!["[Answer]".into()]),
            ],
            ways: vec![
                twr_runtime::feedback::Way::new(
                    "Search",
                    vec!["[Query]".into(), "[Reason]".into()]
                ),
                twr_runtime::feedback::Way::new(
                    "Answer",
                    vec!["[Answer]".into(), "[Confidence]".into()]
                ),
            ],
        }
    );
    assert_eq!(
        stopped.sent_back.as_deref(),
        Some(
            "Your answer mixes the ways of Step: it has sections of Search ([Query] and [Reason]) \
             and Answer ([Answer]). Choose one way and write only its sections: \
             Search ([Query] and [Reason]) or Answer ([Answer] and [Confidence]).\n\n\
             Reply with your whole answer again, in one way only, each header on a line of its \
             own, with these fixes made."
        )
    );
}

#[tokio::test]
async fn without_early_abort_a_mixed_stream_is_read_whole_and_judged_as_a_whole_reply() {
    let model = ScriptedModel::new([MIXED, ANSWER]).chunk_size(4);
    let outcome = Think::new(&model)
        .early_abort(false)
        .run::<Step>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, paris());
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[0].raw, MIXED);
    let whole = Think::new(&ScriptedModel::new([MIXED, ANSWER]))
        .run::<Step>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.attempts[0].sent_back, whole.attempts[0].sent_back);
}
