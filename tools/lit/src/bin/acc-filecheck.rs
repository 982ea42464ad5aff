//! `acc-filecheck`: LLVM's `FileCheck`, see [`acc_lit::filecheck`].

fn main() -> std::process::ExitCode {
    acc_lit::filecheck::main_with_args(std::env::args_os().skip(1))
}
