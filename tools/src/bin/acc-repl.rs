//! `acc-repl`: see [`acc_tools::repl`].
fn main() -> std::process::ExitCode {
    let args = match acc_tools::cli::args("acc-repl") {
        Ok(a) => a,
        Err(code) => return code,
    };
    let args = match acc_tools::cli::common_options("acc-repl", &args) {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::repl::main_with_args(&args)
}
