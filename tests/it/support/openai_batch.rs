//! An OpenAI Batch API on 127.0.0.1, as its documentation describes it:
//! `POST /v1/files` (multipart, purpose `batch`), `POST /v1/batches`,
//! `GET /v1/batches/{id}` moving through `validating`, `in_progress`,
//! `finalizing` to `completed` (or `expired`, `cancelled`), and
//! `GET /v1/files/{id}/content` for the JSONL output and error files, the
//! output lines in another order than the input. Faults are scripted per
//! batch; every line asked is counted by its request body, so a test can
//! prove that nothing was asked twice. Files are kept on disk, as the
//! provider keeps them on its side: a load test's process holds only what
//! the client holds, and what a batch being run holds.
#![allow(dead_code)] // the load test uses a subset

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

/// What happens to a batch (by creation order).
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// Every line answered.
    None,
    /// The batch expires after answering the first half of its lines; the
    /// rest are in the error file as `batch_expired`.
    ExpireHalf,
    /// Lines whose prompt is one of these items get the status paired with
    /// it instead of a reply.
    ErrorLines(Vec<(u32, u16)>),
    /// The batch is cancelled before it runs any line.
    Cancelled,
    /// Lines whose prompt is one of these items are answered, but their
    /// result line is written as the `Garble` paired with it says.
    Garbled(Vec<(u32, Garble)>),
    /// The batch object lacks this field in this many of its answers that
    /// would hold it (a status, or the output file's id once it has one).
    Omit(&'static str, u32),
}

/// How a result line is garbled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Garble {
    /// Cut off halfway: not JSON.
    Cut,
    /// A success without the reply's body.
    NoBody,
    /// A success whose body is of the wrong shape.
    WrongShape,
}

/// Leaves out `field` from a batch object, when it holds it and `fault`
/// still says to; the fault then counts one omission.
pub fn omit(fault: &mut Fault, object: &mut Value, field: impl Fn(&mut Value) -> bool) {
    if let Fault::Omit(_, left) = fault {
        if *left > 0 && field(object) {
            *left -= 1;
        }
    }
}

/// How a line is answered: the request body to the reply's text.
pub type Answer = fn(&Value) -> String;

#[derive(Default)]
struct Emulated {
    files: Files,
    batches: HashMap<String, Batch>,
    created: usize,
    uploads: usize,
    polls: usize,
    /// Each line's request (a hash of its messages, so that a load test's
    /// emulator holds little) and how often it was asked.
    asked: HashMap<u64, u32>,
    lines: usize,
    /// The text of each garbled result line, by its item.
    garbled: HashMap<u32, String>,
}

/// The uploaded and written files, by id, in a directory of their own
/// (removed with the emulator).
struct Files {
    dir: std::path::PathBuf,
    ids: std::collections::HashSet<String>,
}

impl Default for Files {
    fn default() -> Self {
        static SERVERS: AtomicUsize = AtomicUsize::new(0);
        let n = SERVERS.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("twr-openai-batch-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Files {
            dir,
            ids: Default::default(),
        }
    }
}

impl Files {
    fn insert(&mut self, id: String, bytes: &[u8]) {
        std::fs::write(self.dir.join(&id), bytes).unwrap();
        self.ids.insert(id);
    }

