use twr_runtime::Sections;

#[derive(Sections)]
struct Plan(String, u32);

fn main() {}
