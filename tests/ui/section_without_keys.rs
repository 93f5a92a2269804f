use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section]
    steps: String,
}

fn main() {}
