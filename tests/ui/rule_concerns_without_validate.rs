use twr_runtime::Sections;

#[derive(Sections)]
#[sections(concerns = [refund])]
struct Ticket {
    refund: f64,
}

fn main() {}