    fn contains_key(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    fn get(&self, id: &str) -> Option<Vec<u8>> {
        self.contains_key(id)
            .then(|| std::fs::read(self.dir.join(id)).unwrap())
    }

    fn remove(&mut self, id: &str) -> Option<Vec<u8>> {
        let bytes = self.get(id)?;
        self.ids.remove(id);
        std::fs::remove_file(self.dir.join(id)).unwrap();
        Some(bytes)
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Batch {
    id: String,
    /// Its number, from 1, in creation order.
    number: usize,
    input_file_id: String,
    steps: VecDeque<&'static str>,
    status: &'static str,
    fault: Fault,
    output_file_id: Option<String>,
    error_file_id: Option<String>,
    counts: (usize, usize, usize),
}

/// A running emulator.
#[derive(Clone)]
pub struct OpenAiBatchServer {
    state: Arc<Mutex<Emulated>>,
    faults: Arc<Mutex<VecDeque<Fault>>>,
    answer: Answer,
    /// While set, batches stay `in_progress`.
    pub hold: Arc<AtomicBool>,
    /// When not 0, the batches from this number on stay `in_progress`.
    pub hold_from: Arc<AtomicUsize>,
    /// While set, a request to create a batch never gets an answer (its
    /// client is killed while it waits).
    pub hang_create: Arc<AtomicBool>,
    /// Requests to create a batch left hanging so far.
    pub hung: Arc<AtomicUsize>,
    /// `http://127.0.0.1:PORT/v1`
    pub url: String,
}

impl OpenAiBatchServer {
    /// Starts a server answering lines with `answer`; the n-th batch
    /// created gets the n-th of `faults` (none once they run out).
    pub async fn start(answer: Answer, faults: Vec<Fault>) -> Self {
        let mut server = OpenAiBatchServer {
            state: Arc::default(),
            faults: Arc::new(Mutex::new(faults.into())),
            answer,
            hold: Arc::default(),
            hold_from: Arc::default(),
            hang_create: Arc::default(),
            hung: Arc::default(),
            url: String::new(),
        };
        let app = Router::new()
            .route("/v1/files", post(upload))
            .route("/v1/files/{id}/content", get(content))
            .route("/v1/batches", post(create))
            .route("/v1/batches/{id}", get(retrieve))
            // OpenAI takes input files up to 200 MB (axum's default limit is 2 MB).
            .layer(DefaultBodyLimit::max(200 * 1024 * 1024))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        server.url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }

    /// Batches created so far.
    pub fn batches(&self) -> usize {
        self.state.lock().unwrap().created
    }

    /// Files uploaded so far.
    pub fn uploads(&self) -> usize {
        self.state.lock().unwrap().uploads
    }

    /// Lines received in all batches so far.
    pub fn lines(&self) -> usize {
        self.state.lock().unwrap().lines
    }

    /// The most lines any batch held.
    pub fn largest_batch(&self) -> usize {
        let state = self.state.lock().unwrap();
        state
            .batches
            .values()
            .map(|b| b.counts.0)
            .max()
            .unwrap_or(0)
    }

    /// The requests asked more than once, with their counts.
    pub fn asked_twice(&self) -> Vec<(u64, u32)> {
        let state = self.state.lock().unwrap();
        state
            .asked
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(k, n)| (*k, *n))
            .collect()
    }

    /// How often each distinct request was asked, sorted.
    pub fn asked(&self) -> Vec<u32> {
        let mut counts: Vec<u32> = self.state.lock().unwrap().asked.values().copied().collect();
        counts.sort();
        counts
    }

    /// Batch objects retrieved so far.
    pub fn polls(&self) -> usize {
        self.state.lock().unwrap().polls
    }

    /// The text of item `item`'s garbled result line.
    pub fn garbled(&self, item: u32) -> String {
        self.state.lock().unwrap().garbled[&item].clone()
    }
}

async fn upload(
    State(server): State<OpenAiBatchServer>,
    mut form: Multipart,
) -> Result<Json<Value>, StatusCode> {
    let mut purpose = None;
    let mut bytes = None;
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|_| StatusCode::BAD_REQUEST)?
    {
        match field.name() {
            Some("purpose") => purpose = Some(field.text().await.unwrap()),
            Some("file") => bytes = Some(field.bytes().await.unwrap().to_vec()),
            _ => {}
        }
    }
    if purpose.as_deref() != Some("batch") {
        return Err(StatusCode::BAD_REQUEST);
    }
    let bytes = bytes.ok_or(StatusCode::BAD_REQUEST)?;
    let mut state = server.state.lock().unwrap();
    state.uploads += 1;
    let id = format!("file-in-{}", state.uploads);
    let size = bytes.len();
    state.files.insert(id.clone(), &bytes);
    Ok(Json(
        json!({"id": id, "object": "file", "bytes": size, "purpose": "batch",
                   "filename": "batch.jsonl", "status": "processed"}),
    ))
}

async fn content(
    State(server): State<OpenAiBatchServer>,
    Path(id): Path<String>,
) -> Result<Vec<u8>, StatusCode> {
    let state = server.state.lock().unwrap();
    state.files.get(&id).ok_or(StatusCode::NOT_FOUND)
}

async fn create(
    State(server): State<OpenAiBatchServer>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    assert_eq!(body["endpoint"], "/v1/chat/completions");
    assert_eq!(body["completion_window"], "24h");
    if server.hang_create.load(Ordering::SeqCst) {
        server.hung.fetch_add(1, Ordering::SeqCst);
        std::future::pending::<()>().await;
    }
    let input = body["input_file_id"]
        .as_str()
        .ok_or(StatusCode::BAD_REQUEST)?;
    let fault = server
        .faults
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Fault::None);
    let mut state = server.state.lock().unwrap();
    if !state.files.contains_key(input) {
        return Err(StatusCode::NOT_FOUND);
    }
    state.created += 1;
    let id = format!("batch_{:03}", state.created);
    let batch = Batch {
        id: id.clone(),
        number: state.created,
        input_file_id: input.to_string(),
        steps: ["in_progress", "finalizing"].into(),
        status: "validating",
        fault,
        output_file_id: None,
        error_file_id: None,
        counts: (0, 0, 0),
    };
    let object = batch_object(&batch);
    state.batches.insert(id, batch);
    Ok(Json(object))
}

