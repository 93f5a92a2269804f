//! A batch provider written outside the crate: a [`BatchApi`] of a made-up
//! "jobs" API, implemented here with nothing but twr-runtime's public items,
//! and driven by `Think::run_many` through [`BatchModel::new`] against a
//! real axum server on 127.0.0.1.
//!
//! The API: `POST /v1/jobs` takes `{"requests": [{"key", "body"}]}` and
//! answers `{"job": id}`; `GET /v1/jobs/{id}` says `{"state": "queued"}`
//! at the first poll, `"finished"` after; `GET /v1/jobs/{id}/answers` gives
//! `{"answers": [{"key", "text", "tokens": {"in", "out"}}` or
//! `{"key", "failure": {"status", "message"}}]}`. Each line's body is what
//! the online client (an [`OpenAiCompatible`]) would send.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use twr_runtime::batch::{BatchApi, BatchModel, LineResult, Status};
use twr_runtime::model::{BoxFuture, Request, Served};
use twr_runtime::{
    ChatModel, ModelError, OpenAiCompatible, Reply, RetryPolicy, Sections, Think, Usage,
};

/// The batch API of the "jobs" provider, as a user of twr would write it.
struct JobsApi {
    /// Writes each line's body and names the model; never called.
    online: OpenAiCompatible,
    base_url: String,
    http: reqwest::Client,
}

impl JobsApi {
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, ModelError> {
        let response = request
            .send()
            .await
            .map_err(|error| ModelError::Other(error.to_string().into()))?;
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .await
            .map_err(|error| ModelError::Other(error.to_string().into()))?;
        if status != 200 {
            return Err(ModelError::Status {
                status,
                message: String::from_utf8_lossy(&body).into_owned(),
                retry_after: None,
            });
        }
        serde_json::from_slice(&body)
            .map_err(|error| ModelError::Decode(format!("not a jobs answer: {error}").into()))
    }

    fn url(&self, path: &str) -> String {
        format!("{}/v1/jobs{path}", self.base_url)
    }
}

impl BatchApi for JobsApi {
    const PROVIDER: &'static str = "jobs";
    const MAX_LINES: usize = 100;
    const MAX_BYTES: usize = 1 << 20;

    fn online(&self) -> &dyn ChatModel {
        &self.online
    }

    fn line(&self, request: Request<'_>) -> Result<Value, ModelError> {
        self.online.request_body_for(request)
    }

