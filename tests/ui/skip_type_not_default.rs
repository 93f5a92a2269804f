use twr_runtime::Sections;

struct Cache {
    hits: u32,
}

#[derive(Sections)]
struct Plan {
    steps: String,
    #[section(skip)]
    cache: Cache,
}

fn main() {}
