//! The SVG writer: a [`Picture`] and its layout as markup, byte-for-byte deterministic.
//!
//! Conventions (Blueprint): node headers coloured by family, pins coloured by type (exec pins
//! are white arrows, data pins circles, filled when linked), exec wires white and thick, data
//! wires in their type's colour, both as cubic curves; literal values beside their input pins,
//! other properties in rows below the pins, comments in yellow notes above their node. Text is
//! at least 12 px; every name is escaped ([`escape`]) and clipped to the node's width.

use super::layout::{self, HEADER_H, ROW_H, Rect, text_w};
use super::view::{Badge, BoxView, Family, LinkView, Mark, NodeView, Picture, PinView, clip};
use crate::diag::Severity;
use crate::nodes::PinType;
use crate::types::Type;
use std::borrow::Cow;
use std::fmt::Write;

/// Escapes text for XML content and attribute values; characters XML 1.0 cannot hold
/// (control characters other than tab, newline and carriage return; U+FFFE, U+FFFF) become
/// U+FFFD, so no input can inject markup or make the document invalid.
pub fn escape(s: &str) -> String {
    Esc(s).to_string()
}

/// [`escape`] as a `Display` value, written without an intermediate string.
pub struct Esc<'a>(pub &'a str);

impl std::fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.0;
        let plain =
            |b: u8| b >= 0x20 && !matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7f | 0xef);
        if s.bytes().all(plain) {
            return f.write_str(s);
        }
        for c in s.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                '\t' | '\n' | '\r' => f.write_char(c)?,
                c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{fffe}' || c == '\u{ffff}' => {
                    f.write_char('\u{fffd}')?
                }
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The CSS class of a pin type (its colour).
pub fn type_class(t: Option<PinType>) -> &'static str {
    match t {
        Some(PinType::Exec) => "t-exec",
        Some(PinType::Data(Type::Bool)) => "t-bool",
        Some(PinType::Data(Type::Int)) => "t-int",
        Some(PinType::Data(Type::Float)) => "t-float",
        Some(PinType::Data(Type::Vec3)) => "t-vec3",
        Some(PinType::Data(Type::Str)) => "t-string",
        Some(PinType::Data(Type::Entity)) => "t-entity",
        None => "t-unknown",
    }
}

/// The shared style sheet (also what the studio page can reuse).
pub const STYLE: &str = "text{font-family:Inter,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;fill:#e8e8ec}\
.bg{fill:#17181b}\
.body{fill:#26272d;stroke:#0b0b0d;stroke-width:1.5}\
.head{fill:#555}\
.f-event .head{fill:#a32b2b}.f-flow .head{fill:#5a5b66}.f-math .head{fill:#2f7440}\
.f-animation .head{fill:#7b4aa6}.f-variable .head{fill:#1f6f86}.f-function .head{fill:#2b5c9e}\
.f-unknown .head{fill:#3d3d42}\
.title{font-size:14px;font-weight:600;fill:#fff}.sub{font-size:12px;fill:#dcdce4}\
.r{text-anchor:end}.lit{fill:#f2d98c}.prop{font-size:12px;fill:#c9c9d3}\
.t-exec{color:#f2f2f2}.t-bool{color:#e04848}.t-int{color:#1fd1a0}.t-float{color:#9be04b}\
.t-vec3{color:#f5c518}.t-string{color:#f25ad9}.t-entity{color:#3aa8f4}.t-unknown{color:#9a9aa2}\
.pin circle,.pin path{stroke:currentColor;stroke-width:2;fill:#26272d}\
.pin.on circle,.pin.on path{fill:currentColor}.pin.bad text{fill:#ff8a8a}\
.wire{fill:none;stroke:currentColor;stroke-width:2.5}.wire.t-exec{stroke-width:3.5}\
.wire.bad{stroke:#ff4d4f;stroke-dasharray:8 5}\
.note rect{fill:#3b3926;stroke:#8d8552}.note text{fill:#f4efc4;font-size:12px;font-style:italic}\
.has-error>.body{stroke:#ff4d4f;stroke-width:3}.has-warning>.body{stroke:#f5a623;stroke-width:2.5}\
.badge circle{fill:#ff4d4f}.badge.warning circle{fill:#f5a623}\
.badge text{font-size:13px;font-weight:700;text-anchor:middle;fill:#fff}\
.msg{font-size:12px;fill:#ff9a9a}.msg.warning{fill:#f8c46c}\
.d-added>.body{stroke:#2ecc71;stroke-width:3.5}.d-changed>.body{stroke:#f5a623;stroke-width:3.5}\
.d-moved>.body{stroke:#6fa8dc;stroke-width:2.5;stroke-dasharray:3 3}\
.ghost{opacity:.4}.ghost>.body{stroke:#b0b0b0;stroke-width:2;stroke-dasharray:6 4}\
.wire.d-added{stroke:#2ecc71}.wire.d-removed{opacity:.4;stroke-dasharray:6 4}\
.gtitle{font-size:20px;font-weight:700}.vars text{font-size:13px}.legend text{font-size:12px}\
.notes text{font-size:13px;fill:#ffb3b3}";

