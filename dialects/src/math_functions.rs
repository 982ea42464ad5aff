//! The `math` functions host code takes from the C library (`exp`, `sin`, ...): the
//! name of the C function on doubles (with an `f` suffix on floats) and the value the
//! interpreter gives them, computed in `f64` and rounded once to the element type. The
//! interpreter, the Cranelift back end (which imports the functions) and the C back
//! end (which calls the double ones) all read this one table.

use crate::ops::{graph, math};

/// A C library function of one argument: its name on doubles and its value.
#[derive(Clone, Copy, Debug)]
pub struct LibraryFunction {
    /// The C name of the function on doubles (`exp`); on floats it ends with `f`.
    pub name: &'static str,
    /// The function on `f64`, as the interpreter computes it.
    pub eval: fn(f64) -> f64,
}

/// The C library function computing `kind`, for the transcendental ones.
pub fn library_function(kind: math::Op) -> Option<LibraryFunction> {
    use math::Op as M;
    let (name, eval): (&'static str, fn(f64) -> f64) = match kind {
        M::Exp => ("exp", f64::exp),
        M::Log => ("log", f64::ln),
        M::Tanh => ("tanh", f64::tanh),
        M::Erf => ("erf", libm::erf),
        M::Sin => ("sin", f64::sin),
        M::Cos => ("cos", f64::cos),
        M::Tan => ("tan", f64::tan),
        M::Asin => ("asin", f64::asin),
        M::Acos => ("acos", f64::acos),
        M::Atan => ("atan", f64::atan),
        M::Sinh => ("sinh", f64::sinh),
        M::Cosh => ("cosh", f64::cosh),
        M::Asinh => ("asinh", f64::asinh),
        M::Acosh => ("acosh", f64::acosh),
        M::Atanh => ("atanh", f64::atanh),
        _ => return None,
    };
    Some(LibraryFunction { name, eval })
}

/// The `math` op computing the elementwise graph op `op` on one float, for the graph
/// ops that are one math function (`graph.sin` is `math.sin`, `graph.round` is
/// `math.roundeven`).
pub fn math_of_graph(op: graph::Op) -> Option<math::Op> {
    use graph::Op as G;
    use math::Op as M;
    Some(match op {
        G::Exp => M::Exp,
        G::Log => M::Log,
        G::Tanh => M::Tanh,
        G::Erf => M::Erf,
        G::Sqrt => M::Sqrt,
        G::Floor => M::Floor,
        G::Ceil => M::Ceil,
        G::Round => M::Roundeven,
        G::Sin => M::Sin,
        G::Cos => M::Cos,
        G::Tan => M::Tan,
        G::Asin => M::Asin,
        G::Acos => M::Acos,
        G::Atan => M::Atan,
        G::Sinh => M::Sinh,
        G::Cosh => M::Cosh,
        G::Asinh => M::Asinh,
        G::Acosh => M::Acosh,
        G::Atanh => M::Atanh,
        _ => return None,
    })
}
