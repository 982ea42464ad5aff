//! Affine expressions, affine maps and integer sets: the bodies of MLIR's builtin
//! `affine_map<...>` and `affine_set<...>` attributes.
//!
//! An [`AffineMap`] such as `(d0, d1)[s0] -> (d0 + s0, d1 * 2)` maps `num_dims`
//! dimension values and `num_symbols` symbol values to one value per result
//! expression. An [`IntegerSet`] such as `(d0)[s0] : (d0 - s0 >= 0, d0 - 10 == 0)`
//! is a conjunction of constraints `expr >= 0` / `expr == 0`. Both are parsed by
//! [`parse_affine_map`] / [`parse_integer_set`] (the text after `affine_map<` /
//! `affine_set<`, up to and including the closing `>`) and printed by their
//! [`fmt::Display`] impls (the body only, without `affine_map<` and `>`).
//!
//! # Invariants
//!
//! 1. **Positional identifiers.** Dimensions are [`AffineExpr::Dim`]`(0..num_dims)`
//!    and symbols [`AffineExpr::Symbol`]`(0..num_symbols)`. Source names (MLIR
//!    accepts any bare identifier, e.g. `(i, j)[N]`) are bound by name while
//!    parsing and then forgotten; printing always uses `d0, d1, ...` and
//!    `s0, s1, ...`, like MLIR.
//! 2. **Normal form.** Every binary node produced by the parser or by the
//!    simplifying constructors (`+`, `-`, `*`, unary `-` on [`AffineExpr`],
//!    [`AffineExpr::floor_div`], [`AffineExpr::ceil_div`],
//!    [`AffineExpr::modulo`]) is exactly what the constructor returns for its
//!    two operands: no simplification rule (listed below) applies to it. The enum
//!    variants are public, so code that builds nodes by hand is responsible for
//!    this itself (or can rebuild the tree through the constructors).
//! 3. **Round trip.** For a map or set `x` in normal form,
//!    `parse(print(x)) == x` structurally, so printing is a fixed point:
//!    `print(parse(print(x))) == print(x)`.
//! 4. **Bounded size.** A parsed expression has at most [`MAX_EXPR_NODES`] nodes,
//!    hence at most `MAX_EXPR_NODES / 2` levels. The parser itself never
//!    recurses (it keeps an explicit stack, and rejects nesting of parentheses
//!    and unary minus deeper than [`MAX_NESTING_DEPTH`]), and the simplifying
//!    constructors recurse at most a fixed small depth; but printing,
//!    evaluation and the derived `Clone`/`PartialEq`/`Hash`/`Drop` recurse once
//!    per tree level, so they rely on trees of this size. Trees built by hand
//!    should respect the same bound.
//! 5. **No panics on input.** Parsing never panics: errors are reported as an
//!    [`AffineParseError`] with a byte offset. All arithmetic is checked:
//!    constant folding that would overflow `i64` is simply not performed (the
//!    node is kept unfolded, as current MLIR does), and [`AffineMap::eval`]
//!    returns `None` on overflow or an undefined division.
//! 6. **Integer sets are never empty of constraints when parsed.** As in MLIR, the
//!    empty conjunction `()` is parsed as the single constraint `0 == 0`, and a
//!    hand-built set with no constraints prints as `(0 == 0)` too.
//!
//! # Semantics
//!
//! `floordiv` and `ceildiv` round towards negative / positive infinity and `mod`
//! is the non-negative remainder of `floordiv`. MLIR leaves division and modulo by
//! a non-positive value undefined; here it is never constant-folded and
//! [`AffineExpr::eval`] returns `None` for it.
//!
//! # Simplification rules
//!
//! These are MLIR's construction-time rules (`mlir/lib/IR/AffineExpr.cpp`), applied
//! by the constructors every time a node is built (`c`, `c1`, `c2` are constants;
//! "symbolic" means "contains no dimension"):
//!
//! - `a - b` is `a + b * -1`, and `-a` is `a * -1`.
//! - **Constant folding** of `+`, `*`, `floordiv`, `ceildiv`, `mod` when both
//!   operands are constants (division only for a divisor `>= 1`; folding that
//!   would overflow is skipped).
//! - **Add:** a constant operand goes to the right (`2 + d0` -> `d0 + 2`), and a
//!   symbolic operand goes to the right of a non-symbolic one (`s0 + d0` ->
//!   `d0 + s0`); `x + 0` -> `x`; `(x + c1) + c2` -> `x + (c1 + c2)`;
//!   `x * c1 + x * c2` -> `x * (c1 + c2)` (with `x` meaning `x * 1`, so
//!   `d0 + d0` -> `d0 * 2` and `d0 - d0` -> `0`); `(x + c) + y` -> `(x + y) + c`;
//!   `x + (x floordiv c) * -c` -> `x mod c` and `x + ((x floordiv q) * q) * -1`
//!   -> `x mod q`.
//! - **Add, reassociation (not in MLIR):** `x + (y + z)` -> `(x + y) + z`. MLIR's
//!   printer drops the parentheses of a right-nested sum, so without this rule
//!   `d0 + (d1 + d2)` would not survive a print/parse round trip structurally.
//!   The printed text is unchanged by it.
//! - **Mul:** a constant operand goes to the right (`2 * d0` -> `d0 * 2`), and a
//!   symbolic operand goes to the right of a non-symbolic one (`s0 * d0` ->
//!   `d0 * s0`); `x * 1` -> `x`; `x * 0` -> `0`; `(x * c1) * c2` ->
//!   `x * (c1 * c2)`; `(x * c) * y` -> `(x * y) * c`.
//! - **floordiv / ceildiv** (divisor `c >= 1`): `x floordiv 1` -> `x`;
//!   `(x * c1) floordiv c` -> `x * (c1 / c)` when `c` divides `c1` (same for
//!   `ceildiv`).
//! - **mod** (divisor `c >= 1`): `x mod c` -> `0` when `c` divides the largest
//!   known divisor of `x` (e.g. `(d0 * 128) mod 64`, `x mod 1`);
//!   `(x + y) mod c` -> `y mod c` when `c` divides the known divisor of `x` (and
//!   symmetrically); `(x mod c1) mod c` -> `x mod c` when `c` divides `c1`.
//!
//! Not implemented from MLIR: distributing `floordiv` over a sum with a divisible
//! term (`(d0 * 4 + d1) floordiv 4` stays as is instead of becoming
//! `d0 + d1 floordiv 4`), and the separate semi-affine simplifier that MLIR only
//! runs on request. Both only change the form, never the value.
//!
//! # Syntax
//!
//! As in MLIR: `dim-list symbol-list? -> (expr, ...)` for maps and
//! `dim-list symbol-list? : (constraint, ...)` for sets, where a constraint is
//! `expr >= expr`, `expr <= expr` or `expr == expr` (normalized to
//! `lhs - rhs >= 0`, `rhs - lhs >= 0`, `lhs - rhs == 0`). Expressions use `+`,
//! `-`, `*`, `floordiv`, `ceildiv`, `mod` (the last four bind tighter than `+` and
//! `-`; all are left-associative), unary `-` (binds tightest), parentheses,
//! decimal or `0x` hexadecimal literals and identifiers. One operand of `*` and
//! the right operand of `floordiv`/`ceildiv`/`mod` must be symbolic. Whitespace
//! and `//` line comments may appear between tokens.
//!
//! # Deviations from MLIR
//!
//! - The reassociation rule above, and no `floordiv`-over-sum distribution.
//! - `-9223372036854775808` is accepted (so that `i64::MIN` can be printed and
//!   read back); MLIR rejects the literal `9223372036854775808` after the minus.
//! - Only `floordiv`, `ceildiv` and `mod` are reserved words (MLIR's lexer also
//!   reserves its other keywords, such as `index` or `to`).
//! - Printing follows MLIR's `printAffineExprInternal`, except that
//!   `x + y * -c` with `y` a constant or a product `z * k` (both only possible
//!   when constant folding overflowed) prints as `x + y * -c` instead of
//!   `x - y * c`, which would read back as a different tree at the `i64::MIN`
//!   boundary.
//! - Limits: [`MAX_EXPR_NODES`], [`MAX_NESTING_DEPTH`], and expressions whose
//!   simplification would recurse too deeply (long chains of constants whose
//!   folding overflows) are rejected as "too complex".

use std::collections::HashMap;
use std::fmt;
use std::ops;

/// Maximum number of nodes (leaves plus operators) in one parsed expression.
/// Trees this small are at most `MAX_EXPR_NODES / 2` levels deep, which bounds
/// the recursion of printing, evaluation and the derived trait impls.
pub const MAX_EXPR_NODES: usize = 1000;

/// Maximum nesting of parentheses and unary minus accepted by the parsers.
///
/// The parser uses an explicit stack rather than recursion, so this is a
/// resource limit, not a stack-depth one. It must be at least
/// [`MAX_EXPR_NODES`]: the printed form of an expression of `n` nodes nests at
/// most `n` deep, so every parsed expression can be printed and parsed again.
pub const MAX_NESTING_DEPTH: usize = MAX_EXPR_NODES;

const _: () = assert!(MAX_NESTING_DEPTH >= MAX_EXPR_NODES);

/// Recursion limit of the simplifying constructors. Beyond it a node is built
/// unsimplified and the parser reports the expression as too complex; only
/// chains of constants whose folding overflows get anywhere near it.
const MAX_SIMPLIFY_DEPTH: usize = 64;

/// Number of simplification steps one top-level construction may take.
const SIMPLIFY_FUEL: usize = 1 << 20;

/// Recursion limit of evaluation and divisor analysis.
const MAX_TREE_DEPTH: usize = MAX_EXPR_NODES;

// ---------------------------------------------------------------------------
// Data types
// ---------------------------------------------------------------------------

/// An affine expression over dimensions `d<i>`, symbols `s<i>` and constants.
///
/// Build compound expressions with the operators (`+`, `-`, `*`, unary `-`) and
/// [`AffineExpr::floor_div`], [`AffineExpr::ceil_div`], [`AffineExpr::modulo`],
/// which simplify as described in the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AffineExpr {
    /// The dimension with the given position, printed `d<position>`.
    Dim(u32),
    /// The symbol with the given position, printed `s<position>`.
    Symbol(u32),
    /// An integer constant.
    Constant(i64),
    /// `lhs + rhs`.
    Add(Box<AffineExpr>, Box<AffineExpr>),
    /// `lhs * rhs`; in an affine expression one side is symbolic.
    Mul(Box<AffineExpr>, Box<AffineExpr>),
    /// `lhs mod rhs`, the non-negative remainder; `rhs` is symbolic.
    Mod(Box<AffineExpr>, Box<AffineExpr>),
    /// `lhs floordiv rhs`, division rounding down; `rhs` is symbolic.
    FloorDiv(Box<AffineExpr>, Box<AffineExpr>),
    /// `lhs ceildiv rhs`, division rounding up; `rhs` is symbolic.
    CeilDiv(Box<AffineExpr>, Box<AffineExpr>),
}

/// An affine map `(d0, ...)[s0, ...] -> (expr, ...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineMap {
    /// Number of dimension inputs.
    pub num_dims: u32,
    /// Number of symbol inputs.
    pub num_symbols: u32,
    /// One expression per result; may be empty.
    pub results: Vec<AffineExpr>,
}

/// An integer set `(d0, ...)[s0, ...] : (constraint, ...)`: the points whose
/// coordinates satisfy every constraint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntegerSet {
    /// Number of dimensions.
    pub num_dims: u32,
    /// Number of symbols.
    pub num_symbols: u32,
    /// The conjunction of constraints. An empty list means "no constraint" (the
    /// universe); the parser produces `0 == 0` for it, as MLIR does.
    pub constraints: Vec<AffineConstraint>,
}

/// One constraint of an [`IntegerSet`]: `expr == 0` or `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineConstraint {
    /// The constrained expression.
    pub expr: AffineExpr,
    /// `true` for `expr == 0`, `false` for `expr >= 0`.
    pub is_equality: bool,
}

