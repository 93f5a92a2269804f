//! Nothing lost in a batch, over the three providers' emulators: a result
//! line that cannot be read fails only its own run, with a decode error
//! holding its text; a batch object missing a field is polled again, at
//! most `MAX_UNREADABLE_POLLS` times in a row, before its runs fail with a
//! decode error naming the field.

use std::time::Duration;

use twr_runtime::batch::{BatchApi, BatchModel, MAX_UNREADABLE_POLLS};
use twr_runtime::{
    Anthropic, Gemini, ModelError, OpenAiCompatible, Outcome, RetryPolicy, Sections, Think,
    ThinkError,
};

use crate::support::anthropic_batch::{self, AnthropicBatchServer};
use crate::support::batch_core::{item_of, Core, Fault, Garble};
use crate::support::gemini_batch::{self, GeminiBatchServer};
use crate::support::openai_batch::OpenAiBatchServer;

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

/// "item N" is 2N, at once.
fn answer(body: &serde_json::Value) -> String {
    format!("[Number]\n{}", 2 * item_of(body))
}

#[derive(Clone, Copy, Debug)]
enum Api {
    OpenAi,
    Anthropic,
    Gemini,
}

const APIS: [Api; 3] = [Api::OpenAi, Api::Anthropic, Api::Gemini];

type Results = Vec<Result<Outcome<Doubled>, ThinkError>>;

enum Server {
    OpenAi(OpenAiBatchServer),
    Other(std::sync::Arc<Core>, String),
}

struct Emulator {
    api: Api,
    server: Server,
}

impl Emulator {
    async fn start(api: Api, faults: Vec<Fault>) -> Self {
        let server = match api {
            Api::OpenAi => Server::OpenAi(OpenAiBatchServer::start(answer, faults).await),
            Api::Anthropic => {
                let server = AnthropicBatchServer::start(answer, faults).await;
                Server::Other(server.core, server.url)
            }
            Api::Gemini => {
                let server = GeminiBatchServer::start(answer, faults).await;
                Server::Other(server.core, server.url)
            }
        };
        Emulator { api, server }
    }

    fn url(&self) -> &str {
        match &self.server {
            Server::OpenAi(server) => &server.url,
            Server::Other(_, url) => url,
        }
    }

    fn garbled(&self, item: u32) -> String {
        match &self.server {
            Server::OpenAi(server) => server.garbled(item),
            Server::Other(core, _) => core.garbled(item),
        }
    }

    fn polls(&self) -> usize {
        match &self.server {
            Server::OpenAi(server) => server.polls(),
            Server::Other(core, _) => core.polls(),
        }
    }

    fn batches(&self) -> usize {
        match &self.server {
            Server::OpenAi(server) => server.batches(),
            Server::Other(core, _) => core.batches(),
        }
    }

    async fn run(&self, n: u32) -> Results {
        let url = self.url();
        match self.api {
            Api::OpenAi => {
                let client = OpenAiCompatible::new(url, "gpt-test").api_key("sk-batch-test");
                run(BatchModel::openai(client), n).await
            }
            Api::Anthropic => {
                let client = Anthropic::new(anthropic_batch::KEY, "claude-test").base_url(url);
                run(BatchModel::anthropic(client), n).await
            }
            Api::Gemini => {
                let client = Gemini::new(gemini_batch::KEY, "gemini-test").base_url(url);
                run(BatchModel::gemini(client), n).await
            }
        }
    }
}

async fn run<A: BatchApi>(model: BatchModel<A>, n: u32) -> Results {
    let model = model
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5));
    Think::new(&model)
        .concurrency(n as usize)
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .run_many::<Doubled>((0..n).map(|i| format!("item {i}")))
        .await
}

/// The decode error a run ended with.
fn decode_error(api: Api, item: usize, result: &Result<Outcome<Doubled>, ThinkError>) -> String {
    let error = result.as_ref().unwrap_err();
    match error.model_error() {
        Some(ModelError::Decode(detail)) => detail.to_string(),
        other => panic!("{api:?} item {item}: not a decode error: {other:?} ({error})"),
    }
}

