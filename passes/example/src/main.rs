//! `acc-opt-example`: `acc-opt` with every pass acc provides plus `mul-to-shift`.

fn main() -> std::process::ExitCode {
    let mut passes = acc_tools::registry();
    passes.register(acc_example_pass::info());
    let args: Vec<String> = std::env::args().skip(1).collect();
    acc_tools::opt::main_with_registry(&args, &passes)
}
