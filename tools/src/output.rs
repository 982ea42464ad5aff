//! Output files written all or nothing.
//!
//! A tool reserves its destinations before it starts the work ([`Output::open`],
//! [`OutputSet::reserve`], [`OutputDir::check`]): a destination that cannot be written
//! is an error naming the user's path before anything is computed. Each file is written
//! into a temporary file (`.acc-out-*`) beside its destination and renamed over it only
//! when everything the tool writes succeeded; a failed run leaves no file behind, new
//! or partial. Files are created with mode 0666 less the umask, a file replaced keeps
//! its mode, and a destination that is a symbolic link is written through (the file it
//! points to is replaced; the link stays).
//!
//! A set of files is renamed into place one by one; a rename failing part-way puts
//! back what the earlier ones replaced (or removes what they created). Every
//! temporary file or directory not yet renamed is listed ([`remove_pending`]), so a
//! tool stopped by a signal or a panic removes them before it ends.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files and directories not yet renamed into place or removed.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary path listed in [`PENDING`] while this lives.
struct Pending(PathBuf);

impl Pending {
    fn new(path: &Path) -> Pending {
        if let Ok(mut pending) = PENDING.lock() {
            pending.push(path.to_path_buf());
        }
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Ok(mut pending) = PENDING.lock()
            && let Some(i) = pending.iter().rposition(|p| *p == self.0)
        {
            pending.swap_remove(i);
        }
    }
}

/// Removes every temporary file and directory not yet renamed into place: what a
/// tool stopped by a signal ([`crate::remove_outputs_on_signal`]) or a panic does
/// before it ends, as the destructors that would have removed them do not run.
pub fn remove_pending() {
    remove_pending_where(|_| true);
}

