use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    timeline: String,
    // `[Timeline]` is already the header of `timeline`.
    #[section(aliases = ["Dates", "timeline"])]
    schedule: String,
}

fn main() {}
