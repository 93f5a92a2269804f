use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Budget:]")]
    budget: u32,
    #[section(aliases = ["**Schedule**"])]
    timeline: String,
}

fn main() {}