    fn submit<'a>(
        &'a self,
        lines: &'a [(String, Value)],
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            let requests: Vec<Value> = lines
                .iter()
                .map(|(key, body)| json!({"key": key, "body": body}))
                .collect();
            let body = json!({ "requests": requests }).to_string();
            let answer = self.send(self.http.post(self.url("")).body(body)).await?;
            answer["job"]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| ModelError::Decode("a job without its id".into()))
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>> {
        Box::pin(async move {
            let answer = self
                .send(self.http.get(self.url(&format!("/{id}"))))
                .await?;
            match answer["state"].as_str() {
                Some("finished") => Ok(Status::Ended("finished".into())),
                Some(state) => Ok(Status::Running(state.into())),
                None => Err(ModelError::Decode("a job without its state".into())),
            }
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>> {
        Box::pin(async move {
            let url = self.url(&format!("/{id}/answers"));
            let answer = self.send(self.http.get(url)).await?;
            let answers = answer["answers"].as_array().cloned().unwrap_or_default();
            Ok(answers
                .iter()
                .map(|line| {
                    let key = line["key"].as_str().unwrap_or_default().to_string();
                    let result = match (line["text"].as_str(), &line["failure"]) {
                        (Some(text), _) => {
                            let tokens = &line["tokens"];
                            let usage = Usage::new(
                                tokens["in"].as_u64().unwrap_or(0),
                                tokens["out"].as_u64().unwrap_or(0),
                            );
                            Ok(Reply::text(text).with_usage(usage))
                        }
                        (None, failure) => Err(ModelError::Status {
                            status: failure["status"].as_u64().unwrap_or(500) as u16,
                            message: failure["message"].as_str().unwrap_or("").to_string(),
                            retry_after: None,
                        }),
                    };
                    (key, result)
                })
                .collect())
        })
    }
}

/// One job on the server: its lines (key, body) and the polls it has seen.
type Job = (Vec<(String, Value)>, u32);

/// The server: each job, and how often each item was asked.
#[derive(Clone, Default)]
struct Jobs {
    jobs: Arc<Mutex<Vec<Job>>>,
    asked: Arc<Mutex<HashMap<u64, u32>>>,
}

/// N of the "item N" the line's first user message asks about.
fn item(body: &Value) -> u64 {
    let messages = body["messages"].as_array().unwrap();
    let user = messages.iter().find(|m| m["role"] == "user").unwrap();
    let text = user["content"].as_str().unwrap();
    let after = &text[text.find("item ").unwrap() + 5..];
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

async fn create(State(jobs): State<Jobs>, body: String) -> Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap();
    let lines = body["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_string(), r["body"].clone()))
        .collect();
    let mut all = jobs.jobs.lock().unwrap();
    all.push((lines, 0));
    Json(json!({ "job": format!("job-{}", all.len()) }))
}

fn index(id: &str) -> usize {
    id.strip_prefix("job-").unwrap().parse::<usize>().unwrap() - 1
}

async fn state(State(jobs): State<Jobs>, Path(id): Path<String>) -> Json<Value> {
    let mut all = jobs.jobs.lock().unwrap();
    let polls = &mut all[index(&id)].1;
    *polls += 1;
    let state = if *polls == 1 { "queued" } else { "finished" };
    Json(json!({ "state": state }))
}

/// Item N is 2N; the first ask of item 1 spells it out (a re-ask fixes
/// it), and the first ask of item 3 fails with a 503 (retried).
async fn answers(State(jobs): State<Jobs>, Path(id): Path<String>) -> Json<Value> {
    let lines = jobs.jobs.lock().unwrap()[index(&id)].0.clone();
    let mut asked = jobs.asked.lock().unwrap();
    let answers: Vec<Value> = lines
        .iter()
        .map(|(key, body)| {
            let n = item(body);
            let times = asked.entry(n).or_insert(0);
            *times += 1;
            match (n, *times) {
                (3, 1) => json!({"key": key, "failure": {"status": 503, "message": "overloaded"}}),
                (1, 1) => json!({"key": key, "text": "[Number]\nmany", "tokens": {"in": 100, "out": 10}}),
                _ => json!({"key": key, "text": format!("[Number]\n{}", 2 * n), "tokens": {"in": 100, "out": 10}}),
            }
        })
        .collect();
    Json(json!({ "answers": answers }))
}

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u64,
}

#[tokio::test]
async fn a_batch_provider_written_outside_the_crate_runs_typed_re_ask_rounds() {
    let jobs = Jobs::default();
    let app = Router::new()
        .route("/v1/jobs", post(create))
        .route("/v1/jobs/{id}", get(state))
        .route("/v1/jobs/{id}/answers", get(answers))
        .with_state(jobs.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let api = JobsApi {
        online: OpenAiCompatible::new(&base_url, "house-7b").temperature(0.0),
        base_url,
        http: reqwest::Client::new(),
    };
    let model = BatchModel::new(api)
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5));
    assert_eq!(model.name(), "house-7b");
    let results = Think::new(&model)
        .concurrency(3)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .run_many::<Doubled>(["item 1", "item 2", "item 3"])
        .await;

    let values: Vec<u64> = results
        .iter()
        .map(|r| r.as_ref().unwrap().value.number)
        .collect();
    assert_eq!(values, [2, 4, 6]);
    // Round one: three lines; round two: item 1's re-ask and item 3's
    // retry after its 503.
    assert_eq!((model.rounds(), model.lines()), (2, 5));
    let sizes: Vec<usize> = jobs
        .jobs
        .lock()
        .unwrap()
        .iter()
        .map(|j| j.0.len())
        .collect();
    assert_eq!(sizes, [3, 2]);
    // Each line is the online client's body, its options included.
    let first = jobs.jobs.lock().unwrap()[0].0[0].1.clone();
    assert_eq!(first["model"], "house-7b");
    assert_eq!(first["temperature"], 0.0);
    let served = |n: usize| -> Vec<String> {
        results[n]
            .as_ref()
            .unwrap()
            .attempts
            .iter()
            .map(|a| match &a.served {
                Served::Batch { batch_id, .. } => batch_id.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(served(0), ["job-1", "job-2"]);
    assert_eq!(served(1), ["job-1"]);
    assert_eq!(served(2), ["job-2"]);
    let usage = results[0].as_ref().unwrap().usage;
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (200, 20));
}
