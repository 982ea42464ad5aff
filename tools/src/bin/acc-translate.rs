//! `acc-translate`: see [`acc_tools::translate`].
fn main() -> std::process::ExitCode {
    acc_tools::abort_on_panic();
    acc_tools::remove_outputs_on_signal();
    let args = match acc_tools::cli::tool_args("acc-translate") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::translate::main_with_args(&args)
}
