//! Running one RUN line with `bash -o pipefail -c`.
//!
//! The command runs in a given directory with a given `PATH`, standard input
//! closed (`/dev/null`), and its standard output and error captured. With
//! `pipefail`, a pipeline fails when any of its commands fails, as under lit.
//!
//! On Unix the command gets its own process group, so that on timeout the whole
//! pipeline (not only bash) is killed. [`ShellOutput::status`] is `None` exactly
//! when the command was killed for exceeding its time limit.

use std::ffi::OsStr;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What a RUN line did.
#[derive(Debug)]
pub struct ShellOutput {
    /// How it ended; `None` if it timed out and was killed.
    pub status: Option<ExitStatus>,
    /// Everything it wrote to standard output.
    pub stdout: Vec<u8>,
    /// Everything it wrote to standard error.
    pub stderr: Vec<u8>,
}

/// Runs `command` under bash in `cwd` with the environment variable `PATH` set to
/// `path`, killing it after `timeout` if given.
pub fn run_shell(
    command: &str,
    cwd: &Path,
    path: &OsStr,
    timeout: Option<Duration>,
) -> io::Result<ShellOutput> {
    let mut cmd = Command::new("bash");
    cmd.args(["-o", "pipefail", "-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = match timeout {
        None => Some(child.wait()?),
        Some(limit) => wait_with_timeout(&mut child, limit)?,
    };
    Ok(ShellOutput {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Reads a pipe to its end on a separate thread (so neither pipe can fill up and
/// block the child while the other is being read).
fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Waits for `child` for at most `limit`; on timeout kills its process group.
fn wait_with_timeout(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            kill_group(child);
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Kills the process group led by `child` (not yet reaped, so its id is still ours).
fn kill_group(child: &Child) {
    if cfg!(unix) {
        let _ = Command::new("bash")
            .args(["-c", &format!("kill -KILL -- -{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn path() -> std::ffi::OsString {
        std::env::var_os("PATH").unwrap_or_default()
    }

    #[test]
    fn captures_output_and_status() {
        let out = run_shell(
            "echo out; echo err >&2; exit 3",
            Path::new("/"),
            &path(),
            None,
        )
        .unwrap();
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
    }

    #[test]
    fn pipelines_fail_when_any_stage_fails() {
        let out = run_shell("false | cat", Path::new("/"), &path(), None).unwrap();
        assert_eq!(out.status.and_then(|s| s.code()), Some(1));
    }

    #[test]
    fn runs_in_the_given_directory() {
        let out = run_shell("pwd", Path::new("/"), &path(), None).unwrap();
        assert_eq!(out.stdout, b"/\n");
    }

    #[test]
    fn kills_the_whole_pipeline_on_timeout() {
        let start = Instant::now();
        let limit = Some(Duration::from_millis(200));
        let out = run_shell("sleep 30 | sleep 30", Path::new("/"), &path(), limit).unwrap();
        assert!(out.status.is_none());
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
