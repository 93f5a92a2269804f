//! Your own provider: a typed value from Cohere's native chat API, through
//! an adapter written outside twr (`cohere.rs`, beside this file), streamed.
//!
//! ```text
//! cargo run -p twr-tests --example custom_provider
//! ```
//!
//! With `COHERE_API_KEY` set it asks Cohere itself (the model from
//! `TWR_MODEL`, else `command-a-03-2025`). Without it, a small server on
//! 127.0.0.1 plays Cohere: it streams a recorded reply as Cohere's
//! `content-delta` events, a reasoning block first. Either way each section
//! is printed the moment its last event arrives, and the reasoning stays out
//! of the typed value.

mod cohere;

use std::error::Error;
use std::process::ExitCode;

use axum::http::header::CONTENT_TYPE;
use axum::routing::post;
use axum::Router;
use serde_json::json;
use twr_runtime::{Sections, Think};

use cohere::{cohere, Cohere, CohereApi};

/// What a customer's note says about a product.
#[derive(Debug, Sections)]
struct Review {
    /// The product the note is about.
    product: String,
    /// The customer's rating, from 1 to 5.
    #[section(example = "4")]
    rating: u32,
    /// Why, in one sentence.
    reason: String,
}

const NOTE: &str = "Read this note and review it: 'The Aeropress arrived a day late, \
    but it makes the best coffee I have had at home. Four stars only because of the delivery.'";

/// The recorded reply the offline server streams, in Cohere's event shapes.
fn recorded_events() -> Vec<serde_json::Value> {
    let delta = |text: &str| {
        json!({"type": "content-delta", "index": 1,
               "delta": {"message": {"content": {"text": text}}}})
    };
    vec![
        json!({"type": "message-start", "id": "offline-1",
               "delta": {"message": {"role": "assistant"}}}),
        json!({"type": "content-start", "index": 0,
               "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}}),
        json!({"type": "content-delta", "index": 0,
               "delta": {"message": {"content": {"thinking": "Late delivery, great coffee: 4 of 5."}}}}),
        json!({"type": "content-end", "index": 0}),
        json!({"type": "content-start", "index": 1,
               "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
        delta("[Product]\nAero"),
        delta("press\n\n[Rating]\n4\n\n[Re"),
        delta("ason]\nExcellent coffee, but it arrived a day late."),
        json!({"type": "content-end", "index": 1}),
        json!({"type": "message-end", "delta": {"finish_reason": "COMPLETE",
               "usage": {"billed_units": {"input_tokens": 96, "output_tokens": 31},
                         "tokens": {"input_tokens": 312, "output_tokens": 41}}}}),
    ]
}

/// Starts the offline stand-in for `api.cohere.com` and returns its URL.
async fn offline_server() -> Result<String, Box<dyn Error>> {
    let body: String = recorded_events()
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect();
    let router = Router::new().route(
        "/v2/chat",
        post(move || async move { ([(CONTENT_TYPE, "text/event-stream")], body) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

async fn model() -> Result<Cohere, Box<dyn Error>> {
    if let Ok(key) = std::env::var("COHERE_API_KEY") {
        let model = std::env::var("TWR_MODEL").unwrap_or_else(|_| "command-a-03-2025".into());
        println!("Online: streaming from Cohere's {model}.");
        return Ok(cohere(&key, &model));
    }
    let url = offline_server().await?;
    println!("Offline demo: COHERE_API_KEY is not set, so a local server at {url} plays Cohere.");
    let api = CohereApi::default().thinking_budget(512);
    Ok(
        twr_runtime::client::HttpModel::with_provider(api, url, "command-a-reasoning-08-2025")
            .api_key("offline-key"),
    )
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn Error>> {
    let model = model().await?.stream(true).temperature(0.2);
    println!("{model:?}");
    let outcome = Think::new(&model)
        .on_section(|event| println!("  {} arrived: {}", event.header, event.text))
        .run::<Review>(NOTE)
        .await?;
    let review = &outcome.value;
    println!("\n=== typed result ({:?}) ===", outcome.ending);
    println!(
        "{}: {} of 5, {}",
        review.product, review.rating, review.reason
    );
    if let Some(reasoning) = &outcome.attempts[0].reasoning {
        println!("(the model's reasoning, kept apart: {reasoning})");
    }
    println!(
        "{} model call(s), {} tokens",
        outcome.attempts.len(),
        outcome.usage.total_tokens
    );
    Ok(())
}
