//! Translation validation: run every function of a module on seeded random inputs,
//! and compare the results of two versions of the module (before and after a pass).

use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::{AttrId, Context, Ir};

use crate::machine::{FunctionTable, Interpreter, Limits, function_parameter_types, functions};
use crate::value::Tensor;

/// A function and the inputs it is run on.
pub struct Sample {
    /// The function's name.
    pub function: String,
    /// Its location (for messages).
    pub loc: AttrId,
    /// Its arguments.
    pub inputs: Vec<Tensor>,
}

/// xorshift64*: a small deterministic generator (the inputs only need to be
/// reproducible from the seed, not statistically strong).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn random_value(rng: &mut Rng, kind: ElementKind) -> Scalar {
    let r = rng.next();
    match kind {
        // Small integers: sums and products stay meaningful, divisions often defined.
        ElementKind::Int(1, _) => Scalar::Int(i128::from(r & 1)),
        ElementKind::Int(..) => Scalar::Int((r % 17) as i128 - 8),
        // Multiples of 1/64 in [-2, 2): exact in every float format.
        ElementKind::Float(_) => Scalar::Float(((r % 256) as f64 - 128.0) / 64.0),
    }
}

/// Seeded inputs for every function of `ir` that has a body and arguments of
/// supported (statically shaped) types.
pub fn samples(ctx: &Context, ir: &Ir, seed: u64) -> Vec<Sample> {
    let mut out = Vec::new();
    for (name, body, op) in functions(ctx, ir) {
        let Some(inner) = ir.body(body).nested_body(op) else {
            continue;
        };
        let Some(entry) = ir
            .op(body, op)
            .regions()
            .first()
            .and_then(|r| ir.body(inner).entry_block(*r))
        else {
            continue;
        };
        let mut rng = Rng(seed
            ^ name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            })
            | 1);
        let inputs: Option<Vec<Tensor>> = ir
            .body(inner)
            .block_args(entry)
            .iter()
            .map(|a| {
                let ty = ir.body(inner).value_type(*a);
                let (shape, kind) = Tensor::layout(ctx, ty).ok()?;
                let n: usize = shape.iter().product();
                let data = (0..n).map(|_| random_value(&mut rng, kind)).collect();
                Tensor::new(ctx, ty, data).ok()
            })
            .collect();
        if let Some(inputs) = inputs {
            out.push(Sample {
                function: name,
                loc: ir.op(body, op).loc(),
                inputs,
            });
        }
    }
    out
}

/// The results of each sample's function on its inputs; `None` where the function
/// cannot run (no semantics yet for one of its ops, undefined behaviour, no function).
/// A bufferized function takes memrefs where its source took tensors of the same
/// shape: the inputs are retyped to its parameters then.
pub fn outcomes(ctx: &Context, ir: &Ir, samples: &[Sample]) -> Vec<Option<Vec<Tensor>>> {
    // One table for every sample: a lookup each would scan the module per sample.
    let table = std::sync::Arc::new(FunctionTable::of(ctx, ir));
    samples
        .iter()
        .map(|s| {
            let (body, op) = table.get(&s.function)?;
            let params = function_parameter_types(ir, body, op)?;
            let inputs = s
                .inputs
                .iter()
                .zip(&params)
                .map(|(t, p)| retyped(ctx, t, *p))
                .collect::<Option<Vec<_>>>()?;
            Interpreter::new(ctx, ir, Limits::default())
                .with_functions(table.clone())
                .call(&s.function, inputs)
                .ok()
        })
        .collect()
}

/// `t` as a value of type `ty` when only the kind of container differs (a tensor as a
/// memref of the same shape and elements).
fn retyped(ctx: &Context, t: &Tensor, ty: acc_ir::TypeId) -> Option<Tensor> {
    if t.ty == ty {
        return Some(t.clone());
    }
    let (shape, kind) = Tensor::layout(ctx, ty).ok()?;
    if shape != t.shape || kind != t.kind {
        return None;
    }
    Tensor::new(ctx, ty, t.values().ok()?).ok()
}

/// Whether the module still defines the function `name` (a pass such as symbol-dce
/// may erase unused private ones: they are no longer compared).
pub fn defines(ctx: &Context, ir: &Ir, name: &str) -> bool {
    functions(ctx, ir).iter().any(|(n, _, _)| n == name)
}

/// Where `after` differs from `before`: floats beyond a relative tolerance `tol`
/// (`f16` and `bf16` also within two units in the last place, as a reassociated sum
/// may round to a neighbour and their unit is above `tol`), anything else exactly.
/// `None` when they agree.
pub fn first_difference(before: &[Tensor], after: &[Tensor], tol: f64) -> Option<String> {
    if before.len() != after.len() {
        return Some(format!(
            "{} results instead of {}",
            after.len(),
            before.len()
        ));
    }
    for (i, (a, b)) in before.iter().zip(after).enumerate() {
        if a.shape != b.shape {
            return Some(format!(
                "result {i} has shape {:?} instead of {:?}",
                b.shape, a.shape
            ));
        }
        let half = match a.kind {
            acc_ir::elements::ElementKind::Float(k) => acc_ir::minifloat::MiniFloat::sixteen_bit(k),
            _ => None,
        };
        for (j, (x, y)) in a.data.iter().zip(&b.data).enumerate() {
            let same = match (x, y) {
                // Equal values first: an infinity is not within any tolerance of
                // itself (inf - inf is NaN).
                (Scalar::Float(x), Scalar::Float(y)) => {
                    x == y
                        || (x.is_nan() && y.is_nan())
                        || (x - y).abs() <= tol * (1.0 + x.abs())
                        || half.is_some_and(|h| (x - y).abs() <= 2.0 * h.ulp(x.abs().max(y.abs())))
                }
                _ => x == y,
            };
            if !same {
                return Some(format!(
                    "result {i}, element {j}: {} instead of {}",
                    number(*y),
                    number(*x)
                ));
            }
        }
    }
    None
}

fn number(v: Scalar) -> String {
    match v {
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => f.to_string(),
    }
}