async fn retrieve(
    State(server): State<OpenAiBatchServer>,
    Path(id): Path<String>,
) -> Result<Json<Value>, StatusCode> {
    let mut state = server.state.lock().unwrap();
    state.polls += 1;
    let state = &mut *state;
    let batch = state.batches.get_mut(&id).ok_or(StatusCode::NOT_FOUND)?;
    let hold_from = server.hold_from.load(Ordering::SeqCst);
    let held = (server.hold.load(Ordering::SeqCst) || (hold_from > 0 && batch.number >= hold_from))
        && batch.status == "in_progress";
    if !held && !matches!(batch.status, "completed" | "expired" | "cancelled") {
        match batch.steps.pop_front() {
            Some(next) => batch.status = next,
            None => run(
                batch,
                &mut state.files,
                &mut state.asked,
                &mut state.lines,
                &mut state.garbled,
                server.answer,
            ),
        }
    }
    let mut object = batch_object(batch);
    if let Fault::Omit(field, _) = batch.fault {
        omit(&mut batch.fault, &mut object, |o| {
            o.as_object_mut()
                .unwrap()
                .remove(field)
                .is_some_and(|v| !v.is_null())
        });
    }
    Ok(Json(object))
}

/// Runs a batch's lines at once, as its fault says, and writes its files.
fn run(
    batch: &mut Batch,
    files: &mut Files,
    asked: &mut HashMap<u64, u32>,
    lines_seen: &mut usize,
    garbled: &mut HashMap<u32, String>,
    answer: Answer,
) {
    // The input is not read again: the emulator lets it go.
    let input = files.remove(&batch.input_file_id).unwrap();
    let input = String::from_utf8(input).unwrap();
    let lines: Vec<Value> = input
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    *lines_seen += lines.len();
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["method"], "POST");
        assert_eq!(line["url"], "/v1/chat/completions");
        let custom_id = line["custom_id"].as_str().unwrap();
        let body = &line["body"];
        let item = item_of(body);
        let expired = batch.fault == Fault::ExpireHalf && i >= lines.len() / 2;
        let cancelled = batch.fault == Fault::Cancelled;
        if expired || cancelled {
            if expired {
                errors.push(json!({"id": format!("batch_req_{i}"), "custom_id": custom_id,
                    "response": null,
                    "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}));
            }
            continue;
        }
        *asked.entry(hash(&body["messages"])).or_default() += 1;
        match &batch.fault {
            Fault::ErrorLines(items) if items.iter().any(|(i, _)| *i == item) => {
                let status = items.iter().find(|(i, _)| *i == item).unwrap().1;
                errors.push(json!({"id": format!("batch_req_{i}"), "custom_id": custom_id,
                    "response": {"status_code": status, "request_id": format!("req_{i}"),
                                 "body": {"error": {"message": format!("scripted {status} for item {item}"),
                                                    "type": "server_error"}}},
                    "error": null}));
            }
            _ => output.push(json!({"id": format!("batch_req_{i}"), "custom_id": custom_id,
                "response": {"status_code": 200, "request_id": format!("req_{i}"),
                             "body": {"id": format!("chatcmpl-{i}"), "object": "chat.completion",
                                      "model": body["model"],
                                      "choices": [{"index": 0, "message": {"role": "assistant", "content": answer(body)},
                                                   "finish_reason": "stop"}],
                                      "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
                                                "prompt_tokens_details": {"cached_tokens": 0}}}},
                "error": null})),
        }
        let garble = match &batch.fault {
            Fault::Garbled(items) => items.iter().find(|(i, _)| *i == item).map(|(_, g)| *g),
            _ => None,
        };
        if let Some(garble) = garble {
            let line = output.last_mut().unwrap();
            let text = match garble {
                Garble::Cut => {
                    let whole = line.to_string();
                    Value::String(whole[..whole.len() / 2].to_string())
                }
                Garble::NoBody => {
                    line["response"].as_object_mut().unwrap().remove("body");
                    line.take()
                }
                Garble::WrongShape => {
                    line["response"]["body"]["choices"] = json!("none");
                    line.take()
                }
            };
            let text = match text {
                Value::String(cut) => cut,
                line => line.to_string(),
            };
            garbled.insert(item, text.clone());
            *output.last_mut().unwrap() = Value::String(text);
        }
    }
    // Output in another order than the input: reversed, then the middle out.
    output.reverse();
    let half = output.len() / 2;
    output.rotate_left(half);
    batch.counts = (lines.len(), output.len(), errors.len());
    // A garbled line is its text as it is.
    let jsonl = |lines: &[Value]| {
        lines
            .iter()
            .map(|l| match l {
                Value::String(text) => format!("{text}\n"),
                l => format!("{l}\n"),
            })
            .collect::<String>()
            .into_bytes()
    };
    if !output.is_empty() {
        let id = format!("file-out-{}", batch.id);
        files.insert(id.clone(), &jsonl(&output));
        batch.output_file_id = Some(id);
    }
    if !errors.is_empty() {
        let id = format!("file-err-{}", batch.id);
        files.insert(id.clone(), &jsonl(&errors));
        batch.error_file_id = Some(id);
    }
    batch.status = match batch.fault {
        Fault::ExpireHalf => "expired",
        Fault::Cancelled => "cancelled",
        _ => "completed",
    };
}

fn batch_object(batch: &Batch) -> Value {
    json!({
        "id": batch.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": null,
        "input_file_id": batch.input_file_id, "completion_window": "24h", "status": batch.status,
        "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id,
        "created_at": 1_714_508_499,
        "request_counts": {"total": batch.counts.0, "completed": batch.counts.1, "failed": batch.counts.2},
        "metadata": null
    })
}

/// A hash of a request's messages.
fn hash(messages: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    messages.to_string().hash(&mut hasher);
    hasher.finish()
}

/// The N of a request whose first message is "item N ...".
pub fn item_of(body: &Value) -> u32 {
    let first = body["messages"][0]["content"].as_str().unwrap();
    first
        .strip_prefix("item ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}
