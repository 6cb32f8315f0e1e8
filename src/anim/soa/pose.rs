//! A pose stored in lane groups (issue 30): per *quad* of bones (`4q..4q+3`), each channel as
//! `Vec4` lanes (`x`, `y`, `z`[, `w`], one bone per lane), plus which lanes an animation wrote.
//! [`crate::anim::TreeEvaluator::evaluate`] samples and blends into one of these — a clip's
//! groups line up with its quads (bone `b` in lane `b % 4`), so sampling and blending never
//! transpose — and writes the result into the array-of-structures [`Pose`] once, at the end,
//! where consumers read transforms. The rest pose a skeleton falls back to is kept in this
//! form by the [`Skeleton`](crate::anim::Skeleton) itself.

use glam::{Mat4, Quat, Vec3, Vec4};

use super::lanes::{self, Lanes};
use super::{Kind, LANES, SoaClip};
use crate::anim::blend::BoundClip;
use crate::anim::pose::Pose;

/// Channel `kind` of a quad: translation, rotation, scale (`Kind as usize`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Quad {
    /// Translation, rotation and scale lanes (translation and scale leave the fourth 0).
    pub(super) c: [Lanes; 3],
    /// Lanes (bits) some clip animates.
    pub(super) animated: u8,
}

/// Bones in lane groups (see the module docs); reused across frames (allocates only when the
/// bone count grows).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LanePose {
    pub(super) quads: Vec<Quad>,
    /// Bones (the last quad's lanes past it are padding, never written out).
    n: usize,
}

impl LanePose {
    /// The rest pose given as arrays, in lane groups (padding lanes: identity).
    pub fn from_rest(rest: (&[Vec3], &[Quat], &[Vec3])) -> LanePose {
        let (t, r, s) = rest;
        let n = t.len().min(r.len()).min(s.len());
        let quads = (0..n.div_ceil(LANES))
            .map(|q| {
                let b = |l: usize| (q * LANES + l < n).then_some(q * LANES + l);
                let tv = std::array::from_fn(|l| b(l).map_or(Vec3::ZERO, |i| t[i]));
                let rv = std::array::from_fn(|l| b(l).map_or(Quat::IDENTITY, |i| r[i]));
                let sv = std::array::from_fn(|l| b(l).map_or(Vec3::ONE, |i| s[i]));
                Quad {
                    c: [
                        lanes::from_vec3(tv),
                        lanes::from_quat(rv),
                        lanes::from_vec3(sv),
                    ],
                    animated: 0,
                }
            })
            .collect();
        LanePose { quads, n }
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the pose has no bones.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Copies `other` into this pose, reusing the buffer.
    pub fn copy_from(&mut self, other: &LanePose) {
        self.quads.clone_from(&other.quads);
        self.n = other.n;
    }

    /// Writes every bone into `out` (resized to the bone count, reusing its buffers): the one
    /// transpose of an evaluation.
    pub fn write_to(&self, out: &mut Pose) {
        let n = self.n;
        out.translations.resize(n, Vec3::ZERO);
        out.rotations.resize(n, Quat::IDENTITY);
        out.scales.resize(n, Vec3::ONE);
        out.animated.resize(n, false);
        // Full quads as fixed-size arrays (one 4×4 transpose per channel, stored whole), then
        // the last, partial one lane by lane.
        let full = (n / LANES).min(self.quads.len());
        let chunks = out
            .translations
            .as_chunks_mut::<LANES>()
            .0
            .iter_mut()
            .zip(out.rotations.as_chunks_mut::<LANES>().0)
            .zip(out.scales.as_chunks_mut::<LANES>().0)
            .zip(out.animated.as_chunks_mut::<LANES>().0);
        for (q, (((t, r), s), a)) in self.quads[..full].iter().zip(chunks) {
            *t = vec3s(&q.c[0]);
            *r = quats(&q.c[1]);
            *s = vec3s(&q.c[2]);
            *a = std::array::from_fn(|l| q.animated & (1 << l) != 0);
        }
        if let Some(q) = self.quads.get(full) {
            let at = full * LANES;
            write_quad(
                q,
                &mut out.translations[at..],
                &mut out.rotations[at..],
                &mut out.scales[at..],
                &mut out.animated[at..],
            );
        }
    }
}

/// Four bones' `Vec3`s from lanes `[x, y, z, _]` (a 4×4 transpose: shuffles only, the values
/// are moved, not changed).
#[inline(always)]
pub(super) fn vec3s(v: &Lanes) -> [Vec3; LANES] {
    let m = Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis].map(Vec4::truncate)
}

/// Four bones' quaternions from lanes `[x, y, z, w]`.
#[inline(always)]
pub(super) fn quats(v: &Lanes) -> [Quat; LANES] {
    let m = Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis].map(Quat::from_vec4)
}

/// Lanes `[x, y, z, 0]` of four bones' `Vec3`s (the transpose of [`vec3s`]).
#[inline(always)]
pub(super) fn vec3_lanes(v: &[Vec3; LANES]) -> Lanes {
    let m = Mat4::from_cols(
        v[0].extend(0.0),
        v[1].extend(0.0),
        v[2].extend(0.0),
        v[3].extend(0.0),
    )
    .transpose();
    [m.x_axis, m.y_axis, m.z_axis, Vec4::ZERO]
}

