//! `acc-opt`: see [`acc_tools::opt`].

/// mimalloc: parsing and rewriting allocate small vectors per op; it frees them
/// faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    acc_tools::remove_outputs_on_signal();
    let args = match acc_tools::cli::tool_args("acc-opt") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::opt::main_with_args(&args)
}
