//! `acc-opt`: see [`acc_tools::opt`].

/// mimalloc: parsing and rewriting allocate small vectors per op; it frees them
/// faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::opt::main_with_args(&args)
}
