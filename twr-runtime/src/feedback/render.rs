//! Renders a [`Feedback`] as the message sent to the model.

use std::fmt;

use super::{Feedback, ProblemKind};

pub(super) fn render(feedback: &Feedback, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for (i, problem) in feedback.problems().iter().enumerate() {
        if i > 0 {
            f.write_str("\n")?;
        }
        let header = &problem.header;
        match &problem.kind {
            ProblemKind::Missing => write!(f, "The {header} section is missing.")?,
            ProblemKind::Empty => write!(f, "The {header} section is empty.")?,
            ProblemKind::BadValue { expected, found } => write!(
                f,
                "The {header} section should be {expected}; it says '{found}'."
            )?,
            ProblemKind::BadItem {
                index,
                item,
                expected,
            } => write!(
                f,
                "Item {index} of the {header} section should be {expected}; it says '{item}'."
            )?,
            ProblemKind::BadJson { path, message } => write!(f, "{header}: `{path}` {message}")?,
            ProblemKind::Invalid { message } => write!(f, "The {header} section: {message}")?,
            ProblemKind::NearMiss { wrote } => write!(f, "You wrote {wrote}; name it {header}.")?,
            ProblemKind::Other { message } => f.write_str(message)?,
        }
    }
    Ok(())
}
