use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Research\nPlan]")]
    steps: String,
}

fn main() {}
