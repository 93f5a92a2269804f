use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = Steps)]
    steps: String,
}

fn main() {}
