//! Streaming that a progress bar can follow: a section written again says
//! which earlier text it replaces, so counting the sections done never
//! passes their number; and the text received so far is reported while it
//! arrives, between sections.

use std::time::Duration;

use futures_util::StreamExt as _;
use twr_runtime::model::{BoxFuture, ErrorDetail, Request, Response};
use twr_runtime::{
    ChatModel, Choice, FinishReason, ModelError, Progress, Reply, ScriptedModel, Sections, Think,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Pace {
    Slow,
    Fast,
}

#[derive(Debug, Clone, PartialEq, Sections)]
struct Trip {
    plan: String,
    days: u32,
    pace: Pace,
    notes: String,
}

const PROMPT: &str = "Plan a trip to Kyoto";
const GOOD: &str = "[Plan]\nSee the temples\n[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.";
const BAD_DAYS: &str =
    "[Plan]\nSee the temples\n[Days]\nabout a week\n[Pace]\nslow\n[Notes]\nBook early, and more.";
const PATCH: &str = "[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.";

/// Every section event of a streamed run: `attempt header replaces`.
async fn section_events(think: &Think<'_, impl ChatModel>) -> Vec<String> {
    let events: Vec<Progress<Trip>> = think.stream::<Trip>(PROMPT).collect().await;
    let mut seen = Vec::new();
    for event in events {
        match event {
            Progress::SectionComplete(section) | Progress::SectionInvalid(section) => {
                seen.push(format!(
                    "{} {} {:?}",
                    section.attempt, section.header, section.replaces
                ))
            }
            Progress::Finished(result) => assert_eq!(result.unwrap().value.days, 3),
            _ => {}
        }
    }
    seen
}

/// The sections done, counted from the events: those that replace nothing.
fn done(events: &[String]) -> usize {
    events.iter().filter(|e| e.ends_with(" None")).count()
}

#[tokio::test]
async fn a_section_written_again_by_a_patch_retry_replaces_the_earlier_one() {
    let model = ScriptedModel::new([BAD_DAYS, PATCH]).chunk_size(5);
    let think = Think::new(&model).max_attempts(2);
    let events = section_events(&think).await;
    assert_eq!(
        events,
        [
            "1 [Plan] None",
            "1 [Days] None",
            // The reply was stopped at [Days]; the patch writes it again.
            "2 [Days] Some(1)",
            "2 [Pace] None",
            "2 [Notes] None",
        ]
    );
    // Five events, four sections: the count that skips replacements stops
    // at the number of sections; a naive one would pass it.
    assert_eq!(done(&events), Trip::specs().len());
    assert_eq!(events.len(), 5);
}

#[tokio::test]
async fn sections_read_again_after_a_transport_retry_replace_the_broken_ones() {
    let broken = ModelError::Incomplete {
        partial: Box::new(Reply::text("[Plan]\nSee the temples\n[Days]\n3\n")),
        source: Box::new(ModelError::Interrupted(ErrorDetail::new(
            "connection reset",
        ))),
    };
    let model = ScriptedModel::from_results([
        Err(broken),
        Ok(Reply::text(GOOD).with_finish_reason(FinishReason::Stop)),
    ])
    .chunk_size(7);
    let think = Think::new(&model);
    let events = section_events(&think).await;
    assert_eq!(
        events,
        [
            "1 [Plan] None",
            "1 [Plan] Some(1)",
            "1 [Days] None",
            "1 [Pace] None",
            "1 [Notes] None",
        ]
    );
    assert_eq!(done(&events), Trip::specs().len());
}

#[tokio::test]
async fn a_draft_before_a_closing_think_tag_is_replaced_by_the_answer() {
    // [Plan] of the draft is complete (the [Days] header closed it) when
    // the lone `</think>` says all of it was reasoning.
    let reply = format!("[Plan]\nA draft\n[Days]\n2\n</think>\n{GOOD}");
    let model = ScriptedModel::new([reply]).chunk_size(4);
    let think = Think::new(&model);
    let events = section_events(&think).await;
    assert_eq!(
        events,
        [
            "1 [Plan] None",
            "1 [Plan] Some(1)",
            "1 [Days] None",
            "1 [Pace] None",
            "1 [Notes] None",
        ]
    );
    assert_eq!(done(&events), Trip::specs().len());
}

/// A model whose stream waits before each piece, as a server does, so the
/// progress stream is polled between pieces.
struct Slow(ScriptedModel);

impl ChatModel for Slow {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let response = self.0.call(request).await?;
            Ok(response.map_deltas(|deltas| {
                deltas
                    .then(|delta| async move {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                        delta
                    })
                    .boxed()
            }))
        })
    }

    fn streams(&self) -> bool {
        true
    }
}

