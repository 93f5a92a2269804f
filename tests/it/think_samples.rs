//! `Think::samples(k)`: the first attempt asked k times at once, each
//! section's value the one most replies agree on, its confidence the share
//! that agreed; every reply in the ledger and the cost; each sample drawn
//! with its own seed and kept apart by the journal and the response cache.
//! Against a real axum server on 127.0.0.1 through the real reqwest
//! client, and with scripted models for the loop's rules.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use twr_runtime::cost::{Price, Prices};
use twr_runtime::model::Served;
use twr_runtime::run::Ending;
use twr_runtime::{
    AttemptKind, FinishReason, OpenAiCompatible, Reply, ScriptedModel, Sections, Think,
};

use crate::support::backends;

#[derive(Debug, PartialEq, Sections)]
struct Event {
    /// The city it took place in.
    city: String,
    /// How many people came.
    attendees: u32,
    /// Whether tickets sold out.
    sold_out: Option<bool>,
}

/// A chat completions server whose reply depends on the request's seed
/// (so the agreement does not depend on which request arrives first),
/// recording every seed it was asked with.
#[derive(Clone, Default)]
struct Seeded {
    seeds: Arc<Mutex<Vec<u64>>>,
}

impl Seeded {
    async fn start(&self) -> String {
        let app = Router::new()
            .route("/v1/chat/completions", post(seeded))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("{origin}/v1")
    }

    fn seeds(&self) -> Vec<u64> {
        let mut seeds = self.seeds.lock().unwrap().clone();
        seeds.sort_unstable();
        seeds
    }
}

async fn seeded(State(server): State<Seeded>, Json(body): Json<Value>) -> Json<Value> {
    let seed = body["seed"].as_u64().unwrap();
    server.seeds.lock().unwrap().push(seed);
    let content = match seed % 3 {
        0 => "[City]\nBergen\n\n[Attendees]\n4",
        1 => "[City]\nOslo\n\n[Attendees]\n2,300\n\n[Sold Out]\nyes",
        _ => "Let me think.\n[City]\n oslo \n\n[Attendees]\n2300\n\n[Sold Out]\nYes.",
    };
    Json(json!({
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    }))
}

fn prices() -> Prices {
    Prices::new().with("local", Price::per_million(1.0, 2.0))
}

#[tokio::test]
async fn three_replies_agree_each_drawn_with_its_own_seed_and_every_one_is_paid_for() {
    let server = Seeded::default();
    let url = server.start().await;
    let model = OpenAiCompatible::new(&url, "local").seed(7);
    let outcome = Think::new(&model)
        .samples(3)
        .prices(prices())
        .review_below(0.9)
        .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Event {
            city: "Oslo".into(),
            attendees: 2300,
            sold_out: Some(true),
        }
    );
    assert_eq!(server.seeds(), [7, 8, 9]);
    let two_thirds = Some(2.0 / 3.0);
    assert_eq!(outcome.confidence("city"), two_thirds);
    assert_eq!(outcome.confidence("attendees"), two_thirds);
    assert_eq!(outcome.confidence("sold_out"), two_thirds);
    assert_eq!(outcome.needs_review(), ["city", "attendees", "sold_out"]);
    assert_eq!(outcome.ending, Ending::FirstTry);
    // One attempt, holding all three replies; its usage and cost are theirs.
    assert_eq!(outcome.attempts.len(), 1);
    let attempt = &outcome.attempts[0];
    assert_eq!(attempt.samples.len(), 3);
    assert_eq!(attempt.usage.total_tokens, 330);
    assert_eq!(outcome.usage.total_tokens, 330);
    let each = 100.0 * 1e-6 + 10.0 * 2e-6;
    assert!((attempt.cost.unwrap() - 3.0 * each).abs() < 1e-12);
    assert!((outcome.cost().unwrap() - 3.0 * each).abs() < 1e-12);
    let mut raws: Vec<&str> = attempt.samples.iter().map(|s| &*s.raw).collect();
    raws.sort_unstable();
    assert!(raws[0].starts_with("Let me think."));
    assert!(raws[1].starts_with("[City]\nBergen"));
    assert!(raws[2].starts_with("[City]\nOslo"));
    // The answer read is the agreed one, as the first reply to write each
    // value wrote it.
    assert!(outcome.final_reply().contains("[Attendees]\n2"));
    assert!(!outcome.final_reply().contains("Bergen"));
    // The ledger line carries every reply.
    let line = serde_json::to_value(&outcome.attempts[0]).unwrap();
    assert_eq!(line["samples"].as_array().unwrap().len(), 3);
    assert_eq!(line["confidence"]["city"], json!(2.0 / 3.0));
}

