//! Pictures of `.animsm` state machines: an entry marker, one box per state (name and motion),
//! an "any state" box for `"*"` transitions, and one arrow per transition labelled with its
//! conditions and crossfade. Laid out left to right by the same layered layout as graphs.
//! Hooks: `data-state`, `data-transition="from -> to"`, `data-entry`.

use super::layout::{self, Rect, text_w};
use super::svg::escape;
use super::view::clip;
use crate::anim::state_machine::{Condition, StateMachineDef, TreeDef, parse_state_machine};
use crate::diag::{Diagnostic, SourceFile};
use std::collections::HashMap;
use std::fmt::Write;

const BOX_H: i64 = 58;

fn motion(t: &TreeDef) -> String {
    match t {
        TreeDef::Clip(c, _) => format!("clip {c}"),
        TreeDef::Blend1D { param, entries, .. } => {
            let clips: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
            format!("blend on {param}: {}", clips.join(", "))
        }
        TreeDef::BlendSpace2D {
            param_x,
            param_y,
            entries,
            ..
        } => format!("blend 2D on {param_x}, {param_y}: {} clips", entries.len()),
        TreeDef::Lerp(_, _, p) => format!("lerp on {p}"),
        TreeDef::Additive(_, _, p) => format!("additive on {p}"),
    }
}

fn condition(c: &Condition) -> String {
    match c {
        Condition::Greater(p, v) => format!("{p} > {}", crate::graph::model::float_text(*v)),
        Condition::Less(p, v) => format!("{p} < {}", crate::graph::model::float_text(*v)),
        Condition::Finished => "finished".into(),
    }
}

/// The SVG of an `.animsm` source; refuses (returns the diagnostics) when it does not parse.
pub fn state_machine_svg(src: &SourceFile) -> Result<String, Vec<Diagnostic>> {
    let parsed = parse_state_machine(src);
    match parsed.def {
        Some(def) => Ok(render(src.name(), &def, &parsed.diagnostics)),
        None => Err(parsed.diagnostics),
    }
}

struct Box_ {
    label: String,
    sub: String,
    class: &'static str,
    hook: String,
}

