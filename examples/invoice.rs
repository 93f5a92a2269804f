//! Invoice: a table of line items and a record of header fields, read into
//! typed rows; a bad cell is named by its row and column and fixed on retry.
//!
//! ```text
//! cargo run --example invoice
//! ```
//!
//! With `TWR_BASE_URL` set (and `TWR_MODEL`, `TWR_API_KEY` if your server
//! needs them) it asks a real OpenAI-compatible server. Without it, a
//! built-in `ScriptedModel` replays a recorded imperfect conversation: the
//! first reply writes one price in words and leaves out the due date; the
//! loop asks for the two sections again and merges the fix.

use std::error::Error;
use std::process::ExitCode;

use serde::Deserialize;
use twr_runtime::{ChatModel, OpenAiCompatible, ScriptedModel, Sections, Think};

/// One line of the invoice: a table row.
#[derive(Debug, Deserialize)]
struct LineItem {
    item: String,
    #[serde(alias = "qty")]
    quantity: u32,
    unit_price: f64,
    /// Empty or `N/A` gives `None`.
    note: Option<String>,
}

/// The invoice's header fields: `Label: value` lines.
#[derive(Debug, Deserialize)]
struct Header {
    number: String,
    customer: String,
    due_date: String,
    paid: bool,
}

/// An invoice read from a reply.
#[derive(Debug, Sections)]
struct Invoice {
    /// Who is billed and when.
    #[section(record)]
    header: Header,
    /// One row per item sold.
    #[section(table)]
    items: Vec<LineItem>,
}

/// The recorded conversation replayed offline.
const OFFLINE_REPLIES: [&str; 2] = [
    "Here is the invoice for the café order.\n\n\
     [Header]\n\
     - **Number:** INV-2041\n\
     - Customer: Blue Door Café\n\
     - Paid: no\n\n\
     [Items]\n\
     | Item | Qty | Unit Price | Note |\n\
     |------|----:|-----------:|------|\n\
     | Espresso beans, 1 kg | 4 | $18.50 | dark roast |\n\
     | Oat milk, case | 2 | about twenty | |\n\
     | Paper cups (x500) | 1 | $42.00 | N/A |\n",
    "[Header]\nNumber: INV-2041\nCustomer: Blue Door Café\nDue date: 2025-07-31\nPaid: no\n\n\
     [Items]\n\
     | Item | Qty | Unit Price | Note |\n\
     |---|---:|---:|---|\n\
     | Espresso beans, 1 kg | 4 | $18.50 | dark roast |\n\
     | Oat milk, case | 2 | $21.00 | |\n\
     | Paper cups (x500) | 1 | $42.00 | N/A |\n",
];

fn model() -> Result<Box<dyn ChatModel>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_some() {
        let client = OpenAiCompatible::from_env()?.temperature(0.2);
        println!(
            "Online: asking {} at {}.",
            client.model(),
            client.base_url()
        );
        Ok(Box::new(client))
    } else {
        println!(
            "Offline demo: TWR_BASE_URL is not set, so a built-in ScriptedModel replays a recorded, imperfect conversation."
        );
        Ok(Box::new(ScriptedModel::new(OFFLINE_REPLIES)))
    }
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
    let model = model()?;
    let outcome = Think::new(&model)
        .on_attempt(|attempt| {
            println!("\n--- attempt {} ({:?}) ---", attempt.number, attempt.kind);
            println!("{}", attempt.raw.trim_end());
            if let Some(sent) = &attempt.sent_back {
                println!("\n>>> feedback sent to the model:\n{sent}");
            }
        })
        .run::<Invoice>(
            "Write the invoice for Blue Door Café: 4 kg of espresso beans at $18.50, \
             2 cases of oat milk at $21 and 500 paper cups for $42, due July 31, 2025.",
        )
        .await?;

    let invoice = &outcome.value;
    let header = &invoice.header;
    println!("\n=== typed result ({:?}) ===", outcome.ending);
    println!(
        "{} for {}, due {}, paid: {}",
        header.number, header.customer, header.due_date, header.paid
    );
    let mut total = 0.0;
    for line in &invoice.items {
        let amount = f64::from(line.quantity) * line.unit_price;
        total += amount;
        let note = line.note.as_deref().unwrap_or("-");
        println!(
            "  {:>2} x {:<22} {:>8.2} {:>9.2}  ({note})",
            line.quantity, line.item, line.unit_price, amount
        );
    }
    println!("  total {total:.2}");
    println!("{} model calls", outcome.attempts.len());
    Ok(())
}