/// Removes the temporary files and directories not yet renamed into place for which
/// `chosen` holds.
fn remove_pending_where(chosen: impl Fn(&Path) -> bool) {
    // A panic while the list was held still leaves it readable.
    let pending = match PENDING.lock() {
        Ok(p) => p,
        Err(poisoned) => poisoned.into_inner(),
    };
    for path in pending.iter().filter(|p| chosen(p)) {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// How many symbolic links are followed before a destination is refused (as the
/// kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

/// Where results go: standard output, or a file committed only on success.
pub enum Output {
    /// Standard output (buffered).
    Stdout(io::BufWriter<io::Stdout>),
    /// A device or other non-regular file, written in place.
    Device(std::fs::File),
    /// A temporary file that becomes the destination on [`Output::commit`].
    File(Staged),
}

/// A temporary file beside its destination.
pub struct Staged {
    temp: tempfile::NamedTempFile,
    /// The file replaced: the user's path with symbolic links followed.
    target: PathBuf,
    /// The user's path, for messages.
    shown: PathBuf,
    /// Lists the temporary file until it is renamed or removed.
    _pending: Pending,
}

impl Staged {
    /// A temporary file beside `path` (symbolic links followed), with the mode of the
    /// file it replaces or 0666 less the umask. The error names `path`.
    fn new(path: &Path) -> Result<Staged, String> {
        // What the final rename would refuse is refused now, before any work.
        let text = path.as_os_str().to_string_lossy();
        if text.is_empty() {
            return Err("cannot write '': an empty file name".into());
        }
        if text.ends_with('/') {
            return Err(format!(
                "cannot write '{text}': it names a directory, not a file"
            ));
        }
        if path.file_name().is_some_and(|n| n.len() > MAX_NAME_BYTES) {
            return Err(format!(
                "cannot write '{text}': its name is longer than {MAX_NAME_BYTES} bytes"
            ));
        }
        let target = follow_links(path)?;
        let fail = |e: io::Error| cannot_write(path, e);
        if target.is_dir() {
            return Err(format!(
                "cannot write '{}': it is a directory",
                path.display()
            ));
        }
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let existing = std::fs::metadata(&target).ok().map(|m| m.permissions());
        let temp = temp_builder(0o666).tempfile_in(dir).map_err(fail)?;
        let _pending = Pending::new(temp.path());
        if let Some(mode) = existing {
            temp.as_file().set_permissions(mode).map_err(fail)?;
        }
        Ok(Staged {
            temp,
            target,
            shown: path.to_path_buf(),
            _pending,
        })
    }

    /// Flushes the file.
    fn flush(&mut self) -> Result<(), String> {
        self.temp
            .as_file_mut()
            .flush()
            .map_err(|e| cannot_write(&self.shown, e))
    }

    /// Flushes the file and renames it over its destination.
    fn persist(mut self) -> Result<(), String> {
        self.flush()?;
        let Staged {
            temp,
            target,
            shown,
            _pending,
        } = self;
        temp.persist(&target)
            .map(|_| ())
            .map_err(|e| cannot_write(&shown, e.error))
    }
}

/// What a rename into place replaced, to put back if a later one fails.
enum Replaced {
    /// Nothing: the destination was created.
    Nothing(PathBuf),
    /// A file, kept under a temporary name (a hard link to it, removed when this
    /// drops) until the set is in.
    File(PathBuf, tempfile::TempPath, Pending),
    /// A file no link could be made to (a file system without them): it cannot be
    /// put back.
    Lost,
}

impl Replaced {
    /// Keeps what renaming onto `target` is about to replace.
    fn keep(target: &Path) -> Replaced {
        if std::fs::symlink_metadata(target).is_err() {
            return Replaced::Nothing(target.to_path_buf());
        }
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // A fresh name (created, then freed for the link).
        let Ok(name) = temp_builder(0o600)
            .tempfile_in(dir)
            .map(|t| t.into_temp_path())
        else {
            return Replaced::Lost;
        };
        let path = name.to_path_buf();
        if name.close().is_err() || std::fs::hard_link(target, &path).is_err() {
            return Replaced::Lost;
        }
        let pending = Pending::new(&path);
        match tempfile::TempPath::try_from_path(&path) {
            Ok(kept) => Replaced::File(target.to_path_buf(), kept, pending),
            Err(_) => {
                let _ = std::fs::remove_file(&path);
                Replaced::Lost
            }
        }
    }

    /// Puts the replaced file back (or removes the created one).
    fn restore(self) {
        match self {
            Replaced::Nothing(target) => {
                let _ = std::fs::remove_file(target);
            }
            Replaced::File(target, kept, _pending) => {
                let _ = kept.persist(&target);
            }
            Replaced::Lost => {}
        }
    }
}

/// The longest file name the common file systems take (`NAME_MAX`).
const MAX_NAME_BYTES: usize = 255;

/// `cannot write 'PATH': why`, with the user's path (and not the temporary file's,
/// which `tempfile`'s errors name).
fn cannot_write(path: &Path, e: io::Error) -> String {
    let why = match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code).to_string(),
        None => e.to_string(),
    };
    format!("cannot write '{}': {why}", path.display())
}

/// A builder of `.acc-out-*` temporary files or directories created with `mode` (0666
/// for files, 0777 for directories), which the umask narrows as `open(2)` does for any
/// tool writing a file.
fn temp_builder(mode: u32) -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".acc-out-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    builder
}

/// `path` with its symbolic links followed (a dangling link gives the path it names).
fn follow_links(path: &Path) -> Result<PathBuf, String> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&current).map_err(|e| cannot_write(path, e))?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(format!(
        "cannot write '{}': more than {MAX_LINKS} symbolic links",
        path.display()
    ))
}

impl Output {
    /// Opens standard output (`-` or no path) or a temporary file beside `path`; the
    /// error names `path`.
    pub fn open(path: Option<&Path>) -> Result<Output, String> {
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
            Some(p) if p.exists() && !p.is_file() && !p.is_dir() => Ok(Output::Device(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| cannot_write(p, e))?,
            )),
            Some(p) => Staged::new(p).map(Output::File),
        }
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(w) => w,
            Output::Device(f) => f,
            Output::File(staged) => staged.temp.as_file_mut(),
        }
    }

    /// Flushes and, for a file, moves it into place; the error names the user's path.
    pub fn commit(self) -> Result<(), String> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| format!("cannot write: {e}")),
            Output::Device(mut f) => f.flush().map_err(|e| format!("cannot write: {e}")),
            Output::File(staged) => staged.persist(),
        }
    }
}

