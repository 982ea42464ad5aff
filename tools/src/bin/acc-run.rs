//! `acc-run`: see [`acc_tools::run`].
fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    let args = match acc_tools::cli::tool_args("acc-run") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::run::main_with_args(&args)
}
