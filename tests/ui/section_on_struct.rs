use twr_runtime::Sections;

#[derive(Sections)]
#[section(lang = "zh")]
struct Plan {
    steps: String,
}

fn main() {}
