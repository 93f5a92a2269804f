use twr_runtime::Sections;

#[derive(Sections)]
enum Step {
    #[section(header = "[Search]")]
    Search { query: String },
    #[sections(lang = "zh")]
    Answer { answer: String },
    Skip {
        #[section(skip)]
        note: String,
    },
}

fn main() {}
