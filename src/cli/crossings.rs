//! `sinew crossings`: notify crossings and window edges of one `.animseq` over one playback
//! interval.

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics};
use crate::animseq::{self, AnimSeq};
use crate::crossing::{Crossing, DEFAULT_LIMIT, Edge, NotifyIndex, PlaybackInterval};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("mode").required(true).multiple(false).args(["from", "seek", "paused"]))]
pub struct Args {
    /// The `.animseq` file.
    pub file: PathBuf,
    /// Departure time (unwrapped seconds); with `--start`, the start time `at`.
    #[arg(long, allow_negative_numbers = true, requires = "to")]
    pub from: Option<f64>,
    /// Arrival time (unwrapped seconds).
    #[arg(long, allow_negative_numbers = true, requires = "from")]
    pub to: Option<f64>,
    /// The clip loops.
    #[arg(long)]
    pub looping: bool,
    /// Playback (re)started at `--from`: occurrences exactly there fire too.
    #[arg(long)]
    pub start: bool,
    /// The playhead jumped: nothing fires.
    #[arg(long)]
    pub seek: bool,
    /// Playback is paused: nothing fires.
    #[arg(long)]
    pub paused: bool,
    /// The most crossings to return.
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The largest `--limit` accepted: the result is held in memory, so the limit bounds it.
pub const MAX_LIMIT: usize = 10_000_000;

pub fn run(ctx: &Ctx, a: &Args, out: &mut dyn Write) -> Result<u8, String> {
    if a.limit > MAX_LIMIT {
        eprintln!(
            "error: --limit must be at most {MAX_LIMIT}, got {}",
            a.limit
        );
        return Ok(FAILURE);
    }
    let interval = if a.seek {
        PlaybackInterval::Seek
    } else if a.paused {
        PlaybackInterval::Paused
    } else {
        let (from, to) = (a.from.unwrap_or(0.0), a.to.unwrap_or(0.0));
        for (flag, v) in [("--from", from), ("--to", to)] {
            if !v.is_finite() {
                eprintln!("error: {flag} must be a finite number, got {v}");
                return Ok(FAILURE);
            }
        }
        if a.start {
            PlaybackInterval::Start {
                at: from,
                to,
                looping: a.looping,
            }
        } else {
            PlaybackInterval::Advance {
                from,
                to,
                looping: a.looping,
            }
        }
    };
    let name = ctx.display(&a.file);
    let bytes = std::fs::read(&a.file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let loaded = animseq::load_bytes(&name, &bytes);
    if loaded.diagnostics.iter().any(|d| d.is_error()) || loaded.seq.is_none() {
        eprint!("{}", human_diagnostics(ctx, &loaded.diagnostics));
        return Ok(INPUT_ERRORS);
    }
    let Some(seq) = loaded.seq else {
        return Ok(INPUT_ERRORS);
    };
    let times: Vec<f64> = seq.notifies.iter().map(|n| n.time).collect();
    let windows: Vec<(f64, f64)> = seq.windows.iter().map(|w| (w.begin, w.end)).collect();
    let index = NotifyIndex::with_windows(seq.duration, &times, &windows)
        .map_err(|e| format!("{name}: {e}"))?;
    let result = match index.query(&interval, a.limit) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(FAILURE);
        }
    };
    let io = |e: std::io::Error| e.to_string();
    match a.format {
        Format::Json => {
            // One crossing at a time: the output is never built whole in memory.
            out.write_all(b"{\"crossings\":[").map_err(io)?;
            for (i, c) in result.list.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",").map_err(io)?;
                }
                serde_json::to_writer(&mut *out, &crossing_json(&seq, c))
                    .map_err(|e| e.to_string())?;
            }
            writeln!(out, "],\"truncated\":{}}}", result.truncated).map_err(io)?;
        }
        Format::Human => {
            for c in &result.list {
                let (id, name) = marker(&seq, c);
                let edge = match c.edge {
                    None => "",
                    Some(Edge::Begin) => "  begin",
                    Some(Edge::End) => "  end",
                };
                writeln!(
                    out,
                    "{:<8} {id}  \"{name}\"{edge}  clip {}  cycle {}",
                    super::num(c.time),
                    super::num(c.clip_time),
                    c.cycle
                )
                .map_err(io)?;
            }
            writeln!(
                out,
                "{} crossing{}{}",
                result.list.len(),
                if result.list.len() == 1 { "" } else { "s" },
                if result.truncated {
                    " (truncated at the limit)"
                } else {
                    ""
                }
            )
            .map_err(io)?;
        }
    }
    Ok(OK)
}

/// The stable ID and the own name of the notify or window a crossing belongs to.
fn marker<'s>(seq: &'s AnimSeq, c: &Crossing) -> (&'s str, &'s str) {
    let i = c.notify as usize;
    match c.edge {
        None => (&seq.notifies[i].id, &seq.notifies[i].name),
        Some(_) => (&seq.windows[i].id, &seq.windows[i].name),
    }
}

/// The JSON form of one crossing (`cli.md`; `windows.md` adds `"edge"` to window edges).
fn crossing_json(seq: &AnimSeq, c: &Crossing) -> serde_json::Value {
    let (id, name) = marker(seq, c);
    let mut v = json!({"id": id, "name": name});
    if let Some(edge) = c.edge {
        v["edge"] = json!(match edge {
            Edge::Begin => "begin",
            Edge::End => "end",
        });
    }
    v["time"] = json!(c.time);
    v["clip_time"] = json!(c.clip_time);
    v["cycle"] = json!(c.cycle);
    v
}
