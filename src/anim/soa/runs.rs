//! The sampling loop of the SoA path: run by run (the groups of one time list and kind), each
//! time list located once, the two key blocks of a run read as contiguous arrays (no bounds
//! check per group), the interpolation specialized per kind and the clamped case (one key)
//! decided once per run, not per group.

use glam::Vec4;

use super::lanes::{self, Lanes};
use super::{Group, Kind, Run, SoaClip};
use crate::anim::sample::KeyPos;

impl SoaClip {
    /// Calls `f` with the kind, the group and the group's values at clip time `t` (unsanitized,
    /// as [`super::SoaClip::each_pos`] takes it) for every group, in group order; `hints` are
    /// the clip's cursors (empty: binary search every time).
    #[inline(always)]
    pub(super) fn each_value(
        &self,
        t: f64,
        hints: &mut [u32],
        mut f: impl FnMut(Kind, &Group, &Lanes),
    ) {
        let mut at = None;
        let mut pos = KeyPos::default();
        for run in &self.runs {
            if at != Some(run.set) {
                at = Some(run.set);
                pos = self.locate(run.set, t, hints);
            }
            // The kind is a constant inside each arm, so `f`'s own match on it folds away.
            match run.kind {
                Kind::Rotation => self.run_values::<4>(run, pos, |g, v| f(Kind::Rotation, g, v)),
                Kind::Translation => {
                    self.run_values::<3>(run, pos, |g, v| f(Kind::Translation, g, v))
                }
                Kind::Scale => self.run_values::<3>(run, pos, |g, v| f(Kind::Scale, g, v)),
            }
        }
    }

    /// The values of every group of `run` (`W` components per key) at `pos`.
    #[inline(always)]
    fn run_values<const W: usize>(
        &self,
        run: &Run,
        pos: KeyPos,
        mut f: impl FnMut(&Group, &Lanes),
    ) {
        let Some(groups) = self.groups.get(run.first as usize..run.end as usize) else {
            return;
        };
        let (Some(a), Some(b)) = (self.key_block(run, pos.i0), self.key_block(run, pos.i1)) else {
            return;
        };
        let (a, _) = a.as_chunks::<W>();
        let (b, _) = b.as_chunks::<W>();
        let lanes = |v: &[Vec4; W]| -> Lanes {
            std::array::from_fn(|c| if c < W { v[c.min(W - 1)] } else { Vec4::ZERO })
        };
        if pos.i0 == pos.i1 {
            for (g, a) in groups.iter().zip(a) {
                f(g, &lanes(a));
            }
            return;
        }
        let s = Vec4::splat(pos.s);
        let r = Vec4::ONE - s;
        for ((g, a), b) in groups.iter().zip(a).zip(b) {
            let (a, b) = (lanes(a), lanes(b));
            let v = if W == 4 {
                lanes::nlerp_r(&a, &b, s, r)
            } else {
                lanes::lerp_r(&a, &b, s, r, 3)
            };
            f(g, &v);
        }
    }
}
