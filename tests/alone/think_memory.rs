//! Memory: a huge reply is held once in the outcome (the attempt, the
//! transcript and the final answer share it), a huge failed reply goes
//! back to the model as a bounded excerpt, and a 5 MB image is held once
//! over a run of three attempts (the requests, the ledger and the scripted
//! model's record share its bytes; a client encodes it for one request at a
//! time). Live heap bytes are counted by a counting allocator in this test
//! binary ([`crate::heap`]).

use crate::heap::{live, peak, reset_peak};
use crate::think_support::*;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::{ChatModel, Message, ModelError, Reply, RetryMode, ScriptedModel, Think};

const MB: usize = 1024 * 1024;

/// A model whose reply is `size` bytes, made when asked (the model keeps
/// no copy).
struct Huge {
    size: usize,
}

impl ChatModel for Huge {
    fn call<'a>(&'a self, _: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let line = "Walk the Philosopher's Path and stop at every temple gate.\n";
            let mut text = String::with_capacity(self.size);
            while text.len() + line.len() <= self.size {
                text.push_str(line);
            }
            Ok(Response::from_reply(Reply::text(text)))
        })
    }
}

#[test]
fn a_huge_reply_is_held_once_in_the_outcome() {
    // They measure the whole heap: nothing else may run meanwhile.
    let _alone = crate::ALONE.blocking_lock();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let model = Huge { size: 50 * MB };
    let before = live();
    let outcome = runtime
        .block_on(Think::new(&model).run_with("Plan a long walk.", |raw: &str| Ok(raw.len())))
        .unwrap();
    let retained = live() - before;
    let reply = outcome.value;
    eprintln!(
        "reply {reply} bytes; outcome retains {retained} bytes ({:.2}x the reply)",
        retained as f64 / reply as f64
    );
    assert!(reply > 49 * MB);
    assert_eq!(outcome.final_reply().len(), reply);
    assert_eq!(outcome.transcript.last().unwrap().content.len(), reply);
    assert_eq!(outcome.attempts[0].raw.len(), reply);
    // The attempt, the transcript and the final answer share one buffer.
    let raw = &outcome.attempts[0].raw;
    assert!(raw.shares_buffer_with(&outcome.transcript.last().unwrap().content));
    assert!(raw.shares_buffer_with(&outcome.final_exchange()[1].content));
    // One copy of the reply, and little besides.
    assert!(
        retained < reply + MB,
        "{retained} bytes retained for a {reply}-byte reply"
    );
}

#[test]
fn a_huge_failed_reply_goes_back_as_a_bounded_excerpt() {
    // They measure the whole heap: nothing else may run meanwhile.
    let _alone = crate::ALONE.blocking_lock();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A million header-like lines, then a [Days] that is not a number.
    let mut failed = String::from("[Plan]\n");
    for i in 0..1_000_000 {
        failed.push_str(&format!("[Step {i}]\n"));
    }
    failed.push_str("[Days]\nmany\n[Budget]\n500\n");
    let model = ScriptedModel::new([failed.as_str(), GOOD]);
    let outcome = runtime
        .block_on(
            Think::new(&model)
                .retry_mode(RetryMode::Full)
                .run::<Trip>("Plan a long walk."),
        )
        .unwrap();
    assert_eq!(outcome.value, good_trip());
    let requests = model.requests();
    let size = |messages: &[Message]| -> usize { messages.iter().map(|m| m.content.len()).sum() };
    let (first, retry) = (size(&requests[0]), size(&requests[1]));
    eprintln!(
        "failed reply {} bytes; first request {first} bytes, retry request {retry} bytes",
        failed.len()
    );
    assert!(retry < first + 64 * 1024, "retry request of {retry} bytes");
    // The excerpt: the beginning, a noted cut, and the end with the failing
    // [Days] section.
    let sent = requests[1][1].content.as_str();
    assert!(sent.starts_with("[Plan]\n[Step 0]\n[Step 1]\n"));
    let notes: Vec<&str> = sent.lines().filter(|l| l.starts_with("[... ")).collect();
    assert_eq!(
        notes.len(),
        1,
        "one cut: the failing section is near the end"
    );
    let cut: usize = notes[0]
        .strip_prefix("[... ")
        .and_then(|rest| rest.strip_suffix(" bytes of this answer are left out here ...]"))
        .and_then(|n| n.parse().ok())
        .expect("the note says how much was left out");
    // What was sent plus what was left out is the whole reply.
    assert_eq!(sent.len() - notes[0].len() - 1 + cut, failed.len());
    assert!(sent.ends_with("[Step 999999]\n[Days]\nmany\n[Budget]\n500\n"));
    // Nothing is lost: the ledger and the transcript keep the whole reply.
    assert_eq!(outcome.attempts[0].raw, failed);
    assert_eq!(outcome.transcript[1].content, failed);
}