#[tokio::test]
async fn an_unreadable_result_line_fails_only_its_own_run_and_keeps_its_text() {
    let garbles = vec![
        (1, Garble::Cut),
        (2, Garble::NoBody),
        (3, Garble::WrongShape),
    ];
    for api in APIS {
        let emulator = Emulator::start(api, vec![Fault::Garbled(garbles.clone())]).await;
        let results = emulator.run(6).await;
        for item in [0, 4, 5] {
            let value = results[item].as_ref().map(|o| o.value.number);
            assert_eq!(value.ok(), Some(2 * item as u32), "{api:?} item {item}");
        }
        for (item, garble) in &garbles {
            let item = *item as usize;
            let error = decode_error(api, item, &results[item]);
            // The line's whole text is in its run's error.
            let raw = emulator.garbled(item as u32);
            assert!(
                error.contains(&raw),
                "{api:?} {garble:?}: {error}\nlacks {raw}"
            );
            assert!(
                !results[item]
                    .as_ref()
                    .unwrap_err()
                    .model_error()
                    .unwrap()
                    .is_transient(),
                "{api:?}"
            );
        }
        // A line cut off still names its request where its text does; a
        // Gemini entry that is not an object cannot, and goes to the run
        // left without a result.
        let cut = decode_error(api, 1, &results[1]);
        match api {
            Api::Gemini => assert!(
                cut.starts_with(
                    "batch batches/b001 ended (succeeded) with no readable result for request twr-"
                ),
                "{cut}"
            ),
            _ => assert!(cut.starts_with("the result line of request twr-"), "{cut}"),
        }
        assert_eq!(emulator.batches(), 1, "{api:?}");
    }
}

/// The field each provider's emulator leaves out: the status, and what the
/// ended batch's results are read from.
fn missing_fields(api: Api) -> [(&'static str, &'static str); 2] {
    match api {
        Api::OpenAi => [
            ("status", "missing field `status`"),
            ("output_file_id", "names no output_file_id or error_file_id"),
        ],
        Api::Anthropic => [
            ("processing_status", "missing field `processing_status`"),
            ("id", "missing field `id`"),
        ],
        Api::Gemini => [
            ("name", "missing field `name`"),
            ("response", "holds no inlinedResponses"),
        ],
    }
}

#[tokio::test]
async fn a_batch_object_missing_a_field_is_polled_again_a_bounded_number_of_times() {
    assert_eq!(MAX_UNREADABLE_POLLS, 3);
    for api in APIS {
        for (field, says) in missing_fields(api) {
            // Twice without it, then whole: the job goes through.
            let emulator = Emulator::start(api, vec![Fault::Omit(field, 2)]).await;
            let results = emulator.run(3).await;
            let values: Vec<u32> = results
                .iter()
                .map(|r| r.as_ref().map(|o| o.value.number).unwrap())
                .collect();
            assert_eq!(values, [0, 2, 4], "{api:?} {field}");
            assert_eq!(emulator.batches(), 1, "{api:?} {field}");

            // Never with it: three polls in a row, then each run fails with
            // the decode error that names the field.
            let emulator = Emulator::start(api, vec![Fault::Omit(field, u32::MAX)]).await;
            let results = emulator.run(3).await;
            for (item, result) in results.iter().enumerate() {
                let error = decode_error(api, item, result);
                assert!(
                    error.contains("could not be read in 3 polls in a row: "),
                    "{api:?} {field}: {error}"
                );
                assert!(error.contains(says), "{api:?} {field}: {error}");
            }
            // A poll is one batch object, two when the batch has ended and
            // its results are read from the object (OpenAI, Gemini).
            let per_poll = match (api, field) {
                (Api::OpenAi, "output_file_id") | (Api::Gemini, "response") => 2,
                _ => 1,
            };
            let before = match (api, field) {
                // Before the output exists, the batch is read whole: OpenAI's
                // in_progress and finalizing, Gemini's running.
                (Api::OpenAi, "output_file_id") => 2,
                (Api::Gemini, "response") => 1,
                _ => 0,
            };
            assert_eq!(emulator.polls(), before + 3 * per_poll, "{api:?} {field}");
        }
    }
}
