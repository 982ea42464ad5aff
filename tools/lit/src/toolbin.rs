//! The tool directory: the programs RUN lines call by name.
//!
//! RUN lines are written for LLVM lit (`acc-opt %s | FileCheck %s`), so the names
//! `FileCheck`, `not` and each configured tool must resolve through `PATH`. A
//! [`ToolDir`] is a temporary directory of symbolic links with those names, put
//! first on the `PATH` of every RUN line.
//!
//! `FileCheck` and `not` link to the running executable itself (a multi-call
//! binary): a program that calls [`crate::run_lit_suite`] from `main` checks its
//! own name first ([`dispatch_multicall`]) and, started as `FileCheck` or `not`,
//! behaves as that tool. So no separately built helper binary can be missing or
//! stale. A configured tool of the same name overrides the built-in one.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tempfile::TempDir;

/// The name under which the built-in FileCheck is reachable.
pub const FILECHECK: &str = "FileCheck";
/// The name under which the built-in `not` is reachable.
pub const NOT: &str = "not";

/// If this process was started as `FileCheck` or `not`, runs that tool and returns
/// its exit code; otherwise returns `None`.
pub fn dispatch_multicall() -> Option<ExitCode> {
    let mut args = std::env::args_os();
    let argv0 = args.next()?;
    let name = Path::new(&argv0).file_name()?.to_str()?;
    let name = name
        .strip_suffix(std::env::consts::EXE_SUFFIX)
        .unwrap_or(name);
    if name == FILECHECK {
        Some(crate::filecheck::main_with_args(args))
    } else if name == NOT {
        Some(crate::not::main_with_args(args))
    } else {
        None
    }
}

/// A temporary directory of links to tools, removed when dropped.
#[derive(Debug)]
pub struct ToolDir {
    dir: TempDir,
}

impl ToolDir {
    /// Links `FileCheck` and `not` to `multicall` (unless overridden), and each
    /// `(name, executable)` of `tools`; later entries win over earlier ones.
    pub fn create(multicall: &Path, tools: &[(String, PathBuf)]) -> io::Result<ToolDir> {
        let dir = tempfile::Builder::new()
            .prefix("acc-lit-tools-")
            .tempdir()?;
        let builtins = [FILECHECK, NOT].map(|name| (name.to_owned(), multicall.to_path_buf()));
        for (name, target) in builtins.iter().chain(tools) {
            if name.is_empty() || name.contains(['/', '\\']) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("invalid tool name '{name}'"),
                ));
            }
            if !target.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("tool '{name}': no executable at {}", target.display()),
                ));
            }
            let link = dir
                .path()
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            if link.symlink_metadata().is_ok() {
                std::fs::remove_file(&link)?;
            }
            link_to(target, &link)?;
        }
        Ok(ToolDir { dir })
    }

    /// The directory holding the links.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `PATH` with this directory first, then the process's own `PATH`.
    pub fn search_path(&self) -> OsString {
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let dirs =
            std::iter::once(self.path().to_path_buf()).chain(std::env::split_paths(&inherited));
        std::env::join_paths(dirs).unwrap_or(inherited)
    }
}

/// Makes `link` run `target`.
fn link_to(target: &Path, link: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(not(unix))]
    {
        std::fs::copy(target, link).map(|_| ())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_builtins_and_tools_with_overrides() {
        let exe = std::env::current_exe().unwrap();
        let sh = PathBuf::from("/bin/sh");
        let tools = vec![
            ("acc-opt".to_owned(), sh.clone()),
            ("not".to_owned(), sh.clone()),
        ];
        let dir = ToolDir::create(&exe, &tools).unwrap();
        let target = |name: &str| std::fs::read_link(dir.path().join(name)).unwrap();
        assert_eq!(target("FileCheck"), exe);
        assert_eq!(target("not"), sh);
        assert_eq!(target("acc-opt"), sh);
        let path = dir.search_path();
        assert_eq!(std::env::split_paths(&path).next().unwrap(), dir.path());
    }

    #[test]
    fn rejects_missing_executables_and_bad_names() {
        let exe = std::env::current_exe().unwrap();
        let missing = vec![("acc-opt".to_owned(), PathBuf::from("/nonexistent/acc-opt"))];
        let err = ToolDir::create(&exe, &missing).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/acc-opt"));
        let bad = vec![("a/b".to_owned(), exe.clone())];
        assert!(ToolDir::create(&exe, &bad).is_err());
    }
}
