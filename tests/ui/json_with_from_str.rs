use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(json, from_str)]
    budget: u32,
}

fn main() {}
