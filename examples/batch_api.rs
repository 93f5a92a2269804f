//! Batch API: the same 40 prompts typed online and through a provider's
//! batch API at half price, offline, against an OpenAI-compatible server in
//! this process (chat completions, files and `/v1/batches`). The batch job
//! is killed while its second round runs and resumed from its journal: the
//! batch it had submitted is waited for, not submitted again. Prints
//! tokens and cost per typed value for both.
//!
//! ```text
//! cargo run -p twr-tests --example batch_api
//! ```

use std::collections::HashMap;
use std::error::Error;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Multipart, Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use twr_runtime::batch::BatchModel;
use twr_runtime::cost::{Price, Prices};
use twr_runtime::journal::Journal;
use twr_runtime::{ChatModel, OpenAiCompatible, Outcome, RetryPolicy, Sections, Think, ThinkError};

/// A line count read from a note.
#[derive(Debug, Sections)]
struct Count {
    /// How many items the note lists.
    items: u32,
}

const PROMPTS: u32 = 40;

/// The server in this process: what a note's count is, and the first
/// reply to every third note spells it out in words (a re-ask fixes it).
#[derive(Clone, Default)]
struct Server {
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    batches: Arc<Mutex<HashMap<String, (String, usize)>>>,
    requests: Arc<AtomicUsize>,
    /// While not 0, batches from this number on stay in progress.
    hold_from: Arc<AtomicUsize>,
}

fn reply(body: &Value) -> Value {
    let messages = body["messages"].as_array().unwrap();
    let note = messages[0]["content"].as_str().unwrap();
    let n: u32 = note[5..].split(':').next().unwrap().parse().unwrap();
    let text = if n.is_multiple_of(3) && messages.len() == 1 {
        "[Items]\nseven or so".to_string()
    } else {
        format!("[Items]\n{}", n % 9 + 1)
    };
    let prompt: usize = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap().len() / 4)
        .sum();
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
           "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop"}],
           "usage": {"prompt_tokens": prompt, "completion_tokens": 6,
                     "total_tokens": prompt + 6}})
}

async fn chat(State(server): State<Server>, Json(body): Json<Value>) -> Json<Value> {
    server.requests.fetch_add(1, Ordering::SeqCst);
    Json(reply(&body))
}

async fn upload(State(server): State<Server>, mut form: Multipart) -> Json<Value> {
    let mut bytes = Vec::new();
    while let Some(field) = form.next_field().await.unwrap() {
        if field.name() == Some("file") {
            bytes = field.bytes().await.unwrap().to_vec();
        }
    }
    let mut files = server.files.lock().unwrap();
    let id = format!("file-{}", files.len() + 1);
    files.insert(id.clone(), bytes);
    Json(json!({"id": id, "object": "file", "purpose": "batch"}))
}

async fn content(State(server): State<Server>, Path(id): Path<String>) -> Vec<u8> {
    server.files.lock().unwrap()[&id].clone()
}

async fn create(State(server): State<Server>, Json(body): Json<Value>) -> Json<Value> {
    let mut batches = server.batches.lock().unwrap();
    let number = batches.len() + 1;
    let id = format!("batch_{number}");
    let input = body["input_file_id"].as_str().unwrap().to_string();
    batches.insert(id.clone(), (input, number));
    Json(json!({"id": id, "object": "batch", "status": "validating"}))
}

async fn retrieve(State(server): State<Server>, Path(id): Path<String>) -> Json<Value> {
    let (input, number) = server.batches.lock().unwrap()[&id].clone();
    let hold_from = server.hold_from.load(Ordering::SeqCst);
    if hold_from > 0 && number >= hold_from {
        return Json(json!({"id": id, "object": "batch", "status": "in_progress"}));
    }
    let output = format!("out-{id}");
    let mut files = server.files.lock().unwrap();
    if !files.contains_key(&output) {
        let lines: String = String::from_utf8_lossy(&files[&input])
            .lines()
            .map(|line| {
                let line: Value = serde_json::from_str(line).unwrap();
                server.requests.fetch_add(1, Ordering::SeqCst);
                let response = json!({"status_code": 200, "body": reply(&line["body"])});
                format!(
                    "{}\n",
                    json!({"custom_id": line["custom_id"], "response": response})
                )
            })
            .collect();
        files.insert(output.clone(), lines.into_bytes());
    }
    Json(json!({"id": id, "object": "batch", "status": "completed", "output_file_id": output}))
}

