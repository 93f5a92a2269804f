use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header)]
    steps: String,
}

fn main() {}