/// A syntax or semantic error found while parsing an affine map or integer set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffineParseError {
    /// Byte offset of the error in the string given to the parser.
    pub offset: usize,
    /// Human-readable description.
    pub message: String,
}

impl fmt::Display for AffineParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for AffineParseError {}

/// The binary operators, used to treat the five binary variants uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Add,
    Mul,
    Mod,
    FloorDiv,
    CeilDiv,
}

impl BinOp {
    /// Builds the node `lhs op rhs` as is, without simplification.
    fn build(self, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr {
        let (l, r) = (Box::new(lhs), Box::new(rhs));
        match self {
            BinOp::Add => AffineExpr::Add(l, r),
            BinOp::Mul => AffineExpr::Mul(l, r),
            BinOp::Mod => AffineExpr::Mod(l, r),
            BinOp::FloorDiv => AffineExpr::FloorDiv(l, r),
            BinOp::CeilDiv => AffineExpr::CeilDiv(l, r),
        }
    }

    /// The operator as written in the source.
    fn spelling(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Mul => "*",
            BinOp::Mod => "mod",
            BinOp::FloorDiv => "floordiv",
            BinOp::CeilDiv => "ceildiv",
        }
    }

    /// Applies the operator to two values; `None` on overflow or when a
    /// division or modulo has a non-positive divisor.
    fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => a.checked_add(b),
            BinOp::Mul => a.checked_mul(b),
            // With b >= 1, Euclidean division is floor division and cannot overflow.
            BinOp::FloorDiv if b >= 1 => Some(a.div_euclid(b)),
            BinOp::CeilDiv if b >= 1 => {
                let q = a.div_euclid(b);
                if a.rem_euclid(b) == 0 {
                    Some(q)
                } else {
                    q.checked_add(1)
                }
            }
            BinOp::Mod if b >= 1 => Some(a.rem_euclid(b)),
            BinOp::FloorDiv | BinOp::CeilDiv | BinOp::Mod => None,
        }
    }
}

// ---------------------------------------------------------------------------
// AffineExpr: queries, constructors, evaluation
// ---------------------------------------------------------------------------

impl AffineExpr {
    /// Splits a binary node into operator and operands; `None` for leaves.
    fn as_binary(&self) -> Option<(BinOp, &AffineExpr, &AffineExpr)> {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => None,
            AffineExpr::Add(l, r) => Some((BinOp::Add, l, r)),
            AffineExpr::Mul(l, r) => Some((BinOp::Mul, l, r)),
            AffineExpr::Mod(l, r) => Some((BinOp::Mod, l, r)),
            AffineExpr::FloorDiv(l, r) => Some((BinOp::FloorDiv, l, r)),
            AffineExpr::CeilDiv(l, r) => Some((BinOp::CeilDiv, l, r)),
        }
    }

    /// The value of a [`AffineExpr::Constant`], `None` for any other node.
    pub fn constant_value(&self) -> Option<i64> {
        match self {
            AffineExpr::Constant(c) => Some(*c),
            _ => None,
        }
    }

    /// Whether the expression contains no dimension (only symbols and constants).
    pub fn is_symbolic_or_constant(&self) -> bool {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e.as_binary() {
                Some((_, l, r)) => stack.extend([l, r]),
                None => {
                    if let AffineExpr::Dim(_) = e {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Whether the expression is purely affine: every `*` has a constant operand
    /// and every `floordiv`, `ceildiv`, `mod` a constant right operand
    /// (otherwise it is semi-affine, e.g. `d0 * s0`).
    pub fn is_pure_affine(&self) -> bool {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if let Some((op, l, r)) = e.as_binary() {
                let ok = match op {
                    BinOp::Add => true,
                    BinOp::Mul => l.constant_value().is_some() || r.constant_value().is_some(),
                    BinOp::Mod | BinOp::FloorDiv | BinOp::CeilDiv => r.constant_value().is_some(),
                };
                if !ok {
                    return false;
                }
                stack.extend([l, r]);
            }
        }
        true
    }

    /// Number of nodes (leaves and operators) in the expression.
    pub fn node_count(&self) -> usize {
        self.node_count_capped(usize::MAX)
    }

    /// Number of nodes, but stops counting once `cap` is reached.
    fn node_count_capped(&self, cap: usize) -> usize {
        let mut count = 0usize;
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            count += 1;
            if count >= cap {
                return cap;
            }
            if let Some((_, l, r)) = e.as_binary() {
                stack.extend([l, r]);
            }
        }
        count
    }

    /// `self floordiv rhs`, simplified.
    pub fn floor_div(self, rhs: AffineExpr) -> AffineExpr {
        Simplifier::new().build(BinOp::FloorDiv, self, rhs)
    }

    /// `self ceildiv rhs`, simplified.
    pub fn ceil_div(self, rhs: AffineExpr) -> AffineExpr {
        Simplifier::new().build(BinOp::CeilDiv, self, rhs)
    }

    /// `self mod rhs` (non-negative remainder), simplified.
    pub fn modulo(self, rhs: AffineExpr) -> AffineExpr {
        Simplifier::new().build(BinOp::Mod, self, rhs)
    }

    /// Evaluates the expression for the given dimension and symbol values.
    ///
    /// Returns `None` if an identifier is out of range of `dims` / `symbols`, on
    /// `i64` overflow, or when a `floordiv`, `ceildiv` or `mod` has a divisor
    /// `<= 0`.
    pub fn eval(&self, dims: &[i64], symbols: &[i64]) -> Option<i64> {
        self.eval_at_depth(dims, symbols, 0)
    }

    fn eval_at_depth(&self, dims: &[i64], symbols: &[i64], depth: usize) -> Option<i64> {
        if depth > MAX_TREE_DEPTH {
            return None;
        }
        match self {
            AffineExpr::Dim(i) => dims.get(usize::try_from(*i).ok()?).copied(),
            AffineExpr::Symbol(i) => symbols.get(usize::try_from(*i).ok()?).copied(),
            AffineExpr::Constant(c) => Some(*c),
            _ => {
                let (op, l, r) = self.as_binary()?;
                let a = l.eval_at_depth(dims, symbols, depth + 1)?;
                let b = r.eval_at_depth(dims, symbols, depth + 1)?;
                op.apply(a, b)
            }
        }
    }

    /// The largest integer known to divide the value of the expression (`0` means
    /// the value is known to be zero), as in MLIR's `getLargestKnownDivisor`.
    fn largest_known_divisor(&self, depth: usize) -> u64 {
        if depth > MAX_TREE_DEPTH {
            return 1;
        }
        match self {
            AffineExpr::Constant(c) => c.unsigned_abs(),
            AffineExpr::Dim(_)
            | AffineExpr::Symbol(_)
            | AffineExpr::FloorDiv(..)
            | AffineExpr::CeilDiv(..) => 1,
            AffineExpr::Mul(l, r) => {
                let (a, b) = (
                    l.largest_known_divisor(depth + 1),
                    r.largest_known_divisor(depth + 1),
                );
                // Each factor's divisor divides the product, so fall back to the
                // larger one if the product of the divisors does not fit.
                a.checked_mul(b).unwrap_or(a.max(b))
            }
            AffineExpr::Add(l, r) | AffineExpr::Mod(l, r) => gcd(
                l.largest_known_divisor(depth + 1),
                r.largest_known_divisor(depth + 1),
            ),
        }
    }
}

/// Greatest common divisor, with `gcd(0, x) == x`.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl ops::Add for AffineExpr {
    type Output = AffineExpr;
    /// `self + rhs`, simplified.
    fn add(self, rhs: AffineExpr) -> AffineExpr {
        Simplifier::new().build(BinOp::Add, self, rhs)
    }
}

impl ops::Mul for AffineExpr {
    type Output = AffineExpr;
    /// `self * rhs`, simplified.
    fn mul(self, rhs: AffineExpr) -> AffineExpr {
        Simplifier::new().build(BinOp::Mul, self, rhs)
    }
}

impl ops::Neg for AffineExpr {
    type Output = AffineExpr;
    /// `self * -1`, simplified.
    fn neg(self) -> AffineExpr {
        Simplifier::new().build(BinOp::Mul, self, AffineExpr::Constant(-1))
    }
}

impl ops::Sub for AffineExpr {
    type Output = AffineExpr;
    /// `self + rhs * -1`, simplified.
    fn sub(self, rhs: AffineExpr) -> AffineExpr {
        let mut s = Simplifier::new();
        let neg = s.build(BinOp::Mul, rhs, AffineExpr::Constant(-1));
        s.build(BinOp::Add, self, neg)
    }
}

// ---------------------------------------------------------------------------
// Simplifying constructors
// ---------------------------------------------------------------------------

/// Applies the simplification rules while building nodes.
///
/// Every rule either returns an existing operand, a folded constant, or the
/// result of further constructor calls, and a node is built unsimplified only
/// when no rule applies; hence results are in normal form. No rule makes a tree
/// larger than `|lhs| + |rhs| + 1` nodes, which the parser's size limit relies
/// on. Rules recurse only a few levels deep on normal operands (deeper only
/// along chains of constants whose folding overflows); the depth limit and the
/// step budget guard against pathological operands. When either is used up the
/// node is built as is, which is still correct but not fully simplified, and
/// `exhausted` is set (the parser then rejects the expression).
struct Simplifier {
    /// Remaining simplification steps.
    fuel: usize,
    /// Whether the depth limit or the step budget was hit.
    exhausted: bool,
}

impl Simplifier {
    fn new() -> Self {
        Simplifier {
            fuel: SIMPLIFY_FUEL,
            exhausted: false,
        }
    }

    /// Consumes one step at recursion depth `depth`; `false` if the budget or
    /// the depth limit is used up.
    fn enter(&mut self, depth: usize) -> bool {
        if depth > MAX_SIMPLIFY_DEPTH || self.fuel == 0 {
            self.exhausted = true;
            return false;
        }
        self.fuel -= 1;
        true
    }

