//! NumPy `.npy` files as interpreter values (with the npyz crate): reading an input
//! checked against the type the function expects, writing a result.

use std::io::{BufReader, Write};
use std::path::Path;

use crate::Tensor;
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::{Context, FloatKind, Signedness, TypeId};
use npyz::{DType, NpyFile, TypeChar, WriterBuilder};

/// The shape of the array in `path` (its header only).
pub fn shape(path: &Path) -> Result<Vec<usize>, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read '{shown}': {e}"))?;
    // The header is all that is read: its first line.
    let mut header = Vec::new();
    std::io::BufRead::read_until(&mut BufReader::new(file), b'\n', &mut header)
        .map_err(|e| format!("cannot read '{shown}': {e}"))?;
    let header = with_raw_one_byte_floats(header);
    plain_header(&header).map_err(|e| format!("'{shown}' is not a valid .npy file: {e}"))?;
    let npy = NpyFile::new(&header[..])
        .map_err(|e| format!("'{shown}' is not a valid .npy file: {e}"))?;
    Ok(npy.shape().iter().map(|d| *d as usize).collect())
}

/// Reads `path` as a value of type `ty`: same shape, and numbers of the same nature
/// (floats for a float type, integers or booleans for an integer type). An element
/// type numpy lacks (bf16, the f8/f4 floats, i4/i2) is read from the raw elements
/// `ml_dtypes` saves (`<V1`/`<V2`, or `<f1` for float8_e5m2): one element per byte (two
/// for bf16), the type's own bit pattern (a sub-byte integer in the low bits).
pub fn read(ctx: &Context, path: &Path, ty: TypeId) -> Result<Tensor, String> {
    let shown = path.display();
    let bytes =
        acc_ir::budget::read_file(path).map_err(|e| format!("cannot read '{shown}': {e}"))?;
    let bytes = with_raw_one_byte_floats(bytes);
    plain_header(&bytes).map_err(|e| format!("'{shown}' is not a valid .npy file: {e}"))?;
    let npy =
        NpyFile::new(&bytes[..]).map_err(|e| format!("'{shown}' is not a valid .npy file: {e}"))?;
    if npy.order() == npyz::Order::Fortran {
        return Err(format!(
            "'{shown}': Fortran-order arrays are not supported; save it in C order"
        ));
    }
    let (shape, kind) = Tensor::layout(ctx, ty)?;
    let found: Vec<usize> = npy.shape().iter().map(|d| *d as usize).collect();
    if found != shape {
        return Err(format!(
            "'{shown}' has shape {found:?}, but the argument is {}",
            acc_ir::printer::type_to_string(ctx, ty)
        ));
    }
    let DType::Plain(ts) = npy.dtype() else {
        return Err(format!("'{shown}': structured arrays are not supported"));
    };
    let bad = |e: std::io::Error| format!("cannot read the data of '{shown}': {e}");
    let data: Vec<Scalar> = match (ts.type_char(), ts.size_field()) {
        (TypeChar::RawData, size) if size == kind.bytes() as u64 && numpy_lacks(kind) => {
            let size = kind.bytes();
            let n: usize = shape.iter().product();
            let raw = n
                .checked_mul(size)
                .and_then(|len| {
                    data_start(&bytes).and_then(|at| bytes.get(at..at.checked_add(len)?))
                })
                .ok_or_else(|| format!("'{shown}' holds fewer elements than its shape"))?;
            raw.chunks_exact(size).map(|b| kind.decode(b)).collect()
        }
        (TypeChar::Float, 2) => npy
            .into_vec::<half::f16>()
            .map_err(bad)?
            .into_iter()
            .map(|v| Scalar::Float(v.to_f64()))
            .collect(),
        (TypeChar::Float, 4) => npy
            .into_vec::<f32>()
            .map_err(bad)?
            .into_iter()
            .map(|v| Scalar::Float(v.into()))
            .collect(),
        (TypeChar::Float, 8) => npy
            .into_vec::<f64>()
            .map_err(bad)?
            .into_iter()
            .map(Scalar::Float)
            .collect(),
        (TypeChar::Int, 1) => ints(npy.into_vec::<i8>().map_err(bad)?),
        (TypeChar::Int, 2) => ints(npy.into_vec::<i16>().map_err(bad)?),
        (TypeChar::Int, 4) => ints(npy.into_vec::<i32>().map_err(bad)?),
        (TypeChar::Int, 8) => ints(npy.into_vec::<i64>().map_err(bad)?),
        (TypeChar::Uint, 1) => ints(npy.into_vec::<u8>().map_err(bad)?),
        (TypeChar::Uint, 2) => ints(npy.into_vec::<u16>().map_err(bad)?),
        (TypeChar::Uint, 4) => ints(npy.into_vec::<u32>().map_err(bad)?),
        (TypeChar::Uint, 8) => ints(npy.into_vec::<u64>().map_err(bad)?),
        (TypeChar::Bool, 1) => ints(
            npy.into_vec::<bool>()
                .map_err(bad)?
                .into_iter()
                .map(u8::from)
                .collect(),
        ),
        _ => return Err(format!("'{shown}': dtype '{}' is not supported", ts)),
    };
    let float_data = matches!(data.first(), Some(Scalar::Float(_)));
    let float_type = matches!(kind, ElementKind::Float(_));
    if !data.is_empty() && float_data != float_type {
        return Err(format!(
            "'{shown}' holds {} but the argument is {}",
            if float_data { "floats" } else { "integers" },
            acc_ir::printer::type_to_string(ctx, ty)
        ));
    }
    // A value the argument's element type cannot hold is refused, not changed: an f64
    // beyond f32's range would become inf, an integer out of range would wrap.
    for (i, v) in data.iter().enumerate() {
        let lossy = match (*v, kind) {
            (Scalar::Float(x), ElementKind::Float(_)) => {
                x.is_finite() && !matches!(kind.normalize(*v), Scalar::Float(y) if y.is_finite())
            }
            // Fits when it is a value of the width read as signed or as unsigned (a
            // signless type holds either).
            (Scalar::Int(x), ElementKind::Int(w, _)) => {
                use Signedness::{Signed, Unsigned};
                use acc_ir::elements::normalize_int;
                normalize_int(x, w, Signed) != x && normalize_int(x, w, Unsigned) != x
            }
            _ => false,
        };
        if lossy {
            let shown_value = match v {
                Scalar::Float(x) => x.to_string(),
                Scalar::Int(x) => x.to_string(),
            };
            return Err(format!(
                "'{shown}' holds {shown_value} (element {i}), which the argument's {} cannot \
                 hold: convert the file to the argument's type",
                acc_ir::printer::type_to_string(ctx, ty)
            ));
        }
    }
    Tensor::new(ctx, ty, data)
}

