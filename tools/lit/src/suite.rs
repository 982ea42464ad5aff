//! A lit suite: its configuration, its tests, and running one test.
//!
//! A test passes when every RUN line, after substitution, exits with status 0,
//! run one after the other with bash in the test file's directory; it fails at
//! the first RUN line that does not. Then:
//! - `XFAIL: *` (or an `XFAIL:` item naming an available feature) inverts that:
//!   failing is expected, passing is an error;
//! - `REQUIRES:` items that are not all available features, or an `UNSUPPORTED:`
//!   item that is one, make the test unsupported: it is not run.
//!
//! Features are plain names (no boolean expressions). A [`Suite`] owns the
//! temporary directories its tests use: the tool links and one `%t` per test
//! (`<temp>/<test name>.tmp`, whose parent exists), unique since names are.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tempfile::TempDir;

use crate::directives::{self, Directives, RunLine};
use crate::discover::{TestFile, discover};
use crate::shell::{ShellOutput, run_shell};
use crate::subst::Substitutions;
use crate::toolbin::ToolDir;

/// Environment variable: a directory holding LLVM's `FileCheck` and `not`, used
/// instead of the built-in ones (to cross-check the suite against LLVM's tools).
pub const LLVM_BIN_DIR_VAR: &str = "ACC_LIT_LLVM_BIN_DIR";
/// Environment variable: the per-RUN-line time limit in seconds (`0`: none).
pub const TIMEOUT_VAR: &str = "ACC_LIT_TIMEOUT";
/// The default per-RUN-line time limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct LitConfig {
    /// The directory searched (recursively) for tests.
    pub suite_root: PathBuf,
    /// Programs RUN lines call by name: `(name, executable)`. `FileCheck` and
    /// `not` are built in; an entry with either name overrides it.
    pub tools: Vec<(String, PathBuf)>,
    /// Available features, for `XFAIL:`, `REQUIRES:` and `UNSUPPORTED:`.
    pub features: Vec<String>,
    /// Time limit of each RUN line; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Where to create the temporary directory (default: the system's).
    pub temp_root: Option<PathBuf>,
}

impl LitConfig {
    /// A configuration for the suite under `suite_root`, with no extra tools.
    pub fn new(suite_root: impl Into<PathBuf>) -> Self {
        LitConfig {
            suite_root: suite_root.into(),
            tools: Vec::new(),
            features: Vec::new(),
            timeout: Some(DEFAULT_TIMEOUT),
            temp_root: None,
        }
    }

    /// Adds a tool reachable as `name` in RUN lines.
    pub fn tool(mut self, name: impl Into<String>, executable: impl Into<PathBuf>) -> Self {
        self.tools.push((name.into(), executable.into()));
        self
    }

    /// Adds an available feature.
    pub fn feature(mut self, name: impl Into<String>) -> Self {
        self.features.push(name.into());
        self
    }

    /// Sets the time limit of each RUN line.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Creates the temporary directory under `dir` instead of the system's.
    pub fn temp_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.temp_root = Some(dir.into());
        self
    }

    /// Applies [`LLVM_BIN_DIR_VAR`] and [`TIMEOUT_VAR`] from the environment.
    pub fn with_env_overrides(mut self) -> Result<Self, String> {
        if let Some(dir) = std::env::var_os(LLVM_BIN_DIR_VAR).filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            for name in [crate::toolbin::FILECHECK, crate::toolbin::NOT] {
                self.tools.push((name.to_owned(), dir.join(name)));
            }
        }
        if let Ok(text) = std::env::var(TIMEOUT_VAR) {
            let secs: u64 = text
                .trim()
                .parse()
                .map_err(|_| format!("{TIMEOUT_VAR}={text:?} is not a number of seconds"))?;
            self.timeout = (secs > 0).then(|| Duration::from_secs(secs));
        }
        Ok(self)
    }
}

/// What running (or not running) a test came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every RUN line succeeded.
    Passed,
    /// A RUN line failed, or the test file is malformed; the message says how.
    Failed(String),
    /// An `XFAIL` test failed, as expected.
    ExpectedFailure,
    /// An `XFAIL` test passed.
    UnexpectedPass,
    /// Not run: its `REQUIRES:` or `UNSUPPORTED:` rule out this configuration.
    Unsupported(String),
}

impl Outcome {
    /// Does this outcome count as success?
    pub fn is_success(&self) -> bool {
        !matches!(self, Outcome::Failed(_) | Outcome::UnexpectedPass)
    }
}

/// A prepared suite: its tests, tool links and temporary directory.
#[derive(Debug)]
pub struct Suite {
    tests: Vec<TestFile>,
    tools: ToolDir,
    search_path: OsString,
    temp: TempDir,
    features: Vec<String>,
    timeout: Option<Duration>,
}

impl Suite {
    /// Finds the tests and creates the tool links; `multicall` is the executable
    /// that acts as `FileCheck` and `not` (see [`crate::toolbin`]).
    pub fn prepare(config: &LitConfig, multicall: &Path) -> Result<Suite, String> {
        let root = config
            .suite_root
            .canonicalize()
            .map_err(|err| format!("suite root {}: {err}", config.suite_root.display()))?;
        let tests =
            discover(&root).map_err(|err| format!("searching {}: {err}", root.display()))?;
        let tools = ToolDir::create(multicall, &config.tools).map_err(|err| {
            format!("{err} (build the workspace first: `cargo build --workspace`)")
        })?;
        let mut temp = tempfile::Builder::new();
        temp.prefix("acc-lit-");
        let temp = match &config.temp_root {
            Some(dir) => std::fs::create_dir_all(dir).and_then(|()| temp.tempdir_in(dir)),
            None => temp.tempdir(),
        }
        .map_err(|err| format!("creating a temporary directory: {err}"))?;
        Ok(Suite {
            tests,
            search_path: tools.search_path(),
            tools,
            temp,
            features: config.features.clone(),
            timeout: config.timeout,
        })
    }

