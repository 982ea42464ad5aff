//! `acc_sgemm`: C += A x B on f32 matrices with row strides, the host's matrix product
//! behind `hw.intrinsic "acc_sgemm"` (matmuls, and convolutions as matrix products).
//!
//! On x86-64 with AVX-512, or AVX2 and FMA, and on AArch64, this crate's
//! register-tiled product runs ([`tiled`], with the `avx512`, `avx2` or `neon`
//! kernels); elsewhere the `matrixmultiply` crate does. Neither copies the operands into packed panels:
//! weights and im2col patches are read where they are.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
// Only x86-64 and AArch64 have kernels for it (elsewhere `tiled::host()` is None).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
pub(crate) mod tiled;

/// A row-major f32 matrix in memory: element (i, j) is at `ptr + i * row_stride + j`.
#[derive(Clone, Copy, Debug)]
pub struct Matrix<P> {
    pub ptr: P,
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
}

/// A contiguous row-major matrix (row stride = columns).
pub fn matrix<P>(ptr: P, rows: usize, cols: usize) -> Matrix<P> {
    Matrix {
        ptr,
        rows,
        cols,
        row_stride: cols,
    }
}

impl<T> Matrix<*const T> {
    /// The rows `range` of the matrix (inside it: `range.end <= rows`).
    pub(crate) fn rows(self, range: std::ops::Range<usize>) -> Self {
        debug_assert!(range.start <= range.end && range.end <= self.rows);
        Matrix {
            ptr: self.ptr.wrapping_add(range.start * self.row_stride),
            rows: range.len(),
            ..self
        }
    }
}

impl<T> Matrix<*mut T> {
    /// The rows `range` of the matrix (inside it: `range.end <= rows`).
    pub(crate) fn rows(self, range: std::ops::Range<usize>) -> Self {
        debug_assert!(range.start <= range.end && range.end <= self.rows);
        Matrix {
            ptr: self.ptr.wrapping_add(range.start * self.row_stride),
            rows: range.len(),
            ..self
        }
    }
}

/// Where the kernel takes the rows of B from: a matrix in memory, or a view
/// computed on the fly (a convolution's patches).
pub(crate) trait PanelSource {
    /// Copies B[k, j..j + out.len()] into `out`.
    ///
    /// # Safety
    /// The row and columns lie inside B.
    unsafe fn copy_row(&self, k: usize, j: usize, out: &mut [f32]);

    /// Copies B[k0..k0 + depth, j..j + width] into `panel`, row p at `p * ld`.
    ///
    /// # Safety
    /// The rows and columns lie inside B; `panel` holds `depth` rows of `ld >= width`.
    unsafe fn copy_panel(
        &self,
        k0: usize,
        depth: usize,
        j: usize,
        width: usize,
        panel: &mut [f32],
        ld: usize,
    ) {
        for (p, row) in panel.chunks_mut(ld).take(depth).enumerate() {
            // SAFETY: the caller keeps the rows and columns inside B.
            unsafe { self.copy_row(k0 + p, j, &mut row[..width]) };
        }
    }

    /// B[k, j]'s address and B's row stride, when B is a matrix in memory.
    fn in_place(&self, k: usize, j: usize) -> Option<(*const f32, usize)>;

    /// True when B is stored as the kernel's panels already ([`Panels`]): it is
    /// always read in place.
    fn packed(&self) -> bool {
        false
    }
}

/// The columns of one panel of a packed B (the AVX-512 kernel's tile width).
pub const PANEL_COLUMNS: usize = 48;

/// A k x n matrix B stored as packed panels (the layout `NK48n`): ceil(n / 48)
/// panels, each k rows of [`PANEL_COLUMNS`] contiguous floats; element (i, j) is at
/// `ptr + ((j / 48) * k + i) * 48 + j % 48`, and the last panel's columns past n
/// are padding. Weights are packed so once, at compile time.
#[derive(Clone, Copy, Debug)]
pub struct Panels {
    pub ptr: *const f32,
    pub rows: usize,
    pub cols: usize,
}

impl Panels {
    /// Panel `p` (columns 48p..) as a k x width matrix with row stride 48.
    fn panel(&self, p: usize) -> Matrix<*const f32> {
        Matrix {
            ptr: self.ptr.wrapping_add(p * self.rows * PANEL_COLUMNS),
            rows: self.rows,
            cols: PANEL_COLUMNS.min(self.cols - p * PANEL_COLUMNS),
            row_stride: PANEL_COLUMNS,
        }
    }
}

impl PanelSource for Panels {
    unsafe fn copy_row(&self, k: usize, j: usize, out: &mut [f32]) {
        for (c, x) in out.iter_mut().enumerate() {
            let (p, col) = ((j + c) / PANEL_COLUMNS, (j + c) % PANEL_COLUMNS);
            // SAFETY: the caller keeps the row and columns inside B.
            *x = unsafe { *self.panel(p).ptr.add(k * PANEL_COLUMNS + col) };
        }
    }

