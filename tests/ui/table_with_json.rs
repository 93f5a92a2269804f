use twr_runtime::Sections;

#[derive(serde::Deserialize)]
struct Item {
    name: String,
}

#[derive(Sections)]
struct Order {
    #[section(table, json)]
    items: Vec<Item>,
}

fn main() {}