/// The style of comment boxes and reroute dots, written only into pictures that have them (so
/// every other picture keeps its bytes).
pub const LAYOUT_STYLE: &str = ".cbox{color:#5a6b82}.cbox-body{fill:currentColor;fill-opacity:.18;stroke:currentColor;stroke-width:2}\
.cbox-head{fill:currentColor;fill-opacity:.55}.cbox-title{font-size:15px;font-weight:600;fill:#fff}\
.f-reroute .dot{fill:currentColor;stroke:#0b0b0d;stroke-width:1.5}.rpin circle{fill:none}";

fn line_h(size: i64) -> i64 {
    size + 5
}

/// The note (comment bubble) above a node: its height and width.
fn note_size(lines: &[String]) -> (i64, i64) {
    if lines.is_empty() {
        return (0, 0);
    }
    let w = lines
        .iter()
        .map(|l| text_w(l.chars().count(), 12.0))
        .max()
        .unwrap_or(0)
        + 16;
    (lines.len() as i64 * line_h(12) + 8, w)
}

fn pin_y(i: usize) -> i64 {
    HEADER_H + i as i64 * ROW_H + ROW_H / 2
}

/// Renders a picture as SVG text, however large (see [`render_within`] for a budget).
pub fn render(p: &Picture) -> String {
    render_within(p, usize::MAX).unwrap_or_default()
}

/// The markup of a picture would pass its byte budget: rendering stopped there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// The budget, in bytes.
    pub budget: usize,
}