fn prompts() -> Vec<String> {
    (1..=PROMPTS)
        .map(|n| format!("note {n}: count the items on this packing slip."))
        .collect()
}

fn prices() -> Prices {
    Prices::new().with("clerk", Price::per_million(2.50, 10.00).batch_discount(0.5))
}

fn think<M: ChatModel>(model: M) -> Think<'static, M> {
    Think::new(model)
        .concurrency(PROMPTS as usize)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .prices(prices())
}

/// A row of the table: prompt and completion tokens, cost, per typed value.
fn row(label: &str, results: &[Result<Outcome<Count>, ThinkError>]) {
    let typed: Vec<&Outcome<Count>> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let prompt: u64 = typed.iter().map(|o| o.usage.prompt_tokens).sum();
    let completion: u64 = typed.iter().map(|o| o.usage.completion_tokens).sum();
    let cost: f64 = typed.iter().map(|o| o.cost().unwrap()).sum();
    let n = typed.len() as f64;
    println!(
        "| {label:<6} | {:>5} | {:>13.1} | {:>17.1} | ${:>11.6} |",
        typed.len(),
        prompt as f64 / n,
        completion as f64 / n,
        cost / n
    );
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let server = Server::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/files", post(upload))
        .route("/v1/files/{id}/content", get(content))
        .route("/v1/batches", post(create))
        .route("/v1/batches/{id}", get(retrieve))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = OpenAiCompatible::new(&url, "clerk");

    // Online: one request per attempt.
    let online = think(client.clone()).run_many::<Count>(prompts()).await;
    let online_requests = server.requests.swap(0, Ordering::SeqCst);
    println!("online: {online_requests} requests");

    // Batch: killed while round two runs, then resumed from the journal.
    let dir = std::env::temp_dir().join(format!("twr-example-batch-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("job.twr");
    let batch = |job| {
        BatchModel::openai(client.clone())
            .journal(job)
            .gather_window(Duration::from_millis(100))
            .poll_interval(Duration::from_millis(10))
    };
    server.hold_from.store(2, Ordering::SeqCst);
    let journal = Journal::open(&path)?;
    let job = journal.job("counts");
    let first = think(batch(job.clone())).journal(job.clone());
    let task = tokio::spawn(async move { first.run_many::<Count>(prompts()).await });
    while server.batches.lock().unwrap().len() < 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    task.abort();
    let _ = task.await;
    println!(
        "batch: killed in round two, {} replies in the journal",
        job.replies().await?
    );
    server.hold_from.store(0, Ordering::SeqCst);
    let journal = Journal::open(&path)?;
    let job = journal.job("counts");
    let model = batch(job.clone());
    let batched = think(&model)
        .journal(job)
        .run_many::<Count>(prompts())
        .await;
    let lines = server.requests.load(Ordering::SeqCst);
    println!(
        "batch: resumed, {} new batches, {} batches and {lines} lines in all{}",
        model.rounds(),
        server.batches.lock().unwrap().len(),
        if lines == online_requests {
            ", as many as the online requests: none asked twice"
        } else {
            ""
        },
    );
    let _ = std::fs::remove_dir_all(&dir);

    let same = online
        .iter()
        .zip(&batched)
        .all(|(a, b)| a.as_ref().unwrap().value.items == b.as_ref().unwrap().value.items);
    println!("same {PROMPTS} values online and in batch: {same}");
    println!();
    println!("| run    | typed | prompt tokens | completion tokens | cost         |");
    println!("|--------|-------|---------------|-------------------|--------------|");
    row("online", &online);
    row("batch", &batched);
    println!("(per typed value; $2.50 and $10.00 per million tokens, batch at half price)");
    Ok(())
}