    fn in_place(&self, k: usize, j: usize) -> Option<(*const f32, usize)> {
        // Kernel tiles start at multiples of PANEL_COLUMNS: one panel each.
        let panel = self.panel(j / PANEL_COLUMNS);
        Some((
            panel
                .ptr
                .wrapping_add(k * PANEL_COLUMNS + j % PANEL_COLUMNS),
            PANEL_COLUMNS,
        ))
    }

    fn packed(&self) -> bool {
        true
    }
}

impl PanelSource for Matrix<*const f32> {
    unsafe fn copy_row(&self, k: usize, j: usize, out: &mut [f32]) {
        // SAFETY: the caller keeps the row and columns inside the matrix.
        out.copy_from_slice(unsafe {
            std::slice::from_raw_parts(self.ptr.add(k * self.row_stride + j), out.len())
        });
    }

    fn in_place(&self, k: usize, j: usize) -> Option<(*const f32, usize)> {
        Some((
            self.ptr.wrapping_add(k * self.row_stride + j),
            self.row_stride,
        ))
    }
}

/// B stored by columns: element (k, j) is at `ptr + j * col_stride + k` (a
/// transposed row-major matrix, such as the keys of attention's Q x K^T).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColumnMajor {
    pub ptr: *const f32,
    pub col_stride: usize,
}

impl PanelSource for ColumnMajor {
    unsafe fn copy_row(&self, k: usize, j: usize, out: &mut [f32]) {
        for (c, x) in out.iter_mut().enumerate() {
            // SAFETY: the caller keeps the row and columns inside B.
            *x = unsafe { *self.ptr.add((j + c) * self.col_stride + k) };
        }
    }

    unsafe fn copy_panel(
        &self,
        k0: usize,
        depth: usize,
        j: usize,
        width: usize,
        panel: &mut [f32],
        ld: usize,
    ) {
        // Column by column: each is contiguous in B.
        for c in 0..width {
            // SAFETY: the caller keeps the rows and columns inside B.
            let column = unsafe { self.ptr.add((j + c) * self.col_stride + k0) };
            for p in 0..depth {
                // SAFETY: as above; the panel holds depth rows of ld >= width.
                panel[p * ld + c] = unsafe { *column.add(p) };
            }
        }
    }

    fn in_place(&self, _k: usize, _j: usize) -> Option<(*const f32, usize)> {
        None
    }
}

/// A matrix with any strides: element (i, j) is at
/// `ptr + i * row_stride + j * col_stride` (in elements).
#[derive(Clone, Copy, Debug)]
pub struct Strided<P> {
    pub ptr: P,
    pub rows: usize,
    pub cols: usize,
    pub row_stride: isize,
    pub col_stride: isize,
}

impl<P: Copy> Strided<P> {
    /// As a [`Matrix`], when its columns are contiguous.
    fn rows_contiguous(&self) -> Option<Matrix<P>> {
        (self.col_stride == 1 && self.row_stride >= 0).then_some(Matrix {
            ptr: self.ptr,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.row_stride as usize,
        })
    }
}

/// C += A x B when `accumulate`, else C = A x B (C's contents unread), on
/// matrices with any strides. The tiled kernels run when A and C have contiguous
/// rows and B contiguous rows or columns; `matrixmultiply` otherwise.
///
/// # Safety
/// Every element of the three matrices is valid for reads (A, B) and writes (C), no
/// two elements of C share memory, C overlaps neither A nor B, and the shapes agree
/// (checked, a mismatch panics).
pub unsafe fn sgemm_strided(
    a: Strided<*const f32>,
    b: Strided<*const f32>,
    c: Strided<*mut f32>,
    accumulate: bool,
) {
    assert!(
        a.rows == c.rows && a.cols == b.rows && b.cols == c.cols,
        "sgemm_strided: {}x{} times {}x{} into {}x{}",
        a.rows,
        a.cols,
        b.rows,
        b.cols,
        c.rows,
        c.cols
    );
    if c.rows == 0 || c.cols == 0 {
        return;
    }
    if let Some(kernels) = tiled::host().filter(|_| a.cols > 0) {
        let initial = if accumulate {
            tiled::Initial::Output
        } else {
            tiled::Initial::Zero
        };
        if let (Some(ma), Some(mc)) = (a.rows_contiguous(), c.rows_contiguous()) {
            let none = crate::Fused::NONE;
            if let Some(mb) = b.rows_contiguous() {
                // SAFETY: the CPU runs the kernels; the caller vouches for the memory.
                unsafe { tiled::sgemm(kernels, ma, &mb, mc, none, initial) };
                return;
            }
            if b.row_stride == 1 && b.col_stride >= 0 {
                let columns = ColumnMajor {
                    ptr: b.ptr,
                    col_stride: b.col_stride as usize,
                };
                // SAFETY: as above.
                unsafe { tiled::sgemm(kernels, ma, &columns, mc, none, initial) };
                return;
            }
        }
    }
    // SAFETY: as above.
    unsafe {
        matrixmultiply::sgemm(
            c.rows,
            a.cols,
            c.cols,
            1.0,
            a.ptr,
            a.row_stride,
            a.col_stride,
            b.ptr,
            b.row_stride,
            b.col_stride,
            if accumulate { 1.0 } else { 0.0 },
            c.ptr,
            c.row_stride,
            c.col_stride,
        );
    }
}

