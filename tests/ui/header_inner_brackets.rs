use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Plan] [Steps]")]
    steps: String,
}

fn main() {}
