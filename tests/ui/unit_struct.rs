use twr_runtime::Sections;

#[derive(Sections)]
struct Plan;

fn main() {}
