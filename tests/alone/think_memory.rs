//! Memory: a huge reply is held once in the outcome (the attempt, the
//! transcript and the final answer share it), and a huge failed reply goes
//! back to the model as a bounded excerpt. Live heap bytes are counted by a
//! counting allocator in this test binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::think_support::*;
use twr_runtime::model::BoxFuture;
use twr_runtime::{ChatModel, Message, ModelError, Reply, RetryMode, ScriptedModel, Think};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        LIVE.fetch_add(new_size, Ordering::SeqCst);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MB: usize = 1024 * 1024;

/// A model whose reply is `size` bytes, made when asked (the model keeps
/// no copy).
struct Huge {
    size: usize,
}

impl ChatModel for Huge {
    fn chat<'a>(&'a self, _: &'a [Message]) -> BoxFuture<'a, Result<Reply, ModelError>> {
        Box::pin(async move {
            let line = "Walk the Philosopher's Path and stop at every temple gate.\n";
            let mut text = String::with_capacity(self.size);
            while text.len() + line.len() <= self.size {
                text.push_str(line);
            }
            Ok(Reply::text(text))
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
    let before = LIVE.load(Ordering::SeqCst);
    let outcome = runtime
        .block_on(Think::new(&model).run_with("Plan a long walk.", |raw: &str| Ok(raw.len())))
        .unwrap();
    let retained = LIVE.load(Ordering::SeqCst) - before;
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
