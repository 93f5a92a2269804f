use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(alias = ["Steps"], exmaple = "1. Read", from_string)]
    plan: String,
}

fn main() {}
