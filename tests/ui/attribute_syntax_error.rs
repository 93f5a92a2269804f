use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Steps]" example = "1. Read")]
    steps: String,
}

fn main() {}
