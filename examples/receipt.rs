//! Receipt: a photo of a receipt, sent with the prompt, read into a typed
//! invoice; a bad section is asked for again, and the image goes once.
//!
//! ```text
//! cargo run --example receipt
//! ```
//!
//! The receipt is `examples/assets/receipt.png`, drawn by
//! `examples/assets/make_receipt.py`. With `TWR_BASE_URL` set (and
//! `TWR_MODEL`, `TWR_API_KEY` if your server needs them) it asks a real
//! OpenAI-compatible server, which needs a model that reads images.
//! Without it, a built-in `ScriptedModel` replays a recorded imperfect
//! conversation: the first reply writes the total in words; the loop asks
//! for that section alone and merges the fix. Either way it prints what
//! each request carried.

use std::error::Error;
use std::process::ExitCode;

use serde::Deserialize;
use twr_runtime::{ChatModel, Message, OpenAiCompatible, ScriptedModel, Sections, Think};

/// One line of the receipt: a table row.
#[derive(Debug, Deserialize)]
struct Line {
    item: String,
    #[serde(alias = "qty")]
    quantity: u32,
    unit_price: f64,
    amount: f64,
}

/// What the receipt says.
#[derive(Debug, Sections)]
struct Invoice {
    /// The shop's name, as printed at the top.
    merchant: String,
    /// The receipt number, without the `#`.
    number: String,
    /// The date printed on the receipt, as YYYY-MM-DD.
    date: String,
    /// One row per item bought.
    #[section(table)]
    items: Vec<Line>,
    /// The total paid, as a number.
    total: f64,
}

/// The recorded conversation replayed offline.
const OFFLINE_REPLIES: [&str; 2] = [
    "[Merchant]\nBlue Door Cafe\n\n[Number]\n1042\n\n[Date]\n2025-07-14\n\n\
     [Items]\n\
     | Item | Qty | Unit Price | Amount |\n\
     |---|---:|---:|---:|\n\
     | Espresso | 2 | 3.50 | 7.00 |\n\
     | Croissant | 1 | 2.75 | 2.75 |\n\n\
     [Total]\nnine seventy-five",
    "[Total]\n9.75",
];

/// The real server of `TWR_BASE_URL`, when it is set.
fn online() -> Result<Option<OpenAiCompatible>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_none() {
        println!(
            "Offline demo: TWR_BASE_URL is not set, so a built-in ScriptedModel replays a recorded, imperfect conversation."
        );
        return Ok(None);
    }
    let client = OpenAiCompatible::from_env()?.temperature(0.0);
    println!(
        "Online: asking {} at {}.",
        client.model(),
        client.base_url()
    );
    Ok(Some(client))
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Each level says its own part: the error, then each cause.
            eprint!("error: {error}");
            let mut cause = error.source();
            while let Some(next) = cause {
                eprint!(": {next}");
                cause = next.source();
            }
            eprintln!();
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/assets/receipt.png");
    let png = std::fs::read(path)?;
    println!("Read examples/assets/receipt.png: {} bytes.", png.len());
    let message = Message::user("Read this receipt.").with_image(png, "image/png");

    let online = online()?;
    let scripted = ScriptedModel::new(OFFLINE_REPLIES);
    let model: &dyn ChatModel = match &online {
        Some(client) => client,
        None => &scripted,
    };
    let outcome = Think::new(model)
        .on_attempt(|attempt| {
            println!("\n--- attempt {} ({:?}) ---", attempt.number, attempt.kind);
            println!("{}", attempt.raw.trim_end());
            if let Some(sent) = &attempt.sent_back {
                println!("\n>>> feedback sent to the model:\n{sent}");
            }
        })
        .run::<Invoice>(&message)
        .await?;

    let invoice = &outcome.value;
    println!("\n=== typed result ({:?}) ===", outcome.ending);
    println!(
        "{} receipt #{} of {}",
        invoice.merchant, invoice.number, invoice.date
    );
    for line in &invoice.items {
        println!(
            "  {} x {:<10} {:>5.2} {:>6.2}",
            line.quantity, line.item, line.unit_price, line.amount
        );
    }
    println!("  total {:.2}", invoice.total);

    if online.is_none() {
        println!("\n=== what each request carried ===");
        let image = message.attachments()[0].data().expect("bytes");
        for (number, request) in scripted.requests().iter().enumerate() {
            println!("request {}:", number + 1);
            for sent in request {
                let mut line = format!(
                    "  {:<9} {:>4} bytes of text",
                    sent.role.to_string(),
                    sent.content.len()
                );
                for attachment in sent.attachments() {
                    let data = attachment.data().expect("bytes");
                    let shared = if data.as_ptr() == image.as_ptr() {
                        "the bytes read from disk, not a copy"
                    } else {
                        "a copy"
                    };
                    line.push_str(&format!(
                        ", + {} {} of {} bytes ({shared})",
                        attachment.media_type().unwrap_or("?"),
                        attachment.kind(),
                        data.len()
                    ));
                }
                println!("{line}");
            }
        }
    }
    Ok(())
}
