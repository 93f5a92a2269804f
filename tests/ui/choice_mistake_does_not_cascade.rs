use twr_runtime::{Choice, Sections};

// The one mistake is the data on `High`; the struct using `Priority` as a
// section gets no follow-up error thanks to the fallback impls.
#[derive(Choice)]
enum Priority {
    Low,
    High(u8),
}

#[derive(Sections)]
struct Task {
    title: String,
    priority: Priority,
}

fn main() {
    let _ = Task::parse_sections("[Title]\nx\n[Priority]\nlow");
}
