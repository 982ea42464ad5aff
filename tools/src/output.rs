//! Output files written atomically: into a temporary file next to the target, renamed
//! over it only when everything succeeded, so a failed run leaves no partial file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where results go: standard output, or a file committed only on success.
pub enum Output {
    /// Standard output (buffered).
    Stdout(io::BufWriter<io::Stdout>),
    /// A device or other non-regular file, written in place.
    Device(std::fs::File),
    /// A temporary file that becomes `target` on [`Output::commit`].
    File {
        /// The temporary file.
        temp: tempfile::NamedTempFile,
        /// The final path.
        target: PathBuf,
    },
}

impl Output {
    /// Opens standard output (`-` or no path) or a temporary file beside `path`.
    pub fn open(path: Option<&Path>) -> io::Result<Output> {
        match path {
            None => Ok(Output::Stdout(io::BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
            Some(p) if p.as_os_str() == "-" => Ok(Output::Stdout(io::BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
            // Devices such as /dev/null are written directly: there is nothing to replace.
            Some(p) if p.exists() && !p.is_file() => Ok(Output::Device(
                std::fs::OpenOptions::new().write(true).open(p)?,
            )),
            Some(p) => {
                let dir = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let temp = tempfile::Builder::new()
                    .prefix(".acc-out-")
                    .tempfile_in(dir)?;
                Ok(Output::File {
                    temp,
                    target: p.to_path_buf(),
                })
            }
        }
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(w) => w,
            Output::Device(f) => f,
            Output::File { temp, .. } => temp.as_file_mut(),
        }
    }

    /// Flushes and, for a file, moves it into place.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut w) => w.flush(),
            Output::Device(mut f) => f.flush(),
            Output::File { mut temp, target } => {
                temp.as_file_mut().flush()?;
                temp.persist(&target).map(|_| ()).map_err(|e| e.error)
            }
        }
    }
}
