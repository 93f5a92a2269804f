use twr_runtime::Sections;

#[derive(Sections)]
struct Ticket<C> {
    summary: String,
    #[section(flatten)]
    customer: C,
}

fn main() {}
