use twr_runtime::Sections;

#[derive(Sections)]
struct FinalAnswer {
    answer: String,
    query: String,
}

#[derive(Sections)]
enum Step {
    Search { query: String },
    Answer(FinalAnswer),
}

fn main() {}
