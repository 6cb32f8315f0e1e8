//! Accessor decoding into `f32`s, bounds-checked before anything is read: byte offsets,
//! strides, sparse substitution, normalized integer components (`KHR_mesh_quantization`).
//! The number of decoded values never exceeds the bytes the buffers hold, so decoding
//! allocates at most what the file's size justifies.

use super::buffers::Buffers;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;

/// What an accessor must look like to be used.
#[derive(Clone, Copy, Debug)]
pub struct Want {
    /// Required element type.
    pub ty: Type,
    /// Only `FLOAT` components (sampler inputs); otherwise every type but `UNSIGNED_INT`.
    pub float_only: bool,
}

/// Key times: `SCALAR` floats.
pub const TIMES: Want = Want {
    ty: Type::Scalar,
    float_only: true,
};

/// Decoded accessor: `count × components` values, element by element.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded<'b> {
    /// Components per element.
    pub components: usize,
    /// The values.
    pub values: Values<'b>,
}

/// An accessor's values: tightly packed `FLOAT`s (what exporters write) are read in place from
/// the buffer, others decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Values<'b> {
    /// Decoded (strided, normalized integers, sparse, no buffer view).
    Owned(Vec<f32>),
    /// Little-endian `f32`s, 4 bytes each.
    Packed(&'b [u8]),
}

#[allow(clippy::len_without_is_empty)]
impl Values<'_> {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Owned(v) => v.len(),
            Values::Packed(b) => b.len() / 4,
        }
    }

    /// Values `i .. i + N` (panics past [`Values::len`], as indexing does).
    #[inline]
    pub fn array<const N: usize>(&self, i: usize) -> [f32; N] {
        match self {
            Values::Owned(v) => {
                let v = &v[i..i + N];
                std::array::from_fn(|c| v[c])
            }
            Values::Packed(b) => {
                let b = &b[4 * i..4 * (i + N)];
                std::array::from_fn(|c| {
                    f32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
                })
            }
        }
    }

    /// Value `i` (panics past [`Values::len`], as indexing does).
    #[inline]
    pub fn get(&self, i: usize) -> f32 {
        match self {
            Values::Owned(v) => v[i],
            Values::Packed(b) => {
                let c = &b[4 * i..4 * i + 4];
                f32::from_le_bytes([c[0], c[1], c[2], c[3]])
            }
        }
    }
}

impl Decoded<'_> {
    /// Number of elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.components).unwrap_or(0)
    }
}

fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

fn component_name(c: ComponentType) -> &'static str {
    match c {
        ComponentType::I8 => "BYTE",
        ComponentType::U8 => "UNSIGNED_BYTE",
        ComponentType::I16 => "SHORT",
        ComponentType::U16 => "UNSIGNED_SHORT",
        ComponentType::U32 => "UNSIGNED_INT",
        ComponentType::F32 => "FLOAT",
    }
}

/// Decodes accessor `index` as `want`. Errors name the accessor, its view and the byte range.
pub fn decode<'b>(
    root: &gltf::json::Root,
    buffers: &'b Buffers<'_>,
    index: usize,
    want: Want,
) -> Result<Decoded<'b>, String> {
    let Some(acc) = root.accessors.get(index) else {
        return Err(format!(
            "accessor {index} does not exist ({} accessors)",
            root.accessors.len()
        ));
    };
    let (Checked::Valid(ty), Checked::Valid(ct)) = (&acc.type_, &acc.component_type) else {
        return Err(format!(
            "accessor {index} has an invalid type or component type"
        ));
    };
    let (ty, ct) = (*ty, ct.0);
    if ty != want.ty {
        return Err(format!(
            "accessor {index} is {} but {} is needed here",
            type_name(ty),
            type_name(want.ty)
        ));
    }
    if (want.float_only && ct != ComponentType::F32) || ct == ComponentType::U32 {
        return Err(format!(
            "accessor {index} has component type {}, which cannot hold {} here",
            component_name(ct),
            if want.float_only {
                "key times (FLOAT only)"
            } else {
                "animation values"
            }
        ));
    }
    let comps = ty.multiplicity();
    let csize = ct.size();
    let elem = comps * csize;
    let count = usize::try_from(acc.count.0).map_err(|_| format!("accessor {index}: count"))?;
    if count == 0 {
        return Err(format!("accessor {index} has no elements (`count` is 0)"));
    }
    let n_values = count
        .checked_mul(comps)
        .filter(|&n| n <= buffers.total)
        .ok_or_else(|| {
            format!(
                "accessor {index} declares {count} elements, more than the model's {} buffer \
                 bytes can hold",
                buffers.total
            )
        })?;
    let mut values = Vec::new();
    match acc.buffer_view {
        None => values.resize(n_values, 0.0),
        Some(v) => {
            let (bytes, stride) = view_bytes(root, buffers, v.value(), index)?;
            let stride = stride.unwrap_or(elem);
            if stride < elem {
                return Err(format!(
                    "accessor {index}: buffer view {} has byteStride {stride}, less than the \
                     element size {elem}",
                    v.value()
                ));
            }
            let off = acc.byte_offset.map_or(0, |o| o.0);
            let need = (stride as u64)
                .checked_mul(count as u64 - 1)
                .and_then(|x| x.checked_add(off))
                .and_then(|x| x.checked_add(elem as u64));
            if need.is_none_or(|n| n > bytes.len() as u64) {
                return Err(format!(
                    "accessor {index} is out of bounds: {count} elements of {elem} bytes (stride \
                     {stride}) from byte {off} need {} bytes, buffer view {} has {}",
                    need.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    v.value(),
                    bytes.len()
                ));
            }
            let off = off as usize;
            let normalized = acc.normalized;
            if ct == ComponentType::F32 && stride == elem {
                // Tightly packed floats, what exporters write: read in place.
                let packed = &bytes[off..off + count * elem];
                if acc.sparse.is_none() {
                    return Ok(Decoded {
                        components: comps,
                        values: Values::Packed(packed),
                    });
                }
                values.reserve_exact(n_values);
                values.extend(
                    packed
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
            } else {
                values.reserve_exact(n_values);
                for e in 0..count {
                    let at = off + e * stride;
                    let el = &bytes[at..at + elem];
                    for c in el.chunks_exact(csize) {
                        values.push(component(c, ct, normalized));
                    }
                }
            }
        }
    }
    if let Some(sp) = &acc.sparse {
        sparse(
            root,
            buffers,
            index,
            sp,
            count,
            comps,
            ct,
            acc.normalized,
            &mut values,
        )?;
    }
    Ok(Decoded {
        components: comps,
        values: Values::Owned(values),
    })
}