/// Renders a picture as SVG text of at most `budget` bytes, or stops as soon as the text
/// passes it (so the text held never exceeds the budget by more than one item's markup).
pub fn render_within(p: &Picture, budget: usize) -> Result<String, OverBudget> {
    let over = |out: &String| out.len() > budget;
    let rects = layout::place(p);
    let guess = 2048 + p.nodes.len() * 1400 + p.links.len() * 160;
    let mut out = String::with_capacity(guess.min(budget.saturating_add(1)));

    // Extent of the nodes (with notes above and messages below).
    let mut min_x = i64::MAX;
    let mut min_y = i64::MAX;
    let mut max_x = i64::MIN;
    let mut max_y = i64::MIN;
    for (n, r) in p.nodes.iter().zip(&rects) {
        let (nh, nw) = note_size(&n.comment);
        let msgs = n.badges.len().min(3) as i64 * line_h(12);
        min_x = min_x.min(r.x);
        min_y = min_y.min(r.y - nh - 6);
        max_x = max_x.max(r.x + r.w.max(nw)).max(r.x + r.w + 12);
        max_y = max_y.max(r.y + r.h + msgs + 6);
    }
    for b in &p.boxes {
        let (x, y) = (
            b.x.clamp(-layout::COORD_MAX, layout::COORD_MAX),
            b.y.clamp(-layout::COORD_MAX, layout::COORD_MAX),
        );
        min_x = min_x.min(x);
        min_y = min_y.min(y);
        max_x = max_x.max(x + b.w);
        max_y = max_y.max(y + b.h);
    }
    if p.nodes.is_empty() && p.boxes.is_empty() {
        (min_x, min_y, max_x, max_y) = (0, 0, 320, 40);
    }
    // The band above: title, header comments, variables.
    let mut band = 34 + p.comment.len() as i64 * line_h(13);
    if !p.vars.is_empty() {
        band += 24;
        for v in &p.vars {
            band += line_h(13)
                + v.comment.len() as i64 * line_h(12)
                + v.badges.len() as i64 * line_h(12);
        }
    }
    band += 24;
    let footer_lines = p.end_comment.len() + p.notes.len();
    let footer = if footer_lines == 0 {
        0
    } else {
        16 + footer_lines as i64 * line_h(13)
    };
    let band_w = band_width(p);
    let left = min_x - 40;
    let top = min_y - band - 20;
    let width = (max_x - min_x + 80).max(band_w + 80);
    let height = max_y - top + footer + 40;

    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{left} {top} {width} {height}\" \
         width=\"{width}\" height=\"{height}\" data-graph=\"{}\">\n<style>{STYLE}</style>\n\
         <rect class=\"bg\" x=\"{left}\" y=\"{top}\" width=\"{width}\" height=\"{height}\"/>\n",
        Esc(&p.title)
    );
    if !p.boxes.is_empty() || p.nodes.iter().any(|n| n.family == Family::Reroute) {
        let _ = writeln!(out, "<style>{LAYOUT_STYLE}</style>");
    }
    if !header(&mut out, p, left + 40, top + 20, budget) {
        return Err(OverBudget { budget });
    }

    // Comment boxes under wires and nodes.
    if !p.boxes.is_empty() {
        out.push_str("<g class=\"boxes\">\n");
        for b in &p.boxes {
            comment_box(&mut out, b);
            if over(&out) {
                return Err(OverBudget { budget });
            }
        }
        out.push_str("</g>\n");
    }
    // Wires under nodes.
    let index = super::view::node_index(p);
    out.push_str("<g class=\"wires\">\n");
    for l in &p.links {
        wire(&mut out, p, &rects, &index, l);
        if over(&out) {
            return Err(OverBudget { budget });
        }
    }
    out.push_str("</g>\n<g class=\"nodes\">\n");
    for (n, r) in p.nodes.iter().zip(&rects) {
        node(&mut out, n, r);
        if over(&out) {
            return Err(OverBudget { budget });
        }
    }
    out.push_str("</g>\n");

    if footer_lines > 0 {
        let mut y = max_y + 30;
        out.push_str("<g class=\"notes\">\n");
        for l in &p.end_comment {
            let _ = writeln!(
                out,
                "<text class=\"note-line\" x=\"{}\" y=\"{y}\" style=\"fill:#f4efc4;font-style:italic\">{}</text>",
                left + 40,
                Esc(l)
            );
            y += line_h(13);
        }
        for l in &p.notes {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{y}\">{}</text>",
                left + 40,
                Esc(&clip(l, 160))
            );
            y += line_h(13);
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    if over(&out) {
        return Err(OverBudget { budget });
    }
    Ok(out)
}

fn band_width(p: &Picture) -> i64 {
    let mut w = text_w(p.title.chars().count() + 6, 20.0);
    for c in &p.comment {
        w = w.max(text_w(c.chars().count(), 13.0));
    }
    for v in &p.vars {
        w = w.max(
            text_w(
                v.name.chars().count() + v.default.chars().count() + 12,
                13.0,
            ) + 20,
        );
    }
    w
}

/// Writes the band above the nodes; `false` as soon as `out` passes `budget`.
fn header(out: &mut String, p: &Picture, x: i64, y: i64, budget: usize) -> bool {
    let mut y = y + 20;
    let _ = writeln!(
        out,
        "<text class=\"gtitle\" x=\"{x}\" y=\"{y}\">graph {}</text>",
        Esc(&p.title)
    );
    y += 14;
    for c in &p.comment {
        y += line_h(13);
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{y}\" style=\"fill:#f4efc4;font-style:italic\">{}</text>",
            Esc(c)
        );
    }
    if p.vars.is_empty() {
        return out.len() <= budget;
    }
    y += 24;
    let _ = writeln!(
        out,
        "<g class=\"vars\">\n<text x=\"{x}\" y=\"{y}\" style=\"font-weight:600\">Variables</text>"
    );
    for v in &p.vars {
        y += line_h(13);
        let mark = v
            .mark
            .name()
            .map(|m| format!(" data-diff=\"{m}\" class=\"d-{m}\""))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<g data-var=\"{name}\"{mark}><circle class=\"{cls}\" cx=\"{cx}\" cy=\"{cy}\" r=\"5\" style=\"fill:currentColor\"/>\
             <text x=\"{tx}\" y=\"{y}\">{name}: {ty} = <tspan class=\"lit\">{default}</tspan></text></g>",
            name = Esc(&v.name),
            cls = type_class(Some(v.ty)),
            cx = x + 5,
            cy = y - 4,
            tx = x + 16,
            ty = v.ty,
            default = Esc(&v.default),
        );
        for c in &v.comment {
            y += line_h(12);
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{y}\" style=\"fill:#f4efc4;font-style:italic;font-size:12px\">{}</text>",
                x + 16,
                Esc(c)
            );
        }
        for b in &v.badges {
            y += line_h(12);
            badge_line(out, b, x + 16, y);
        }
        if out.len() > budget {
            return false;
        }
    }
    out.push_str("</g>\n");
    true
}