    /// The tests, sorted by name.
    pub fn tests(&self) -> &[TestFile] {
        &self.tests
    }

    /// The directory of tool links put first on `PATH`.
    pub fn tool_dir(&self) -> &Path {
        self.tools.path()
    }

    /// The temporary directory holding every test's `%t`.
    pub fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    /// Keeps the temporary directory after the suite is dropped, returning it.
    pub fn keep_temp_dir(self) -> PathBuf {
        self.temp.keep()
    }

    /// Reads a test's directives; `Err` is the test's failure message.
    pub fn directives(&self, test: &TestFile) -> Result<Directives, String> {
        let bytes = std::fs::read(&test.path)
            .map_err(|err| format!("cannot read {}: {err}", test.path.display()))?;
        directives::parse(&String::from_utf8_lossy(&bytes))
            .map_err(|err| format!("{}: {err}", test.path.display()))
    }

    /// Why the test cannot run here, if it cannot.
    pub fn unsupported_reason(&self, directives: &Directives) -> Option<String> {
        let has = |feature: &String| self.features.contains(feature);
        if let Some(missing) = directives.requires.iter().find(|f| !has(f)) {
            return Some(format!("requires feature '{missing}'"));
        }
        let unsupported = directives.unsupported.iter().find(|f| has(f))?;
        Some(format!("unsupported with feature '{unsupported}'"))
    }

    /// Runs one test.
    pub fn run_test(&self, test: &TestFile) -> Outcome {
        let directives = match self.directives(test) {
            Ok(directives) => directives,
            Err(message) => return Outcome::Failed(message),
        };
        if let Some(reason) = self.unsupported_reason(&directives) {
            return Outcome::Unsupported(reason);
        }
        let xfail = directives
            .xfail
            .iter()
            .any(|f| f == "*" || self.features.contains(f));
        match (self.execute(test, &directives.run), xfail) {
            (Ok(()), false) => Outcome::Passed,
            (Err(message), false) => Outcome::Failed(message),
            (Ok(()), true) => Outcome::UnexpectedPass,
            (Err(_), true) => Outcome::ExpectedFailure,
        }
    }

    /// Runs the RUN lines in order, stopping at the first failure.
    fn execute(&self, test: &TestFile, runs: &[RunLine]) -> Result<(), String> {
        if runs.is_empty() {
            return Err(format!("{}: no RUN lines", test.path.display()));
        }
        let temp = self.temp.path().join(format!("{}.tmp", test.name));
        let cwd = test.path.parent().unwrap_or(Path::new("."));
        if let Some(parent) = temp.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|err| format!("creating {}: {err}", parent.display()))?;
        }
        let substitutions = Substitutions {
            source: test.path.clone(),
            temp,
        };
        for run in runs {
            let command = substitutions.apply(&run.command);
            let output = run_shell(&command, cwd, &self.search_path, self.timeout)
                .map_err(|err| format!("cannot run bash for RUN line {}: {err}", run.line))?;
            if !output.status.is_some_and(|s| s.success()) {
                return Err(failure_message(test, run, &command, &output, self.timeout));
            }
        }
        Ok(())
    }
}

/// Describes a failed RUN line: where, what ran, how it ended, what it printed.
fn failure_message(
    test: &TestFile,
    run: &RunLine,
    command: &str,
    output: &ShellOutput,
    timeout: Option<Duration>,
) -> String {
    let ending = match (output.status, timeout) {
        (None, Some(limit)) => format!("timed out after {}s and was killed", limit.as_secs()),
        (None, None) => "was killed".to_owned(),
        (Some(status), _) => match status.code() {
            Some(code) => format!("exited with code {code}"),
            None => format!("was terminated ({status})"),
        },
    };
    let mut message = format!(
        "{}:{}: RUN line {ending}:\n  {command}\n",
        test.path.display(),
        run.line
    );
    for (name, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        if !bytes.is_empty() {
            message.push_str(&format!("--- {name} ---\n{}", clip(bytes)));
            if !message.ends_with('\n') {
                message.push('\n');
            }
        }
    }
    message
}

/// Output text, shortened in the middle when very long.
fn clip(bytes: &[u8]) -> String {
    const KEEP: usize = 16 * 1024;
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= 2 * KEEP {
        return text.into_owned();
    }
    let head = text.floor_char_boundary(KEEP);
    let tail = text.ceil_char_boundary(text.len() - KEEP);
    format!(
        "{}\n[... {} bytes omitted ...]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_shortens_long_text() {
        assert_eq!(clip(b"abc"), "abc");
        let long = "é".repeat(40 * 1024);
        let clipped = clip(long.as_bytes());
        assert!(clipped.len() < long.len());
        assert!(clipped.contains("bytes omitted"));
    }

    #[test]
    fn outcomes_that_count_as_success() {
        assert!(Outcome::Passed.is_success());
        assert!(Outcome::ExpectedFailure.is_success());
        assert!(Outcome::Unsupported(String::new()).is_success());
        assert!(!Outcome::Failed(String::new()).is_success());
        assert!(!Outcome::UnexpectedPass.is_success());
    }
}
