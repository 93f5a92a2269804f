use twr_runtime::Sections;

// serde's `rename_all`: twr's headers are named one field at a time.
#[derive(Sections)]
#[sections(rename_all = "PascalCase")]
struct Plan {
    steps: String,
}

fn main() {}