/// Refuses a header nested deeper than numpy writes (a dict holding a tuple):
/// npyz's parser takes time exponential in the nesting.
fn plain_header(bytes: &[u8]) -> Result<(), String> {
    const MAX_NESTING: usize = 4;
    let end = data_start(bytes).unwrap_or(bytes.len()).min(bytes.len());
    let mut depth = 0usize;
    for &b in &bytes[..end] {
        match b {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "its header nests brackets more than {MAX_NESTING} deep"
                    ));
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Where the elements of the `.npy` file `bytes` start: after the magic string, the
/// version, the header's length (2 bytes in version 1, 4 after) and the header.
fn data_start(bytes: &[u8]) -> Option<usize> {
    let (length_bytes, at) = match bytes.get(6)? {
        1 => (2, 8),
        _ => (4, 8),
    };
    let mut length = [0u8; 4];
    length[..length_bytes].copy_from_slice(bytes.get(at..at + length_bytes)?);
    (at + length_bytes).checked_add(u32::from_le_bytes(length) as usize)
}

/// Element kinds numpy has no dtype for, which `ml_dtypes` saves as raw elements.
fn numpy_lacks(kind: ElementKind) -> bool {
    match kind {
        ElementKind::Int(w, _) => w < 8 && w > 1,
        ElementKind::Float(k) => !matches!(k, FloatKind::F16 | FloatKind::F32 | FloatKind::F64),
    }
}

/// `bytes` of an `.npy` file with a header's dtype `'<f1'` (`ml_dtypes`'
/// float8_e5m2, a one-byte float numpy cannot read) written as raw one-byte elements
/// (`'|V1'`, the same length): what [`read`] takes from the argument's type.
fn with_raw_one_byte_floats(mut bytes: Vec<u8>) -> Vec<u8> {
    let header_end = bytes.iter().position(|b| *b == b'\n').unwrap_or(0);
    let header = &bytes[..header_end];
    if let Some(at) = header.windows(4).position(|w| w == b"'<f1") {
        bytes[at + 1..at + 4].copy_from_slice(b"|V1");
    }
    bytes
}

fn ints<T: Into<i128>>(v: Vec<T>) -> Vec<Scalar> {
    v.into_iter().map(|x| Scalar::Int(x.into())).collect()
}

/// Writes `t` to `w` as an `.npy` array: floats as float16/32/64 (bf16 as float32,
/// which numpy lacks), i1 as bool, other integers in the smallest numpy type of their
/// width and signedness.
pub fn write(t: &Tensor, w: &mut dyn Write) -> std::io::Result<()> {
    // npyz writes element by element: unbuffered, a file would take a system call
    // per element.
    let mut buffered = std::io::BufWriter::new(w);
    write_elements(t, &mut buffered)?;
    buffered.flush()
}

/// [`write`] into a buffered writer.
fn write_elements(t: &Tensor, w: &mut dyn Write) -> std::io::Result<()> {
    let shape: Vec<u64> = t.shape.iter().map(|d| *d as u64).collect();
    let float = |v: &Scalar| match v {
        Scalar::Float(f) => *f,
        Scalar::Int(i) => *i as f64,
    };
    let int = |v: &Scalar| match v {
        Scalar::Int(i) => *i,
        Scalar::Float(f) => *f as i128,
    };
    match t.kind {
        ElementKind::Float(FloatKind::F16) => put::<half::f16>(
            &shape,
            w,
            t.data.iter().map(|v| half::f16::from_f64(float(v))),
        ),
        ElementKind::Float(FloatKind::F64) => put::<f64>(&shape, w, t.data.iter().map(float)),
        ElementKind::Float(_) => put::<f32>(&shape, w, t.data.iter().map(|v| float(v) as f32)),
        ElementKind::Int(1, _) => put::<bool>(&shape, w, t.data.iter().map(|v| int(v) != 0)),
        ElementKind::Int(bits, Signedness::Unsigned) if bits <= 8 => {
            put::<u8>(&shape, w, t.data.iter().map(|v| int(v) as u8))
        }
        ElementKind::Int(bits, Signedness::Unsigned) if bits <= 16 => {
            put::<u16>(&shape, w, t.data.iter().map(|v| int(v) as u16))
        }
        ElementKind::Int(bits, Signedness::Unsigned) if bits <= 32 => {
            put::<u32>(&shape, w, t.data.iter().map(|v| int(v) as u32))
        }
        ElementKind::Int(_, Signedness::Unsigned) => {
            put::<u64>(&shape, w, t.data.iter().map(|v| int(v) as u64))
        }
        ElementKind::Int(bits, _) if bits <= 8 => {
            put::<i8>(&shape, w, t.data.iter().map(|v| int(v) as i8))
        }
        ElementKind::Int(bits, _) if bits <= 16 => {
            put::<i16>(&shape, w, t.data.iter().map(|v| int(v) as i16))
        }
        ElementKind::Int(bits, _) if bits <= 32 => {
            put::<i32>(&shape, w, t.data.iter().map(|v| int(v) as i32))
        }
        ElementKind::Int(..) => put::<i64>(&shape, w, t.data.iter().map(|v| int(v) as i64)),
    }
}

/// Writes `values` as an `.npy` array of `shape` and `T`'s dtype.
fn put<T: npyz::AutoSerialize>(
    shape: &[u64],
    w: &mut dyn Write,
    values: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    let mut writer = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .shape(shape)
        .writer(w)
        .begin_nd()?;
    writer.extend(values)?;
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `.npy` file (version 1.0) of `descr` and `shape` holding `data`.
    fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn read_as(descr: &str, data: &[u8], ty: &str) -> Result<Vec<Scalar>, String> {
        let mut ctx = acc_ir::Context::new();
        let ty = acc_ir::parser::parse_type_str(&mut ctx, ty).map_err(|e| e.0)?;
        let path = std::env::temp_dir().join(format!(
            "acc-npy-{}-{}.npy",
            std::process::id(),
            descr.replace(['<', '|'], "")
        ));
        std::fs::write(&path, npy_bytes(descr, "(3,)", data)).map_err(|e| e.to_string())?;
        let t = read(&ctx, &path, ty);
        let _ = std::fs::remove_file(&path);
        t?.values()
    }

    /// `ml_dtypes` arrays: float8_e5m2 (`<f1`) and the raw one-byte elements of the
    /// other small types (`<V1`), read as the argument's type.
    #[test]
    fn reads_the_raw_elements_ml_dtypes_saves() {
        let e5m2 = read_as("<f1", &[0x3c, 0xc0, 0x7c], "tensor<3xf8E5M2>").expect("read");
        assert_eq!(
            e5m2,
            [
                Scalar::Float(1.0),
                Scalar::Float(-2.0),
                Scalar::Float(f64::INFINITY)
            ]
        );
        let e4m3 = read_as("<V1", &[0x38, 0x7e, 0x01], "tensor<3xf8E4M3FN>").expect("read");
        assert_eq!(
            e4m3,
            [
                Scalar::Float(1.0),
                Scalar::Float(448.0),
                Scalar::Float(2f64.powi(-9))
            ]
        );
        let int4 = read_as("<V1", &[0xff, 0x07, 0xf8], "tensor<3xsi4>").expect("read");
        assert_eq!(int4, [Scalar::Int(-1), Scalar::Int(7), Scalar::Int(-8)]);
        let uint4 = read_as("<V1", &[0x0f, 0x07, 0x00], "tensor<3xui4>").expect("read");
        assert_eq!(uint4, [Scalar::Int(15), Scalar::Int(7), Scalar::Int(0)]);
        // Elements are read after the header, not from the end of the file.
        let mut long = npy_bytes("<V1", "(3,)", &[0x38, 0x38, 0x38]);
        long.extend_from_slice(&[0x7e; 5]);
        let path = std::env::temp_dir().join(format!("acc-npy-{}-long.npy", std::process::id()));
        std::fs::write(&path, long).expect("write");
        let mut ctx = acc_ir::Context::new();
        let ty = acc_ir::parser::parse_type_str(&mut ctx, "tensor<3xf8E4M3FN>").expect("a type");
        let read_back = read(&ctx, &path, ty).and_then(|t| t.values());
        let _ = std::fs::remove_file(&path);
        assert_eq!(read_back.expect("read"), [Scalar::Float(1.0); 3]);
        let short = read_as("<V1", &[0x38], "tensor<3xf8E4M3FN>").expect_err("too short");
        assert!(short.contains("fewer elements"), "{short}");
        // A raw element into a type NumPy has is refused.
        let err = read_as("<V1", &[0, 0, 0], "tensor<3xi8>").expect_err("refused");
        assert!(err.contains("is not supported"), "{err}");
    }
}
