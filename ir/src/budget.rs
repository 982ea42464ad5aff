//! The memory budget: how many bytes one value a tool materializes (a tensor the
//! interpreter computes, a constant a pass expands, a buffer the JIT allocates) may
//! take. Sizes that come from input (shapes, pads, scales, table lengths) are
//! multiplied with checked arithmetic and compared with it before anything is
//! allocated, so an absurd size is a diagnostic, never an abort of the process.
//!
//! The default is a quarter of what the process may use: the machine's memory, or
//! the address-space limit (`ulimit -v`) when it is lower. A tool's `--max-memory`
//! option sets it ([`set_max_bytes`]); it holds for the whole process.

use std::sync::atomic::{AtomicU64, Ordering};

/// The budget in bytes; 0 until first read or set.
static MAX_BYTES: AtomicU64 = AtomicU64::new(0);

/// Used when the machine's memory cannot be read.
const FALLBACK_BYTES: u64 = 2 << 30;

/// The budget in bytes for one value.
pub fn max_bytes() -> u64 {
    match MAX_BYTES.load(Ordering::Relaxed) {
        0 => {
            let bytes = default_bytes();
            MAX_BYTES.store(bytes, Ordering::Relaxed);
            bytes
        }
        b => b,
    }
}

/// Sets the budget for the rest of the process: at least one byte, and at most the
/// address-space limit (`ulimit -v`) when there is one, since no value larger than
/// that can be allocated (asking more would turn the diagnostic into an abort).
pub fn set_max_bytes(bytes: u64) {
    let limit = read_number("/proc/self/limits", "Max address space").unwrap_or(u64::MAX);
    MAX_BYTES.store(bytes.min(limit).max(1), Ordering::Relaxed);
}

/// A quarter of the smaller of the machine's memory and the address-space limit.
fn default_bytes() -> u64 {
    let memory = read_number("/proc/meminfo", "MemTotal:").map(|kib| kib.saturating_mul(1024));
    let limit = read_number("/proc/self/limits", "Max address space");
    match (memory, limit) {
        (Some(m), Some(l)) => m.min(l) / 4,
        (Some(m), None) => m / 4,
        (None, Some(l)) => l / 4,
        (None, None) => FALLBACK_BYTES,
    }
}

/// The first number after `key` on its line of `file` (`None` for "unlimited").
fn read_number(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// Parses a size such as `512M`, `8G`, `1024` (bytes) or `64k`, for `--max-memory`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => t.split_at(at),
        None => (t, ""),
    };
    let scale: u64 = match unit
        .to_ascii_lowercase()
        .trim_end_matches("ib")
        .trim_end_matches('b')
    {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => {
            return Err(format!(
                "invalid size '{text}': expected a number of bytes with K, M, G or T"
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!("invalid size '{text}': expected a positive number of bytes with K, M, G or T")
        })
}

/// Human-readable bytes: `12.0 GiB`.
pub fn describe(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The contents of the file at `path`, read only up to [`input_limit`]: a larger file,
/// or a device that never ends (`/dev/zero`), is an error saying so instead of a read
/// that runs until the machine's memory is gone.
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    read_all(std::fs::File::open(path)?)
}

/// The most acc reads from one input: four times the budget of one value (what the
/// process may use, by default), and at least 64 MiB however low the budget is set.
pub fn input_limit() -> u64 {
    max_bytes().saturating_mul(4).max(64 << 20)
}

/// Everything `reader` gives (standard input, a file), up to [`input_limit`], as
/// [`read_file`] reads.
pub fn read_all(reader: impl std::io::Read) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let limit = input_limit();
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "it is larger than the {} acc reads from one input (four times the memory \
             budget; --max-memory raises it)",
            describe(limit)
        )));
    }
    Ok(bytes)
}

/// The number of elements of `shape` (every dimension static and non-negative), with
/// checked arithmetic: an error when a dimension is negative or the product overflows.
pub fn elements(shape: &[i64]) -> Result<u64, String> {
    shape.iter().try_fold(1u64, |n, &d| {
        let d = u64::try_from(d).map_err(|_| format!("dimension {d} is not a static size"))?;
        n.checked_mul(d)
            .ok_or_else(|| format!("{} elements overflow 64 bits", shape_text(shape)))
    })
}

/// `count` elements of `element_bytes` bytes each, checked against the budget: the
/// byte count as a `usize`, or an error saying how much is needed and how to allow it.
/// `what` names the value (`tensor<...>`).
pub fn allocation(what: &str, count: u64, element_bytes: u64) -> Result<usize, String> {
    let over = |needed: String| {
        format!(
            "{what} needs {needed}, more than the memory budget of {} for one value \
             (--max-memory raises it)",
            describe(max_bytes())
        )
    };
    let bytes = count
        .checked_mul(element_bytes.max(1))
        .ok_or_else(|| over(format!("{count} elements of {element_bytes} bytes")))?;
    if bytes > max_bytes() {
        return Err(over(describe(bytes)));
    }
    usize::try_from(bytes).map_err(|_| over(describe(bytes)))
}

/// The element count of `shape`, checked with [`elements`] and, at `element_bytes`
/// each, against the budget.
pub fn shape_allocation(what: &str, shape: &[i64], element_bytes: u64) -> Result<usize, String> {
    let count = elements(shape).map_err(|e| format!("{what}: {e}"))?;
    allocation(what, count, element_bytes)?;
    usize::try_from(count).map_err(|_| format!("{what}: {count} elements do not fit this machine"))
}

fn shape_text(shape: &[i64]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked_and_compared_with_the_budget() {
        assert_eq!(elements(&[2, 3, 4]), Ok(24));
        assert!(elements(&[-1, 3]).is_err());
        assert!(
            elements(&[1 << 40, 1 << 40])
                .unwrap_err()
                .contains("overflow")
        );
        let e = allocation("tensor<100000x100000xf32>", 10_000_000_000, 1 << 40).unwrap_err();
        assert!(e.contains("memory budget"), "{e}");
        assert!(shape_allocation("t", &[100_000, 100_000, 100_000], 4).is_err());
        assert_eq!(shape_allocation("t", &[4, 4], 4), Ok(16));
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8GiB"), Ok(8 << 30));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999999999999T").is_err());
        assert_eq!(describe(3 << 30), "3.0 GiB");
    }
}
