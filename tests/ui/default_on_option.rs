use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    steps: String,
    #[section(default)]
    notes: Option<String>,
}

fn main() {}