/// Lanes `[x, y, z, w]` of four quaternions (the transpose of [`quats`]).
#[inline(always)]
pub(super) fn quat_lanes(v: &[Quat; LANES]) -> Lanes {
    let m = Mat4::from_cols(
        Vec4::from(v[0]),
        Vec4::from(v[1]),
        Vec4::from(v[2]),
        Vec4::from(v[3]),
    )
    .transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// Writes the lanes of quad `q` into the bones of the slices (at most four).
#[inline(always)]
fn write_quad(q: &Quad, t: &mut [Vec3], r: &mut [Quat], s: &mut [Vec3], a: &mut [bool]) {
    let [tx, ty, tz, _] = q.c[0].map(|v| v.to_array());
    let [rx, ry, rz, rw] = q.c[1].map(|v| v.to_array());
    let [sx, sy, sz, _] = q.c[2].map(|v| v.to_array());
    for (l, v) in t.iter_mut().take(LANES).enumerate() {
        *v = Vec3::new(tx[l], ty[l], tz[l]);
    }
    for (l, v) in r.iter_mut().take(LANES).enumerate() {
        *v = Quat::from_xyzw(rx[l], ry[l], rz[l], rw[l]);
    }
    for (l, v) in s.iter_mut().take(LANES).enumerate() {
        *v = Vec3::new(sx[l], sy[l], sz[l]);
    }
    for (l, v) in a.iter_mut().take(LANES).enumerate() {
        *v = q.animated & (1 << l) != 0;
    }
}

/// `a` where `m` is false, else `b`, for every component.
#[inline(always)]
fn select(m: glam::BVec4A, b: &Lanes, a: &Lanes) -> Lanes {
    std::array::from_fn(|c| Vec4::select(m, b[c], a[c]))
}

/// A lane mask from bits.
#[inline(always)]
fn mask(bits: u8) -> glam::BVec4A {
    glam::BVec4A::new(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0)
}

/// Whether `c` can sample into a lane pose of `n` bones (else the evaluator takes the
/// array-of-structures path for the whole evaluation).
#[inline]
pub fn fits(c: &BoundClip, n: usize) -> bool {
    c.soa().fits(n)
}

/// Samples `c` at clip time `t` into `out` (as [`super::sample`]; `c` must [`fits`]).
pub fn sample_lanes(c: &BoundClip, t: f64, hints: &mut [u32], out: &mut LanePose) {
    let soa = c.soa();
    soa.each_value(super::ops::clamp_time(c, t), hints, |kind, g, v| {
        let Some(q) = out.quads.get_mut(g.quad as usize) else {
            return;
        };
        let k = kind as usize;
        q.c[k] = if g.live == 0xF {
            *v
        } else {
            select(mask(g.live), v, &q.c[k])
        };
    });
    for (q, cov) in out.quads.iter_mut().zip(&soa.quads) {
        q.animated |= cov[3];
    }
}

/// One running-mean step (as [`super::blend_step`]) on a lane pose; `rest` is the skeleton's
/// rest pose in lane groups (`c` must [`fits`]).
pub fn blend_step_lanes(
    rest: &LanePose,
    c: &BoundClip,
    t: f64,
    s: f32,
    hints: &mut [u32],
    out: &mut LanePose,
) {
    let soa = c.soa();
    let sv = Vec4::splat(s);
    let rv = Vec4::ONE - sv;
    soa.each_value(t, hints, |kind, g, v| {
        let Some(q) = out.quads.get_mut(g.quad as usize) else {
            return;
        };
        let k = kind as usize;
        let cur = &q.c[k];
        let r = match kind {
            Kind::Rotation => lanes::nlerp_r(cur, v, sv, rv),
            _ => lanes::lerp_r(cur, v, sv, rv, 3),
        };
        q.c[k] = if g.live == 0xF {
            r
        } else {
            select(mask(g.live), &r, cur)
        };
    });
    // Channels the clip lacks on its bones, and animated bones it does not bind, move toward
    // the rest pose (which stands for the clip there) — a quad at a time.
    const NONE: [u8; 4] = [0; 4];
    for (i, (q, r)) in out.quads.iter_mut().zip(&rest.quads).enumerate() {
        let cov = soa.quads.get(i).unwrap_or(&NONE);
        let moving = (cov[3] | q.animated) & 0xF;
        if moving == 0 {
            continue;
        }
        // One call per kind (a constant in each), so each is its own straight-line code.
        toward_rest(q, r, Kind::Translation, moving & !cov[0], sv, rv);
        toward_rest(q, r, Kind::Rotation, moving & !cov[1], sv, rv);
        toward_rest(q, r, Kind::Scale, moving & !cov[2], sv, rv);
        q.animated |= cov[3];
    }
}

/// Moves the lanes `miss` (bits) of channel `kind` of `q` toward the rest pose `r` by `s`
/// (`rv = 1 − s`).
#[inline(always)]
fn toward_rest(q: &mut Quad, r: &Quad, kind: Kind, miss: u8, sv: Vec4, rv: Vec4) {
    if miss == 0 {
        return;
    }
    let k = kind as usize;
    let cur = &q.c[k];
    let to = match kind {
        Kind::Rotation => lanes::nlerp_r(cur, &r.c[k], sv, rv),
        _ => lanes::lerp_r(cur, &r.c[k], sv, rv, 3),
    };
    q.c[k] = if miss == 0xF {
        to
    } else {
        select(mask(miss), &to, cur)
    };
}

impl SoaClip {
    /// Per quad of bones below the clip's highest bound bone: the lanes (bits) whose bone has
    /// a translation, rotation, scale channel, and the bound lanes.
    pub(super) fn quad_coverage(covered: &[u8]) -> Vec<[u8; 4]> {
        covered
            .chunks(LANES)
            .map(|c| {
                let bits = |f: u8| {
                    c.iter()
                        .enumerate()
                        .fold(0u8, |m, (l, &v)| if v & f != 0 { m | 1 << l } else { m })
                };
                [
                    bits(Kind::Translation.bit()),
                    bits(Kind::Rotation.bit()),
                    bits(Kind::Scale.bit()),
                    bits(super::BOUND),
                ]
            })
            .collect()
    }
}