fn badge_line(out: &mut String, b: &Badge, x: i64, y: i64) {
    let cls = if b.severity == Severity::Error {
        "msg"
    } else {
        "msg warning"
    };
    let _ = writeln!(
        out,
        "<text class=\"{cls}\" x=\"{x}\" y=\"{y}\" data-diagnostic-code=\"{}\">{} {}</text>",
        b.code,
        b.code,
        Esc(&clip(&b.message, 70))
    );
}

fn pin_pos(r: &Rect, n: &NodeView, pin: &str, output: bool) -> Option<(i64, i64)> {
    let pins = if output { &n.outputs } else { &n.inputs };
    let i = pins.iter().position(|p| p.name == pin)?;
    if n.family == Family::Reroute {
        return Some((if output { r.x + r.w } else { r.x }, r.y + r.h / 2));
    }
    Some((if output { r.x + r.w } else { r.x }, r.y + pin_y(i)))
}

fn wire(
    out: &mut String,
    p: &Picture,
    rects: &[Rect],
    index: &std::collections::HashMap<&str, usize>,
    l: &LinkView,
) {
    let from = index
        .get(l.from.node.as_str())
        .and_then(|&a| pin_pos(&rects[a], &p.nodes[a], &l.from.pin, true));
    let to = index
        .get(l.to.node.as_str())
        .and_then(|&b| pin_pos(&rects[b], &p.nodes[b], &l.to.pin, false));
    // A link with a missing end is drawn as a stub from the end that exists.
    let ((x1, y1), (x2, y2)) = match (from, to) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, (a.0 + 70, a.1)),
        (None, Some(b)) => ((b.0 - 70, b.1), b),
        (None, None) => return,
    };
    let dx = (x2 - x1).abs();
    let d = if x2 >= x1 {
        (dx / 2).clamp(40, 240)
    } else {
        (dx / 3).clamp(80, 300)
    };
    let mut class = String::from("wire ");
    class.push_str(type_class(l.ty));
    if !l.badges.is_empty() {
        class.push_str(" bad");
    }
    let mark = match l.mark.name() {
        Some(m) => {
            let _ = write!(class, " d-{m}");
            format!(" data-diff=\"{m}\"")
        }
        None => String::new(),
    };
    let _ = write!(
        out,
        "<path class=\"{class}\" data-link=\"{} -&gt; {}\"{mark} d=\"M{x1} {y1}C{} {y1} {} {y2} {x2} {y2}\"",
        Esc(&l.from.to_string()),
        Esc(&l.to.to_string()),
        x1 + d,
        x2 - d,
    );
    if l.badges.is_empty() {
        out.push_str("/>\n");
    } else {
        out.push_str("><title>");
        for b in &l.badges {
            let _ = writeln!(out, "{} {}", b.code, Esc(&b.message));
        }
        out.push_str("</title></path>\n");
    }
    let mx = (x1 + x2) / 2;
    let my = (y1 + y2) / 2;
    for (i, c) in l.comment.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{mx}\" y=\"{}\" style=\"fill:#f4efc4;font-style:italic;font-size:12px;text-anchor:middle\">{}</text>",
            my - 8 - (l.comment.len() - 1 - i) as i64 * line_h(12),
            Esc(c)
        );
    }
    for (i, b) in l.badges.iter().enumerate() {
        badge_line(out, b, mx, my + 18 + i as i64 * line_h(12));
    }
}

fn fit(s: &str, px: i64, size: f64) -> Cow<'_, str> {
    let chars = (((px.max(0) as f64) / (size * layout::CHAR_W)).floor() as usize).max(2);
    if s.len() <= chars {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(clip(s, chars))
    }
}

