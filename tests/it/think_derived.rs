//! The loop with a derived `Sections` type and the real parser: the guide is
//! appended, a number in words and a missing section are patched and merged.

use twr_runtime::run::Ending;
use twr_runtime::{AttemptKind, Message, ScriptedModel, Sections, Think};

/// A trip plan.
#[derive(Debug, PartialEq, Sections)]
struct TripPlan {
    /// What to see, one item per line.
    plan: Vec<String>,
    /// How many days.
    days: u32,
    /// Budget per person in dollars.
    #[section(example = "$600")]
    budget: u32,
}

const FIRST: &str = "Kyoto rewards an early start.\n\n[Plan]\n1. Fushimi Inari at dawn\n2. Gion at dusk\n\n[Days]\nthree\n";
const PATCH: &str = "[Days]\n3\n\n[Budget]\nAbout $650 per person.";

#[tokio::test]
async fn a_derived_struct_is_patched_and_merged() {
    let model = ScriptedModel::new([FIRST, PATCH]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<TripPlan>("Plan a 3-day trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        TripPlan {
            plan: vec!["Fushimi Inari at dawn".into(), "Gion at dusk".into()],
            days: 3,
            budget: 650,
        }
    );
    assert_eq!(outcome.ending, Ending::Repaired(1));
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);

    let requests = model.requests();
    assert_eq!(
        requests[0],
        vec![Message::user(
            "Plan a 3-day trip to Kyoto.\n\n\
             Think it through freely first. Then give your final answer in the sections below, \
             each header on a line of its own followed by its content.\n\n\
             [Plan]\nWhat to see, one item per line.\n\n\
             [Days]\nHow many days.\n\n\
             [Budget]\nBudget per person in dollars. A single whole number.\n\n\
             Example answer:\n\n\
             [Plan]\n- <item>\n- <item>\n[Days]\n<a single whole number>\n[Budget]\n$600\n\n\
             After any thinking, begin your final answer with [Plan] on a line of its own."
        )]
    );
    let feedback = &requests[1][2].content;
    assert_eq!(
        feedback,
        "Thank you. A few parts of your answer need fixing:\n\n\
         1. The [Days] section should be a single whole number; it says 'three'.\n\n\
         2. The [Budget] section is missing. Please add it: the header [Budget] on a line of its own, \
         then a single whole number.\n\
         \x20  For example:\n\
         \x20  [Budget]\n\
         \x20  $600\n\n\
         Reply with only the corrected [Days] and [Budget] sections, each under its header on a line of its own; \
         I have kept the rest of your answer."
    );
}
