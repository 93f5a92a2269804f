//! Structured problems found in a reply, and the message that tells the
//! model what to fix.
//!
//! The parser never says "parse failed": it returns a [`Feedback`] holding
//! one [`Problem`] per thing to fix; its `Display` is the exact text sent to
//! the model.

mod problem;
mod render;
mod report;
mod wording;

pub use problem::{Place, Problem, ProblemKind, Way};
pub use report::{Feedback, ProblemList};
pub use wording::Wording;
