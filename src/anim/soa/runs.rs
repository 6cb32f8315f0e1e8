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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use glam::{Quat, Vec3, Vec4};

    use super::super::lanes;
    use crate::anim::blend::BoundClip;
    use crate::anim::sample::nlerp;
    use crate::anim::skeleton::{BoneDef, Skeleton};
    use crate::anim::{Transform, soa::Kind};
    use crate::animseq::{AnimSeq, Track};

    fn bind(bones: usize, tracks: Vec<Track>) -> BoundClip {
        let defs = (0..bones)
            .map(|i| BoneDef {
                name: format!("b{i}"),
                parent: (i > 0).then(|| "b0".to_string()),
                rest: Transform::IDENTITY,
            })
            .collect();
        let skel = Skeleton::new(defs, vec![]).expect("rig");
        let seq = AnimSeq {
            id: "s".into(),
            name: "S".into(),
            duration: 1.0,
            skeleton: None,
            tracks,
            notifies: vec![],
            windows: vec![],
            curves: vec![],
            root_motion: None,
        };
        BoundClip::new(&seq, &skel, &BTreeMap::new(), "s").0
    }

    /// Every run's groups lie side by side in each key's block: a sample reads two contiguous
    /// blocks per run, and a group's key `k` is at `start + k·stride`.
    #[test]
    fn a_runs_values_are_interleaved_per_key() {
        // Bones 0..9 on one grid (two quads and a partial one), bones 1 and 6 with a second,
        // private list of rotation keys, bone 3 with one scale key.
        let grid = [0.0, 0.5, 1.0];
        let tracks = (0..10)
            .map(|b| Track {
                bone: format!("b{b}"),
                translation: grid
                    .iter()
                    .map(|&t| (t, [b as f32, t as f32, 1.0]))
                    .collect(),
                rotation: if b == 1 || b == 6 {
                    vec![(0.0, [0.0, 0.0, 0.0, 1.0]), (0.3, [0.0, 1.0, 0.0, 0.0])]
                } else {
                    grid.iter()
                        .map(|&t| (t, Quat::from_rotation_y(t as f32 + b as f32).to_array()))
                        .collect()
                },
                scale: if b == 3 {
                    vec![(0.2, [2.0, 2.0, 2.0])]
                } else {
                    vec![]
                },
            })
            .collect();
        let c = bind(10, tracks);
        let soa = c.soa();
        assert!(soa.runs.len() >= 4, "runs: {:?}", soa.runs);
        let mut seen = 0;
        for run in &soa.runs {
            let groups = &soa.groups[run.first as usize..run.end as usize];
            let w = run.kind.width();
            let keys = soa.times.get(run.set as usize).map_or(1, Vec::len);
            for (i, g) in groups.iter().enumerate() {
                assert_eq!((g.set, g.kind), (run.set, run.kind));
                assert_eq!(g.start as usize, run.start as usize + i * w);
                assert_eq!(g.stride as usize, groups.len() * w);
            }
            for k in 0..keys {
                let block = soa.key_block(run, k).expect("block");
                for (i, g) in groups.iter().enumerate() {
                    let one = soa.block(g, k);
                    assert_eq!(&block[i * w..i * w + w], &one[..w]);
                }
            }
            seen += groups.len();
        }
        assert_eq!(seen, soa.groups.len());
        // Bone 9's translation at key 1 (lane 1 of the third quad's group).
        let run = soa
            .runs
            .iter()
            .find(|r| r.kind == Kind::Translation)
            .expect("translation run");
        let block = soa.key_block(run, 1).expect("key 1");
        assert_eq!(block[2 * 3][1], 9.0);
        assert_eq!(block[2 * 3 + 1][1], 0.5);
    }

    /// The lanes' nlerp equals the scalar `nlerp` bit for bit per lane, also when some lanes
    /// cannot be normalized (they keep `a`) and others can.
    #[test]
    fn lane_nlerp_equals_the_scalar_nlerp_with_degenerate_lanes() {
        let a = [
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            Quat::from_rotation_x(0.3),
            Quat::from_xyzw(3.0e38, 3.0e38, 0.0, 1.0),
            Quat::from_xyzw(-0.5, 0.5, -0.5, -0.5),
        ];
        let b = [
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            Quat::from_rotation_z(-2.5),
            Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
            Quat::from_xyzw(0.5, -0.5, 0.5, 0.5),
        ];
        for s in [0.0f32, 0.25, 0.5, 1.0, 1e-30] {
            for rot in 0..4 {
                // Every lane position for every case.
                let pick =
                    |q: &[Quat; 4]| -> [Quat; 4] { std::array::from_fn(|l| q[(l + rot) % 4]) };
                let (qa, qb) = (pick(&a), pick(&b));
                let got =
                    lanes::nlerp(&lanes::from_quat(qa), &lanes::from_quat(qb), Vec4::splat(s));
                for l in 0..4 {
                    let want = nlerp(qa[l], qb[l], s).to_array().map(f32::to_bits);
                    let have = lanes::quat(&got, l).to_array().map(f32::to_bits);
                    assert_eq!(have, want, "s {s} lane {l} rot {rot}");
                }
            }
        }
        // And the lerp of translations.
        let v = [
            Vec3::new(1.0, -2.0, 3.0),
            Vec3::ZERO,
            Vec3::splat(-0.0),
            Vec3::splat(1e30),
        ];
        let w = [
            Vec3::splat(0.5),
            Vec3::ONE,
            Vec3::splat(0.0),
            Vec3::splat(-1e30),
        ];
        let got = lanes::lerp(
            &lanes::from_vec3(v),
            &lanes::from_vec3(w),
            Vec4::splat(0.3),
            3,
        );
        for l in 0..4 {
            let want = (v[l] * (1.0 - 0.3) + w[l] * 0.3)
                .to_array()
                .map(f32::to_bits);
            assert_eq!(lanes::vec3(&got, l).to_array().map(f32::to_bits), want);
        }
    }
}
