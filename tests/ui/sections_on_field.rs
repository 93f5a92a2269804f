use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[sections(lang = "zh")]
    steps: String,
}

fn main() {}
