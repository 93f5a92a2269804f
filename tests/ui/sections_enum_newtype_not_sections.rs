use twr_runtime::Sections;

#[derive(Sections)]
enum Step {
    Search { query: String },
    Answer(String),
}

fn main() {}
