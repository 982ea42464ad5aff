//! `acc-not`: LLVM's `not`, see [`acc_lit::not`].

fn main() -> std::process::ExitCode {
    acc_lit::not::main_with_args(std::env::args_os().skip(1))
}
