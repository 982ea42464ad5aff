//! `acc-repl`: see [`acc_tools::repl`].
fn main() -> std::process::ExitCode {
    let args = match acc_tools::cli::tool_args("acc-repl") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::repl::main_with_args(&args)
}