/// The bytes of buffer view `v` and its stride, bounds-checked against its buffer.
fn view_bytes<'b>(
    root: &gltf::json::Root,
    buffers: &'b Buffers<'_>,
    v: usize,
    accessor: usize,
) -> Result<(&'b [u8], Option<usize>), String> {
    let Some(view) = root.buffer_views.get(v) else {
        return Err(format!(
            "accessor {accessor}: buffer view {v} does not exist"
        ));
    };
    let b = view.buffer.value();
    let Some(buf) = buffers.get(b) else {
        return Err(format!("buffer view {v}: buffer {b} does not exist"));
    };
    let off = view.byte_offset.map_or(0, |o| o.0);
    let len = view.byte_length.0;
    match off.checked_add(len) {
        Some(end) if end <= buf.len() as u64 => Ok((
            &buf[off as usize..end as usize],
            view.byte_stride.map(|s| s.0),
        )),
        _ => Err(format!(
            "buffer view {v} (bytes {off}..{}) is out of bounds of buffer {b} ({} bytes)",
            off.saturating_add(len),
            buf.len()
        )),
    }
}

#[inline]
fn component(c: &[u8], ct: ComponentType, normalized: bool) -> f32 {
    match ct {
        ComponentType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        ComponentType::I8 => {
            let v = c[0] as i8 as f32;
            if normalized { (v / 127.0).max(-1.0) } else { v }
        }
        ComponentType::U8 => {
            let v = f32::from(c[0]);
            if normalized { v / 255.0 } else { v }
        }
        ComponentType::I16 => {
            let v = f32::from(i16::from_le_bytes([c[0], c[1]]));
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U16 => {
            let v = f32::from(u16::from_le_bytes([c[0], c[1]]));
            if normalized { v / 65535.0 } else { v }
        }
        ComponentType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f32,
    }
}

#[allow(clippy::too_many_arguments)]
fn sparse(
    root: &gltf::json::Root,
    buffers: &Buffers<'_>,
    index: usize,
    sp: &gltf::json::accessor::sparse::Sparse,
    count: usize,
    comps: usize,
    ct: ComponentType,
    normalized: bool,
    values: &mut [f32],
) -> Result<(), String> {
    let n = usize::try_from(sp.count.0).unwrap_or(usize::MAX);
    if n == 0 || n > count {
        return Err(format!(
            "accessor {index}: sparse count {} must be between 1 and the accessor's {count}",
            sp.count.0
        ));
    }
    let Checked::Valid(ict) = &sp.indices.component_type else {
        return Err(format!(
            "accessor {index}: invalid sparse index component type"
        ));
    };
    let isize = ict.0.size();
    let (ibytes, _) = view_bytes(root, buffers, sp.indices.buffer_view.value(), index)?;
    let (vbytes, _) = view_bytes(root, buffers, sp.values.buffer_view.value(), index)?;
    let ioff = sp.indices.byte_offset.0;
    let voff = sp.values.byte_offset.0;
    let elem = comps * ct.size();
    let fits = |off: u64, size: usize, have: usize| {
        (n as u64)
            .checked_mul(size as u64)
            .and_then(|x| x.checked_add(off))
            .is_some_and(|end| end <= have as u64)
    };
    if !fits(ioff, isize, ibytes.len()) {
        return Err(format!(
            "accessor {index}: {n} sparse indices from byte {ioff} are out of bounds of buffer \
             view {} ({} bytes)",
            sp.indices.buffer_view.value(),
            ibytes.len()
        ));
    }
    if !fits(voff, elem, vbytes.len()) {
        return Err(format!(
            "accessor {index}: {n} sparse values from byte {voff} are out of bounds of buffer \
             view {} ({} bytes)",
            sp.values.buffer_view.value(),
            vbytes.len()
        ));
    }
    let (ioff, voff) = (ioff as usize, voff as usize);
    for k in 0..n {
        let at = ioff + k * isize;
        let ib = &ibytes[at..at + isize];
        let target = match ict.0 {
            ComponentType::U8 => usize::from(ib[0]),
            ComponentType::U16 => usize::from(u16::from_le_bytes([ib[0], ib[1]])),
            _ => u32::from_le_bytes([ib[0], ib[1], ib[2], ib[3]]) as usize,
        };
        if target >= count {
            return Err(format!(
                "accessor {index}: sparse index {k} names element {target} of {count}"
            ));
        }
        let vat = voff + k * elem;
        for (c, chunk) in vbytes[vat..vat + elem].chunks_exact(ct.size()).enumerate() {
            values[target * comps + c] = component(chunk, ct, normalized);
        }
    }
    Ok(())
}