/// C += A x B.
///
/// # Safety
/// Every element of the three matrices must be valid for reads (A, B) and writes
/// (C), C must not overlap A or B, and the shapes must agree (`a.rows == c.rows`,
/// `a.cols == b.rows`, `b.cols == c.cols`; checked, a mismatch panics).
pub unsafe fn sgemm(a: Matrix<*const f32>, b: Matrix<*const f32>, c: Matrix<*mut f32>) {
    check_shapes("sgemm", a, (b.rows, b.cols), c);
    if c.rows == 0 || c.cols == 0 || a.cols == 0 {
        return;
    }
    if let Some(kernels) = tiled::host() {
        let (none, initial) = (crate::Fused::NONE, tiled::Initial::Output);
        // SAFETY: the CPU runs the kernels; the caller vouches for the memory.
        unsafe { tiled::sgemm(kernels, a, &b, c, none, initial) };
        return;
    }
    // SAFETY: as above.
    unsafe { portable(a, b, c) };
}

/// Panics unless A (m x k), B (`b`: k x n) and C (m x n) agree.
fn check_shapes(name: &str, a: Matrix<*const f32>, b: (usize, usize), c: Matrix<*mut f32>) {
    assert!(
        a.rows == c.rows && a.cols == b.0 && b.1 == c.cols,
        "{name}: {}x{} times {}x{} into {}x{}",
        a.rows,
        a.cols,
        b.0,
        b.1,
        c.rows,
        c.cols
    );
}

/// C += A x B with B in packed panels; with a `bias` (one value per column of C),
/// C = bias[col] + A x B (C's contents unread). Each result is stored through
/// `activation`'s clamp and gate (its row bias must be none: [`Activation::NONE`]
/// for the product alone).
///
/// # Safety
/// As [`sgemm`], B's panels holding ceil(n / 48) * k * 48 floats, a bias c.cols.
pub unsafe fn sgemm_panels(
    a: Matrix<*const f32>,
    b: Panels,
    c: Matrix<*mut f32>,
    bias: Option<*const f32>,
    activation: Activation,
) {
    check_shapes("sgemm_panels", a, (b.rows, b.cols), c);
    assert!(activation.bias.is_none(), "sgemm_panels: a row bias");
    if c.rows == 0 || c.cols == 0 {
        return;
    }
    if let Some(kernels) = tiled::host().filter(|_| a.cols > 0) {
        let initial = bias.map_or(tiled::Initial::Output, tiled::Initial::Columns);
        // SAFETY: the CPU runs the kernels; the caller vouches for the memory.
        unsafe { tiled::sgemm(kernels, a, &b, c, activation, initial) };
        return;
    }
    // SAFETY: as above.
    unsafe { portable_panels(a, b, c, bias) };
    activate_rows(c, activation);
}

/// The clamp and gate a packed product's results are stored through: a
/// [`crate::Fused`] without a row bias.
pub type Activation = crate::Fused;

/// Applies `activation` to every element of C (after a product that did not).
fn activate_rows(c: Matrix<*mut f32>, activation: Activation) {
    if !activation.activates() {
        return;
    }
    for i in 0..c.rows {
        // SAFETY: row i of C holds c.cols floats (the caller's contract).
        let row = unsafe { std::slice::from_raw_parts_mut(c.ptr.add(i * c.row_stride), c.cols) };
        #[cfg(target_arch = "x86_64")]
        if crate::avx2_fma() {
            // SAFETY: the CPU has AVX2 and FMA.
            unsafe { crate::epilogue::activate_all_fma(activation, row) };
            continue;
        }
        activation.activate_all(row);
    }
}

