use twr_runtime::Sections;

#[derive(Sections)]
enum Step {
    Search {
        query: String,
        reason: String,
    },
    Answer {
        answer: String,
        #[section(header = "[REASON]")]
        why: String,
    },
}

fn main() {}
