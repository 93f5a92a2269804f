//! Early abort over a real connection: an axum server on
//! 127.0.0.1 streams a reply whose second section is invalid, then a long
//! tail, slowly. The loop stops reading at the invalid section and drops
//! the stream; the server sees the connection close before it has sent the
//! tail, and the test counts the bytes it never had to send.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::Router;
use serde_json::json;
use twr_runtime::{AttemptKind, OpenAiCompatible, Sections, Think};

#[derive(Debug, Clone, PartialEq, Sections)]
struct Trip {
    plan: String,
    days: u32,
    notes: String,
}

const HEAD_EVENTS: usize = 4;
const TAIL_EVENTS: usize = 200;
const TAIL_PAUSE: Duration = Duration::from_millis(50);

fn event(content: &str) -> String {
    let chunk =
        json!({"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
    format!("data: {chunk}\n\n")
}

fn finish() -> String {
    let chunk = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    format!("data: {chunk}\n\ndata: [DONE]\n\n")
}

/// What the server did with the first (doomed) reply.
#[derive(Default)]
struct Sent {
    /// Bytes of the body handed to the connection.
    bytes: AtomicUsize,
    /// The body was dropped before its end: the connection closed.
    closed_early: AtomicBool,
    /// Bytes the whole body has.
    total: AtomicUsize,
    /// Bytes of the events before the tail.
    head: AtomicUsize,
    /// When the body was dropped.
    closed_at: Mutex<Option<Instant>>,
}

/// Counts what was sent; notices being dropped before the end.
struct Guard {
    sent: Arc<Sent>,
    finished: bool,
}

impl Guard {
    fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.finished {
            self.sent.closed_early.store(true, Ordering::SeqCst);
            *self.sent.closed_at.lock().unwrap() = Some(Instant::now());
        }
    }
}

fn doomed_reply(sent: Arc<Sent>) -> Response {
    // The head arrives at once; [Days] is complete (and invalid) as soon as
    // the [Notes] header line has arrived.
    let mut pieces: Vec<(String, Duration)> = [
        "[Plan]\nSee ",
        "the temples\n[Days]\nabout a ",
        "week\n[Notes]",
        "\nBook ",
    ]
    .iter()
    .map(|text| (event(text), Duration::from_millis(5)))
    .collect();
    for n in 0..TAIL_EVENTS {
        pieces.push((
            event(&format!("and then more notes, line {n} of the tail.\n")),
            TAIL_PAUSE,
        ));
    }
    pieces.push((finish(), TAIL_PAUSE));
    let total: usize = pieces.iter().map(|(p, _)| p.len()).sum();
    sent.total.store(total, Ordering::SeqCst);
    let head: usize = pieces[..HEAD_EVENTS].iter().map(|(p, _)| p.len()).sum();
    sent.head.store(head, Ordering::SeqCst);
    let guard = Guard {
        sent,
        finished: false,
    };
    let stream = futures_util::stream::unfold(
        (pieces.into_iter(), guard),
        |(mut pieces, guard)| async move {
            match pieces.next() {
                Some((piece, pause)) => {
                    tokio::time::sleep(pause).await;
                    guard.sent.bytes.fetch_add(piece.len(), Ordering::SeqCst);
                    Some((Ok::<_, std::io::Error>(Bytes::from(piece)), (pieces, guard)))
                }
                None => {
                    guard.finish();
                    None
                }
            }
        },
    );
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

fn good_patch() -> Response {
    let body = [
        event("[Days]\n7\n"),
        event("[Notes]\nBook early."),
        finish(),
    ]
    .concat();
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

#[tokio::test]
async fn the_server_sees_the_connection_close_before_it_sends_the_tail() {
    let sent = Arc::new(Sent::default());
    let calls = Arc::new(AtomicUsize::new(0));
    let router = {
        let (sent, calls) = (sent.clone(), calls.clone());
        Router::new().fallback(move || {
            let (sent, calls) = (sent.clone(), calls.clone());
            async move {
                match calls.fetch_add(1, Ordering::SeqCst) {
                    0 => doomed_reply(sent),
                    _ => good_patch(),
                }
            }
        })
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let model = OpenAiCompatible::new(format!("{origin}/v1"), "test-model").stream(true);
    let started = Instant::now();
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("Plan a trip")
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!(
        outcome.value,
        Trip {
            plan: "See the temples".into(),
            days: 7,
            notes: "Book early.".into()
        }
    );
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Aborted);
    assert_eq!(
        outcome.attempts[0].raw,
        "[Plan]\nSee the temples\n[Days]\nabout a week\n[Notes]\nBook "
    );
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    // The server notices the closed connection when its next write fails.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !sent.closed_early.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        sent.closed_early.load(Ordering::SeqCst),
        "the server sent the whole reply"
    );
    let total = sent.total.load(Ordering::SeqCst);
    let bytes = sent.bytes.load(Ordering::SeqCst);
    let unsent = total - bytes;
    println!(
        "early abort: the server sent {bytes} of {total} bytes (the head is {}) and never \
         sent {unsent} ({:.1}%); the run took {elapsed:?} instead of at least {:?}",
        sent.head.load(Ordering::SeqCst),
        100.0 * unsent as f64 / total as f64,
        TAIL_PAUSE * TAIL_EVENTS as u32
    );
    // The tail events are about 110 bytes each: at most two went out (one
    // may be on its way when the connection closes).
    let head = sent.head.load(Ordering::SeqCst);
    assert!(
        bytes >= head && bytes <= head + 2 * 120,
        "sent {bytes}, the head is {head}"
    );
    assert!(elapsed < TAIL_PAUSE * TAIL_EVENTS as u32 / 2, "{elapsed:?}");
}
