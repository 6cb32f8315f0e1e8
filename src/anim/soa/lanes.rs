//! Four-lane math on `Vec4`s (one per component, one bone per lane), written so every lane
//! computes exactly what the scalar path computes for its bone: the same operations in the same
//! order, no fused multiply-add.

use glam::{Quat, Vec3, Vec4};

/// Up to four components of four bones: `[x, y, z, w]`, each a `Vec4` of lanes.
pub(super) type Lanes = [Vec4; 4];

/// glam's `Vec4::dot` (and so `Quat::dot` / `length_squared`) per lane, in glam's summation
/// order: `(x·x' + z·z') + (y·y' + w·w')` where glam uses SSE2, left to right elsewhere.
#[inline(always)]
fn dot4(a: &Lanes, b: &Lanes) -> Vec4 {
    #[cfg(all(target_feature = "sse2", not(target_arch = "wasm32")))]
    {
        (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])
    }
    #[cfg(not(all(target_feature = "sse2", not(target_arch = "wasm32"))))]
    {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    }
}

/// `a·(1 − s) + b·s` per lane for the first `width` components (`Vec3` interpolation).
#[inline(always)]
pub(super) fn lerp(a: &Lanes, b: &Lanes, s: Vec4, width: usize) -> Lanes {
    lerp_r(a, b, s, Vec4::ONE - s, width)
}

/// [`lerp`] with `r = 1 − s` given (hoisted out of a loop over groups).
#[inline(always)]
pub(super) fn lerp_r(a: &Lanes, b: &Lanes, s: Vec4, r: Vec4, width: usize) -> Lanes {
    let mut out = *a;
    for c in 0..width.min(4) {
        out[c] = a[c] * r + b[c] * s;
    }
    out
}

/// [`crate::anim::nlerp`] per lane: shortest-path normalized lerp, `a` where the result's
/// squared length is not above 1e-12 or not finite.
#[inline(always)]
pub(super) fn nlerp(a: &Lanes, b: &Lanes, s: Vec4) -> Lanes {
    nlerp_r(a, b, s, Vec4::ONE - s)
}

/// [`nlerp`] with `r = 1 − s` given.
#[inline(always)]
pub(super) fn nlerp_r(a: &Lanes, b: &Lanes, s: Vec4, r: Vec4) -> Lanes {
    let flip = dot4(a, b).cmplt(Vec4::ZERO);
    // glam negates a quaternion as `q * -1.0`; `q * 1.0` is `q` to the bit, so one sign per
    // lane replaces a select per component.
    let sign = Vec4::select(flip, Vec4::NEG_ONE, Vec4::ONE);
    let q: Lanes = std::array::from_fn(|c| a[c] * r + (b[c] * sign) * s);
    let l = dot4(&q, &q);
    // `l` is a sum of squares (never negative), so `l < ∞` is `l.is_finite()` (NaN fails both).
    let ok = l.cmpgt(Vec4::splat(1e-12)) & l.cmplt(Vec4::INFINITY);
    let inv = sqrt(l).recip();
    if ok.all() {
        std::array::from_fn(|c| q[c] * inv)
    } else {
        std::array::from_fn(|c| Vec4::select(ok, q[c] * inv, a[c]))
    }
}

/// Per-lane square root, correctly rounded as `f32::sqrt` (written on an array, which LLVM
/// turns into one `sqrtps` on x86-64).
#[inline(always)]
pub(super) fn sqrt(v: Vec4) -> Vec4 {
    Vec4::from_array(v.to_array().map(f32::sqrt))
}

/// Lane `l` of the first three components.
#[inline(always)]
pub(super) fn vec3(v: &Lanes, l: usize) -> Vec3 {
    Vec3::new(v[0][l], v[1][l], v[2][l])
}

/// Lane `l` as a quaternion.
#[inline(always)]
pub(super) fn quat(v: &Lanes, l: usize) -> Quat {
    Quat::from_xyzw(v[0][l], v[1][l], v[2][l], v[3][l])
}

/// Four `Vec3`s as lanes (the fourth component 0).
#[inline(always)]
pub(super) fn from_vec3(v: [Vec3; 4]) -> Lanes {
    [
        Vec4::new(v[0].x, v[1].x, v[2].x, v[3].x),
        Vec4::new(v[0].y, v[1].y, v[2].y, v[3].y),
        Vec4::new(v[0].z, v[1].z, v[2].z, v[3].z),
        Vec4::ZERO,
    ]
}

/// Four quaternions as lanes.
#[inline(always)]
pub(super) fn from_quat(q: [Quat; 4]) -> Lanes {
    [
        Vec4::new(q[0].x, q[1].x, q[2].x, q[3].x),
        Vec4::new(q[0].y, q[1].y, q[2].y, q[3].y),
        Vec4::new(q[0].z, q[1].z, q[2].z, q[3].z),
        Vec4::new(q[0].w, q[1].w, q[2].w, q[3].w),
    ]
}
