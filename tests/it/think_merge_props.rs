//! Property: however the sections of a valid answer are spread over a first
//! reply (the rest written badly) and a patch, the merged value is the one a
//! single complete reply gives.

use crate::support::think::*;
use proptest::prelude::*;
use twr_runtime::run::Ending;
use twr_runtime::{ScriptedModel, Think};

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(future)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn patches_merge_to_the_complete_answer(
        plan in "[A-Za-z][A-Za-z ,.-]{0,40}[a-z.]",
        days in 1u32..60,
        budget in 1u32..100_000,
        first_has in proptest::array::uniform3(any::<bool>()),
    ) {
        // A plan that is itself a header name would be read as a header.
        let name = plan.trim().trim_end_matches('.').to_lowercase();
        prop_assume!(!["plan", "days", "budget"].contains(&name.as_str()));
        let sections = [
            ("[Plan]", plan.clone()),
            ("[Days]", days.to_string()),
            ("[Budget]", budget.to_string()),
        ];
        let bad = ["", "a few", "a lot"];
        let mut first = String::new();
        let mut patch = String::new();
        for (index, (header, content)) in sections.iter().enumerate() {
            if first_has[index] {
                first.push_str(&format!("{header}\n{content}\n\n"));
            } else {
                // Written badly (or left out) first, fixed by the patch.
                if !bad[index].is_empty() {
                    first.push_str(&format!("{header}\n{}\n\n", bad[index]));
                }
                patch.push_str(&format!("{header}\n{content}\n\n"));
            }
        }
        let model = ScriptedModel::new([first, patch]);
        let outcome = block_on(Think::new(&model).max_attempts(3).run::<Trip>("Plan a trip")).unwrap();
        prop_assert_eq!(&outcome.value, &Trip { plan: plan.trim().to_string(), days, budget });
        let expected = if first_has.iter().all(|&has| has) {
            Ending::FirstTry
        } else if first_has.iter().all(|&has| !has) {
            Ending::Reasked(1)
        } else {
            Ending::Repaired(1)
        };
        prop_assert_eq!(outcome.ending, expected);
    }
}