/// Three attempts: `[Days]` in words, in words again, then a number.
const THREE_ATTEMPTS: [&str; 3] = [
    "[Plan]\nTemples\n[Days]\nthree\n[Budget]\n500",
    "[Days]\nthree days",
    "[Days]\n3",
];

/// A 5 MiB PNG (its signature, then zeros), made before any count starts.
fn five_mb_image() -> Message {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.resize(5 * MB, 0);
    Message::user("Plan a trip from this map.").with_image(png, "image/png")
}

#[test]
fn a_5_mb_image_over_three_attempts_is_held_once() {
    let _alone = crate::ALONE.blocking_lock();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let message = five_mb_image();
    let model = ScriptedModel::new(THREE_ATTEMPTS);
    let before = live();
    reset_peak();
    let outcome = runtime
        .block_on(
            Think::new(&model)
                .focused_questions(false)
                .run::<Trip>(&message),
        )
        .unwrap();
    let peak = peak() - before;
    let retained = live() - before;
    assert_eq!(outcome.attempts.len(), 3);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    eprintln!(
        "5 MiB image, 3 attempts, scripted model: {peak} bytes at most live during the run, \
         {retained} bytes retained by the outcome and the model's record of 3 requests"
    );
    // Every request, the model's record and the outcome share the caller's
    // bytes: the run holds no copy of the image at any moment.
    assert!(peak < MB / 4, "{peak} bytes live at the peak");
    assert!(retained < MB / 4, "{retained} bytes retained");
}

#[test]
fn a_client_encodes_a_5_mb_image_for_one_request_at_a_time() {
    use axum::body::Body;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let _alone = crate::ALONE.blocking_lock();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A server that reads each body piece by piece, keeping only its
    // length, and answers the three attempts in order.
    let received = Arc::new(std::sync::Mutex::new(Vec::<usize>::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let origin = runtime.block_on({
        let received = received.clone();
        async move {
            let handler = move |body: Body| {
                let received = received.clone();
                let calls = calls.clone();
                async move {
                    use futures_util::StreamExt as _;
                    let mut stream = body.into_data_stream();
                    let mut length = 0;
                    while let Some(chunk) = stream.next().await {
                        length += chunk.unwrap().len();
                    }
                    received.lock().unwrap().push(length);
                    let reply = THREE_ATTEMPTS[calls.fetch_add(1, Ordering::SeqCst)];
                    axum::Json(serde_json::json!({"choices": [{"index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply}}]}))
                }
            };
            let router = axum::Router::new().fallback(handler);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let origin = format!("http://{}", listener.local_addr().unwrap());
            tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
            origin
        }
    });
    let client = twr_runtime::OpenAiCompatible::new(format!("{origin}/v1"), "vision-test");
    let message = five_mb_image();
    let before = live();
    reset_peak();
    let outcome = runtime
        .block_on(
            Think::new(&client)
                .focused_questions(false)
                .run::<Trip>(&message),
        )
        .unwrap();
    let peak = peak() - before;
    let retained = live() - before;
    assert_eq!(outcome.attempts.len(), 3);
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 3);
    // The base64 of 5 MiB: 4 characters for every 3 bytes.
    let encoded = (5 * MB).div_ceil(3) * 4;
    eprintln!(
        "5 MiB image, 3 attempts over HTTP: bodies of {received:?} bytes ({encoded} of them \
         base64); {peak} bytes at most live during the run ({:.2}x the base64), {retained} \
         bytes retained after it",
        peak as f64 / encoded as f64
    );
    assert!(received
        .iter()
        .all(|&n| n > encoded && n < encoded + 64 * 1024));
    // One request's base64 at a time, at most twice: in the JSON value and
    // in the body written from it (then the body alone while it is sent).
    assert!(peak < 2 * encoded + MB, "{peak} bytes live at the peak");
    // What stays is the HTTP client's (its connection pool), not the image.
    assert!(retained < MB, "{retained} bytes retained");
}