fn pin(out: &mut String, node: &str, p: &PinView, x: i64, y: i64, output: bool, room: i64) {
    let _ = write!(
        out,
        "<g class=\"pin {} {}{}{}\" data-pin=\"{}.{}\">",
        if output { "out" } else { "in" },
        type_class(p.ty),
        if p.linked { " on" } else { "" },
        if p.error { " bad" } else { "" },
        Esc(node),
        Esc(&p.name)
    );
    if p.ty == Some(PinType::Exec) {
        let _ = write!(out, "<path d=\"M{} {}h5l6 6-6 6h-5z\"/>", x - 5, y - 6);
    } else {
        let _ = write!(out, "<circle cx=\"{x}\" cy=\"{y}\" r=\"5\"/>");
    }
    let ty = y + 5;
    if output {
        let _ = write!(
            out,
            "<text class=\"r\" x=\"{}\" y=\"{ty}\">{}</text>",
            x - 12,
            Esc(&fit(&p.name, room, 13.0))
        );
    } else {
        let name = fit(&p.name, room, 13.0);
        let _ = write!(out, "<text x=\"{}\" y=\"{ty}\">{}", x + 12, Esc(&name));
        if let Some(lit) = &p.literal {
            let left = room - text_w(name.chars().count() + 1, 13.0);
            if left > 20 {
                let _ = write!(
                    out,
                    " <tspan class=\"lit\">{}</tspan>",
                    Esc(&fit(lit, left, 13.0))
                );
            }
        }
        out.push_str("</text>");
    }
    out.push_str("</g>\n");
}

/// A reroute: a small dot in its wire's colour, with its two pins' hooks on it.
fn reroute(out: &mut String, n: &NodeView, r: &Rect) {
    let ty = n.inputs.first().and_then(|p| p.ty);
    let mut class = format!("node f-reroute {}", type_class(ty));
    if n.badges.iter().any(|b| b.severity == Severity::Error) {
        class.push_str(" has-error");
    } else if !n.badges.is_empty() {
        class.push_str(" has-warning");
    }
    let mut diff = String::new();
    if let Some(m) = n.mark.name() {
        let _ = write!(class, " d-{m}");
        if n.mark == Mark::Removed {
            class.push_str(" ghost");
        }
        diff = format!(" data-diff=\"{m}\"");
    }
    let (d, id) = (r.w, Esc(&n.id));
    let _ = write!(
        out,
        "<g class=\"{class}\" data-node-id=\"{id}\"{diff} transform=\"translate({} {})\">\
         <title>{id} — reroute</title>\
         <circle class=\"dot\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
        r.x,
        r.y,
        d / 2,
        d / 2,
        d / 2 - 2
    );
    for (p, output) in n
        .inputs
        .iter()
        .map(|p| (p, false))
        .chain(n.outputs.iter().map(|p| (p, true)))
    {
        let _ = write!(
            out,
            "<g class=\"rpin\" data-pin=\"{id}.{}\"><circle cx=\"{}\" cy=\"{}\" r=\"3\"/></g>",
            Esc(&p.name),
            if output { d } else { 0 },
            d / 2
        );
    }
    if let Some(first) = n.badges.first() {
        let _ = write!(
            out,
            "<g class=\"badge\" data-diagnostic-code=\"{}\"><title>{} {}</title></g>",
            first.code,
            first.code,
            Esc(&first.message)
        );
        for (i, b) in n.badges.iter().take(3).enumerate() {
            badge_line(out, b, 0, d + 16 + i as i64 * line_h(12));
        }
    }
    out.push_str("</g>\n");
}

/// A comment box: a titled, translucent rectangle (drawn before wires and nodes).
fn comment_box(out: &mut String, b: &BoxView) {
    let x = b.x.clamp(-layout::COORD_MAX, layout::COORD_MAX);
    let y = b.y.clamp(-layout::COORD_MAX, layout::COORD_MAX);
    let style = b
        .color
        .as_deref()
        .filter(|c| crate::graph::parser::is_color(c))
        .map(|c| format!(" style=\"color:{c}\""))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<g class=\"cbox\" data-box-title=\"{}\"{style} transform=\"translate({x} {y})\">\
         <rect class=\"cbox-body\" width=\"{}\" height=\"{}\" rx=\"6\"/>\
         <rect class=\"cbox-head\" width=\"{}\" height=\"28\" rx=\"6\"/>\
         <text class=\"cbox-title\" x=\"10\" y=\"19\">{}</text></g>",
        Esc(&b.title),
        b.w,
        b.h,
        b.w,
        Esc(&fit(&b.title, b.w - 20, 15.0)),
    );
}

