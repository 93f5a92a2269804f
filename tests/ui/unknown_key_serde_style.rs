use twr_runtime::Sections;

// A key from another derive, with nothing close among the valid ones.
#[derive(Sections)]
struct Plan {
    #[section(rename = "Steps")]
    plan: String,
}

fn main() {}
