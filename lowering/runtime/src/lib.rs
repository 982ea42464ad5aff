//! acc's host runtime: the library kernels that generated code calls through
//! `hw.intrinsic` (the host's counterpart of a vendor's HWlib).
//!
//! Every kernel has a portable version, and faster ones chosen at run time from the
//! host's instruction set; all versions compute the same products (up to the
//! association of floating-point sums).

pub mod conv;
pub mod sgemm;

/// Inputs for the kernels' tests.
#[cfg(test)]
mod test_data {
    /// `len` deterministic pseudo-random values in [-1, 1) (an LCG from `seed`).
    pub fn random(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 23) as f32) - 1.0
            })
            .collect()
    }
}