/// Several files written all or nothing: each reserved (its temporary file created)
/// before the work, written, and all renamed into place by [`OutputSet::commit`].
#[derive(Default)]
pub struct OutputSet {
    /// Each file with the user's path, for messages.
    files: Vec<(Output, PathBuf)>,
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> OutputSet {
        OutputSet::default()
    }

    /// Reserves `path` (standard output for `-`) and returns its index; the error names
    /// `path`.
    pub fn reserve(&mut self, path: &Path) -> Result<usize, String> {
        self.files
            .push((Output::open(Some(path))?, path.to_path_buf()));
        Ok(self.files.len() - 1)
    }

    /// Writes `bytes` into the reserved file `index`.
    pub fn write(&mut self, index: usize, bytes: &[u8]) -> Result<(), String> {
        let (file, path) = &mut self.files[index];
        file.writer()
            .write_all(bytes)
            .map_err(|e| cannot_write(path, e))
    }

    /// The writer of the reserved file `index`.
    pub fn writer(&mut self, index: usize) -> &mut dyn Write {
        self.files[index].0.writer()
    }

    /// Moves every file into place. A rename failing part-way (a destination's
    /// directory removed or made read-only during the run) puts back the files the
    /// earlier ones replaced and removes those they created, so the destinations are
    /// as before the run; on a file system without hard links a replaced file cannot
    /// be put back.
    pub fn commit(self) -> Result<(), String> {
        let mut done: Vec<Replaced> = Vec::new();
        for (file, path) in self.files {
            let replaced = match &file {
                Output::File(staged) => Some(Replaced::keep(&staged.target)),
                _ => None,
            };
            if let Err(e) = file.commit() {
                for replaced in done.into_iter().rev() {
                    replaced.restore();
                }
                return Err(format!("{e} ('{}')", path.display()));
            }
            done.extend(replaced);
        }
        // In place: the kept copies are removed as they drop.
        Ok(())
    }
}

/// Writes the files passes produced beside the IR (`view-graph{file=F}`), all or
/// nothing; a later file of the same path adds to the earlier one.
pub fn write_side_files(files: &[acc_pass::SideFile]) -> Result<(), String> {
    let mut set = OutputSet::new();
    let mut reserved: Vec<(&Path, usize)> = Vec::new();
    for file in files {
        let index = match reserved.iter().find(|(p, _)| *p == file.path) {
            Some((_, i)) => *i,
            None => {
                let i = set.reserve(&file.path)?;
                reserved.push((&file.path, i));
                i
            }
        };
        set.write(index, &file.bytes)?;
    }
    set.commit()
}

/// A directory of outputs written all or nothing (`acc-translate --emit-c -o DIR`): a
/// new directory is filled under a temporary name beside it and renamed at the end;
/// into an existing one, the files are staged beside their destinations.
pub struct OutputDir {
    dir: PathBuf,
}

impl OutputDir {
    /// Checks, before the work, that `dir` can be written: an existing directory, or a
    /// path whose nearest existing ancestor is a directory that can be written.
    pub fn check(dir: &Path) -> Result<OutputDir, String> {
        let dir_shown = dir.display();
        let mut probe = dir.to_path_buf();
        loop {
            if probe.exists() {
                if !probe.is_dir() {
                    return Err(format!(
                        "cannot write into '{dir_shown}': '{}' is not a directory",
                        probe.display()
                    ));
                }
                // Creating (and dropping) a temporary file proves the directory writable.
                temp_builder(0o600)
                    .tempfile_in(&probe)
                    .map_err(|e| cannot_write(dir, e))?;
                return Ok(OutputDir {
                    dir: dir.to_path_buf(),
                });
            }
            match probe.parent() {
                Some(p) if !p.as_os_str().is_empty() => probe = p.to_path_buf(),
                // Nothing of the path exists, not even the current directory.
                _ if probe == Path::new(".") => {
                    return Err(format!(
                        "cannot write into '{dir_shown}': no such directory"
                    ));
                }
                _ => probe = PathBuf::from("."),
            }
        }
    }

