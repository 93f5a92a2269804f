use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(validate = "check_steps")]
    steps: String,
}

fn main() {}