#[tokio::test]
async fn the_journal_and_the_response_cache_keep_each_samples_reply_apart() {
    for backend in backends::all("samples").await {
        let server = Seeded::default();
        let url = server.start().await;
        let model = OpenAiCompatible::new(&url, "local").seed(7);
        let journal = backend.open().await;
        let run = || async {
            Think::new(&model)
                .samples(3)
                .journal(journal.job("events"))
                .run::<Event>("2,300 fans filled the Oslo hall; sold out.")
                .await
                .unwrap()
        };
        let first = run().await;
        assert_eq!(server.seeds().len(), 3);
        assert_eq!(journal.job("events").replies().await.unwrap(), 3);
        // A resumed run replays the three replies, not one of them thrice.
        let again = run().await;
        assert_eq!(server.seeds().len(), 3, "{backend:?}: nothing bought again");
        assert_eq!(again.value, first.value);
        assert_eq!(again.confidence("city"), Some(2.0 / 3.0));
        let served: Vec<&Served> = again.attempts[0]
            .samples
            .iter()
            .map(|s| &s.served)
            .collect();
        assert_eq!(served, [&Served::Journal; 3]);

        let cache = journal.cache();
        let cached = || async {
            Think::new(&model)
                .samples(3)
                .response_cache(journal.cache())
                .run::<Event>("Another hall.")
                .await
                .unwrap()
        };
        cached().await;
        assert_eq!(cache.len().await.unwrap(), 3, "{backend:?}");
        let hit = cached().await;
        assert_eq!(server.seeds().len(), 6);
        assert_eq!(hit.confidence("attendees"), Some(2.0 / 3.0));
    }
}

#[tokio::test]
async fn an_optional_section_most_replies_leave_out_is_left_out_and_a_cut_off_end_has_no_say() {
    let cut =
        Reply::text("[City]\nOslo\n\n[Attendees]\n23").with_finish_reason(FinishReason::Length);
    let model = ScriptedModel::from_replies([
        Reply::text("[City]\nOslo\n\n[Attendees]\n2300\n\n[Sold Out]\nno"),
        cut,
        Reply::text("[City]\nOslo\n\n[Attendees]\n2300"),
        Reply::text("[City]\nOSLO\n\n[Attendees]\n2,300 people"),
    ]);
    let outcome = Think::new(&model)
        .samples(4)
        .run::<Event>("Oslo, 2300 people.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Event {
            city: "Oslo".into(),
            attendees: 2300,
            sold_out: None,
        }
    );
    assert_eq!(outcome.confidence("city"), Some(1.0));
    // "23" was cut off: it counts for no value; "2,300 people" reads as
    // 2300, so three of the four replies agree.
    assert_eq!(outcome.confidence("attendees"), Some(0.75));
    assert_eq!(outcome.confidence("sold_out"), None);
    let sorted: BTreeMap<&str, f64> = outcome.attempts[0].confidence.iter().copied().collect();
    assert_eq!(sorted.len(), 2);
}

#[tokio::test]
async fn an_agreed_answer_that_fails_is_what_the_model_is_shown_and_the_next_attempt_is_asked_once()
{
    let model = ScriptedModel::new([
        "[City]\nOslo\n\n[Attendees]\nmany",
        "[City]\nOslo\n\n[Attendees]\nlots",
        "[City]\nBergen",
        "[Attendees]\n2300",
    ]);
    let outcome = Think::new(&model)
        .samples(3)
        .run::<Event>("Oslo, 2300 people.")
        .await
        .unwrap();
    assert_eq!(outcome.value.attendees, 2300);
    assert_eq!(outcome.attempts.len(), 2);
    assert_eq!(outcome.attempts[0].samples.len(), 3);
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert!(outcome.attempts[1].samples.is_empty());
    // The second request showed the agreed answer ("many", the first of
    // two values that tie at one each), not a reply of its own.
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    let last = &requests[3];
    let shown = &last[last.len() - 2];
    assert_eq!(shown.content.as_str(), "[City]\nOslo\n\n[Attendees]\nmany");
    // Every reply is in the transcript.
    assert_eq!(outcome.transcript.len(), 1 + 3 + 1 + 1);
}

#[derive(Debug, PartialEq, Sections)]
enum Step {
    /// Search first.
    Search {
        /// What to search for.
        query: String,
    },
    /// Answer now.
    Answer {
        /// The answer.
        answer: String,
    },
}

#[tokio::test]
async fn with_ways_the_way_most_replies_took_wins_and_the_others_count_against_it() {
    let model = ScriptedModel::new([
        "[Answer]\nParis",
        "[Query]\ncapital of France",
        "[Answer]\nparis",
        "[Query]\nFrance capital",
        "[Answer]\nLyon",
    ]);
    let outcome = Think::new(&model)
        .samples(5)
        .run::<Step>("What is the capital of France?")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Step::Answer {
            answer: "Paris".into()
        }
    );
    // Two of five wrote Paris; the two that searched count against it.
    assert_eq!(outcome.confidence("answer"), Some(0.4));
    assert_eq!(outcome.confidence("query"), None);
}