    /// Writes `files` (names inside the directory, contents) all or nothing.
    pub fn write_all(self, files: &[(String, &[u8])]) -> Result<(), String> {
        let dir = &self.dir;
        let fail = |e: io::Error| format!("cannot write into '{}': {e}", dir.display());
        if dir.is_dir() {
            let mut set = OutputSet::new();
            for (name, bytes) in files {
                let index = set.reserve(&dir.join(name))?;
                set.write(index, bytes)?;
            }
            return set.commit();
        }
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(fail)?;
        let staging = temp_builder(0o777).tempdir_in(parent).map_err(fail)?;
        let _pending = Pending::new(staging.path());
        for (name, bytes) in files {
            let path = staging.path().join(name);
            let written = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()));
            written.map_err(|e| cannot_write(&dir.join(name), e))?;
        }
        // Renamed whole: until here the destination did not exist.
        std::fs::rename(staging.path(), dir).map_err(fail)?;
        // The directory moved: nothing is left at the temporary name to remove.
        let _ = staging.keep();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_writes_nothing_until_it_commits_and_nothing_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        let mut set = OutputSet::new();
        let i = set.reserve(&a).unwrap();
        let j = set.reserve(&b).unwrap();
        set.write(i, b"one").unwrap();
        set.write(j, b"two").unwrap();
        assert!(!a.exists() && !b.exists());
        set.commit().unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        let mut dropped = OutputSet::new();
        let k = dropped.reserve(&a).unwrap();
        dropped.write(k, b"changed").unwrap();
        drop(dropped);
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file is left");
    }

    #[test]
    fn a_rename_failing_part_way_puts_the_earlier_files_back() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let (old, new, late) = (
            dir.path().join("old.txt"),
            dir.path().join("new.txt"),
            sub.join("late.txt"),
        );
        std::fs::write(&old, b"before").unwrap();
        let mut set = OutputSet::new();
        for (path, bytes) in [(&old, b"after"), (&new, b"fresh"), (&late, b"never")] {
            let i = set.reserve(path).unwrap();
            set.write(i, bytes).unwrap();
        }
        // The last destination's directory goes away during the run: its rename fails.
        std::fs::remove_dir_all(&sub).unwrap();
        let e = set.commit().unwrap_err();
        assert!(e.contains("late.txt"), "{e}");
        assert_eq!(std::fs::read(&old).unwrap(), b"before");
        assert!(!new.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["old.txt"], "nothing else is left");
    }

    #[test]
    fn pending_temporary_files_are_removed_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = OutputSet::new();
        let i = set.reserve(&dir.path().join("a.txt")).unwrap();
        set.write(i, b"one").unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // What a signal's handler does, the set still alive (here only for this
        // test's directory: the other tests run beside it).
        remove_pending_where(|p| p.starts_with(dir.path()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        drop(set);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_and_a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        let mut out = Output::open(Some(&link)).unwrap();
        out.writer().write_all(b"new").unwrap();
        out.commit().unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = real.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn a_bad_destination_is_an_error_naming_it_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let inside = file.join("out.c");
        let e = OutputDir::check(&inside).err().unwrap();
        assert!(e.contains(&inside.display().to_string()), "{e}");
        let e = Output::open(Some(dir.path())).err().unwrap();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn a_new_directory_appears_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new/model");
        let target = OutputDir::check(&out).unwrap();
        target
            .write_all(&[("a.c".into(), b"int a;"), ("a.h".into(), b"extern int a;")])
            .unwrap();
        assert_eq!(std::fs::read(out.join("a.h")).unwrap(), b"extern int a;");
        let left: Vec<_> = std::fs::read_dir(dir.path().join("new"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("model")]);
    }
}