/// `receiving attempt received reasoning pieces`, and the sections as
/// `header`, in order.
fn steps(events: &[Progress<Trip>]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Progress::Receiving {
                attempt,
                received,
                reasoning,
                pieces,
            } => Some(format!("{attempt}: {received} {reasoning} {pieces}")),
            Progress::SectionComplete(section) => Some(section.header.to_string()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_text_received_so_far_is_reported_piece_by_piece_between_sections() {
    let reply = Reply::text("[Plan]\nGo\n[Days]\n3\n[Pace]\nslow\n[Notes]\nOk")
        .with_reasoning("Short.")
        .with_finish_reason(FinishReason::Stop);
    let model = Slow(ScriptedModel::from_replies([reply]).chunk_size(10));
    let think = Think::new(&model);
    let events: Vec<Progress<Trip>> = think.stream::<Trip>(PROMPT).collect().await;
    assert_eq!(
        steps(&events),
        [
            // The reasoning first (6 bytes, one piece), then the text in
            // pieces of 10 bytes; each section after the piece closing it.
            "1: 0 6 1",
            "1: 10 6 2",
            "1: 20 6 3",
            "[Plan]",
            "1: 30 6 4",
            "[Days]",
            "1: 40 6 5",
            "[Pace]",
            "1: 41 6 6",
            "[Notes]",
        ]
    );
}

#[tokio::test]
async fn counts_waiting_to_be_polled_are_reported_together_by_the_newest() {
    // The scripted stream never waits: the run reads whole stretches of it
    // before the progress stream is polled again, and the counts of a
    // stretch come out as one event.
    let model = ScriptedModel::new([GOOD]).chunk_size(3);
    let think = Think::new(&model);
    let events: Vec<Progress<Trip>> = think.stream::<Trip>(PROMPT).collect().await;
    let steps = steps(&events);
    let receiving: Vec<&String> = steps.iter().filter(|s| s.starts_with("1: ")).collect();
    assert!(receiving.len() < GOOD.len().div_ceil(3), "{steps:#?}");
    // The last count is the whole reply, in its pieces.
    assert_eq!(
        *receiving.last().unwrap(),
        &format!("1: {} 0 {}", GOOD.len(), GOOD.len().div_ceil(3))
    );
    // Never two counts in a row: each stands before the sections it closed.
    for pair in steps.windows(2) {
        assert!(
            !(pair[0].starts_with("1: ") && pair[1].starts_with("1: ")),
            "{steps:#?}"
        );
    }
}

#[derive(Debug, Clone, PartialEq, Sections)]
struct Visit {
    plan: String,
    days: u32,
    /// Never written in the reply below.
    notes: Option<String>,
    #[section(default)]
    tags: Vec<String>,
}

/// A bar at `completed.len()` of `completed.total()` ends full when an
/// optional section is never written: the total counts the required
/// sections and the optional ones written, so the last section event says
/// 3 of 3, where a bar over the 4 sections would stop at 3 of 4.
#[tokio::test]
async fn the_last_section_event_leaves_a_bar_complete_when_an_optional_section_is_never_written() {
    let model =
        ScriptedModel::new(["[Plan]\nSee the temples\n[Tags]\nquiet\n[Days]\n3"]).chunk_size(4);
    let events: Vec<Progress<Visit>> = Think::new(&model).stream::<Visit>(PROMPT).collect().await;
    let bar: Vec<(usize, usize)> = events
        .iter()
        .filter_map(|event| match event {
            Progress::SectionComplete(section) => {
                Some((section.completed.len(), section.completed.total()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(bar, [(1, 2), (2, 3), (3, 3)]);
    match events.last() {
        Some(Progress::Finished(Ok(outcome))) => assert_eq!(outcome.value.notes, None),
        other => panic!("{other:?}"),
    }
}