fn node(out: &mut String, n: &NodeView, r: &Rect) {
    if n.family == Family::Reroute {
        return reroute(out, n, r);
    }
    let (x, y, w, h) = (r.x, r.y, r.w, r.h);
    let mut class = format!("node f-{}", n.family.name());
    if n.badges.iter().any(|b| b.severity == Severity::Error) {
        class.push_str(" has-error");
    } else if !n.badges.is_empty() {
        class.push_str(" has-warning");
    }
    let mut diff = String::new();
    if let Some(m) = n.mark.name() {
        let _ = write!(class, " d-{m}");
        if n.mark == Mark::Removed {
            class.push_str(" ghost");
        }
        diff = format!(" data-diff=\"{m}\"");
    }
    let _ = writeln!(
        out,
        "<g class=\"{class}\" data-node-id=\"{}\"{diff} transform=\"translate({x} {y})\">\
         <title>{} — {}</title>\
         <rect class=\"body\" width=\"{w}\" height=\"{h}\" rx=\"8\"/>\
         <path class=\"head\" d=\"M0 {HEADER_H}V8Q0 0 8 0H{}Q{w} 0 {w} 8V{HEADER_H}Z\"/>\
         <text class=\"title\" x=\"12\" y=\"19\">{}</text>\
         <text class=\"sub\" x=\"12\" y=\"36\">{}</text>",
        Esc(&n.id),
        Esc(&n.title),
        Esc(&n.subtitle),
        w - 8,
        Esc(&fit(&n.title, w - 24, 14.0)),
        Esc(&fit(&n.subtitle, w - 20, 12.0)),
    );
    for i in 0..n.inputs.len().max(n.outputs.len()) {
        let both = i < n.inputs.len() && i < n.outputs.len();
        let room = if both { w / 2 - 14 } else { w - 28 };
        if let Some(p) = n.inputs.get(i) {
            pin(out, &n.id, p, 0, pin_y(i), false, room);
        }
        if let Some(p) = n.outputs.get(i) {
            pin(out, &n.id, p, w, pin_y(i), true, room);
        }
    }
    let rows = n.inputs.len().max(n.outputs.len());
    for (k, (name, value)) in n.props.iter().enumerate() {
        let py = HEADER_H + (rows + k) as i64 * ROW_H + ROW_H / 2 + 5;
        let text = format!("{name} = {value}");
        let _ = writeln!(
            out,
            "<text class=\"prop\" x=\"12\" y=\"{py}\" data-prop=\"{}\">{}</text>",
            Esc(name),
            Esc(&fit(&text, w - 24, 12.0))
        );
    }
    if !n.comment.is_empty() {
        let (nh, nw) = note_size(&n.comment);
        let _ = write!(
            out,
            "<g class=\"note\"><rect x=\"0\" y=\"{}\" width=\"{nw}\" height=\"{nh}\" rx=\"4\"/>",
            -nh - 6
        );
        for (i, l) in n.comment.iter().enumerate() {
            let _ = write!(
                out,
                "<text x=\"8\" y=\"{}\">{}</text>",
                -nh - 6 + 4 + (i as i64 + 1) * line_h(12) - 4,
                Esc(l)
            );
        }
        out.push_str("</g>\n");
    }
    if let Some(first) = n.badges.first() {
        let sev = if first.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        let _ = write!(
            out,
            "<g class=\"badge {sev}\" data-diagnostic-code=\"{}\"><circle cx=\"{w}\" cy=\"0\" r=\"11\"/>\
             <text x=\"{w}\" y=\"5\">!</text><title>",
            first.code
        );
        for b in &n.badges {
            let _ = writeln!(out, "{} {}", b.code, Esc(&b.message));
        }
        out.push_str("</title></g>\n");
        for (i, b) in n.badges.iter().take(3).enumerate() {
            badge_line(out, b, 0, h + 16 + i as i64 * line_h(12));
        }
    }
    out.push_str("</g>\n");
}
