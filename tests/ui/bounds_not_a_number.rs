use twr_runtime::Sections;

#[derive(Sections)]
struct Trip {
    #[section(min = 1)]
    plan: String,
    #[section(json, max = 10)]
    budget: u32,
    #[section(min = 0, max = 5)]
    stops: Vec<String>,
}

fn main() {}
