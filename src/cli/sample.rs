//! `sinew sample CLIP.animseq --at T [--bone NAME] [--format human|json]` (`import.md`): every
//! bone's local transform at clip time `T` (clamped to `[0, duration]`), sampled exactly as the
//! runtime samples (`anim::ClipBinding`). Bones come in track order, then the skeleton's other
//! bones in skeleton order; a channel without keys shows the rest value (identity without a
//! skeleton).

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics, write_json};
use crate::anim::{ClipBinding, CompiledClip, Pose, Skeleton, load_skeleton_bytes};
use crate::animseq;
use crate::escape::Escaped;
use crate::fsutil::{InputKind, read_input};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The `.animseq` file.
    pub file: PathBuf,
    /// Clip time in seconds (clamped to `[0, duration]`); `--at 0.5`, `--at=-1`.
    #[arg(long, allow_negative_numbers = true)]
    pub at: f64,
    /// Only this bone (matched across `:`/`_`/case).
    #[arg(long)]
    pub bone: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(ctx: &Ctx, a: &Args, out: &mut dyn Write) -> Result<u8, String> {
    if !a.at.is_finite() {
        eprintln!("error: --at must be a finite number, got {}", a.at);
        return Ok(FAILURE);
    }
    let display = ctx.display(&a.file);
    let bytes =
        read_input(&a.file, InputKind::Clip).map_err(|e| format!("cannot read {display}: {e}"))?;
    let loaded = animseq::load_bytes(&display, &bytes);
    let Some(seq) = loaded
        .seq
        .filter(|_| !loaded.diagnostics.iter().any(|d| d.is_error()))
    else {
        eprint!("{}", human_diagnostics(ctx, &loaded.diagnostics));
        return Ok(INPUT_ERRORS);
    };
    let skeleton = seq.skeleton.as_ref().and_then(|rel| {
        let p = a
            .file
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join(rel);
        let shown = ctx.display(&p);
        match read_input(&p, InputKind::Skeleton) {
            Ok(b) => {
                let l = load_skeleton_bytes(&shown, &b);
                if l.skeleton.is_none() {
                    eprint!("{}", human_diagnostics(ctx, &l.diagnostics));
                    eprintln!(
                        "warning: skeleton {} does not load; rest values are identity",
                        Escaped(&shown)
                    );
                }
                l.skeleton
            }
            Err(e) => {
                eprintln!(
                    "warning: cannot read skeleton {} ({}); rest values are identity",
                    Escaped(&shown),
                    Escaped(&e.to_string())
                );
                None
            }
        }
    });
    let clip = CompiledClip::new(&seq);
    let skel = skeleton
        .unwrap_or_else(|| Skeleton::from_track_names(seq.tracks.iter().map(|t| t.bone.as_str())));
    let (binding, _unbound) = ClipBinding::new(&clip, &skel, &BTreeMap::new(), &display);
    let t = a.at.clamp(0.0, seq.duration);
    let mut pose = Pose::rest(&skel);
    binding.sample(&clip, t, &mut pose);

    // Track order first, then the skeleton's other bones.
    let mut order = Vec::with_capacity(skel.len());
    let mut listed = vec![false; skel.len()];
    for tr in &seq.tracks {
        if let Some(b) = skel.find(&tr.bone)
            && !listed[b]
        {
            listed[b] = true;
            order.push(b);
        }
    }
    order.extend((0..skel.len()).filter(|&b| !listed[b]));
    if let Some(name) = &a.bone {
        match skel.find(name) {
            Some(b) => order.retain(|&x| x == b),
            None => {
                let names: Vec<&str> = skel.bones().iter().map(|b| b.name.as_str()).collect();
                let hint = crate::suggest::closest(name, names.iter().copied())
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                eprintln!(
                    "error: {} has no bone `{}`{}",
                    Escaped(&display),
                    Escaped(name),
                    Escaped(&hint)
                );
                return Ok(FAILURE);
            }
        }
    }
    let io = |e: std::io::Error| e.to_string();
    match a.format {
        Format::Json => {
            let bones: Vec<_> = order
                .iter()
                .map(|&b| {
                    let l = pose.local(b);
                    json!({
                        "bone": skel.bones()[b].name,
                        "translation": shortest(&l.translation.to_array()),
                        "rotation": shortest(&l.rotation.to_array()),
                        "scale": shortest(&l.scale.to_array()),
                    })
                })
                .collect();
            write_json(out, &json!({"time": t, "bones": bones}))?;
        }
        Format::Human => {
            let clamped = if t == a.at {
                String::new()
            } else {
                format!(" (clamped from {})", super::num(a.at))
            };
            writeln!(
                out,
                "{} at {} s{clamped}",
                Escaped(&seq.name),
                super::num(t)
            )
            .map_err(io)?;
            for &b in &order {
                let l = pose.local(b);
                writeln!(
                    out,
                    "  {}  translation {}  rotation {}  scale {}",
                    Escaped(&skel.bones()[b].name),
                    vec(&l.translation.to_array()),
                    vec(&l.rotation.to_array()),
                    vec(&l.scale.to_array())
                )
                .map_err(io)?;
            }
        }
    }
    Ok(OK)
}

fn vec(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("({})", parts.join(", "))
}

/// `f32`s with their own shortest decimals (`crate::number`), so JSON shows `0.1`, not
/// `0.10000000149011612`.
fn shortest(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| crate::number::f32_value(x)).collect()
}