/// [`sgemm_panels`] as one `matrixmultiply` product per panel (any CPU), C first
/// filled with the bias, if any (no activation).
///
/// # Safety
/// As [`sgemm_panels`].
pub unsafe fn portable_panels(
    a: Matrix<*const f32>,
    b: Panels,
    c: Matrix<*mut f32>,
    bias: Option<*const f32>,
) {
    if let Some(bias) = bias {
        for i in 0..c.rows {
            // SAFETY: row i of C and the bias hold c.cols floats.
            unsafe {
                std::ptr::copy_nonoverlapping(bias, c.ptr.add(i * c.row_stride), c.cols);
            }
        }
    }
    for p in 0..c.cols.div_ceil(PANEL_COLUMNS) {
        let panel = b.panel(p);
        let columns = Matrix {
            // SAFETY: column 48p lies inside C.
            ptr: unsafe { c.ptr.add(p * PANEL_COLUMNS) },
            cols: panel.cols,
            ..c
        };
        // SAFETY: as above; the panel is a k x width matrix inside B's storage.
        unsafe { portable(a, panel, columns) };
    }
}

/// C += A x B by the `matrixmultiply` crate (any CPU).
///
/// # Safety
/// As [`sgemm`].
pub unsafe fn portable(a: Matrix<*const f32>, b: Matrix<*const f32>, c: Matrix<*mut f32>) {
    let stride = |m: usize| m as isize;
    // SAFETY: the caller vouches for the memory; shapes were checked by `sgemm` or
    // are the caller's contract.
    unsafe {
        matrixmultiply::sgemm(
            c.rows,
            a.cols,
            c.cols,
            1.0,
            a.ptr,
            stride(a.row_stride),
            1,
            b.ptr,
            stride(b.row_stride),
            1,
            1.0,
            c.ptr,
            stride(c.row_stride),
            1,
        );
    }
}

/// The C ABI entry point generated code calls: C += A x B on contiguous row-major
/// matrices (A m x k, B k x n, C m x n).
///
/// # Safety
/// The buffers hold m*k, k*n and m*n elements and C overlaps neither A nor B.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sgemm(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: i64,
    n: i64,
    k: i64,
) {
    let (m, n, k) = (m.max(0) as usize, n.max(0) as usize, k.max(0) as usize);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sgemm(matrix(a, m, k), matrix(b, k, n), matrix(c, m, n)) }
}

/// The C ABI entry point of [`sgemm_strided`]: A m x k, B k x n and C m x n, each
/// element (i, j) of X at `x + i * x_rs + j * x_cs` (strides in elements); C += A x
/// B when `accumulate` is nonzero, else C = A x B (C's contents unread).
///
/// # Safety
/// As [`sgemm_strided`].
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sgemm_strided(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: i64,
    n: i64,
    k: i64,
    a_rs: i64,
    a_cs: i64,
    b_rs: i64,
    b_cs: i64,
    c_rs: i64,
    c_cs: i64,
    accumulate: i64,
) {
    let [m, n, k] = [m, n, k].map(|s| s.max(0) as usize);
    fn strided<P>(ptr: P, rows: usize, cols: usize, rs: i64, cs: i64) -> Strided<P> {
        Strided {
            ptr,
            rows,
            cols,
            row_stride: rs as isize,
            col_stride: cs as isize,
        }
    }
    // SAFETY: the caller vouches for the buffers.
    unsafe {
        sgemm_strided(
            strided(a, m, k, a_rs, a_cs),
            strided(b, k, n, b_rs, b_cs),
            strided(c, m, n, c_rs, c_cs),
            accumulate != 0,
        )
    }
}

/// The C ABI entry point for a packed B: C += A x B, A m x k and C m x n
/// row-major, B k x n in [`Panels`] (layout `NK48n`).
///
/// # Safety
/// The buffers hold m*k, ceil(n/48)*k*48 and m*n elements and C overlaps neither
/// A nor B.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sgemm_nk48n(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: i64,
    n: i64,
    k: i64,
) {
    // SAFETY: the caller vouches for the buffers.
    unsafe { panels_entry(a, b, None, c, [m, n, k], Activation::NONE) }
}

/// The C entry points' product on packed B: sizes from i64 (negative as zero).
///
/// # Safety
/// As [`acc_sgemm_nk48n_bias`] (without a bias, as [`acc_sgemm_nk48n`]).
unsafe fn panels_entry(
    a: *const f32,
    b: *const f32,
    bias: Option<*const f32>,
    c: *mut f32,
    sizes: [i64; 3],
    activation: Activation,
) {
    let [m, n, k] = sizes.map(|s| s.max(0) as usize);
    let b = Panels {
        ptr: b,
        rows: k,
        cols: n,
    };
    // SAFETY: the caller vouches for the buffers.
    unsafe { sgemm_panels(matrix(a, m, k), b, matrix(c, m, n), bias, activation) }
}

/// As [`acc_sgemm_nk48n`], C = bias[col] + A x B: each column starts from its bias
/// (n values) instead of C's contents.
///
/// # Safety
/// As [`acc_sgemm_nk48n`]; the bias holds n floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sgemm_nk48n_bias(
    a: *const f32,
    b: *const f32,
    bias: *const f32,
    c: *mut f32,
    m: i64,
    n: i64,
    k: i64,
) {
    // SAFETY: the caller vouches for the buffers.
    unsafe { panels_entry(a, b, Some(bias), c, [m, n, k], Activation::NONE) }
}

