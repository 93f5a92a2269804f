//! Cost from prices the user supplies: each attempt's tokens
//! at its own model's price (cache reads and writes at theirs), summed per
//! run, in the failed call of an error, in run_many's progress, and in the
//! serialized ledger; a model without a price has no cost; the backup of a
//! `Fallback` at the backup's price.

use std::sync::Mutex;

use twr_runtime::cost::{Price, Prices};
use twr_runtime::model::ErrorDetail;
use twr_runtime::run::RunsProgress;
use twr_runtime::{
    ChatModel, Fallback, ModelError, Reply, RetryPolicy, ScriptedModel, Sections, Think, Usage,
};

#[derive(Debug, PartialEq, Sections, serde::Serialize)]
struct Count {
    /// How many.
    number: u32,
}

fn prices() -> Prices {
    Prices::new()
        .with("cheap", Price::per_million(1.0, 2.0).cache_read(0.5))
        .with(
            "strong",
            Price::per_million(10.0, 40.0)
                .cache_read(1.0)
                .cache_write(12.5),
        )
}

#[tokio::test]
async fn each_attempt_is_priced_at_the_model_that_answered_it() {
    let cheap = ScriptedModel::from_replies([
        Reply::text("[Number]\nmany").with_usage(Usage::new(2_000, 100)),
        Reply::text("[Number]\nlots").with_usage(Usage::new(2_400, 50).with_cache(2_000, 0)),
    ])
    .with_name("cheap");
    let strong = ScriptedModel::from_replies([
        Reply::text("[Number]\n8").with_usage(Usage::new(2_400, 10).with_cache(0, 2_000))
    ])
    .with_name("strong");
    let outcome = Think::new(&cheap)
        .escalate_to(&strong, 2)
        .prices(prices())
        .run::<Count>("How many legs has a spider?")
        .await
        .unwrap();
    assert_eq!(outcome.value, Count { number: 8 });
    let costs: Vec<Option<f64>> = outcome.attempts.iter().map(|a| a.cost).collect();
    // cheap: 2,000 x 1 + 100 x 2; then 400 x 1 + 2,000 x 0.5 + 50 x 2.
    // strong: 400 x 10 + 2,000 x 12.5 + 10 x 40.
    assert_eq!(costs, [Some(0.0022), Some(0.0015), Some(0.0294)]);
    assert_eq!(outcome.cost(), Some(0.0022 + 0.0015 + 0.0294));

    // The same run without prices, or with none for these models: no cost.
    let cheap = ScriptedModel::new(["[Number]\n8"]).with_name("cheap");
    let unpriced = Think::new(&cheap).run::<Count>("?").await.unwrap();
    assert_eq!(unpriced.attempts[0].cost, None);
    assert_eq!(unpriced.cost(), None);
    let other = Prices::new().with("other", Price::per_million(1.0, 1.0));
    let cheap = ScriptedModel::new(["[Number]\n8"]).with_name("cheap");
    let outcome = Think::new(&cheap)
        .prices(other)
        .run::<Count>("?")
        .await
        .unwrap();
    assert_eq!(outcome.cost(), None);
}

#[tokio::test]
async fn a_backup_of_a_fallback_is_named_and_priced_as_itself() {
    for chunks in [None, Some(3)] {
        // cheap is down for the first attempt; strong answers it.
        let cheap = ScriptedModel::from_results([
            Err(ModelError::Connect(ErrorDetail::new("connection refused"))),
            Ok(Reply::text("[Number]\n8").with_usage(Usage::new(1_000, 10))),
        ])
        .with_name("cheap");
        let strong = ScriptedModel::from_replies([
            Reply::text("[Number]\nlots").with_usage(Usage::new(1_000, 100))
        ])
        .with_name("strong");
        let (cheap, strong) = match chunks {
            Some(chars) => (cheap.chunk_size(chars), strong.chunk_size(chars)),
            None => (cheap, strong),
        };
        let model = Fallback::new(vec![
            Box::new(cheap) as Box<dyn ChatModel>,
            Box::new(strong),
        ]);
        assert_eq!(model.streams(), chunks.is_some());
        let outcome = Think::new(&model)
            .prices(prices())
            .run::<Count>("How many legs has a spider?")
            .await
            .unwrap();
        assert_eq!(outcome.value, Count { number: 8 });
        let models: Vec<&str> = outcome.attempts.iter().map(|a| a.model.as_str()).collect();
        assert_eq!(models, ["strong", "cheap"], "streamed in {chunks:?}");
        let costs: Vec<Option<f64>> = outcome.attempts.iter().map(|a| a.cost).collect();
        // strong: 1,000 x 10 + 100 x 40; cheap: 1,000 x 1 + 10 x 2.
        assert_eq!(
            costs,
            [Some(0.014), Some(0.00102)],
            "streamed in {chunks:?}"
        );
    }
}

#[tokio::test]
async fn a_failed_run_counts_its_failed_call_too() {
    // A rejected reply, then an empty one that the retry policy does not retry.
    let cheap = ScriptedModel::from_replies([
        Reply::text("[Number]\nmany").with_usage(Usage::new(1_000, 20)),
        Reply::text("  ").with_usage(Usage::new(1_500, 300)),
    ])
    .with_name("cheap");
    let error = Think::new(&cheap)
        .prices(prices())
        .retry_policy(RetryPolicy::default().max_retries(0))
        .run::<Count>("How many?")
        .await
        .unwrap_err();
    assert_eq!(error.attempts()[0].cost, Some(0.00104));
    let failed = error.failed_call().unwrap();
    assert_eq!(failed.usage, Usage::new(1_500, 300));
    assert_eq!(failed.cost, Some(0.0021));
    assert_eq!(error.cost(), Some(0.00104 + 0.0021));
}

#[tokio::test]
async fn run_many_reports_the_cost_so_far() {
    let replies =
        (1..=3).map(|n| Reply::text(format!("[Number]\n{n}")).with_usage(Usage::new(1_000, 500)));
    let model = ScriptedModel::from_replies(replies).with_name("cheap");
    let seen = Mutex::new(Vec::new());
    let results = Think::new(&model)
        .prices(prices())
        .concurrency(1)
        .on_progress(|p: &RunsProgress| seen.lock().unwrap().push((p.done, p.cost)))
        .run_many::<Count>(["a", "b", "c"])
        .await;
    assert!(results.iter().all(Result::is_ok));
    // Each run: 1,000 x 1 + 500 x 2 = 2,000 per million.
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (1, Some(0.002)),
            (2, Some(0.004)),
            (3, Some(0.002 + 0.002 + 0.002))
        ]
    );
}

#[tokio::test]
async fn the_serialized_ledger_has_the_costs() {
    let model = ScriptedModel::from_replies([
        Reply::text("[Number]\nmany").with_usage(Usage::new(1_000, 20)),
        Reply::text("[Number]\n4").with_usage(Usage::new(1_200, 2)),
    ])
    .with_name("cheap");
    let outcome = Think::new(&model)
        .prices(prices())
        .run::<Count>("?")
        .await
        .unwrap();
    let json = serde_json::to_value(&outcome).unwrap();
    assert_eq!(json["attempts"][0]["cost"], serde_json::json!(0.00104));
    assert_eq!(json["attempts"][1]["cost"], serde_json::json!(0.001204));
    assert_eq!(json["cost"], serde_json::json!(0.00104 + 0.001204));
}
