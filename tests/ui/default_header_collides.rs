use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(aliases = ["Budget"])]
    cost: u32,
    // The default header `[Budget]` is taken by the alias above.
    budget: u32,
}

fn main() {}
