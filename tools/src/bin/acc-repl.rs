//! `acc-repl`: see [`acc_tools::repl`].
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::repl::main_with_args(&args)
}
