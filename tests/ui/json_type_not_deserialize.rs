use twr_runtime::Sections;

struct Budget {
    total: u32,
}

#[derive(Sections)]
struct Plan {
    #[section(json)]
    budget: Budget,
}

fn main() {}
