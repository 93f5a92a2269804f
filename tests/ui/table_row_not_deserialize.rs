use twr_runtime::Sections;

struct Item {
    name: String,
}

#[derive(Sections)]
struct Order {
    #[section(table)]
    items: Vec<Item>,
}

fn main() {}
