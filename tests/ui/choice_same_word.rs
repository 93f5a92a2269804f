use twr_runtime::Choice;

#[allow(non_camel_case_types)]
#[derive(Choice)]
enum Priority {
    High,
    HIGH,
}

fn main() {}
