//! The loop's tracing: a span per run, an event per attempt and per
//! transport retry.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::think::*;
use twr_runtime::{ModelError, Reply, RetryMode, RetryPolicy, ScriptedModel, Think};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_run_has_a_span_and_an_event_per_attempt_and_retry() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let model = ScriptedModel::from_results([
        Err(ModelError::Status {
            status: 503,
            message: "overloaded".to_string(),
            retry_after: None,
        }),
        Ok(Reply::text("no sections")),
        Ok(Reply::text(GOOD)),
    ])
    .with_name("kyoto-planner-7b");
    Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .run::<Trip>("Plan a trip")
        .await
        .unwrap();

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let attempts: Vec<&&str> = lines.iter().filter(|l| l.contains("twr attempt")).collect();
    let retries: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("twr transport retry"))
        .collect();
    assert_eq!(attempts.len(), 2, "{log}");
    assert_eq!(retries.len(), 1, "{log}");
    for line in attempts.iter().chain(&retries) {
        assert!(
            line.contains(
                "think{otel.name=\"twr.run\" gen_ai.request.model=kyoto-planner-7b \
                 twr.max_attempts=3 twr.retry_mode=Full}"
            ),
            "{line}"
        );
    }
    assert!(
        attempts[0].contains("attempt=1 kind=Rejected model=kyoto-planner-7b"),
        "{}",
        attempts[0]
    );
    assert!(
        attempts[1].contains("attempt=2 kind=Accepted model=kyoto-planner-7b"),
        "{}",
        attempts[1]
    );
    assert!(
        retries[0].contains("error=the model server answered HTTP 503: overloaded"),
        "{}",
        retries[0]
    );
}
