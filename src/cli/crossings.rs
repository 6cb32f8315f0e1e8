//! `sinew crossings`: notify crossings and window edges of one `.animseq` over one playback
//! interval.

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics};
use crate::animseq::{self, AnimSeq};
use crate::crossing::{Crossing, DEFAULT_LIMIT, Edge, NotifyIndex, PlaybackInterval};
use crate::escape::Escaped;
use crate::fsutil::{InputKind, read_input};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    group = clap::ArgGroup::new("mode").required(true).multiple(false).args(["from", "seek", "paused"]),
    override_usage = "sinew crossings <FILE> --from <FROM> --to <TO> [--looping] [--start] [OPTIONS]\n       \
                      sinew crossings <FILE> --seek [OPTIONS]\n       \
                      sinew crossings <FILE> --paused [OPTIONS]"
)]
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
    /// The playhead jumped: nothing fires (on its own, without `--from`/`--to`).
    #[arg(long)]
    pub seek: bool,
    /// Playback is paused: nothing fires (on its own, without `--from`/`--to`).
    #[arg(long)]
    pub paused: bool,
    /// The most crossings to return.
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The largest `--limit` accepted: the crossings (not their output) are held in memory, so the
/// limit bounds it.
pub const MAX_LIMIT: usize = 10_000_000;

/// Most chars of a notify or window name `crossings` prints (a longer one is cut, ending in `…`).
pub const MAX_NAME_CHARS: usize = 256;

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
    let bytes =
        read_input(&a.file, InputKind::Clip).map_err(|e| format!("cannot read {name}: {e}"))?;
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
    // Streamed, one crossing at a time, in both formats: the output never sits in memory, and
    // each name is capped (`MAX_NAME_CHARS`), so output is at most `limit` short records.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    match a.format {
        Format::Json => {
            w.write_all(b"{\"crossings\":[").map_err(io)?;
            for (i, c) in result.list.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",").map_err(io)?;
                }
                let (id, name) = marker(&seq, c);
                let record = JsonCrossing {
                    id,
                    name: &capped(name),
                    edge: c.edge.map(|e| match e {
                        Edge::Begin => "begin",
                        Edge::End => "end",
                    }),
                    time: c.time,
                    clip_time: c.clip_time,
                    cycle: c.cycle,
                };
                serde_json::to_writer(&mut w, &record).map_err(|e| e.to_string())?;
            }
            writeln!(w, "],\"truncated\":{}}}", result.truncated).map_err(io)?;
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
                    w,
                    "{:<8} {}  \"{}\"{edge}  clip {}  cycle {}",
                    super::num(c.time),
                    Escaped(id),
                    Escaped(&capped(name)),
                    super::num(c.clip_time),
                    c.cycle
                )
                .map_err(io)?;
            }
            writeln!(
                w,
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
    w.flush().map_err(io)?;
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

/// One crossing as the JSON shape of `cli.md` (`windows.md` adds `"edge"` to window edges),
/// fields in output order.
#[derive(serde::Serialize)]
struct JsonCrossing<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge: Option<&'static str>,
    time: f64,
    clip_time: f64,
    cycle: i64,
}

/// `name` cut to [`MAX_NAME_CHARS`] chars (with `…`) when longer.
fn capped(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(MAX_NAME_CHARS) {
        None => name.into(),
        Some((at, _)) => format!("{}…", &name[..at]).into(),
    }
}
