//! Compiles ONNX's `onnx.proto` (vendored from the onnx 1.23.2 wheel, Apache-2.0) into
//! Rust types with prost; protox parses the .proto file, so no `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["proto/onnx.proto"], ["proto"])?;
    prost_build::Config::new().compile_fds(descriptors)?;
    Ok(())
}
