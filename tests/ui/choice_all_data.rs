use twr_runtime::Choice;

#[derive(Choice)]
enum Step {
    Search { query: String },
    Answer(String),
}

fn main() {}
