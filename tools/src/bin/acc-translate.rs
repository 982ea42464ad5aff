//! `acc-translate`: see [`acc_tools::translate`].
fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::translate::main_with_args(&args)
}