    /// Builds `lhs op rhs` in normal form.
    fn build(&mut self, op: BinOp, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr {
        match op {
            BinOp::Add => self.add(lhs, rhs, 0),
            BinOp::Mul => self.mul(lhs, rhs, 0),
            BinOp::FloorDiv | BinOp::CeilDiv => self.div(op, lhs, rhs, 0),
            BinOp::Mod => self.modulo(lhs, rhs, 0),
        }
    }

    fn add(&mut self, lhs: AffineExpr, rhs: AffineExpr, depth: usize) -> AffineExpr {
        use AffineExpr::{Add, Constant};
        if !self.enter(depth) {
            return BinOp::Add.build(lhs, rhs);
        }
        let next = depth + 1;
        let (lhs_const, rhs_const) = (lhs.constant_value(), rhs.constant_value());

        // Fold constants.
        if let (Some(a), Some(b)) = (lhs_const, rhs_const) {
            return match a.checked_add(b) {
                Some(sum) => Constant(sum),
                None => BinOp::Add.build(lhs, rhs),
            };
        }
        // A constant goes to the right; a symbolic term right of a non-symbolic one.
        if lhs_const.is_some() || (lhs.is_symbolic_or_constant() && !rhs.is_symbolic_or_constant())
        {
            return self.add(rhs, lhs, next);
        }
        // x + 0 -> x.
        if rhs_const == Some(0) {
            return lhs;
        }
        // (x + c1) + c2 -> x + (c1 + c2).
        if let (Add(x, c1), Some(c2)) = (&lhs, rhs_const)
            && let Some(c1) = c1.constant_value()
        {
            return match c1.checked_add(c2) {
                Some(sum) => self.add((**x).clone(), Constant(sum), next),
                None => BinOp::Add.build(lhs, rhs),
            };
        }
        // x * c1 + x * c2 -> x * (c1 + c2), where a bare x counts as x * 1.
        let (lhs_coef, lhs_base) = split_coefficient(&lhs);
        let (rhs_coef, rhs_base) = split_coefficient(&rhs);
        if lhs_base == rhs_base
            && let Some(coef) = lhs_coef.checked_add(rhs_coef)
        {
            let base = lhs_base.clone();
            return self.mul(base, Constant(coef), next);
        }
        // (x + c) + y -> (x + y) + c.
        if let Add(x, c) = &lhs
            && let Some(c) = c.constant_value()
        {
            let sum = self.add((**x).clone(), rhs, next);
            return self.add(sum, Constant(c), next);
        }
        // x + (y + z) -> (x + y) + z, over the whole left spine of the right
        // operand, iteratively so that long sums do not recurse deeply.
        if let Add(..) = rhs {
            let mut terms = Vec::new();
            let mut rest = rhs;
            loop {
                match rest {
                    Add(l, r) => {
                        terms.push(*r);
                        rest = *l;
                    }
                    leftmost => {
                        terms.push(leftmost);
                        break;
                    }
                }
            }
            let mut sum = lhs;
            while let Some(term) = terms.pop() {
                sum = self.add(sum, term, next);
            }
            return sum;
        }
        // x + (x floordiv q) * -q -> x mod q.
        if let Some(divisor) = mod_pattern_divisor(&lhs, &rhs) {
            return self.modulo(lhs, divisor, next);
        }
        BinOp::Add.build(lhs, rhs)
    }

    fn mul(&mut self, lhs: AffineExpr, rhs: AffineExpr, depth: usize) -> AffineExpr {
        use AffineExpr::{Constant, Mul};
        if !self.enter(depth) {
            return BinOp::Mul.build(lhs, rhs);
        }
        let next = depth + 1;
        let (lhs_const, rhs_const) = (lhs.constant_value(), rhs.constant_value());

        // Fold constants.
        if let (Some(a), Some(b)) = (lhs_const, rhs_const) {
            return match a.checked_mul(b) {
                Some(product) => Constant(product),
                None => BinOp::Mul.build(lhs, rhs),
            };
        }
        let (lhs_symbolic, rhs_symbolic) =
            (lhs.is_symbolic_or_constant(), rhs.is_symbolic_or_constant());
        // A non-affine product (the parser rejects these) is left alone.
        if !lhs_symbolic && !rhs_symbolic {
            return BinOp::Mul.build(lhs, rhs);
        }
        // The constant, or else the symbolic operand, goes to the right.
        if !rhs_symbolic || lhs_const.is_some() {
            return self.mul(rhs, lhs, next);
        }
        // x * 1 -> x, x * 0 -> 0.
        match rhs_const {
            Some(1) => return lhs,
            Some(0) => return Constant(0),
            _ => {}
        }
        if let Mul(x, c1) = &lhs
            && let Some(c1) = c1.constant_value()
        {
            return match rhs_const {
                // (x * c1) * c2 -> x * (c1 * c2).
                Some(c2) => match c1.checked_mul(c2) {
                    Some(product) => self.mul((**x).clone(), Constant(product), next),
                    None => BinOp::Mul.build(lhs, rhs),
                },
                // (x * c) * y -> (x * y) * c.
                None => {
                    let product = self.mul((**x).clone(), rhs, next);
                    self.mul(product, Constant(c1), next)
                }
            };
        }
        BinOp::Mul.build(lhs, rhs)
    }

    /// `floordiv` (`op == BinOp::FloorDiv`) and `ceildiv` (`op == BinOp::CeilDiv`).
    fn div(&mut self, op: BinOp, lhs: AffineExpr, rhs: AffineExpr, depth: usize) -> AffineExpr {
        if !self.enter(depth) {
            return op.build(lhs, rhs);
        }
        // Only positive constant divisors are simplified.
        let Some(divisor) = rhs.constant_value().filter(|&c| c >= 1) else {
            return op.build(lhs, rhs);
        };
        if let Some(value) = lhs.constant_value().and_then(|a| op.apply(a, divisor)) {
            return AffineExpr::Constant(value);
        }
        if divisor == 1 {
            return lhs;
        }
        // (x * c1) floordiv c -> x * (c1 / c) when c divides c1.
        if let AffineExpr::Mul(x, c1) = &lhs
            && let Some(c1) = c1.constant_value()
            && c1 % divisor == 0
        {
            return self.mul((**x).clone(), AffineExpr::Constant(c1 / divisor), depth + 1);
        }
        op.build(lhs, rhs)
    }

    fn modulo(&mut self, lhs: AffineExpr, rhs: AffineExpr, depth: usize) -> AffineExpr {
        use AffineExpr::{Add, Constant, Mod};
        if !self.enter(depth) {
            return BinOp::Mod.build(lhs, rhs);
        }
        // Only positive constant divisors are simplified.
        let Some(divisor) = rhs.constant_value().filter(|&c| c >= 1) else {
            return BinOp::Mod.build(lhs, rhs);
        };
        let unsigned_divisor = divisor.unsigned_abs();
        let divides = |e: &AffineExpr| e.largest_known_divisor(0).is_multiple_of(unsigned_divisor);
        // Each rewrite of `lhs` below replaces it by a proper subexpression, so
        // the loop ends; looping instead of recursing keeps the stack flat.
        let mut lhs = lhs;
        loop {
            if let Some(a) = lhs.constant_value() {
                return Constant(a.rem_euclid(divisor));
            }
            // x mod c -> 0 when c divides x.
            if divides(&lhs) {
                return Constant(0);
            }
            lhs = match lhs {
                // (x + y) mod c -> y mod c when c divides x, and symmetrically.
                Add(x, y) if divides(&x) => *y,
                Add(x, y) if divides(&y) => *x,
                // (x mod c1) mod c -> x mod c when c divides c1.
                Mod(x, c1)
                    if c1
                        .constant_value()
                        .is_some_and(|c1| c1 >= 1 && c1 % divisor == 0) =>
                {
                    *x
                }
                other => return BinOp::Mod.build(other, rhs),
            };
        }
    }
}

/// Splits `x * c` into `(c, x)`; any other expression `e` into `(1, e)`.
fn split_coefficient(e: &AffineExpr) -> (i64, &AffineExpr) {
    if let AffineExpr::Mul(x, c) = e
        && let Some(c) = c.constant_value()
    {
        return (c, x);
    }
    (1, e)
}

/// If `lhs + rhs` is `x + (x floordiv c) * -c` (constant `c >= 1`) or
/// `x + ((x floordiv q) * q) * -1`, returns the divisor, since the sum is then
/// `x mod divisor`.
fn mod_pattern_divisor(lhs: &AffineExpr, rhs: &AffineExpr) -> Option<AffineExpr> {
    let AffineExpr::Mul(product, factor) = rhs else {
        return None;
    };
    let factor = factor.constant_value()?;
    if factor == -1
        && let AffineExpr::Mul(quotient, q) = &**product
        && let AffineExpr::FloorDiv(x, q2) = &**quotient
        && q == q2
        && **x == *lhs
    {
        return Some((**q).clone());
    }
    if let AffineExpr::FloorDiv(x, c) = &**product
        && let Some(c) = c.constant_value()
        && c >= 1
        && factor.checked_neg() == Some(c)
        && **x == *lhs
    {
        return Some(AffineExpr::Constant(c));
    }
    None
}

// ---------------------------------------------------------------------------
// Maps and sets
// ---------------------------------------------------------------------------

impl AffineMap {
    /// Evaluates every result for the given dimension and symbol values.
    ///
    /// Returns `None` if `dims.len() != num_dims` or
    /// `symbols.len() != num_symbols`, or if any result fails to evaluate (see
    /// [`AffineExpr::eval`]: overflow, non-positive divisor, out-of-range id).
    pub fn eval(&self, dims: &[i64], symbols: &[i64]) -> Option<Vec<i64>> {
        if !arity_matches(self.num_dims, self.num_symbols, dims, symbols) {
            return None;
        }
        self.results.iter().map(|e| e.eval(dims, symbols)).collect()
    }
}

impl IntegerSet {
    /// Whether the point satisfies every constraint.
    ///
    /// Returns `None` if the number of values does not match `num_dims` /
    /// `num_symbols` or a constraint fails to evaluate (see [`AffineExpr::eval`]).
    pub fn contains(&self, dims: &[i64], symbols: &[i64]) -> Option<bool> {
        if !arity_matches(self.num_dims, self.num_symbols, dims, symbols) {
            return None;
        }
        let mut all = true;
        for c in &self.constraints {
            let v = c.expr.eval(dims, symbols)?;
            all &= if c.is_equality { v == 0 } else { v >= 0 };
        }
        Some(all)
    }
}

fn arity_matches(num_dims: u32, num_symbols: u32, dims: &[i64], symbols: &[i64]) -> bool {
    usize::try_from(num_dims).is_ok_and(|n| n == dims.len())
        && usize::try_from(num_symbols).is_ok_and(|n| n == symbols.len())
}

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

/// Prints `e` the way MLIR's `printAffineExprInternal` does. `strong` is MLIR's
/// "strong binding" context (an operand of `*`, `floordiv`, `ceildiv`, `mod` or
/// of unary minus): compound expressions printed there get parentheses.
fn write_expr(f: &mut fmt::Formatter<'_>, e: &AffineExpr, strong: bool) -> fmt::Result {
    let (op, lhs, rhs) = match e {
        AffineExpr::Dim(i) => return write!(f, "d{i}"),
        AffineExpr::Symbol(i) => return write!(f, "s{i}"),
        AffineExpr::Constant(c) => return write!(f, "{c}"),
        AffineExpr::Add(l, r) => return write_add(f, l, r, strong),
        AffineExpr::Mul(l, r) => (BinOp::Mul, &**l, &**r),
        AffineExpr::Mod(l, r) => (BinOp::Mod, &**l, &**r),
        AffineExpr::FloorDiv(l, r) => (BinOp::FloorDiv, &**l, &**r),
        AffineExpr::CeilDiv(l, r) => (BinOp::CeilDiv, &**l, &**r),
    };
    if strong {
        f.write_str("(")?;
    }
    if op == BinOp::Mul && rhs.constant_value() == Some(-1) {
        // x * -1 prints as -x.
        f.write_str("-")?;
        write_expr(f, lhs, true)?;
    } else {
        write_expr(f, lhs, true)?;
        write!(f, " {} ", op.spelling())?;
        write_expr(f, rhs, true)?;
    }
    if strong {
        f.write_str(")")?;
    }
    Ok(())
}

/// How the right operand of a sum is printed: MLIR's printer writes
/// `x + y * -1` as `x - y`, `x + y * -c` as `x - y * c` and `x + -c` as `x - c`.
enum AddRhs<'a> {
    /// `lhs - y` for the operand `y * -1`.
    Minus(&'a AffineExpr),
    /// `lhs - y * c` for the operand `y * -c`, `c > 1`.
    MinusScaled(&'a AffineExpr, i64),
    /// `lhs - c` for the operand `-c`, `c > 0`.
    MinusConstant(i64),
    /// `lhs + rhs`.
    Plus,
}

fn classify_add_rhs(rhs: &AffineExpr) -> AddRhs<'_> {
    match rhs {
        AffineExpr::Mul(y, c) => match c.constant_value() {
            Some(-1) => AddRhs::Minus(y),
            // `y * c` is reparsed as `(y * |c|) * -1`, which folds back to
            // `y * c` unless `y` is a constant or `y * k` whose folding overflowed
            // (where `i64::MIN` could fold differently); those keep `+`.
            Some(c)
                if c < -1
                    && !matches!(**y, AffineExpr::Constant(_))
                    && split_coefficient(y).0 == 1 =>
            {
                c.checked_neg()
                    .map_or(AddRhs::Plus, |c| AddRhs::MinusScaled(y, c))
            }
            _ => AddRhs::Plus,
        },
        AffineExpr::Constant(c) if *c < 0 => {
            c.checked_neg().map_or(AddRhs::Plus, AddRhs::MinusConstant)
        }
        _ => AddRhs::Plus,
    }
}

/// Prints `lhs + rhs` (see [`AddRhs`]).
fn write_add(
    f: &mut fmt::Formatter<'_>,
    lhs: &AffineExpr,
    rhs: &AffineExpr,
    strong: bool,
) -> fmt::Result {
    if strong {
        f.write_str("(")?;
    }
    write_expr(f, lhs, false)?;
    match classify_add_rhs(rhs) {
        AddRhs::Minus(y) => {
            // MLIR parenthesizes a subtracted sum but nothing else here.
            f.write_str(" - ")?;
            write_expr(f, y, matches!(y, AffineExpr::Add(..)))?;
        }
        AddRhs::MinusScaled(y, c) => {
            f.write_str(" - ")?;
            write_expr(f, y, true)?;
            write!(f, " * {c}")?;
        }
        AddRhs::MinusConstant(c) => write!(f, " - {c}")?,
        AddRhs::Plus => {
            f.write_str(" + ")?;
            write_expr(f, rhs, false)?;
        }
    }
    if strong {
        f.write_str(")")?;
    }
    Ok(())
}

/// Prints `(d0, ..., dN)` and, if there are symbols, `[s0, ..., sM]`.
fn write_dims_and_symbols(
    f: &mut fmt::Formatter<'_>,
    num_dims: u32,
    num_symbols: u32,
) -> fmt::Result {
    f.write_str("(")?;
    for i in 0..num_dims {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "d{i}")?;
    }
    f.write_str(")")?;
    if num_symbols > 0 {
        f.write_str("[")?;
        for i in 0..num_symbols {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "s{i}")?;
        }
        f.write_str("]")?;
    }
    Ok(())
}

