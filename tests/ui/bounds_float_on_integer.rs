use twr_runtime::Sections;

#[derive(Sections)]
struct Trip {
    #[section(min = 0.5, max = 10)]
    days: u32,
    #[section(max = -2.5)]
    floors: Vec<i8>,
}

fn main() {}
