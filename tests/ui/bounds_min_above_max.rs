use twr_runtime::Sections;

#[derive(Sections)]
struct Answer {
    #[section(min = 1, max = 0)]
    confidence: f64,
    #[section(min = -2, max = -5)]
    offset: Option<i32>,
}

fn main() {}
