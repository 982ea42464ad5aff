# Configuration for running acc's test/lit suite under LLVM's own `lit`, with
# LLVM's FileCheck and not:
#
#     cargo build --workspace
#     lit -v test/lit
#
# (`pip install lit`; FileCheck and not come from Debian's llvm-22-tools.)
# `cargo test` runs the same suite without LLVM (tools/tests/lit.rs, acc-lit).
#
# Environment:
#   LLVM_BIN_DIR  directory of FileCheck and not (default: /usr/lib/llvm-22/bin
#                 if present, else `llvm-config --bindir`)
#   ACC_BIN_DIR   directory of acc-opt and the other acc tools
#                 (default: <repo>/target/debug)
#   ACC_LIT_OUT   where lit puts its Output/ (%t) files (default: a directory
#                 under the system's temporary directory)

import os
import shutil
import subprocess
import tempfile

import lit.formats

config.name = "acc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.environ.get("ACC_LIT_OUT") or os.path.join(
    tempfile.gettempdir(), "acc-lit-" + str(os.getuid() if hasattr(os, "getuid") else 0)
)

repo_root = os.path.dirname(os.path.dirname(config.test_source_root))


def llvm_bin_dir():
    """The directory holding LLVM's FileCheck and not."""
    explicit = os.environ.get("LLVM_BIN_DIR")
    if explicit:
        return explicit
    debian = "/usr/lib/llvm-22/bin"
    if os.path.isfile(os.path.join(debian, "FileCheck")):
        return debian
    llvm_config = shutil.which("llvm-config")
    if llvm_config:
        try:
            return subprocess.check_output([llvm_config, "--bindir"], text=True).strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    lit_config.fatal(
        "cannot find LLVM's FileCheck: set LLVM_BIN_DIR or install llvm-22-tools"
    )


llvm_bin = llvm_bin_dir()
for tool in ("FileCheck", "not"):
    if not os.path.isfile(os.path.join(llvm_bin, tool)):
        lit_config.fatal("no %s in %s (LLVM_BIN_DIR)" % (tool, llvm_bin))

acc_bin = os.environ.get("ACC_BIN_DIR") or os.path.join(repo_root, "target", "debug")
if not os.path.isdir(acc_bin):
    lit_config.warning(
        "ACC_BIN_DIR %s does not exist; run `cargo build --workspace` first" % acc_bin
    )

# LLVM's tools first, so that FileCheck and not are LLVM's; then acc's binaries.
path = [llvm_bin, acc_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
