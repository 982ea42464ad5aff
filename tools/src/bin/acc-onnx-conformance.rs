//! `acc-onnx-conformance`: see [`acc_tools::conformance`].
fn main() -> std::process::ExitCode {
    let args = match acc_tools::cli::tool_args("acc-onnx-conformance") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::conformance::main_with_args(&args)
}
