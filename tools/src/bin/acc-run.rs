//! `acc-run`: see [`acc_tools::run`].
fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::run::main_with_args(&args)
}
