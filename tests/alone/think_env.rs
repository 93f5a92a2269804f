//! `LLM_MAX_RETRIES` sets the default number of format attempts.

use crate::think_support::*;
use twr_runtime::{RetryMode, ScriptedModel, Think, ThinkErrorKind};

async fn calls_made(think: impl FnOnce(&ScriptedModel) -> Think<'_, &ScriptedModel>) -> usize {
    let model = ScriptedModel::new(["one", "two", "three", "four", "five"]);
    let error = think(&model)
        .retry_mode(RetryMode::Full)
        .run::<Trip>("Plan a trip")
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    model.calls()
}

#[tokio::test]
async fn llm_max_retries_sets_the_default_attempts() {
    let _alone = crate::ALONE.lock().await;
    // TWR_MAX_ATTEMPTS wins over LLM_MAX_RETRIES: a value in the shell would
    // decide every run below.
    std::env::remove_var("TWR_MAX_ATTEMPTS");
    std::env::remove_var("LLM_MAX_RETRIES");
    assert_eq!(calls_made(|m| Think::new(m)).await, 3);

    std::env::set_var("LLM_MAX_RETRIES", "2");
    assert_eq!(calls_made(|m| Think::new(m)).await, 2);
    // An explicit setting wins over the environment.
    assert_eq!(calls_made(|m| Think::new(m).max_attempts(4)).await, 4);

    std::env::set_var("LLM_MAX_RETRIES", " 5 ");
    assert_eq!(calls_made(|m| Think::new(m)).await, 5);

    std::env::set_var("LLM_MAX_RETRIES", "1");
    assert_eq!(calls_made(|m| Think::new(m)).await, 1);

    // Zero still makes one call; nonsense falls back to the default.
    std::env::set_var("LLM_MAX_RETRIES", "0");
    assert_eq!(calls_made(|m| Think::new(m)).await, 1);
    std::env::set_var("LLM_MAX_RETRIES", "many");
    assert_eq!(calls_made(|m| Think::new(m)).await, 3);
    std::env::remove_var("LLM_MAX_RETRIES");
}