/// As [`acc_sgemm_nk48n_bias`], each result stored through an activation: clamped to
/// [lo, hi], or with a gate (code and parameters as [`crate::Gate::of_call`]) x *
/// clamp(g(x), lo, hi), as the blocked convolutions store theirs (a linear layer's
/// ReLU, SiLU or GELU in the product's epilogue instead of passes of their own).
///
/// # Safety
/// As [`acc_sgemm_nk48n_bias`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sgemm_nk48n_bias_act(
    a: *const f32,
    b: *const f32,
    bias: *const f32,
    c: *mut f32,
    m: i64,
    n: i64,
    k: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    p: f32,
    q: f32,
) {
    let activation = Activation::of_gated_call(std::ptr::null(), lo, hi, gate, p, q);
    // SAFETY: the caller vouches for the buffers.
    unsafe { panels_entry(a, b, Some(bias), c, [m, n, k], activation) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::random;

    /// C += A x B in f64, the reference.
    fn reference(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
        let mut out: Vec<f64> = c.iter().map(|&x| x as f64).collect();
        for i in 0..m {
            for p in 0..k {
                let x = a[i * k + p] as f64;
                for j in 0..n {
                    out[i * n + j] += x * b[p * n + j] as f64;
                }
            }
        }
        out
    }

    /// B (k x n, row-major) as packed panels, the padding columns NaN (never read).
    fn panels(b: &[f32], n: usize, k: usize) -> Vec<f32> {
        let count = n.div_ceil(PANEL_COLUMNS);
        let mut out = vec![f32::NAN; count * k * PANEL_COLUMNS];
        for i in 0..k {
            for j in 0..n {
                let (p, col) = (j / PANEL_COLUMNS, j % PANEL_COLUMNS);
                out[(p * k + i) * PANEL_COLUMNS + col] = b[i * n + j];
            }
        }
        out
    }

    /// C0 + A x B by acc_sgemm (B row-major) and by acc_sgemm_nk48n (B packed).
    fn both_entries(a: &[f32], b: &[f32], c0: &[f32], [m, n, k]: [usize; 3]) -> [Vec<f32>; 2] {
        let packed = panels(b, n, k);
        [
            (acc_sgemm as unsafe extern "C" fn(_, _, _, _, _, _), b),
            (acc_sgemm_nk48n, &packed[..]),
        ]
        .map(|(entry, b)| {
            let mut c = c0.to_vec();
            let [m, n, k] = [m, n, k].map(|d| d as i64);
            // SAFETY: the vectors hold the sizes the entry points read and write.
            unsafe { entry(a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), m, n, k) };
            c
        })
    }

    /// acc_sgemm, and acc_sgemm_nk48n on B packed, against the reference.
    fn check(m: usize, n: usize, k: usize) {
        let (a, b) = (random(m * k, 1), random(k * n, 2));
        let c0 = random(m * n, 3);
        let want = reference(&a, &b, &c0, m, n, k);
        for c in both_entries(&a, &b, &c0, [m, n, k]) {
            for (i, (&got, &want)) in c.iter().zip(&want).enumerate() {
                let tolerance = 1e-5 * (k as f64).sqrt() * (1.0 + want.abs());
                assert!(
                    (got as f64 - want).abs() <= tolerance,
                    "{m}x{n}x{k}: element {i} is {got}, want {want}"
                );
            }
        }
    }

    /// C = bias[col] + A x B by acc_sgemm_nk48n_bias (B packed), C starting as NaN
    /// (unread).
    fn bias_product(a: &[f32], packed: &[f32], bias: &[f32], [m, n, k]: [usize; 3]) -> Vec<f32> {
        let mut c = vec![f32::NAN; m * n];
        assert!(a.len() == m * k && bias.len() == n && packed.len() >= k * n);
        // SAFETY: the vectors hold the sizes the entry point reads and writes.
        unsafe {
            acc_sgemm_nk48n_bias(
                a.as_ptr(),
                packed.as_ptr(),
                bias.as_ptr(),
                c.as_mut_ptr(),
                m as i64,
                n as i64,
                k as i64,
            )
        };
        c
    }

    /// acc_sgemm_nk48n_bias: C = bias[col] + A x B, C's contents (NaN) unread.
    fn check_bias(m: usize, n: usize, k: usize) {
        let (a, b, bias) = (random(m * k, 1), random(k * n, 2), random(n, 4));
        let start: Vec<f32> = (0..m * n).map(|i| bias[i % n]).collect();
        let want = reference(&a, &b, &start, m, n, k);
        let c = bias_product(&a, &panels(&b, n, k), &bias, [m, n, k]);
        for (i, (&got, &want)) in c.iter().zip(&want).enumerate() {
            let tolerance = 1e-5 * (k as f64 + 1.0).sqrt() * (1.0 + want.abs());
            assert!(
                (got as f64 - want).abs() <= tolerance,
                "{m}x{n}x{k} with a bias: element {i} is {got}, want {want}"
            );
        }
    }

    /// One row of C (a vector times a matrix) is summed over the whole depth in
    /// order with fused multiply-adds, whatever the width: with the tiled kernels
    /// the values are exactly those of the sequential sums the tiles compute, B in
    /// memory or packed.
    #[test]
    fn one_row_sums_in_order() {
        if tiled::host().is_none() {
            return;
        }
        for (n, k) in [
            (1, 1),
            (47, 3),
            (48, 130),
            (100, 129),
            (200, 64),
            (530, 300),
        ] {
            let (a, b) = (random(k, 21), random(k * n, 22));
            let c0 = random(n, 23);
            let want: Vec<f32> = (0..n)
                .map(|j| (0..k).fold(c0[j], |s, t| a[t].mul_add(b[t * n + j], s)))
                .collect();
            for c in both_entries(&a, &b, &c0, [1, n, k]) {
                assert_eq!(c, want, "1x{n}x{k}");
            }
        }
    }

    #[test]
    fn a_column_bias_starts_the_sums() {
        for (m, n, k) in [
            (1, 1, 1),
            (9, 100, 37),
            (17, 48, 300),
            (3, 20, 0),
            (130, 49, 5),
        ] {
            check_bias(m, n, k);
        }
    }

    /// acc_sgemm_nk48n_bias_act stores exactly the activation of what
    /// acc_sgemm_nk48n_bias computes, element by element (scalar `Fused::activate`),
    /// for each gate, across depth blocks, one-row products, partial vectors and
    /// thread counts.
    #[test]
    fn activated_products_store_the_activation_of_each_sum() {
        let (hard, unit) = crate::Gate::HARD_SWISH;
        let activations = [
            (0, 0.0, 6.0, [0.0, 0.0]),
            (1, unit.lo, unit.hi, [1.0 / 6.0, 0.5]),
            (2, f32::NEG_INFINITY, f32::INFINITY, [0.0, 0.0]),
            (
                3,
                f32::NEG_INFINITY,
                f32::INFINITY,
                [std::f32::consts::SQRT_2, 0.5],
            ),
            (3, 0.25, 1.75, [1.5, 2.0]),
        ];
        assert_eq!(crate::Gate::of_call(1, 1.0 / 6.0, 0.5), hard);
        for (m, n, k) in [
            (1, 100, 37),
            (9, 100, 37),
            (17, 48, 300),
            (130, 49, 5),
            (40, 200, 129),
        ] {
            let (a, b, bias) = (random(m * k, 31), random(k * n, 32), random(n, 33));
            let packed = panels(&b, n, k);
            let sums = bias_product(&a, &packed, &bias, [m, n, k]);
            for (gate, lo, hi, [p, q]) in activations {
                let fused = Activation::of_gated_call(std::ptr::null(), lo, hi, gate, p, q);
                let want: Vec<f32> = sums.iter().map(|&x| fused.activate(x)).collect();
                crate::threads::assert_same_bits_on_threads(|| {
                    let mut c = vec![f32::NAN; m * n];
                    // SAFETY: the vectors hold the sizes the entry point reads and
                    // writes.
                    unsafe {
                        acc_sgemm_nk48n_bias_act(
                            a.as_ptr(),
                            packed.as_ptr(),
                            bias.as_ptr(),
                            c.as_mut_ptr(),
                            m as i64,
                            n as i64,
                            k as i64,
                            lo,
                            hi,
                            gate,
                            p,
                            q,
                        )
                    };
                    for (i, (got, want)) in c.iter().zip(&want).enumerate() {
                        assert!(
                            got.to_bits() == want.to_bits(),
                            "{m}x{n}x{k}, gate {gate}: element {i} is {got}, want {want}"
                        );
                    }
                    c
                });
            }
        }
    }

    /// The AVX2 and AVX-512 kernels store the same bits (each sum in order, one
    /// fused multiply-add per step) over tiles, partial tiles, depth blocks, one-row
    /// products, B in memory (copied or read in place) or packed, each start, clamps
    /// and gates.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_gives_the_avx512_bits() {
        if !(crate::avx512() && crate::avx2_fma()) {
            return;
        }
        let (hard, unit) = crate::Gate::HARD_SWISH;
        for (m, n, k) in [
            (1, 1, 1),
            (1, 100, 37),
            (1, 200, 300),
            (3, 47, 5),
            (9, 100, 130),
            (40, 49, 129),
            (40, 96, 64),
        ] {
            let (a, b, c0) = (random(m * k, 41), random(k * n, 42), random(m * n, 43));
            let (rows, columns) = (random(m, 44), random(n, 45));
            let packed = panels(&b, n, k);
            let fused = [
                crate::Fused::NONE,
                crate::Fused {
                    bias: Some(rows.as_ptr()),
                    bounds: crate::Bounds { lo: -0.5, hi: 0.75 },
                    gate: crate::Gate::None,
                },
                crate::Fused {
                    bias: None,
                    bounds: unit,
                    gate: hard,
                },
                crate::Fused {
                    bias: None,
                    bounds: crate::Bounds::NONE,
                    gate: crate::Gate::Sigmoid,
                },
            ];
            let initial = [
                tiled::Initial::Output,
                tiled::Initial::Zero,
                tiled::Initial::Columns(columns.as_ptr()),
            ];
            for (fused, initial) in fused.iter().flat_map(|f| initial.map(|i| (*f, i))) {
                let run = |kernels: &'static tiled::Kernels, packed_b: bool| {
                    let mut c = c0.clone();
                    let (a, c_m) = (matrix(a.as_ptr(), m, k), matrix(c.as_mut_ptr(), m, n));
                    // SAFETY: this CPU runs both kernel sets; the vectors hold the
                    // matrices, the biases m and n values.
                    unsafe {
                        if packed_b {
                            let b = Panels {
                                ptr: packed.as_ptr(),
                                rows: k,
                                cols: n,
                            };
                            tiled::sgemm(kernels, a, &b, c_m, fused, initial);
                        } else {
                            let b = matrix(b.as_ptr(), k, n);
                            tiled::sgemm(kernels, a, &b, c_m, fused, initial);
                        }
                    }
                    c.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                };
                for packed_b in [false, true] {
                    assert_eq!(
                        run(&avx2::KERNELS, packed_b),
                        run(&avx512::KERNELS, packed_b),
                        "{m}x{n}x{k}, packed {packed_b}, {fused:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn packed_panels_agree_on_every_cpu_path() {
        let (m, n, k) = (9, 100, 37);
        let (a, b) = (random(m * k, 7), random(k * n, 8));
        let packed = panels(&b, n, k);
        let panels = Panels {
            ptr: packed.as_ptr(),
            rows: k,
            cols: n,
        };
        let bias = random(n, 10);
        for bias in [None, Some(bias.as_ptr())] {
            let mut fast = random(m * n, 9);
            let mut slow = fast.clone();
            // SAFETY: the vectors hold the matrices and the bias.
            unsafe {
                let a = matrix(a.as_ptr(), m, k);
                sgemm_panels(
                    a,
                    panels,
                    matrix(fast.as_mut_ptr(), m, n),
                    bias,
                    Activation::NONE,
                );
                portable_panels(a, panels, matrix(slow.as_mut_ptr(), m, n), bias);
            }
            for (x, y) in fast.iter().zip(&slow) {
                assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }
    }

    /// acc_sgemm_strided on A (m x k) with row stride k + 3, B (k x n) stored by
    /// rows, by columns or with both strides > 1, and C (m x n) with row stride
    /// n + 2, accumulating or overwriting C (NaN then: unread).
    fn check_strided(m: usize, n: usize, k: usize) {
        let (a, b) = (random(m * k, 11), random(k * n, 12));
        let c0 = random(m * n, 13);
        let lda = k + 3;
        let mut a_mem = vec![f32::NAN; m * lda];
        for i in 0..m {
            a_mem[i * lda..i * lda + k].copy_from_slice(&a[i * k..(i + 1) * k]);
        }
        // B's element (t, j) at t * rs + j * cs of a buffer of `len`.
        let layouts = [(n, 1, k * n), (1, k, k * n), (2 * n, 2, 2 * k * n)];
        for (b_rs, b_cs, len) in layouts {
            let mut b_mem = vec![f32::NAN; len.max(1)];
            for t in 0..k {
                for j in 0..n {
                    b_mem[t * b_rs + j * b_cs] = b[t * n + j];
                }
            }
            for accumulate in [true, false] {
                let start = if accumulate {
                    c0.clone()
                } else {
                    vec![0.0; m * n]
                };
                let want = reference(&a, &b, &start, m, n, k);
                let ldc = n + 2;
                let mut c_mem = vec![f32::NAN; m * ldc];
                if accumulate {
                    for i in 0..m {
                        c_mem[i * ldc..i * ldc + n].copy_from_slice(&c0[i * n..(i + 1) * n]);
                    }
                }
                let dims = [m, n, k, lda, 1, b_rs, b_cs, ldc, 1].map(|x| x as i64);
                // SAFETY: the vectors hold every element the strides reach.
                unsafe {
                    acc_sgemm_strided(
                        a_mem.as_ptr(),
                        b_mem.as_ptr(),
                        c_mem.as_mut_ptr(),
                        dims[0],
                        dims[1],
                        dims[2],
                        dims[3],
                        dims[4],
                        dims[5],
                        dims[6],
                        dims[7],
                        dims[8],
                        i64::from(accumulate),
                    )
                };
                for i in 0..m {
                    for j in 0..n {
                        let (got, want) = (c_mem[i * ldc + j], want[i * n + j]);
                        let tolerance = 1e-5 * (k as f64 + 1.0).sqrt() * (1.0 + want.abs());
                        assert!(
                            (got as f64 - want).abs() <= tolerance,
                            "{m}x{n}x{k}, B strides {b_rs},{b_cs}, accumulate {accumulate}: \
                             ({i}, {j}) is {got}, want {want}"
                        );
                    }
                    // The padding between C's rows is not written.
                    assert!(c_mem[i * ldc + n..(i + 1) * ldc].iter().all(|x| x.is_nan()));
                }
            }
        }
    }

    #[test]
    fn strided_operands_agree_with_the_reference() {
        for (m, n, k) in [
            (1, 1, 1),
            (9, 100, 37),
            (128, 128, 64),
            (40, 49, 130),
            (3, 20, 0),
        ] {
            check_strided(m, n, k);
        }
    }

    #[test]
    fn threads_give_the_same_bits() {
        // Enough work to be split: 5 column tiles (4.2 tiles' work) among 3 threads
        // balance worse than 17 groups of rows, so rows are split; 7 column tiles
        // among 3 threads (3, 3, 1) balance better than 3 groups of rows.
        for (m, n, k) in [(130, 200, 300), (20, 6 * 48 + 40, 300)] {
            let (a, b) = (random(m * k, 21), random(k * n, 22));
            let c0 = random(m * n, 23);
            crate::threads::assert_same_bits_on_threads(|| {
                let mut c = c0.clone();
                // SAFETY: the vectors hold the matrices.
                unsafe {
                    sgemm(
                        matrix(a.as_ptr(), m, k),
                        matrix(b.as_ptr(), k, n),
                        matrix(c.as_mut_ptr(), m, n),
                    )
                };
                c
            });
            check(m, n, k);
        }
    }

    #[test]
    fn agrees_with_the_reference_on_edge_shapes() {
        // Shapes around the kernel's tile sizes and blocks (rows, lanes, depth).
        for m in [1, 3, 7, 8, 9, 17, 130] {
            for n in [1, 15, 16, 17, 47, 48, 49, 100] {
                for k in [1, 5, 255, 256, 257] {
                    check(m, n, k);
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_reference_on_a_strided_window() {
        // A 5x6 window of a 9x11 matrix times a 6x4 window of a 6x13 one.
        let (a, b) = (random(9 * 11, 4), random(6 * 13, 5));
        let mut c = random(5 * 7, 6);
        let mut want = c.clone();
        for i in 0..5 {
            for j in 0..4 {
                let s: f64 = (0..6)
                    .map(|p| a[(i + 2) * 11 + 1 + p] as f64 * b[p * 13 + 3 + j] as f64)
                    .sum();
                want[i * 7 + j] = (want[i * 7 + j] as f64 + s) as f32;
            }
        }
        // SAFETY: the windows lie inside the vectors.
        unsafe {
            sgemm(
                Matrix {
                    ptr: a.as_ptr().add(2 * 11 + 1),
                    rows: 5,
                    cols: 6,
                    row_stride: 11,
                },
                Matrix {
                    ptr: b.as_ptr().add(3),
                    rows: 6,
                    cols: 4,
                    row_stride: 13,
                },
                Matrix {
                    ptr: c.as_mut_ptr(),
                    rows: 5,
                    cols: 4,
                    row_stride: 7,
                },
            )
        };
        for (i, (&got, &want)) in c.iter().zip(&want).enumerate() {
            assert!(
                (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                "element {i}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn portable_and_dispatched_agree() {
        let (m, n, k) = (37, 53, 300);
        let (a, b) = (random(m * k, 7), random(k * n, 8));
        let (mut c1, mut c2) = (random(m * n, 9), random(m * n, 9));
        // SAFETY: the vectors hold the matrices.
        unsafe {
            sgemm(
                matrix(a.as_ptr(), m, k),
                matrix(b.as_ptr(), k, n),
                matrix(c1.as_mut_ptr(), m, n),
            );
            portable(
                matrix(a.as_ptr(), m, k),
                matrix(b.as_ptr(), k, n),
                matrix(c2.as_mut_ptr(), m, n),
            );
        }
        for (x, y) in c1.iter().zip(&c2) {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
}
