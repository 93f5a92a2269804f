use twr_runtime::Sections;

#[derive(Sections)]
#[sections(language = "zh")]
struct Plan {
    steps: String,
}

fn main() {}
