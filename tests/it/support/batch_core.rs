//! What the emulated Anthropic and Gemini batch APIs share: the scripted
//! faults per batch, the answers, and the counts that prove nothing was
//! asked twice. Each API's own shapes are in its module; they hand this one
//! every request as chat messages (`{"messages": [{"role", "content"}]}`),
//! so one answer function serves every provider.
#![allow(dead_code)] // each test uses a subset

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde_json::Value;

pub use super::openai_batch::{item_of, omit, Answer, Fault, Garble};

/// What became of one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The model's reply text.
    Reply(String),
    /// A line that failed with this HTTP-like status.
    Error(u16, String),
    /// A line the batch never ran: it expired first.
    Expired,
    /// A line the batch never ran: it was cancelled.
    Cancelled,
    /// A line answered with this reply text, whose result is written
    /// garbled, as the `Garble` says (the item is the line's).
    Garbled(Garble, u32, String),
}

/// The state every emulator keeps.
pub struct Core {
    state: Mutex<Counts>,
    faults: Mutex<VecDeque<Fault>>,
    answer: Answer,
    /// While set, batches stay in progress.
    pub hold: AtomicBool,
    /// The text of each garbled result line, by its item.
    garbled: Mutex<HashMap<u32, String>>,
}

#[derive(Default)]
struct Counts {
    created: usize,
    lines: usize,
    polls: usize,
    /// Each line's messages and how often they were asked.
    asked: HashMap<String, u32>,
}

impl Core {
    /// Lines answered with `answer`; the n-th batch created gets the n-th
    /// of `faults` (none once they run out).
    pub fn new(answer: Answer, faults: Vec<Fault>) -> Self {
        Core {
            state: Mutex::default(),
            faults: Mutex::new(faults.into()),
            answer,
            hold: AtomicBool::new(false),
            garbled: Mutex::default(),
        }
    }

    /// A new batch: its number (from 1) and its fault.
    pub fn create(&self) -> (usize, Fault) {
        let fault = self
            .faults
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Fault::None);
        let mut state = self.state.lock().unwrap();
        state.created += 1;
        (state.created, fault)
    }

    /// Counts a poll; whether batches are held in progress.
    pub fn poll(&self) -> bool {
        self.state.lock().unwrap().polls += 1;
        self.hold.load(Ordering::SeqCst)
    }

    /// Runs a batch's lines (custom id, chat messages) as `fault` says.
    pub fn run(&self, fault: &Fault, lines: &[(String, Value)]) -> Vec<(String, Outcome)> {
        let mut state = self.state.lock().unwrap();
        state.lines += lines.len();
        let mut outcomes = Vec::with_capacity(lines.len());
        for (i, (custom_id, body)) in lines.iter().enumerate() {
            let outcome = match fault {
                Fault::Cancelled => Outcome::Cancelled,
                Fault::ExpireHalf if i >= lines.len() / 2 => Outcome::Expired,
                _ => {
                    *state.asked.entry(body["messages"].to_string()).or_default() += 1;
                    let item = item_of(body);
                    match fault {
                        Fault::ErrorLines(items) if items.iter().any(|(i, _)| *i == item) => {
                            let status = items.iter().find(|(i, _)| *i == item).unwrap().1;
                            Outcome::Error(status, format!("scripted {status} for item {item}"))
                        }
                        Fault::Garbled(items) if items.iter().any(|(i, _)| *i == item) => {
                            let garble = items.iter().find(|(i, _)| *i == item).unwrap().1;
                            Outcome::Garbled(garble, item, (self.answer)(body))
                        }
                        _ => Outcome::Reply((self.answer)(body)),
                    }
                }
            };
            outcomes.push((custom_id.clone(), outcome));
        }
        // Results in another order than the input: reversed, then the
        // middle out.
        outcomes.reverse();
        let half = outcomes.len() / 2;
        outcomes.rotate_left(half);
        outcomes
    }

    /// Records the text written for item `item`'s garbled result line.
    pub fn wrote_garbled(&self, item: u32, text: &str) {
        self.garbled.lock().unwrap().insert(item, text.to_string());
    }

    /// The text of item `item`'s garbled result line.
    pub fn garbled(&self, item: u32) -> String {
        self.garbled.lock().unwrap()[&item].clone()
    }

    /// Batch objects retrieved so far.
    pub fn polls(&self) -> usize {
        self.state.lock().unwrap().polls
    }

    /// Batches created so far.
    pub fn batches(&self) -> usize {
        self.state.lock().unwrap().created
    }

    /// Lines received in all batches so far.
    pub fn lines(&self) -> usize {
        self.state.lock().unwrap().lines
    }

    /// How often each distinct request was asked, sorted.
    pub fn asked(&self) -> Vec<u32> {
        let mut counts: Vec<u32> = self.state.lock().unwrap().asked.values().copied().collect();
        counts.sort();
        counts
    }
}