impl fmt::Display for AffineExpr {
    /// Prints the expression as MLIR does, e.g. `d0 * 4 + s0 - 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, false)
    }
}

impl fmt::Display for AffineConstraint {
    /// Prints `expr >= 0` or `expr == 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, &self.expr, false)?;
        f.write_str(if self.is_equality { " == 0" } else { " >= 0" })
    }
}

impl fmt::Display for AffineMap {
    /// Prints the map body, e.g. `(d0, d1)[s0] -> (d0 + s0, d1 * 2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_and_symbols(f, self.num_dims, self.num_symbols)?;
        f.write_str(" -> (")?;
        for (i, e) in self.results.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_expr(f, e, false)?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for IntegerSet {
    /// Prints the set body, e.g. `(d0)[s0] : (d0 - s0 >= 0, d0 - 10 == 0)`; an
    /// empty constraint list prints as `(0 == 0)`, MLIR's form of the universe.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_and_symbols(f, self.num_dims, self.num_symbols)?;
        if self.constraints.is_empty() {
            return f.write_str(" : (0 == 0)");
        }
        f.write_str(" : (")?;
        for (i, c) in self.constraints.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{c}")?;
        }
        f.write_str(")")
    }
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/// Parses an affine map body. `src` starts right after `affine_map<`; on success
/// returns the map and the number of bytes consumed, including the closing `>`.
/// Text after the `>` is not looked at.
pub fn parse_affine_map(src: &str) -> Result<(AffineMap, usize), AffineParseError> {
    let mut p = Parser::new(src)?;
    p.parse_dim_and_symbol_lists()?;
    p.expect(
        TokKind::Arrow,
        "expected '->' after the dimension and symbol lists",
    )?;
    p.expect(TokKind::LParen, "expected '(' at start of affine map range")?;
    let mut results = Vec::new();
    if !p.eat(TokKind::RParen)? {
        loop {
            results.push(p.parse_expr()?.expr);
            if !p.eat(TokKind::Comma)? {
                break;
            }
        }
        p.expect(TokKind::RParen, "expected ',' or ')' in affine map range")?;
    }
    let consumed = p.closing_angle("expected '>' at end of affine map")?;
    let map = AffineMap {
        num_dims: p.num_dims,
        num_symbols: p.num_symbols,
        results,
    };
    Ok((map, consumed))
}

