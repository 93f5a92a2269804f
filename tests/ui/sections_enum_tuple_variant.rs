use twr_runtime::Sections;

#[derive(Sections)]
struct FinalAnswer {
    answer: String,
}

#[derive(Sections)]
enum Step {
    Search { query: String },
    Answer(FinalAnswer, u8),
}

fn main() {}
