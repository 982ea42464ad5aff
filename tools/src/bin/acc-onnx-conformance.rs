//! `acc-onnx-conformance`: see [`acc_tools::conformance`].
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::conformance::main_with_args(&args)
}
