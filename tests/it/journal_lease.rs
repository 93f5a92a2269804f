//! Leased jobs (`Job::lease_for`) on both backends, in one process: two
//! workers of one job split its prompts, each run once, and both hand out
//! every result; a worker that dies mid-prompt leaves it to the next once
//! its lease runs out, which replays the replies recorded and buys only
//! the call that was in flight. `job.progress()` counts the prompts.
//! Processes on many machines, killed with SIGKILL: `journal_fleet.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use twr_runtime::journal::Job;
use twr_runtime::model::Served;
use twr_runtime::{OpenAiCompatible, Sections, Think};

use crate::support::backends;

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// "item N" is answered with 2N after a few milliseconds, except that the
/// first ask of an odd N needs a re-ask; while `hold` is set, every re-ask
/// hangs. Counts each distinct request body.
#[derive(Clone, Default)]
struct Server {
    counts: Arc<Mutex<HashMap<String, u32>>>,
    hold: Arc<AtomicBool>,
}

async fn answer(State(server): State<Server>, Json(body): Json<Value>) -> Json<Value> {
    *server
        .counts
        .lock()
        .unwrap()
        .entry(body["messages"].to_string())
        .or_default() += 1;
    let messages = body["messages"].as_array().unwrap();
    let n: u32 = messages[0]["content"]
        .as_str()
        .unwrap()
        .strip_prefix("item ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    if messages.len() > 1 && server.hold.load(Ordering::SeqCst) {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep(Duration::from_millis(3)).await;
    let content = if n % 2 == 1 && messages.len() == 1 {
        "[Number]\nabout that".to_string()
    } else {
        format!("[Number]\n{}", 2 * n)
    };
    Json(json!({
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    }))
}

impl Server {
    async fn start(&self) -> String {
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("{origin}/v1")
    }

    fn counts(&self) -> Vec<u32> {
        let mut counts: Vec<u32> = self.counts.lock().unwrap().values().copied().collect();
        counts.sort();
        counts
    }
}

fn items(n: u32) -> Vec<String> {
    (0..n).map(|n| format!("item {n}")).collect()
}

async fn progress(job: &Job) -> (usize, usize, usize, usize) {
    let p = job.progress().await.unwrap();
    (p.pending, p.leased, p.typed, p.failed)
}

#[tokio::test]
async fn two_workers_split_a_job_run_each_prompt_once_and_both_hand_out_every_result() {
    for backend in backends::all("lease-split").await {
        let server = Server::default();
        let url = server.start().await;
        let model = OpenAiCompatible::new(&url, "doubler");
        // Two handles of their own, as two processes have.
        let (first, second) = (backend.open().await, backend.open().await);
        let lease = Duration::from_secs(30);
        let a = first.job("split").lease_for(lease);
        let b = second.job("split").lease_for(lease);
        let (ran_a, ran_b) = futures_util::future::join(
            Think::new(&model)
                .journal(a.clone())
                .concurrency(4)
                .run_many::<Doubled>(items(40)),
            Think::new(&model)
                .journal(b.clone())
                .concurrency(4)
                .run_many::<Doubled>(items(40)),
        )
        .await;
        for results in [&ran_a, &ran_b] {
            let values: Vec<u32> = results
                .iter()
                .map(|r| r.as_ref().unwrap().value.number)
                .collect();
            assert_eq!(
                values,
                (0..40).map(|n| 2 * n).collect::<Vec<_>>(),
                "{backend:?}"
            );
        }
        // Each prompt was run by one of them: 40 first asks and 20
        // re-asks, each asked once; the other replayed it.
        let counts = server.counts();
        assert_eq!(
            (counts.len(), counts.iter().max()),
            (60, Some(&1)),
            "{backend:?}"
        );
        let live = |results: &[Result<twr_runtime::Outcome<Doubled>, _>]| {
            results
                .iter()
                .filter(|r| r.as_ref().unwrap().attempts[0].served == Served::Live)
                .count()
        };
        assert_eq!(live(&ran_a) + live(&ran_b), 40, "{backend:?}");
        assert!(live(&ran_a) > 0 && live(&ran_b) > 0, "{backend:?}");
        assert_eq!(progress(&a).await, (0, 0, 40, 0), "{backend:?}");
        assert_eq!(a.outcomes().await.unwrap().len(), 40);
        assert_eq!(b.replies().await.unwrap(), 60);
    }
}

#[tokio::test]
async fn a_prompt_of_a_dead_worker_is_taken_over_when_its_lease_runs_out() {
    for backend in backends::all("lease-dead").await {
        let server = Server::default();
        let url = server.start().await;
        let model = OpenAiCompatible::new(&url, "doubler");
        server.hold.store(true, Ordering::SeqCst);

        // The first worker records item 1's first reply, sends its re-ask
        // (which hangs), and dies: its run is dropped, its lease not renewed.
        let first = backend.open().await;
        let dying = first.job("dead").lease_for(Duration::from_millis(400));
        let think = Think::new(&model).journal(dying.clone());
        let run = think.run_many::<Doubled>(items(2));
        let died = tokio::time::timeout(Duration::from_millis(600), run).await;
        assert!(died.is_err(), "the held re-ask cannot end");
        assert_eq!(dying.replies().await.unwrap(), 2, "{backend:?}");
        assert_eq!(progress(&dying).await, (0, 1, 1, 0), "{backend:?}");
        tokio::time::sleep(Duration::from_millis(450)).await;
        assert_eq!(progress(&dying).await, (1, 0, 1, 0), "{backend:?}");

        // The next worker takes item 1 over and replays its first reply.
        server.hold.store(false, Ordering::SeqCst);
        let second = backend.open().await;
        let job = second.job("dead").lease_for(Duration::from_secs(30));
        let results = Think::new(&model)
            .journal(job.clone())
            .run_many::<Doubled>(items(2))
            .await;
        let item = results[1].as_ref().unwrap();
        assert_eq!(item.value.number, 2);
        let served: Vec<Served> = item.attempts.iter().map(|a| a.served.clone()).collect();
        assert_eq!(served, [Served::Journal, Served::Live], "{backend:?}");
        // Only the call in flight at the death was bought twice.
        assert_eq!(server.counts(), [1, 1, 2], "{backend:?}");
        assert_eq!(progress(&job).await, (0, 0, 2, 0), "{backend:?}");
    }
}

/// The results `run_share` handed out, by prompt.
async fn shared<M: twr_runtime::ChatModel>(
    think: &Think<'_, M>,
    n: u32,
) -> Vec<(usize, u32, Served)> {
    let mut got: Vec<(usize, u32, Served)> = think
        .run_share::<Doubled>(items(n))
        .map(|(index, result)| {
            let outcome = result.unwrap();
            (
                index,
                outcome.value.number,
                outcome.attempts[0].served.clone(),
            )
        })
        .collect()
        .await;
    got.sort_by_key(|&(index, ..)| index);
    got
}

#[tokio::test]
async fn two_workers_sharing_a_job_each_hand_out_only_the_prompts_they_ran() {
    for backend in backends::all("lease-share").await {
        let server = Server::default();
        let url = server.start().await;
        let model = OpenAiCompatible::new(&url, "doubler");
        let (first, second) = (backend.open().await, backend.open().await);
        let lease = Duration::from_secs(30);
        let a = first.job("share").lease_for(lease);
        let b = second.job("share").lease_for(lease);
        let (think_a, think_b) = (
            Think::new(&model).journal(a.clone()).concurrency(4),
            Think::new(&model).journal(b.clone()).concurrency(4),
        );
        let (ran_a, ran_b) =
            futures_util::future::join(shared(&think_a, 40), shared(&think_b, 40)).await;
        // Each prompt handed out once, by the worker that ran it, with its
        // value; none replayed.
        assert!(!ran_a.is_empty() && !ran_b.is_empty(), "{backend:?}");
        let mut all: Vec<(usize, u32)> = ran_a
            .iter()
            .chain(&ran_b)
            .map(|(index, number, served)| {
                assert_eq!(*served, Served::Live, "{backend:?}");
                (*index, *number)
            })
            .collect();
        all.sort();
        assert_eq!(
            all,
            (0..40).map(|n| (n, 2 * n as u32)).collect::<Vec<_>>(),
            "{backend:?}"
        );
        // 40 first asks and 20 re-asks, each asked once.
        let counts = server.counts();
        assert_eq!(
            (counts.len(), counts.iter().max()),
            (60, Some(&1)),
            "{backend:?}"
        );
        assert_eq!(progress(&a).await, (0, 0, 40, 0), "{backend:?}");
        assert_eq!(b.outcomes().await.unwrap().len(), 40);
    }
}

#[tokio::test]
async fn a_sharing_worker_takes_over_a_dead_workers_prompt_when_its_lease_runs_out() {
    for backend in backends::all("lease-share-dead").await {
        let server = Server::default();
        let url = server.start().await;
        let model = OpenAiCompatible::new(&url, "doubler");
        server.hold.store(true, Ordering::SeqCst);

        // The first worker types item 0, records item 1's first reply,
        // sends its re-ask (which hangs), and dies.
        let first = backend.open().await;
        let dying = first.job("dead").lease_for(Duration::from_millis(400));
        let think = Think::new(&model).journal(dying.clone());
        let died = tokio::time::timeout(Duration::from_millis(600), shared(&think, 2)).await;
        assert!(
            died.is_err(),
            "the held re-ask cannot end: {backend:?} {died:?}"
        );
        assert_eq!(progress(&dying).await, (0, 1, 1, 0), "{backend:?}");

        // The next worker waits for the lease to run out, takes item 1
        // over (replaying its first reply) and hands out only that one.
        server.hold.store(false, Ordering::SeqCst);
        let second = backend.open().await;
        let job = second.job("dead").lease_for(Duration::from_secs(30));
        let think = Think::new(&model).journal(job.clone());
        assert_eq!(
            shared(&think, 2).await,
            [(1, 2, Served::Journal)],
            "{backend:?}"
        );
        // Only the call in flight at the death was bought twice.
        assert_eq!(server.counts(), [1, 1, 2], "{backend:?}");
        assert_eq!(progress(&job).await, (0, 0, 2, 0), "{backend:?}");
    }
}
