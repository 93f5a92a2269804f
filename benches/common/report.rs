//! The reply both `benches/sections.rs` and `benches/streaming.rs` read, and
//! the struct they read it into: one definition, so the two benches measure
//! the same text and their tables (the guide's measurements page) can be compared.

use twr_runtime::{Choice, Sections};

/// The `[Priority]` section's choices.
#[derive(Debug, PartialEq, Choice)]
pub enum Priority {
    Low,
    Medium,
    High,
}

/// The six-section struct both benches read the reply into.
#[derive(Debug, Sections)]
pub struct Report {
    /// The steps, one per line.
    #[section(aliases = ["Steps"])]
    pub plan: Vec<String>,
    pub timeline: String,
    #[section(header = "[Budget]")]
    pub budget_usd: u32,
    pub notes: Option<String>,
    pub priority: Priority,
    #[section(default)]
    pub tags: Vec<String>,
}

/// A long, realistic reply: reasoning, a preamble, markdown headers of every
/// style, lists, prose with colons and brackets, a draft section repeated.
pub fn reply(size: usize) -> String {
    let mut raw = String::from(
        "<think>\nThe user wants a plan. I will list [Plan] steps, then the timeline.\nBudget: maybe $900?\n</think>\n\
         Sure! Here is a careful plan for the trip.\n\n**Plan:**\n- draft step\n\n",
    );
    raw.push_str("## Plan\n");
    let mut i = 0;
    while raw.len() < size * 6 / 10 {
        i += 1;
        raw.push_str(&format!(
            "{i}. Visit the temple of day {i} early, before the crowds: see [the gardens] and take notes.\n   Then walk to the next district.\n"
        ));
    }
    raw.push_str("\n---\n\n**[Timeline]**\n");
    while raw.len() < size * 95 / 100 {
        raw.push_str("Morning: Fushimi Inari (arrive at 7:00). Afternoon: Arashiyama, bamboo grove. Evening: Gion.\n");
    }
    raw.push_str("\n[Budget]: about $1,200 in total\n\nNotes: N/A\n\n【Priority】：High\n\n### Tags\n- kyoto\n- temples\n- food\n");
    raw
}

/// The reply the bench reads: about 1.43 MB.
pub const SIZE: usize = 1_500_000;
