//! rig's agent loop calling twr for a typed step: the agent decides to plan
//! a trip and calls its `plan_trip` tool; the tool asks the same rig model
//! through twr for a typed `Trip` (whose first reply needs a patch), and
//! hands the agent the value as JSON; the agent answers with it.
//!
//! Runs offline: a local server on 127.0.0.1 (the workspace's scripted test
//! server) plays an OpenAI-shaped provider, answering the four calls in
//! order. Point `OpenAIConfig` at a real provider to run it for real.
//!
//! ```text
//! cargo run -p twr-rig --example agent_step
//! ```

#[path = "../../tests/it/support/client.rs"]
mod server;

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::{Tool, ToolContext};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use server::{Scripted, TestServer};
use twr_rig::Rig;
use twr_runtime::{Sections, Think, ThinkError};

/// The typed step's value.
#[derive(Debug, Serialize, Sections)]
struct Trip {
    /// What to see, one line each.
    plan: Vec<String>,
    /// How many days.
    days: u32,
}

/// The agent's tool: a typed step through twr, over the agent's own model.
struct PlanTrip {
    model: Rig,
}

#[derive(Deserialize)]
struct PlanTripArgs {
    /// What the user asked for.
    request: String,
}

impl Tool for PlanTrip {
    const NAME: &'static str = "plan_trip";
    type Args = PlanTripArgs;
    type Output = Trip;
    type Error = ThinkError;

    fn description(&self) -> String {
        "Plan a trip: the places to see and the number of days.".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object",
               "properties": {"request": {"type": "string", "description": "What to plan"}},
               "required": ["request"]})
    }

    // The call's context (what the run published for its tools) is not
    // needed: the step reads only its arguments.
    async fn call(
        &self,
        _context: &mut ToolContext,
        args: PlanTripArgs,
    ) -> Result<Trip, ThinkError> {
        let outcome = Think::new(&self.model).run::<Trip>(&args.request).await?;
        println!(
            "  typed step: {} attempts ({:?}), {:?}",
            outcome.attempts.len(),
            outcome.attempts.iter().map(|a| a.kind).collect::<Vec<_>>(),
            outcome.value
        );
        Ok(outcome.value)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = TestServer::start(provider_replies()).await;
    let model = OpenAIConfig::new("sk-local")
        .with_base_url(server.url("/v1"))
        .client()
        .chat("gpt-4o-mini")
        .erase();

    // One rig model serves both: the agent's loop and twr's typed step.
    let agent = AgentBuilder::new(model.clone())
        .preamble("You are a travel assistant. Use plan_trip for any trip.")
        .tool(PlanTrip {
            model: Rig::new(model),
        })
        .build();
    let response = agent
        .prompt("Plan three days in Kyoto for me.")
        .max_turns(3)
        .await?;
    println!("agent: {}", response.output());
    println!("calls the provider answered: {}", server.requests().len());
    Ok(())
}

/// What the provider answers, in order: the agent's tool call, twr's first
/// attempt (its day count is words), twr's patch, the agent's answer.
fn provider_replies() -> Vec<Scripted> {
    let tool_call = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "plan_trip",
                     "arguments": "{\"request\":\"Three days in Kyoto\"}"}}]});
    vec![
        reply(tool_call, "tool_calls"),
        text("[Plan]\n- Fushimi Inari at dawn\n- Kiyomizu-dera\n- Arashiyama\n[Days]\nthree"),
        text("[Days]\n3"),
        text("Three days: Fushimi Inari at dawn, Kiyomizu-dera, then Arashiyama."),
    ]
}

fn text(content: &str) -> Scripted {
    reply(json!({"role": "assistant", "content": content}), "stop")
}

fn reply(message: Value, finish_reason: &str) -> Scripted {
    Scripted::json(
        200,
        json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
               "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
               "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}}),
    )
}
