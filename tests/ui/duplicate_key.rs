use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Steps]")]
    #[section(header = "[Plan]")]
    steps: String,
}

fn main() {}