/// Parses an integer set body. `src` starts right after `affine_set<`; on
/// success returns the set and the number of bytes consumed, including the
/// closing `>`. Text after the `>` is not looked at.
pub fn parse_integer_set(src: &str) -> Result<(IntegerSet, usize), AffineParseError> {
    let mut p = Parser::new(src)?;
    p.parse_dim_and_symbol_lists()?;
    p.expect(
        TokKind::Colon,
        "expected ':' after the dimension and symbol lists",
    )?;
    p.expect(
        TokKind::LParen,
        "expected '(' at start of integer set constraint list",
    )?;
    let mut constraints = Vec::new();
    if p.eat(TokKind::RParen)? {
        // No constraints: MLIR's degenerate "true" set, `0 == 0`.
        constraints.push(AffineConstraint {
            expr: AffineExpr::Constant(0),
            is_equality: true,
        });
    } else {
        loop {
            constraints.push(p.parse_constraint()?);
            if !p.eat(TokKind::Comma)? {
                break;
            }
        }
        p.expect(
            TokKind::RParen,
            "expected ',' or ')' in integer set constraint list",
        )?;
    }
    let consumed = p.closing_angle("expected '>' at end of integer set")?;
    let set = IntegerSet {
        num_dims: p.num_dims,
        num_symbols: p.num_symbols,
        constraints,
    };
    Ok((set, consumed))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokKind {
    Ident,
    Int,
    LParen,
    RParen,
    LSquare,
    RSquare,
    Comma,
    Colon,
    Plus,
    Minus,
    Star,
    Arrow,
    Greater,
    Less,
    Equal,
    FloorDiv,
    CeilDiv,
    Mod,
    Eof,
}

/// A token: its kind and byte range in the source.
#[derive(Clone, Copy, Debug)]
struct Token {
    kind: TokKind,
    start: usize,
    end: usize,
}

/// An expression being parsed, with an upper bound on its node count.
struct Parsed {
    expr: AffineExpr,
    size: usize,
}

impl Parsed {
    fn leaf(expr: AffineExpr) -> Self {
        Parsed { expr, size: 1 }
    }
}

/// The unfinished parts of an expression being parsed (see
/// [`Parser::parse_expr`]).
#[derive(Default)]
struct Partial {
    /// `lhs +` (`false`) or `lhs -` (`true`) awaiting its right operand, with
    /// the operator's offset.
    sum: Option<(Parsed, bool, usize)>,
    /// `lhs op` (a high-precedence operator) awaiting its right operand.
    product: Option<(Parsed, BinOp, usize)>,
    /// Offsets of unary minus signs awaiting their operand, innermost last.
    negations: Vec<usize>,
}

fn error(offset: usize, message: impl Into<String>) -> AffineParseError {
    AffineParseError {
        offset,
        message: message.into(),
    }
}

/// Parser with one token of lookahead. No parsing function calls itself:
/// lists are loops, and expressions use an explicit stack (see
/// [`Parser::parse_expr`]).
struct Parser<'a> {
    src: &'a str,
    /// The lookahead token.
    tok: Token,
    /// Dimension and symbol names in scope.
    ids: HashMap<&'a str, AffineExpr>,
    num_dims: u32,
    num_symbols: u32,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Result<Self, AffineParseError> {
        let mut p = Parser {
            src,
            tok: Token {
                kind: TokKind::Eof,
                start: 0,
                end: 0,
            },
            ids: HashMap::new(),
            num_dims: 0,
            num_symbols: 0,
        };
        p.tok = p.lex(0)?;
        Ok(p)
    }

    // --- Lexing -----------------------------------------------------------

    /// Lexes the token starting at or after `pos`, skipping whitespace and
    /// `//` comments. `pos` is always on a character boundary: only ASCII
    /// bytes are ever stepped over one at a time.
    fn lex(&self, mut pos: usize) -> Result<Token, AffineParseError> {
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(pos) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => pos += 1,
                Some(b'/') if bytes.get(pos + 1) == Some(&b'/') => {
                    while bytes.get(pos).is_some_and(|&b| b != b'\n') {
                        pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = pos;
        let token = |kind, len: usize| {
            Ok(Token {
                kind,
                start,
                end: start + len,
            })
        };
        let Some(&first) = bytes.get(pos) else {
            return token(TokKind::Eof, 0);
        };
        let scan = |from: usize, pred: fn(u8) -> bool| {
            let mut end = from;
            while bytes.get(end).is_some_and(|&b| pred(b)) {
                end += 1;
            }
            end
        };
        match first {
            b'(' => token(TokKind::LParen, 1),
            b')' => token(TokKind::RParen, 1),
            b'[' => token(TokKind::LSquare, 1),
            b']' => token(TokKind::RSquare, 1),
            b',' => token(TokKind::Comma, 1),
            b':' => token(TokKind::Colon, 1),
            b'+' => token(TokKind::Plus, 1),
            b'*' => token(TokKind::Star, 1),
            b'>' => token(TokKind::Greater, 1),
            b'<' => token(TokKind::Less, 1),
            b'=' => token(TokKind::Equal, 1),
            b'-' if bytes.get(pos + 1) == Some(&b'>') => token(TokKind::Arrow, 2),
            b'-' => token(TokKind::Minus, 1),
            b'0'..=b'9' => {
                // `0x` starts a hexadecimal literal only if a hex digit follows (as in MLIR).
                let is_hex = first == b'0'
                    && bytes.get(pos + 1) == Some(&b'x')
                    && bytes.get(pos + 2).is_some_and(u8::is_ascii_hexdigit);
                let end = if is_hex {
                    scan(pos + 2, |b| b.is_ascii_hexdigit())
                } else {
                    scan(pos, |b| b.is_ascii_digit())
                };
                token(TokKind::Int, end - start)
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let end = scan(pos, |b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
                });
                let kind = match &bytes[start..end] {
                    b"floordiv" => TokKind::FloorDiv,
                    b"ceildiv" => TokKind::CeilDiv,
                    b"mod" => TokKind::Mod,
                    _ => TokKind::Ident,
                };
                token(kind, end - start)
            }
            _ => {
                let c = self
                    .src
                    .get(pos..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\u{fffd}');
                Err(error(
                    start,
                    format!("unexpected character '{}'", c.escape_debug()),
                ))
            }
        }
    }

    fn spelling(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    /// Consumes the lookahead token and returns it.
    fn bump(&mut self) -> Result<Token, AffineParseError> {
        let t = self.tok;
        self.tok = self.lex(t.end)?;
        Ok(t)
    }

    /// Consumes the lookahead token if it has the given kind.
    fn eat(&mut self, kind: TokKind) -> Result<bool, AffineParseError> {
        if self.tok.kind == kind {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, kind: TokKind, message: &str) -> Result<Token, AffineParseError> {
        if self.tok.kind == kind {
            return self.bump();
        }
        Err(self.unexpected(message))
    }

    /// Checks that the lookahead is the closing `>` and returns the offset just
    /// past it, without lexing any further.
    fn closing_angle(&self, message: &str) -> Result<usize, AffineParseError> {
        if self.tok.kind == TokKind::Greater {
            return Ok(self.tok.end);
        }
        Err(self.unexpected(message))
    }

    /// An error at the lookahead token: `message, found <token>`.
    fn unexpected(&self, message: &str) -> AffineParseError {
        let found = match self.tok.kind {
            TokKind::Eof => "end of input".to_string(),
            _ => format!("'{}'", self.spelling(self.tok)),
        };
        error(self.tok.start, format!("{message}, found {found}"))
    }

    // --- Identifier lists ---------------------------------------------------

    /// Parses `(d0, ...)` and an optional `[s0, ...]`, binding the names.
    fn parse_dim_and_symbol_lists(&mut self) -> Result<(), AffineParseError> {
        self.expect(
            TokKind::LParen,
            "expected '(' at start of dimensional identifier list",
        )?;
        self.parse_id_list(TokKind::RParen, false)?;
        if self.eat(TokKind::LSquare)? {
            self.parse_id_list(TokKind::RSquare, true)?;
        }
        Ok(())
    }

    /// Parses identifiers up to and including `close` (the opening bracket has
    /// been consumed).
    fn parse_id_list(&mut self, close: TokKind, symbols: bool) -> Result<(), AffineParseError> {
        if self.eat(close)? {
            return Ok(());
        }
        loop {
            let t = self.expect(TokKind::Ident, "expected bare identifier")?;
            let name = self.spelling(t);
            let counter = if symbols {
                &mut self.num_symbols
            } else {
                &mut self.num_dims
            };
            let position = *counter;
            *counter = position
                .checked_add(1)
                .ok_or_else(|| error(t.start, "too many identifiers"))?;
            let expr = if symbols {
                AffineExpr::Symbol(position)
            } else {
                AffineExpr::Dim(position)
            };
            if self.ids.insert(name, expr).is_some() {
                return Err(error(
                    t.start,
                    format!("redefinition of identifier '{name}'"),
                ));
            }
            if !self.eat(TokKind::Comma)? {
                break;
            }
        }
        let message = if symbols {
            "expected ',' or ']' in symbol list"
        } else {
            "expected ',' or ')' in dimensional identifier list"
        };
        self.expect(close, message)?;
        Ok(())
    }

    // --- Expressions ----------------------------------------------------------

    /// Parses `lhs >= rhs`, `lhs <= rhs` or `lhs == rhs` and normalizes it to
    /// `lhs - rhs >= 0`, `rhs - lhs >= 0` or `lhs - rhs == 0`.
    fn parse_constraint(&mut self) -> Result<AffineConstraint, AffineParseError> {
        let lhs = self.parse_expr()?;
        let op = self.tok;
        if !matches!(op.kind, TokKind::Greater | TokKind::Less | TokKind::Equal) {
            return Err(self.unexpected("expected '>=', '<=' or '==' in affine constraint"));
        }
        self.bump()?;
        self.expect(
            TokKind::Equal,
            "expected '>=', '<=' or '==' in affine constraint",
        )?;
        let rhs = self.parse_expr()?;
        let expr = match op.kind {
            TokKind::Less => self.subtract(rhs, lhs, op.start)?,
            _ => self.subtract(lhs, rhs, op.start)?,
        };
        Ok(AffineConstraint {
            expr: expr.expr,
            is_equality: op.kind == TokKind::Equal,
        })
    }

    /// Parses an expression:
    ///
    /// ```text
    /// expr    ::= term (('+' | '-') term)*
    /// term    ::= operand (('*' | 'floordiv' | 'ceildiv' | 'mod') operand)*
    /// operand ::= bare-id | integer | '(' expr ')' | '-' operand
    /// ```
    ///
    /// The grammar is parsed without recursion: `current` holds the partial sum
    /// and product of the innermost parenthesized expression and its pending
    /// unary minus signs, and `enclosing` those of the expressions around it. So
    /// nesting costs heap, not call stack; it is limited to [`MAX_NESTING_DEPTH`]
    /// open parentheses and pending unary minus signs.
    fn parse_expr(&mut self) -> Result<Parsed, AffineParseError> {
        let mut enclosing: Vec<Partial> = Vec::new();
        let mut current = Partial::default();
        let mut nesting = 0usize;
        let mut after_operator = false;
        loop {
            // Operand position: open parentheses and unary minus signs until an
            // identifier or a literal.
            let start = self.tok.start;
            let mut value = match self.tok.kind {
                TokKind::LParen | TokKind::Minus if nesting >= MAX_NESTING_DEPTH => {
                    return Err(error(
                        start,
                        format!(
                            "affine expression nested too deeply (more than {MAX_NESTING_DEPTH} parentheses or unary minus)"
                        ),
                    ));
                }
                TokKind::LParen => {
                    self.bump()?;
                    if self.tok.kind == TokKind::RParen {
                        return Err(error(self.tok.start, "no expression inside parentheses"));
                    }
                    enclosing.push(std::mem::take(&mut current));
                    nesting += 1;
                    after_operator = false;
                    continue;
                }
                TokKind::Minus => {
                    self.bump()?;
                    if self.tok.kind != TokKind::Int {
                        current.negations.push(start);
                        nesting += 1;
                        after_operator = true;
                        continue;
                    }
                    // A negative literal; unlike MLIR this also accepts i64::MIN.
                    self.parse_literal(true)?
                }
                _ => self.parse_leaf(after_operator)?,
            };
            // Operator position: apply pending unary minus signs (they bind
            // tightest), then either take the next operator or end the
            // innermost expression.
            loop {
                while let Some(at) = current.negations.pop() {
                    nesting = nesting.saturating_sub(1);
                    value = self.negate(value, at)?;
                }
                let op = self.tok;
                if let Some(high) = high_precedence_op(op.kind) {
                    self.bump()?;
                    let lhs = self.finish_product(&mut current, value)?;
                    current.product = Some((lhs, high, op.start));
                    break;
                }
                if let TokKind::Plus | TokKind::Minus = op.kind {
                    self.bump()?;
                    let term = self.finish_product(&mut current, value)?;
                    let lhs = self.finish_sum(&mut current, term)?;
                    current.sum = Some((lhs, op.kind == TokKind::Minus, op.start));
                    break;
                }
                let term = self.finish_product(&mut current, value)?;
                value = self.finish_sum(&mut current, term)?;
                let Some(outer) = enclosing.pop() else {
                    return Ok(value);
                };
                // The parenthesized expression is an operand of the outer one.
                self.expect(TokKind::RParen, "expected ')'")?;
                current = outer;
                nesting = nesting.saturating_sub(1);
            }
            after_operator = true;
        }
    }

    /// Applies the pending `lhs op` of `current`, if any, to `rhs`.
    fn finish_product(
        &self,
        current: &mut Partial,
        rhs: Parsed,
    ) -> Result<Parsed, AffineParseError> {
        match current.product.take() {
            None => Ok(rhs),
            Some((lhs, op, at)) => {
                check_affine(op, &lhs.expr, &rhs.expr, at)?;
                self.combine(op, lhs, rhs, at)
            }
        }
    }

    /// Applies the pending `lhs +` or `lhs -` of `current`, if any, to `rhs`.
    fn finish_sum(&self, current: &mut Partial, rhs: Parsed) -> Result<Parsed, AffineParseError> {
        match current.sum.take() {
            None => Ok(rhs),
            Some((lhs, false, at)) => self.combine(BinOp::Add, lhs, rhs, at),
            Some((lhs, true, at)) => self.subtract(lhs, rhs, at),
        }
    }

    /// An identifier or an integer literal, or the error for a missing operand.
    fn parse_leaf(&mut self, after_operator: bool) -> Result<Parsed, AffineParseError> {
        let t = self.tok;
        match t.kind {
            TokKind::Ident => {
                let name = self.spelling(t);
                let Some(expr) = self.ids.get(name).cloned() else {
                    return Err(error(
                        t.start,
                        format!("use of undeclared identifier '{name}'"),
                    ));
                };
                self.bump()?;
                Ok(Parsed::leaf(expr))
            }
            TokKind::Int => self.parse_literal(false),
            TokKind::Plus | TokKind::Star | TokKind::FloorDiv | TokKind::CeilDiv | TokKind::Mod => {
                let side = if after_operator { "right" } else { "left" };
                Err(error(
                    t.start,
                    format!("missing {side} operand of binary operator"),
                ))
            }
            _ => Err(self.unexpected("expected affine expression")),
        }
    }

    /// The integer literal at the lookahead, negated if `negative`.
    fn parse_literal(&mut self, negative: bool) -> Result<Parsed, AffineParseError> {
        let t = self.tok;
        let text = self.spelling(t);
        let magnitude = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => text.parse::<u64>().ok(),
        };
        let value = magnitude.and_then(|m| {
            if negative {
                0i64.checked_sub_unsigned(m)
            } else {
                i64::try_from(m).ok()
            }
        });
        let Some(value) = value else {
            return Err(error(
                t.start,
                "integer literal too large for an affine constant (i64)",
            ));
        };
        self.bump()?;
        Ok(Parsed::leaf(AffineExpr::Constant(value)))
    }

    // --- Building -------------------------------------------------------------

    /// Builds `lhs op rhs` (simplified) and checks the size limit.
    fn combine(
        &self,
        op: BinOp,
        lhs: Parsed,
        rhs: Parsed,
        at: usize,
    ) -> Result<Parsed, AffineParseError> {
        let bound = lhs.size.saturating_add(rhs.size).saturating_add(1);
        let mut simplifier = Simplifier::new();
        let expr = simplifier.build(op, lhs.expr, rhs.expr);
        if simplifier.exhausted {
            return Err(error(at, "affine expression too complex to simplify"));
        }
        self.limit_size(expr, bound, at)
    }

    /// Builds `x * -1`.
    fn negate(&self, x: Parsed, at: usize) -> Result<Parsed, AffineParseError> {
        self.combine(BinOp::Mul, x, Parsed::leaf(AffineExpr::Constant(-1)), at)
    }

    /// Builds `lhs + rhs * -1`.
    fn subtract(&self, lhs: Parsed, rhs: Parsed, at: usize) -> Result<Parsed, AffineParseError> {
        let negated = self.negate(rhs, at)?;
        self.combine(BinOp::Add, lhs, negated, at)
    }

    /// Enforces [`MAX_EXPR_NODES`]. `bound` is an upper bound on the size of
    /// `expr` (simplification never grows a tree beyond the sum of its parts);
    /// the exact size is only counted when the bound exceeds the limit.
    fn limit_size(
        &self,
        expr: AffineExpr,
        bound: usize,
        at: usize,
    ) -> Result<Parsed, AffineParseError> {
        if bound <= MAX_EXPR_NODES {
            return Ok(Parsed { expr, size: bound });
        }
        let size = expr.node_count_capped(MAX_EXPR_NODES + 1);
        if size > MAX_EXPR_NODES {
            return Err(error(
                at,
                format!("affine expression too large (more than {MAX_EXPR_NODES} nodes)"),
            ));
        }
        Ok(Parsed { expr, size })
    }
}

/// The `BinOp` of a `*`, `floordiv`, `ceildiv` or `mod` token.
fn high_precedence_op(kind: TokKind) -> Option<BinOp> {
    match kind {
        TokKind::Star => Some(BinOp::Mul),
        TokKind::FloorDiv => Some(BinOp::FloorDiv),
        TokKind::CeilDiv => Some(BinOp::CeilDiv),
        TokKind::Mod => Some(BinOp::Mod),
        _ => None,
    }
}

/// MLIR's affinity check: one operand of `*`, and the right operand of
/// `floordiv`, `ceildiv` and `mod`, must be symbolic (contain no dimension).
fn check_affine(
    op: BinOp,
    lhs: &AffineExpr,
    rhs: &AffineExpr,
    at: usize,
) -> Result<(), AffineParseError> {
    if op == BinOp::Mul {
        if lhs.is_symbolic_or_constant() || rhs.is_symbolic_or_constant() {
            return Ok(());
        }
        return Err(error(
            at,
            "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic",
        ));
    }
    if rhs.is_symbolic_or_constant() {
        return Ok(());
    }
    Err(error(
        at,
        format!(
            "non-affine expression: right operand of {} has to be either a constant or symbolic",
            op.spelling()
        ),
    ))
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use AffineExpr::{Constant, Dim, Symbol};

    fn map(src: &str) -> AffineMap {
        let full = format!("{src}>");
        match parse_affine_map(&full) {
            Ok((m, n)) => {
                assert_eq!(n, full.len(), "consumed bytes for {src:?}");
                m
            }
            Err(e) => panic!("failed to parse {src:?}: {e}"),
        }
    }

    fn set(src: &str) -> IntegerSet {
        let full = format!("{src}>");
        match parse_integer_set(&full) {
            Ok((s, n)) => {
                assert_eq!(n, full.len(), "consumed bytes for {src:?}");
                s
            }
            Err(e) => panic!("failed to parse {src:?}: {e}"),
        }
    }

    /// Parses `src`, checks it prints as `expected`, and that the printed form
    /// reparses to the same structure and prints identically.
    fn map_round_trip(src: &str, expected: &str) {
        let m = map(src);
        let printed = m.to_string();
        assert_eq!(printed, expected, "printing {src:?}");
        let again = map(&printed);
        assert_eq!(again, m, "structural round trip of {printed:?}");
        assert_eq!(again.to_string(), printed);
    }

    fn set_round_trip(src: &str, expected: &str) {
        let s = set(src);
        let printed = s.to_string();
        assert_eq!(printed, expected, "printing {src:?}");
        let again = set(&printed);
        assert_eq!(again, s, "structural round trip of {printed:?}");
        assert_eq!(again.to_string(), printed);
    }

    fn map_err(src: &str) -> AffineParseError {
        match parse_affine_map(src) {
            Ok((m, _)) => panic!("{src:?} parsed unexpectedly as {m}"),
            Err(e) => e,
        }
    }

    fn set_err(src: &str) -> AffineParseError {
        match parse_integer_set(src) {
            Ok((s, _)) => panic!("{src:?} parsed unexpectedly as {s}"),
            Err(e) => e,
        }
    }

    const MAP_CASES: &[(&str, &str)] = &[
        ("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)"),
        ("(d0, d1) -> (d1, d0)", "(d0, d1) -> (d1, d0)"),
        (
            "(d0, d1)[s0] -> (d0 * 4 + d1 + s0)",
            "(d0, d1)[s0] -> (d0 * 4 + d1 + s0)",
        ),
        (
            "(d0) -> (d0 floordiv 16, d0 mod 16)",
            "(d0) -> (d0 floordiv 16, d0 mod 16)",
        ),
        (
            "(d0, d1) -> (d0 ceildiv 4, d1 floordiv 32 + 1)",
            "(d0, d1) -> (d0 ceildiv 4, d1 floordiv 32 + 1)",
        ),
        ("(d0) -> ((d0 + 1) * 2)", "(d0) -> ((d0 + 1) * 2)"),
        ("(d0) -> ((((d0))))", "(d0) -> (d0)"),
        ("(d0) -> ()", "(d0) -> ()"),
        ("() -> (0)", "() -> (0)"),
        ("() -> ()", "() -> ()"),
        ("()[s0] -> (s0)", "()[s0] -> (s0)"),
        ("(d0)[] -> (d0)", "(d0) -> (d0)"),
        (
            "(i, j)[N] -> (i + N, j * 2)",
            "(d0, d1)[s0] -> (d0 + s0, d1 * 2)",
        ),
        ("(d1, d0) -> (d0)", "(d0, d1) -> (d1)"),
        (
            "(x_1, y.z, w$) -> (w$ + y.z - x_1)",
            "(d0, d1, d2) -> (d2 + d1 - d0)",
        ),
        // Negative constants and subtraction.
        (
            "(d0) -> (d0 - 5, -3, d0 + -5, d0 * -3)",
            "(d0) -> (d0 - 5, -3, d0 - 5, d0 * -3)",
        ),
        ("(d0, d1) -> (d0 - d1)", "(d0, d1) -> (d0 - d1)"),
        ("(d0)[s0] -> (d0 - s0 * 3)", "(d0)[s0] -> (d0 - s0 * 3)"),
        ("(d0)[s0] -> (d0 - 3 * s0)", "(d0)[s0] -> (d0 - s0 * 3)"),
        ("(d0) -> (-d0)", "(d0) -> (-d0)"),
        ("(d0) -> (-(d0 + 1))", "(d0) -> (-(d0 + 1))"),
        (
            "(d0, d1)[s0] -> (d0 - (d1 + s0))",
            "(d0, d1)[s0] -> (d0 - (d1 + s0))",
        ),
        (
            "(d0, d1) -> (d0 - d1 floordiv 2)",
            "(d0, d1) -> (d0 - d1 floordiv 2)",
        ),
        (
            "(d0, d1) -> (d0 - (d1 floordiv 2) * 3)",
            "(d0, d1) -> (d0 - (d1 floordiv 2) * 3)",
        ),
        ("(d0) -> (-d0 floordiv 2)", "(d0) -> ((-d0) floordiv 2)"),
        ("(d0) -> (- -d0, --5)", "(d0) -> (d0, 5)"),
        (
            "(d0)[s0] -> (-d0 + s0, s0 - d0)",
            "(d0)[s0] -> (-d0 + s0, -d0 + s0)",
        ),
        (
            "(d0, d1)[s0, s1] -> (d0 * -1 + d1 * -2 + s0 * -3 + s1 - 7)",
            "(d0, d1)[s0, s1] -> (-d0 - d1 * 2 - s0 * 3 + s1 - 7)",
        ),
        // Constant placement and folding.
        ("(d0) -> (2 * d0)", "(d0) -> (d0 * 2)"),
        ("(d0) -> (2 + d0)", "(d0) -> (d0 + 2)"),
        (
            "(d0) -> (d0 * 1, d0 + 0, d0 * 0, 3 + 4, 2 * 3, 0 * d0)",
            "(d0) -> (d0, d0, 0, 7, 6, 0)",
        ),
        (
            "(d0) -> (d0 + 2 + 3, (d0 * 2) * 3, 2 * (3 * d0))",
            "(d0) -> (d0 + 5, d0 * 6, d0 * 6)",
        ),
        (
            "(d0) -> (-7 floordiv 2, -7 ceildiv 2, -7 mod 2, 7 mod 3, 7 ceildiv 7)",
            "(d0) -> (-4, -3, 1, 1, 1)",
        ),
        (
            "(d0) -> (0x10 + d0, 0x7fffffffffffffff)",
            "(d0) -> (d0 + 16, 9223372036854775807)",
        ),
        // Symbolic terms go right.
        (
            "(d0)[s0] -> (s0 + d0, s0 * d0, 3 + s0 + d0)",
            "(d0)[s0] -> (d0 + s0, d0 * s0, d0 + s0 + 3)",
        ),
        (
            "(d0)[s0, s1] -> (d0 floordiv s0, d0 mod s1, (d0 + 1) ceildiv s0)",
            "(d0)[s0, s1] -> (d0 floordiv s0, d0 mod s1, (d0 + 1) ceildiv s0)",
        ),
        ("(d0)[s0] -> (d0 * (s0 * 2))", "(d0)[s0] -> (d0 * (s0 * 2))"),
        ("(d0)[s0] -> ((d0 * 2) * s0)", "(d0)[s0] -> ((d0 * s0) * 2)"),
        ("(d0)[s0] -> (d0 * -s0)", "(d0)[s0] -> (d0 * (-s0))"),
        // Combining like terms, reassociation, mod recognition.
        (
            "(d0) -> (d0 + d0, d0 - d0, d0 * 3 - d0 * 3, d0 * 2 + d0)",
            "(d0) -> (d0 * 2, 0, 0, d0 * 3)",
        ),
        (
            "(d0, d1) -> (d0 + (d1 + 2), (d0 + 2) + d1, d0 + (d1 - d0))",
            "(d0, d1) -> (d0 + d1 + 2, d0 + d1 + 2, d0 + d1 - d0)",
        ),
        ("(d0) -> (d0 - (d0 floordiv 4) * 4)", "(d0) -> (d0 mod 4)"),
        (
            "(d0)[s0] -> (d0 - (d0 floordiv s0) * s0)",
            "(d0)[s0] -> (d0 mod s0)",
        ),
        // Division and modulo rules.
        (
            "(d0) -> ((d0 * 128) floordiv 64, (d0 * 128) mod 64, (d0 * 6) ceildiv 3)",
            "(d0) -> (d0 * 2, 0, d0 * 2)",
        ),
        (
            "(d0) -> (d0 floordiv 1, d0 ceildiv 1, d0 mod 1)",
            "(d0) -> (d0, d0, 0)",
        ),
        (
            "(d0, d1) -> ((d0 * 4 + d1) mod 4, (d0 mod 8) mod 4)",
            "(d0, d1) -> (d1 mod 4, d0 mod 4)",
        ),
        (
            "(d0) -> (d0 floordiv -2, d0 mod 0, 5 floordiv 0)",
            "(d0) -> (d0 floordiv -2, d0 mod 0, 5 floordiv 0)",
        ),
        (
            "(d0) -> ((d0 * 4 + 1) floordiv 4)",
            "(d0) -> ((d0 * 4 + 1) floordiv 4)",
        ),
        // Extremes of i64: folding that would overflow is not done.
        (
            "(d0) -> (-9223372036854775808)",
            "(d0) -> (-9223372036854775808)",
        ),
        (
            "(d0) -> (9223372036854775807 + 1)",
            "(d0) -> (9223372036854775807 + 1)",
        ),
        (
            "(d0) -> (-9223372036854775807 - 2)",
            "(d0) -> (-9223372036854775807 - 2)",
        ),
        (
            "(d0) -> (d0 + -9223372036854775808)",
            "(d0) -> (d0 + -9223372036854775808)",
        ),
        (
            "(d0) -> (d0 * -9223372036854775808)",
            "(d0) -> (d0 * -9223372036854775808)",
        ),
        (
            "(d0) -> (-(-9223372036854775808))",
            "(d0) -> (--9223372036854775808)",
        ),
        (
            "(d0) -> (d0 - d0 * -9223372036854775808)",
            "(d0) -> (d0 - d0 * -9223372036854775808)",
        ),
        (
            "(d0) -> (d0 + 9223372036854775807 + 9223372036854775807)",
            "(d0) -> (d0 + 9223372036854775807 + 9223372036854775807)",
        ),
        // Whitespace, newlines and comments between tokens.
        (
            "  (\n d0 ,d1\t)\r\n[ s0 ] // dims\n ->\n( d0 // first\n + s0 ,\nd1 )\n ",
            "(d0, d1)[s0] -> (d0 + s0, d1)",
        ),
        (
            "(d0)->(d0+1,d0-1,d0*2,d0 floordiv 2)",
            "(d0) -> (d0 + 1, d0 - 1, d0 * 2, d0 floordiv 2)",
        ),
    ];

    const SET_CASES: &[(&str, &str)] = &[
        (
            "(d0)[s0] : (d0 - s0 >= 0, d0 - 10 == 0)",
            "(d0)[s0] : (d0 - s0 >= 0, d0 - 10 == 0)",
        ),
        ("(d0) : (d0 >= 5)", "(d0) : (d0 - 5 >= 0)"),
        ("(d0) : (d0 <= 5)", "(d0) : (-d0 + 5 >= 0)"),
        ("(d0, d1) : (d0 == d1)", "(d0, d1) : (d0 - d1 == 0)"),
        (
            "(d0, d1) : (d0 + 1 >= d1 * 2)",
            "(d0, d1) : (d0 - d1 * 2 + 1 >= 0)",
        ),
        ("(d0) : ()", "(d0) : (0 == 0)"),
        ("() : (0 == 0)", "() : (0 == 0)"),
        (
            "(d0, d1)[s0, s1] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + s1 - 1 >= 0)",
            "(d0, d1)[s0, s1] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + s1 - 1 >= 0)",
        ),
        (
            "(i)[N] : (i mod 2 == 0, N - i - 1 >= 0)",
            "(d0)[s0] : (d0 mod 2 == 0, -d0 + s0 - 1 >= 0)",
        ),
        (
            "(d0) : (d0 > = 0, d0 = = 3)",
            "(d0) : (d0 >= 0, d0 - 3 == 0)",
        ),
    ];

    #[test]
    fn map_round_trips() {
        for (src, expected) in MAP_CASES {
            map_round_trip(src, expected);
        }
    }

    #[test]
    fn set_round_trips() {
        for (src, expected) in SET_CASES {
            set_round_trip(src, expected);
        }
    }

    #[test]
    fn structure_matches_mlir_normal_form() {
        let m = map("(d0, d1)[s0] -> (2 * d0 - s0, d1)");
        let expected = Dim(0) * Constant(2) + Symbol(0) * Constant(-1);
        assert_eq!(m.results[0], expected);
        assert_eq!(
            m.results[0],
            AffineExpr::Add(
                Box::new(AffineExpr::Mul(Box::new(Dim(0)), Box::new(Constant(2)))),
                Box::new(AffineExpr::Mul(Box::new(Symbol(0)), Box::new(Constant(-1)))),
            )
        );
        assert_eq!(m.num_dims, 2);
        assert_eq!(m.num_symbols, 1);
        // Operator constructors simplify like the parser.
        assert_eq!(Constant(2) * Dim(0), Dim(0) * Constant(2));
        assert_eq!(Dim(0) - Dim(0), Constant(0));
        assert_eq!(-(-Dim(3)), Dim(3));
        assert_eq!(Dim(0).floor_div(Constant(1)), Dim(0));
        assert_eq!((Dim(0) * Constant(8)).modulo(Constant(4)), Constant(0));
        assert_eq!(
            (Dim(0) * Constant(8)).ceil_div(Constant(4)),
            Dim(0) * Constant(2)
        );
        assert_eq!((Dim(0) + Dim(1)).to_string(), "d0 + d1");
        assert!(!map("(d0)[s0] -> (d0 * s0)").results[0].is_symbolic_or_constant());
        assert!(map("(d0)[s0] -> (s0 * 3 + 1)").results[0].is_symbolic_or_constant());
        assert!(!map("(d0)[s0] -> (d0 * s0)").results[0].is_pure_affine());
        assert!(map("(d0)[s0] -> (d0 * 3 + s0 floordiv 2)").results[0].is_pure_affine());
        assert_eq!(map("(d0) -> (d0 * 4 + 1)").results[0].node_count(), 5);
    }

    #[test]
    fn empty_constraint_list_prints_like_mlir() {
        let s = IntegerSet {
            num_dims: 1,
            num_symbols: 0,
            constraints: vec![],
        };
        assert_eq!(s.to_string(), "(d0) : (0 == 0)");
        assert_eq!(
            set("(d0) : ()").constraints,
            vec![AffineConstraint {
                expr: Constant(0),
                is_equality: true
            }]
        );
    }

    #[test]
    fn consumed_bytes_stop_at_closing_angle() {
        let src = "(d0) -> (d0)> : tensor<4xf32>";
        let (m, n) = parse_affine_map(src).unwrap();
        assert_eq!(&src[..n], "(d0) -> (d0)>");
        assert_eq!(m.to_string(), "(d0) -> (d0)");

        let src = " (d0) -> (d0 + 1) \n > %x = foo";
        let (_, n) = parse_affine_map(src).unwrap();
        assert_eq!(&src[n..], " %x = foo");

        let src = "(d0)[s0] : (d0 - s0 >= 0)>>";
        let (s, n) = parse_integer_set(src).unwrap();
        assert_eq!(&src[n..], ">");
        assert_eq!(s.to_string(), "(d0)[s0] : (d0 - s0 >= 0)");

        // Nothing after the `>` is lexed, not even an invalid character.
        let src = "(d0) -> (d0)>\u{1F600}#";
        assert_eq!(parse_affine_map(src).unwrap().1, 13);
    }

    #[test]
    fn errors() {
        let e = map_err("(d0) -> (d0 + x)>");
        assert_eq!(e.offset, 14);
        assert!(e.message.contains("undeclared identifier 'x'"), "{e}");

        let e = map_err("(d0) (d0)>");
        assert_eq!(e.offset, 5);
        assert!(e.message.contains("'->'"), "{e}");

        let e = map_err("(d0) -> (d0");
        assert_eq!(e.offset, 11);
        assert!(e.message.contains("end of input"), "{e}");

        let e = map_err("(d0) -> (d0)");
        assert_eq!(e.offset, 12);
        assert!(e.message.contains("'>'"), "{e}");

        let e = map_err("(d0) -> (d0 + 99999999999999999999999)>");
        assert_eq!(e.offset, 14);
        assert!(e.message.contains("too large"), "{e}");
        assert_eq!(map_err("(d0) -> (9223372036854775808)>").offset, 9);
        assert_eq!(map_err("(d0) -> (-9223372036854775809)>").offset, 10);
        assert_eq!(map_err("(d0) -> (-(9223372036854775808))>").offset, 11);

        let deep = format!(
            "(d0) -> ({}d0{})>",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let e = map_err(&deep);
        assert!(e.message.contains("nested too deeply"), "{e}");
        let deep = format!("(d0) -> ({}d0)>", "-".repeat(100_000));
        assert!(map_err(&deep).message.contains("nested too deeply"));
        let deep = format!("(d0) -> ({}d0)>", "-(".repeat(50_000));
        assert!(map_err(&deep).message.contains("nested too deeply"));
        // Just within the limit is fine.
        let ok = format!(
            "(d0) -> ({}d0{})>",
            "(".repeat(MAX_NESTING_DEPTH),
            ")".repeat(MAX_NESTING_DEPTH)
        );
        assert_eq!(parse_affine_map(&ok).unwrap().0.to_string(), "(d0) -> (d0)");

        let e = map_err("(d0, d0) -> (d0)>");
        assert_eq!(e.offset, 5);
        assert!(e.message.contains("redefinition"), "{e}");
        assert!(
            map_err("(d0)[d0] -> (d0)>")
                .message
                .contains("redefinition")
        );

        let e = map_err("(d0, d1) -> (d0 * d1)>");
        assert_eq!(e.offset, 16);
        assert!(e.message.contains("non-affine"), "{e}");
        assert!(
            map_err("(d0, d1) -> (d0 floordiv d1)>")
                .message
                .contains("non-affine")
        );
        assert!(
            map_err("(d0, d1) -> (d0 mod (d1 + 1))>")
                .message
                .contains("non-affine")
        );
        assert!(
            map_err("(d0, d1) -> ((d0 + 1) * (d1 - 1))>")
                .message
                .contains("non-affine")
        );

        assert!(
            map_err("(mod) -> (mod)>")
                .message
                .contains("bare identifier")
        );
        assert!(
            map_err("(d0) -> (())>")
                .message
                .contains("no expression inside parentheses")
        );
        assert!(
            map_err("(d0) -> (d0,)>")
                .message
                .contains("expected affine expression")
        );
        assert!(
            map_err("(d0,) -> (d0)>")
                .message
                .contains("bare identifier")
        );
        assert!(
            map_err("(d0) -> (* d0)>")
                .message
                .contains("missing left operand")
        );
        assert!(
            map_err("(d0) -> (d0 + * d0)>")
                .message
                .contains("missing right operand")
        );
        assert!(
            map_err("(d0) -> (d0 +)>")
                .message
                .contains("expected affine expression")
        );
        assert!(
            map_err("(d0) -> (1.5)>")
                .message
                .contains("unexpected character '.'")
        );
        let e = map_err("(d0) -> (d0 % 2)>");
        assert_eq!(e.offset, 12);
        assert!(e.message.contains("unexpected character '%'"));
        assert_eq!(map_err("(d0) -> (d0 é)>").offset, 12);
        assert!(map_err("").message.contains("end of input"));
        assert!(map_err("d0 -> (d0)>").message.contains("'('"));
        assert!(map_err("(d0) -> d0>").message.contains("'('"));
        assert!(map_err("(d0)[s0 -> (d0)>").message.contains("']'"));

        // A set is not a map and vice versa.
        assert!(map_err("(d0) : (d0 >= 0)>").message.contains("'->'"));
        assert!(set_err("(d0) -> (d0)>").message.contains("':'"));
        assert!(set_err("(d0) : (d0)>").message.contains(">="));
        assert!(set_err("(d0) : (d0 > 0)>").message.contains(">="));
        assert!(set_err("(d0) : (d0 >= 0").message.contains("end of input"));

        // Too many nodes in one expression.
        let names: Vec<String> = (0..300).map(|i| format!("x{i}")).collect();
        let terms: Vec<String> = names.iter().map(|n| format!("{n} mod 7")).collect();
        let e = map_err(&format!(
            "({}) -> ({})>",
            names.join(", "),
            terms.join(" + ")
        ));
        assert!(e.message.contains("too large"), "{e}");
        // But a long sum that simplifies is measured after simplification.
        let long = format!("(d0) -> ({}d0)>", "d0 + 1 - 1 + ".repeat(2_000));
        assert_eq!(
            parse_affine_map(&long).unwrap().0.to_string(),
            "(d0) -> (d0 * 2001)"
        );

        // Errors display with their offset.
        assert_eq!(
            map_err("(d0) -> (x)>").to_string(),
            "error at byte 9: use of undeclared identifier 'x'"
        );
    }

    #[test]
    fn eval() {
        let tile = map("(d0) -> (d0 floordiv 16, d0 mod 16, d0 ceildiv 16)");
        assert_eq!(tile.eval(&[37], &[]), Some(vec![2, 5, 3]));
        assert_eq!(tile.eval(&[-1], &[]), Some(vec![-1, 15, 0]));
        assert_eq!(tile.eval(&[-17], &[]), Some(vec![-2, 15, -1]));
        assert_eq!(tile.eval(&[32], &[]), Some(vec![2, 0, 2]));

        let strided = map("(d0, d1)[s0] -> (d0 * 4 + d1 + s0, d0 - d1, -d0)");
        assert_eq!(strided.eval(&[2, 3], &[100]), Some(vec![111, -1, -2]));

        let empty = map("(d0) -> ()");
        assert_eq!(empty.eval(&[1], &[]), Some(vec![]));
        assert_eq!(map("() -> (7)").eval(&[], &[]), Some(vec![7]));

        // Overflow.
        let double = map("(d0) -> (d0 * 2)");
        assert_eq!(double.eval(&[i64::MAX], &[]), None);
        assert_eq!(double.eval(&[i64::MAX / 2], &[]), Some(vec![i64::MAX - 1]));
        assert_eq!(map("(d0) -> (d0 + 1)").eval(&[i64::MAX], &[]), None);
        assert_eq!(
            map("(d0) -> (9223372036854775807 + 1)").eval(&[0], &[]),
            None
        );
        assert_eq!(
            map("(d0) -> (d0 floordiv 2)").eval(&[i64::MIN], &[]),
            Some(vec![i64::MIN / 2])
        );
        assert_eq!(
            map("(d0) -> (d0 ceildiv 3)").eval(&[i64::MAX], &[]),
            Some(vec![i64::MAX / 3 + 1])
        );
        assert_eq!(
            map("(d0) -> (d0 mod 3)").eval(&[i64::MIN], &[]),
            Some(vec![i64::MIN.rem_euclid(3)])
        );

        // Non-positive divisors are undefined.
        let div = map("(d0)[s0] -> (d0 floordiv s0)");
        assert_eq!(div.eval(&[7], &[0]), None);
        assert_eq!(div.eval(&[7], &[-2]), None);
        assert_eq!(div.eval(&[7], &[2]), Some(vec![3]));
        assert_eq!(map("(d0)[s0] -> (d0 mod s0)").eval(&[7], &[0]), None);
        assert_eq!(map("(d0)[s0] -> (d0 ceildiv s0)").eval(&[7], &[0]), None);

        // Wrong number of operands, out-of-range ids.
        assert_eq!(double.eval(&[], &[]), None);
        assert_eq!(double.eval(&[1, 2], &[]), None);
        assert_eq!(double.eval(&[1], &[1]), None);
        let bad = AffineMap {
            num_dims: 1,
            num_symbols: 0,
            results: vec![Dim(3)],
        };
        assert_eq!(bad.eval(&[1], &[]), None);
        assert_eq!(Symbol(0).eval(&[1], &[]), None);

        // Integer sets.
        let s = set("(d0)[s0] : (d0 >= 0, s0 - 1 - d0 >= 0, d0 mod 2 == 0)");
        assert_eq!(s.contains(&[4], &[10]), Some(true));
        assert_eq!(s.contains(&[5], &[10]), Some(false));
        assert_eq!(s.contains(&[10], &[10]), Some(false));
        assert_eq!(s.contains(&[-2], &[10]), Some(false));
        assert_eq!(s.contains(&[4], &[]), None);
        assert_eq!(set("() : ()").contains(&[], &[]), Some(true));
    }

    /// All valid inputs of the round-trip tables, with their closing `>`.
    fn valid_inputs() -> Vec<(String, bool)> {
        let mut v = Vec::new();
        for (src, expected) in MAP_CASES {
            v.push((format!("{src}>"), true));
            v.push((format!("{expected}>"), true));
        }
        for (src, expected) in SET_CASES {
            v.push((format!("{src}>"), false));
            v.push((format!("{expected}>"), false));
        }
        v.push(("(ä, b) -> (ä + b)>".to_string(), true));
        v
    }

    #[test]
    fn truncated_inputs_are_errors() {
        for (full, is_map) in valid_inputs() {
            let consumed = if is_map {
                parse_affine_map(&full).map(|r| r.1)
            } else {
                parse_integer_set(&full).map(|r| r.1)
            };
            if full.contains('ä') {
                // Not an identifier character (in MLIR either).
                assert!(consumed.is_err());
            } else {
                assert_eq!(consumed, Ok(full.len()), "{full:?}");
            }
            // Every proper prefix lacks the closing `>`, so both parsers reject it.
            for cut in 0..full.len() {
                let Some(prefix) = full.get(..cut) else {
                    continue;
                };
                for result in [
                    parse_affine_map(prefix).map(|r| r.1),
                    parse_integer_set(prefix).map(|r| r.1),
                ] {
                    match result {
                        Ok(n) => panic!("truncation {prefix:?} parsed, consuming {n} bytes"),
                        Err(e) => assert!(e.offset <= prefix.len(), "{prefix:?}: {e}"),
                    }
                }
            }
        }
    }

    /// A small deterministic pseudo-random generator (64-bit LCG).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn mutated_inputs_do_not_panic() {
        let alphabet: Vec<char> = "()[]<>=-+*,:/ \nd0s1x9é%floordivceildivmod"
            .chars()
            .collect();
        let mut rng = Rng(42);
        for (full, _) in valid_inputs() {
            let chars: Vec<char> = full.chars().collect();
            for _ in 0..200 {
                let mut mutated = chars.clone();
                for _ in 0..1 + rng.below(3) {
                    let i = rng.below(mutated.len() as u64 + 1) as usize;
                    let c = alphabet[rng.below(alphabet.len() as u64) as usize];
                    match rng.below(3) {
                        0 if i < mutated.len() => mutated[i] = c,
                        1 if i < mutated.len() => {
                            mutated.remove(i);
                        }
                        _ => mutated.insert(i, c),
                    }
                }
                let s: String = mutated.into_iter().collect();
                // Either result is fine; successful parses must round-trip.
                if let Ok((m, n)) = parse_affine_map(&s) {
                    assert!(n <= s.len() && s.is_char_boundary(n));
                    let printed = m.to_string();
                    assert_eq!(map(&printed), m, "{s:?}");
                }
                if let Ok((parsed, n)) = parse_integer_set(&s) {
                    assert!(n <= s.len() && s.is_char_boundary(n));
                    let printed = parsed.to_string();
                    assert_eq!(set(&printed), parsed, "{s:?}");
                }
            }
        }
    }

    /// A random affine expression over `d0, d1, s0, s1`, built without any
    /// simplification. Multiplications keep one symbolic side and divisors are
    /// symbolic, so the printed form is always parseable.
    fn random_raw(rng: &mut Rng, depth: u32, symbolic_only: bool) -> AffineExpr {
        const CONSTANTS: &[i64] = &[0, 1, -1, 2, -2, 3, 4, -4, 5, 7, 8, 16, -16, 64, 128];
        const EXTREME: &[i64] = &[
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            i64::MAX - 1,
            1 << 62,
            -(1 << 62),
        ];
        if depth == 0 || rng.below(4) == 0 {
            return match rng.below(if symbolic_only { 3 } else { 5 }) {
                0 => Symbol(rng.below(2) as u32),
                1 if rng.below(20) == 0 => {
                    Constant(EXTREME[rng.below(EXTREME.len() as u64) as usize])
                }
                1 | 2 => Constant(CONSTANTS[rng.below(CONSTANTS.len() as u64) as usize]),
                _ => Dim(rng.below(2) as u32),
            };
        }
        let op = match rng.below(8) {
            0..=2 => BinOp::Add,
            3 | 4 => BinOp::Mul,
            5 => BinOp::FloorDiv,
            6 => BinOp::CeilDiv,
            _ => BinOp::Mod,
        };
        match op {
            BinOp::Add => op.build(
                random_raw(rng, depth - 1, symbolic_only),
                random_raw(rng, depth - 1, symbolic_only),
            ),
            BinOp::Mul => {
                let free = random_raw(rng, depth - 1, symbolic_only);
                let sym = random_raw(rng, depth - 1, true);
                if rng.below(2) == 0 {
                    op.build(free, sym)
                } else {
                    op.build(sym, free)
                }
            }
            _ => op.build(
                random_raw(rng, depth - 1, symbolic_only),
                random_raw(rng, depth - 1, true),
            ),
        }
    }

    /// Rebuilds a tree bottom-up through the simplifying constructors.
    fn simplify(e: &AffineExpr) -> AffineExpr {
        match e.as_binary() {
            None => e.clone(),
            Some((op, l, r)) => Simplifier::new().build(op, simplify(l), simplify(r)),
        }
    }

    /// Whether `e` contains a constant large enough that rearranging the
    /// computation may change whether an intermediate result overflows.
    fn has_extreme_constant(e: &AffineExpr) -> bool {
        match e.as_binary() {
            Some((_, l, r)) => has_extreme_constant(l) || has_extreme_constant(r),
            None => e
                .constant_value()
                .is_some_and(|c| c.unsigned_abs() > 1 << 40),
        }
    }

    /// Checks that `candidate` has the value of `original` wherever `original`
    /// is defined (where overflow behavior may differ, only where both are).
    fn assert_same_values(
        original: &AffineExpr,
        candidate: &AffineExpr,
        points: &[([i64; 2], [i64; 2])],
    ) -> usize {
        let mut compared = 0;
        let extreme = has_extreme_constant(original);
        for (dims, syms) in points {
            if let Some(expected) = original.eval(dims, syms) {
                let got = candidate.eval(dims, syms);
                if !extreme || got.is_some() {
                    assert_eq!(
                        got,
                        Some(expected),
                        "{original} became {candidate} at {dims:?} {syms:?}"
                    );
                    compared += 1;
                }
            }
        }
        compared
    }

    fn assert_round_trips(e: &AffineExpr, is_equality: bool) {
        let m = AffineMap {
            num_dims: 2,
            num_symbols: 2,
            results: vec![e.clone()],
        };
        let printed = m.to_string();
        let again = map(&printed);
        assert_eq!(again, m, "{printed} ({e:?})");
        assert_eq!(again.to_string(), printed);
        let s = IntegerSet {
            num_dims: 2,
            num_symbols: 2,
            constraints: vec![AffineConstraint {
                expr: e.clone(),
                is_equality,
            }],
        };
        let printed = s.to_string();
        assert_eq!(set(&printed), s, "{printed} ({e:?})");
    }

    #[test]
    fn random_expressions_simplify_soundly_and_round_trip() {
        let mut rng = Rng(7);
        let value = |r: &mut Rng| r.below(41) as i64 - 20;
        let mut points = Vec::new();
        for _ in 0..24 {
            points.push((
                [value(&mut rng), value(&mut rng)],
                [value(&mut rng), value(&mut rng)],
            ));
        }
        let mut compared = 0;
        for _ in 0..20_000 {
            let raw = random_raw(&mut rng, 5, false);
            let simplified = simplify(&raw);
            // Simplification preserves the value wherever the original is defined.
            compared += assert_same_values(&raw, &simplified, &points);
            // Simplification is idempotent.
            assert_eq!(simplify(&simplified), simplified, "{raw}");
            // Normal forms round-trip structurally and print as a fixed point.
            assert_round_trips(&simplified, rng.below(2) == 0);

            // The printer is correct for arbitrary (unsimplified) trees too.
            let raw_map = AffineMap {
                num_dims: 2,
                num_symbols: 2,
                results: vec![raw.clone()],
            };
            let reparsed = map(&raw_map.to_string()).results.remove(0);
            compared += assert_same_values(&raw, &reparsed, &points);
            assert_round_trips(&reparsed, false);
        }
        assert!(compared > 100_000, "only {compared} comparisons");
    }

    #[test]
    fn large_inputs_stay_within_limits() {
        // A long flat sum just below the node limit.
        let terms: Vec<String> = (0..499).map(|i| format!("d{}", i % 7)).collect();
        let dims = "(d0, d1, d2, d3, d4, d5, d6)";
        let m = map(&format!("{dims} -> ({})", terms.join(" + ")));
        assert_eq!(map(&m.to_string()), m);

        // Distinct terms that do not combine: 600 terms (1199 nodes) are too many.
        let names: Vec<String> = (0..600).map(|i| format!("x{i}")).collect();
        let sum = names.join(" + ");
        let e = map_err(&format!("({}) -> ({sum})>", names.join(", ")));
        assert!(e.message.contains("too large"), "{e}");
        let sum = names[..450].join(" + ");
        let m = map(&format!("({}) -> ({sum})", names.join(", ")));
        assert_eq!(map(&m.to_string()), m);
        // Right-nested the same sum is reassociated into the same tree.
        let nested = format!("{}{}", names[..150].join(" + ("), ")".repeat(149));
        let m1 = map(&format!("({}) -> ({nested})", names.join(", ")));
        let m2 = map(&format!(
            "({}) -> ({})",
            names.join(", "),
            names[..150].join(" + ")
        ));
        assert_eq!(m1, m2);
        // A right operand that is a long sum.
        let m3 = map(&format!(
            "({}) -> (x0 + ({}))",
            names.join(", "),
            names[1..450].join(" + ")
        ));
        assert_eq!(m3.to_string(), m.to_string());

        // Chains of constants whose folding overflows are walked recursively
        // by the rules; short ones are fine, long ones are rejected.
        let chain = |n: usize| {
            format!(
                "(d0, d1) -> (d0{} + d1 - d1 + d0)",
                " + 9223372036854775807".repeat(n)
            )
        };
        let m = map(&chain(40));
        assert_eq!(map(&m.to_string()), m);
        let e = map_err(&format!("{}>", chain(300)));
        assert!(e.message.contains("too complex"), "{e}");
        let chain = |n: usize| {
            format!(
                "(d0)[s0] -> ((d0 * 2){} * s0)",
                " * 4611686018427387904".repeat(n)
            )
        };
        let m = map(&chain(40));
        assert_eq!(map(&m.to_string()), m);
        assert!(
            map_err(&format!("{}>", chain(300)))
                .message
                .contains("too complex")
        );
        let chain = format!(
            "(d0, d1) -> ((d0 * 2){} * d1)>",
            " * 4611686018427387904".repeat(300)
        );
        assert!(map_err(&chain).message.contains("non-affine"));

        // A long product chain prints with deeply nested parentheses,
        // `((d0 * s0) * s0) * s0`, and still parses again.
        let m = map(&format!("(d0)[s0] -> (d0{})", " * s0".repeat(490)));
        let printed = m.to_string();
        assert!(printed.starts_with(&format!("(d0)[s0] -> ({}d0 * s0)", "(".repeat(489))));
        assert_eq!(map(&printed), m);
        let m = map(&format!(
            "(d0)[s0] -> ({}d0{})",
            "-(".repeat(200),
            " floordiv s0)".repeat(200)
        ));
        assert_eq!(map(&m.to_string()), m);

        // `mod` strips divisible terms of a long sum iteratively.
        let names: Vec<String> = (0..201).map(|i| format!("x{i}")).collect();
        let terms: Vec<String> = names[1..].iter().map(|n| format!("{n} * 4")).collect();
        let m = map(&format!(
            "({}) -> ((x0 + {}) mod 4)",
            names.join(", "),
            terms.join(" + ")
        ));
        assert_eq!(m.results, vec![Dim(0).modulo(Constant(4))]);

        // Many results and identifiers are fine.
        let ids: Vec<String> = (0..5000).map(|i| format!("i{i}")).collect();
        let m = map(&format!("({}) -> ({})", ids.join(", "), ids.join(", ")));
        assert_eq!(m.num_dims, 5000);
        assert_eq!(map(&m.to_string()), m);
    }
}