/// Draws a parsed state machine; `diags` (shape problems) are listed under it.
pub fn render(name: &str, def: &StateMachineDef, diags: &[Diagnostic]) -> String {
    // Boxes: entry marker, states, then "any state" and states only transitions name.
    let mut boxes = vec![Box_ {
        label: "Entry".into(),
        sub: String::new(),
        class: "entry",
        hook: "data-entry=\"true\"".into(),
    }];
    let mut index: HashMap<&str, usize> = HashMap::new();
    for s in def
        .states
        .iter()
        .take(crate::anim::state_machine::MAX_STATES)
    {
        if index.contains_key(s.name.as_str()) {
            continue;
        }
        index.insert(&s.name, boxes.len());
        let mut sub = motion(&s.motion);
        if s.speed != 1.0 {
            let _ = write!(sub, " · speed {}", crate::graph::model::float_text(s.speed));
        }
        if !s.looping {
            sub.push_str(" · once");
        }
        boxes.push(Box_ {
            label: s.name.clone(),
            sub,
            class: if s.name == def.entry {
                "state first"
            } else {
                "state"
            },
            hook: format!("data-state=\"{}\"", escape(&s.name)),
        });
    }
    let mut edges: Vec<(usize, usize, String, String)> = Vec::new();
    let mut extra: HashMap<String, usize> = HashMap::new();
    // A state only transitions name: `*` (any state) or a missing one.
    let mut find = |boxes: &mut Vec<Box_>, n: &str| -> usize {
        if let Some(&i) = index.get(n).or_else(|| extra.get(n)) {
            return i;
        }
        boxes.push(Box_ {
            label: n.to_string(),
            sub: if n == "*" {
                "any state".into()
            } else {
                "no such state".into()
            },
            class: if n == "*" { "any" } else { "missing" },
            hook: format!("data-state=\"{}\"", escape(n)),
        });
        extra.insert(n.to_string(), boxes.len() - 1);
        boxes.len() - 1
    };
    let entry = find(&mut boxes, &def.entry);
    edges.push((0, entry, String::new(), String::new()));
    for t in def
        .transitions
        .iter()
        .take(crate::anim::state_machine::MAX_STATES)
    {
        let a = find(&mut boxes, &t.from);
        let b = find(&mut boxes, &t.to);
        let mut label: Vec<String> = t.when.iter().map(condition).collect();
        if label.is_empty() {
            label.push("always".into());
        }
        let label = format!(
            "{} · {} s",
            clip(&label.join(" and "), 48),
            crate::graph::model::float_text(t.blend)
        );
        edges.push((a, b, label, format!("{} -> {}", t.from, t.to)));
    }

    // Layout.
    let rects: Vec<Rect> = boxes
        .iter()
        .map(|b| {
            let chars = b.label.chars().count().max(b.sub.chars().count().min(40));
            Rect {
                x: 0,
                y: 0,
                w: if b.class == "entry" {
                    90
                } else {
                    (text_w(chars, 13.0) + 32).clamp(140, 300)
                },
                h: if b.class == "entry" { 36 } else { BOX_H },
            }
        })
        .collect();
    let members: Vec<usize> = (0..boxes.len()).collect();
    let mut pairs: Vec<(usize, usize)> = edges
        .iter()
        .filter(|e| e.0 != e.1)
        .map(|e| (e.0, e.1))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let pos = if boxes.len() <= layout::SUGIYAMA_MAX {
        layout::sugiyama(&members, &pairs, &rects)
            .unwrap_or_else(|| layout::layered(&members, &pairs, &rects))
    } else {
        layout::layered(&members, &pairs, &rects)
    };
    // Space ranks further apart so labels fit between them.
    let rects: Vec<Rect> = rects
        .iter()
        .zip(&pos)
        .map(|(r, &(x, y))| Rect {
            x: x * 2,
            y: y + 80,
            ..*r
        })
        .collect();
    let width = rects.iter().map(|r| r.x + r.w).max().unwrap_or(0) + 80;
    let height = rects.iter().map(|r| r.y + r.h).max().unwrap_or(0) + 80 + diags.len() as i64 * 18;

    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-40 0 {w} {height}\" width=\"{w}\" height=\"{height}\" data-state-machine=\"{}\">\n\
         <style>{}\
         .state rect{{fill:#26272d;stroke:#7b4aa6;stroke-width:2}}.state.first rect{{stroke:#c58af9;stroke-width:3}}\
         .entry rect{{fill:#2f7440;stroke:none}}.any rect{{fill:#3d3d42;stroke:#9a9aa2;stroke-dasharray:5 4}}\
         .missing rect{{fill:#26272d;stroke:#ff4d4f;stroke-width:2;stroke-dasharray:6 4}}\
         .sm-name{{font-size:14px;font-weight:600;fill:#fff}}.sm-sub{{font-size:12px;fill:#c9c9d3}}\
         .tr{{fill:none;stroke:#e8e8ec;stroke-width:2}}.tr-label{{font-size:12px;fill:#f2d98c;text-anchor:middle}}\
         </style>\n<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">\
         <path d=\"M0 0L10 5L0 10z\" fill=\"#e8e8ec\"/></marker></defs>\n\
         <rect class=\"bg\" x=\"-40\" y=\"0\" width=\"{w}\" height=\"{height}\"/>\n\
         <text class=\"gtitle\" x=\"0\" y=\"36\">state machine {}</text>\n",
        escape(name),
        super::svg::STYLE,
        escape(name),
        w = width + 40,
    );
    for (a, b, label, hook) in &edges {
        let (ra, rb) = (rects[*a], rects[*b]);
        let hook = if hook.is_empty() {
            String::new()
        } else {
            format!(" data-transition=\"{}\"", escape(hook))
        };
        let (d, lx, ly) = if a == b {
            let (x, y) = (ra.x + ra.w / 2, ra.y);
            (
                format!(
                    "M{} {y}C{} {} {} {} {} {y}",
                    x - 20,
                    x - 40,
                    y - 60,
                    x + 40,
                    y - 60,
                    x + 20
                ),
                x,
                y - 52,
            )
        } else {
            let (x1, y1) = (ra.x + ra.w, ra.y + ra.h / 2);
            let (x2, y2) = (rb.x, rb.y + rb.h / 2);
            let (x1, x2) = if rb.x >= ra.x + ra.w {
                (x1, x2)
            } else {
                (ra.x, rb.x + rb.w)
            };
            // Opposite transitions bend to opposite sides.
            let bend = if a < b { -28 } else { 28 };
            let (cx, cy) = ((x1 + x2) / 2, (y1 + y2) / 2 + bend);
            (
                format!("M{x1} {y1}Q{cx} {cy} {x2} {y2}"),
                cx,
                cy + if bend < 0 { -6 } else { 16 },
            )
        };
        let _ = writeln!(
            out,
            "<path class=\"tr\"{hook} d=\"{d}\" marker-end=\"url(#arrow)\"/>"
        );
        if !label.is_empty() {
            let _ = writeln!(
                out,
                "<text class=\"tr-label\" x=\"{lx}\" y=\"{ly}\">{}</text>",
                escape(label)
            );
        }
    }
    for (b, r) in boxes.iter().zip(&rects) {
        let _ = write!(
            out,
            "<g class=\"{}\" {} transform=\"translate({} {})\"><rect width=\"{}\" height=\"{}\" rx=\"{}\"/>",
            b.class,
            b.hook,
            r.x,
            r.y,
            r.w,
            r.h,
            if b.class == "entry" { 18 } else { 10 }
        );
        if b.class == "entry" {
            let _ = write!(
                out,
                "<text class=\"sm-name\" x=\"45\" y=\"23\" style=\"text-anchor:middle\">Entry</text>"
            );
        } else {
            let _ = write!(
                out,
                "<text class=\"sm-name\" x=\"14\" y=\"23\">{}</text><text class=\"sm-sub\" x=\"14\" y=\"43\">{}</text>",
                escape(&clip(&b.label, ((r.w - 28) / 8) as usize)),
                escape(&clip(&b.sub, ((r.w - 28) / 7) as usize))
            );
        }
        out.push_str("</g>\n");
    }
    let mut y = rects.iter().map(|r| r.y + r.h).max().unwrap_or(0) + 40;
    for d in diags {
        let _ = writeln!(
            out,
            "<text class=\"msg\" x=\"0\" y=\"{y}\" data-diagnostic-code=\"{}\">{} {}</text>",
            d.code,
            d.code,
            escape(&clip(&d.message, 120))
        );
        y += 18;
    }
    out.push_str("</svg>\n");
    out
}
