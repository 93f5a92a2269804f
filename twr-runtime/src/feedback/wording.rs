//! The ways the loop words its feedback, and the names of the problems it
//! words: what the journal counts when it records which feedback was
//! followed by a fixed section
//! ([`Job::feedback_rates`](crate::journal::Job::feedback_rates)).

use std::fmt;

use super::ProblemKind;

/// How a message sent back after a rejected reply is worded.
///
/// Every message of the loop is one of these; [`Think::feedback_wording`]
/// chooses how the first feedback of a run is worded:
///
/// - [`Listed`](Wording::Listed) (the default): the problems, each with
///   what to write, then what to send: only the failing sections when some
///   are valid, else the whole answer. The loop goes on to a focused
///   question for a section still wrong after a patch asked for it, and
///   shows the complete example when the same problems come twice.
/// - [`WithExample`](Wording::WithExample): the same, with the guide's
///   complete example answer from the first feedback on.
/// - [`Focused`](Wording::Focused): a plain question about one failing
///   section at a time from the first feedback on ("The total budget per
///   person, in US dollars. Reply with only the number, for example:
///   $600."), as the loop does on its own once a model shows it does not
///   follow the format. Needs [`Think::focused_questions`] on (the
///   default) and a patch retry ([`RetryMode::Patch`], the default).
///
/// The loop does not choose a wording from the journal's figures by
/// itself. Measured on SmolLM2-135M (the guide's measurements, "Feedback wording"), a
/// focused question got a missing section back half the time and a list of
/// problems almost never, yet runs worded focused from the start were not
/// typed more often: one section per attempt is too slow when two or three
/// are wrong. The loop already asks focused questions where they work
/// (after a patch failed, or once the model shows it does not follow the
/// format); a program whose own figures
/// ([`Job::feedback_rates`](crate::journal::Job::feedback_rates)) say
/// otherwise sets the wording.
///
/// [`Think::feedback_wording`]: crate::Think::feedback_wording
/// [`Think::focused_questions`]: crate::Think::focused_questions
/// [`RetryMode::Patch`]: crate::RetryMode::Patch
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Wording {
    /// The problems listed, then what to send.
    #[default]
    Listed,
    /// The problems listed, what to send, and the complete example answer.
    WithExample,
    /// A plain question about one section.
    Focused,
}

impl Wording {
    /// The wording's name as the journal records it: `listed`,
    /// `with_example`, `focused`.
    pub fn name(self) -> &'static str {
        match self {
            Wording::Listed => "listed",
            Wording::WithExample => "with_example",
            Wording::Focused => "focused",
        }
    }

    /// The wording named `name` (as [`name`](Self::name) writes it).
    pub fn from_name(name: &str) -> Option<Wording> {
        [Wording::Listed, Wording::WithExample, Wording::Focused]
            .into_iter()
            .find(|wording| wording.name() == name)
    }
}

impl fmt::Display for Wording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl ProblemKind {
    /// The kind's name, without its details, as the journal records it:
    /// `missing`, `empty`, `bad_value`, `near_miss`, ... (the variant's
    /// name in snake case).
    pub fn name(&self) -> &'static str {
        match self {
            ProblemKind::Missing => "missing",
            ProblemKind::Empty => "empty",
            ProblemKind::BadValue { .. } => "bad_value",
            ProblemKind::BadItem { .. } => "bad_item",
            ProblemKind::BadJson { .. } => "bad_json",
            ProblemKind::Unreadable { .. } => "unreadable",
            ProblemKind::Invalid { .. } => "invalid",
            ProblemKind::NearMiss { .. } => "near_miss",
            ProblemKind::UnreadHeader { .. } => "unread_header",
            ProblemKind::NotOnOwnLine { .. } => "not_on_own_line",
            ProblemKind::NoneOf { .. } => "none_of",
            ProblemKind::NoWay { .. } => "no_way",
            ProblemKind::MixedWays { .. } => "mixed_ways",
            ProblemKind::MissingDivider => "missing_divider",
            ProblemKind::NoTable { .. } => "no_table",
            ProblemKind::NoRecord { .. } => "no_record",
            ProblemKind::NoColumn { .. } => "no_column",
            ProblemKind::UnknownLabel { .. } => "unknown_label",
            ProblemKind::ExtraCells { .. } => "extra_cells",
            ProblemKind::Omitted { .. } => "omitted",
            ProblemKind::Rule { .. } => "rule",
            ProblemKind::Check { .. } => "check",
            ProblemKind::Other { .. } => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for wording in [Wording::Listed, Wording::WithExample, Wording::Focused] {
            assert_eq!(Wording::from_name(wording.name()), Some(wording));
        }
        assert_eq!(Wording::from_name("loud"), None);
        assert_eq!(Wording::default().to_string(), "listed");
        assert_eq!(
            ProblemKind::NearMiss {
                wrote: "[Schedule]".into()
            }
            .name(),
            "near_miss"
        );
    }
}
