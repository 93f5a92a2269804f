//! `TWR_MAX_ATTEMPTS` sets the default number of format attempts and wins
//! over the seeds' `LLM_MAX_RETRIES`.

use crate::think_support::*;
use twr_runtime::{RetryMode, ScriptedModel, Think, ThinkErrorKind};

async fn calls_made(think: impl FnOnce(&ScriptedModel) -> Think<'_, &ScriptedModel>) -> usize {
    let model = ScriptedModel::new(["one", "two", "three", "four", "five", "six"]);
    let error = think(&model)
        .retry_mode(RetryMode::Full)
        .run::<Trip>("Plan a trip")
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    model.calls()
}

#[tokio::test]
async fn twr_max_attempts_wins_over_llm_max_retries() {
    let _alone = crate::ALONE.lock().await;
    std::env::remove_var("LLM_MAX_RETRIES");
    std::env::set_var("TWR_MAX_ATTEMPTS", "4");
    assert_eq!(calls_made(|m| Think::new(m)).await, 4);

    std::env::set_var("LLM_MAX_RETRIES", "2");
    assert_eq!(calls_made(|m| Think::new(m)).await, 4);
    // An explicit setting wins over both.
    assert_eq!(calls_made(|m| Think::new(m).max_attempts(5)).await, 5);

    // A TWR_MAX_ATTEMPTS that is not a number is skipped: LLM_MAX_RETRIES
    // applies, then the default.
    std::env::set_var("TWR_MAX_ATTEMPTS", "lots");
    assert_eq!(calls_made(|m| Think::new(m)).await, 2);
    std::env::remove_var("LLM_MAX_RETRIES");
    assert_eq!(calls_made(|m| Think::new(m)).await, 3);

    std::env::set_var("TWR_MAX_ATTEMPTS", " 0 ");
    assert_eq!(calls_made(|m| Think::new(m)).await, 1);
    std::env::remove_var("TWR_MAX_ATTEMPTS");
    assert_eq!(calls_made(|m| Think::new(m)).await, 3);
}
