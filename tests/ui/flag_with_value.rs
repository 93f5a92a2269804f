use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(json = true)]
    budget: u32,
}

fn main() {}
