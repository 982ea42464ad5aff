//! `acc-onnx-conformance`: see [`acc_tools::conformance`].
fn main() -> std::process::ExitCode {
    let args = match acc_tools::cli::args("acc-onnx-conformance") {
        Ok(a) => a,
        Err(code) => return code,
    };
    let args = match acc_tools::cli::common_options("acc-onnx-conformance", &args) {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::conformance::main_with_args(&args)
}
