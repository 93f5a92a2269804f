use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(heading = "[Steps]")]
    steps: String,
}

fn main() {}
