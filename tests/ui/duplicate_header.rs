use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(header = "[Steps]")]
    steps: String,
    // Headers are matched ignoring case: `[STEPS]` is the same section.
    #[section(header = "[STEPS]")]
    more_steps: String,
}

fn main() {}
