//! FBX detection without guessing: enough of the binary or ASCII node tree to count animation
//! stacks (`Objects/AnimationStack`, or FBX 6 `Takes/Take`) and skin deformers
//! (`Objects/Deformer` of class `Skin`). Sinew imports no FBX data; an animated FBX is refused
//! with a repair hint and a static one is a note.

/// Binary FBX files start with this (then `0x1A 0x00` and a `u32` version).
pub const BINARY_MAGIC: &[u8] = b"Kaydara FBX Binary  \0";

/// What an FBX file holds, as far as animation is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fbx {
    /// Animation stacks and skin deformers found.
    Contents {
        /// `AnimationStack` objects (or FBX 6 takes).
        stacks: usize,
        /// `Deformer` objects of class `Skin`.
        skins: usize,
    },
    /// Not a readable FBX node tree: the reason, with a byte offset or line.
    Corrupt(String),
}

/// Whether `bytes` look like FBX (binary magic or an ASCII `; FBX` header comment).
pub fn is_fbx(bytes: &[u8]) -> bool {
    bytes.starts_with(BINARY_MAGIC) || bytes.starts_with(b"; FBX")
}

/// Inspects an FBX file.
pub fn inspect(bytes: &[u8]) -> Fbx {
    if bytes.starts_with(BINARY_MAGIC) {
        binary(bytes).unwrap_or_else(Fbx::Corrupt)
    } else {
        match std::str::from_utf8(bytes) {
            Ok(text) => ascii(text).unwrap_or_else(Fbx::Corrupt),
            Err(e) => Fbx::Corrupt(format!(
                "neither binary FBX (no `Kaydara FBX Binary` header) nor UTF-8 ASCII FBX (invalid byte at {})",
                e.valid_up_to()
            )),
        }
    }
}

struct Record<'a> {
    name: &'a [u8],
    /// Property bytes.
    props: &'a [u8],
    num_props: u64,
    /// Offset of the first child record and the record's end.
    children: usize,
    end: usize,
}

fn le(b: &[u8], at: usize, n: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(n)?)?;
    Some(
        s.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
    )
}

/// Reads the record at `at` (inside `[.., limit)`); `Ok(None)` for a null (end) record.
fn record(b: &[u8], at: usize, limit: usize, wide: bool) -> Result<Option<Record<'_>>, String> {
    let w = if wide { 8 } else { 4 };
    let head = 3 * w + 1;
    let cut = || format!("record header at byte {at} is cut off");
    if at + head > limit {
        return Err(cut());
    }
    let end = le(b, at, w).ok_or_else(cut)?;
    let num_props = le(b, at + w, w).ok_or_else(cut)?;
    let prop_len = le(b, at + 2 * w, w).ok_or_else(cut)?;
    let name_len = usize::from(b[at + 3 * w]);
    if end == 0 {
        return Ok(None);
    }
    let end = usize::try_from(end).map_err(|_| cut())?;
    let name_at = at + head;
    let props_at = name_at + name_len;
    let children = usize::try_from(prop_len)
        .ok()
        .and_then(|p| props_at.checked_add(p))
        .ok_or_else(cut)?;
    if end <= at || end > limit || children > end {
        return Err(format!(
            "record at byte {at} claims to end at byte {end}, outside its parent (which ends at {limit})"
        ));
    }
    Ok(Some(Record {
        name: &b[name_at..props_at],
        props: &b[props_at..children],
        num_props,
        children,
        end,
    }))
}

/// Iterates sibling records from `at` to `limit`, calling `f` on each.
fn siblings<'a>(
    b: &'a [u8],
    mut at: usize,
    limit: usize,
    wide: bool,
    mut f: impl FnMut(&Record<'a>) -> Result<(), String>,
) -> Result<(), String> {
    while at < limit {
        match record(b, at, limit, wide)? {
            None => break,
            Some(r) => {
                f(&r)?;
                at = r.end;
            }
        }
    }
    Ok(())
}

fn binary(b: &[u8]) -> Result<Fbx, String> {
    let version = le(b, 23, 4).ok_or("the binary FBX header is cut off")?;
    let wide = version >= 7500;
    let (mut stacks, mut skins) = (0usize, 0usize);
    siblings(b, 27, b.len(), wide, |top| {
        match top.name {
            b"Objects" => siblings(b, top.children, top.end, wide, |o| {
                match o.name {
                    b"AnimationStack" => stacks += 1,
                    b"Deformer" if string_props(o).iter().any(|s| *s == b"Skin") => skins += 1,
                    _ => {}
                }
                Ok(())
            })?,
            b"Takes" => siblings(b, top.children, top.end, wide, |t| {
                if t.name == b"Take" {
                    stacks += 1;
                }
                Ok(())
            })?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(Fbx::Contents { stacks, skins })
}

/// The string properties of a record (other property types skipped; a malformed list ends
/// the scan).
fn string_props<'a>(r: &Record<'a>) -> Vec<&'a [u8]> {
    let p = r.props;
    let mut out = Vec::new();
    let mut at = 0usize;
    for _ in 0..r.num_props.min(64) {
        let Some(&ty) = p.get(at) else { break };
        at += 1;
        let size = match ty {
            b'Y' => 2,
            b'C' => 1,
            b'I' | b'F' => 4,
            b'D' | b'L' => 8,
            b'S' | b'R' => {
                let Some(n) = le(p, at, 4).and_then(|n| usize::try_from(n).ok()) else {
                    break;
                };
                let Some(s) = at.checked_add(4).and_then(|s| Some((s, s.checked_add(n)?))) else {
                    break;
                };
                if s.1 > p.len() {
                    break;
                }
                if ty == b'S' {
                    out.push(&p[s.0..s.1]);
                }
                4 + n
            }
            b'f' | b'd' | b'l' | b'i' | b'b' => match le(p, at + 8, 4) {
                Some(n) => 12 + n as usize,
                None => break,
            },
            _ => break,
        };
        at = match at.checked_add(size) {
            Some(a) if a <= p.len() => a,
            _ => break,
        };
    }
    out
}

fn ascii(text: &str) -> Result<Fbx, String> {
    let (mut stacks, mut skins) = (0usize, 0usize);
    let mut depth = 0usize;
    // The name of the top-level node we are inside (depth ≥ 1).
    let mut top: Option<String> = None;
    for (ln, line) in text.lines().enumerate() {
        let code = strip_comment(line);
        let trimmed = code.trim_start();
        let name = trimmed
            .split_once(':')
            .map(|(n, _)| n)
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if let Some(n) = name {
            if depth == 0 {
                top = Some(n.to_string());
            } else if depth == 1 {
                let rest = trimmed[n.len() + 1..].split('{').next().unwrap_or("");
                match (top.as_deref(), n) {
                    (Some("Objects"), "AnimationStack") | (Some("Takes"), "Take") => stacks += 1,
                    (Some("Objects"), "Deformer")
                        if rest.split(',').skip(1).any(|p| p.trim() == "\"Skin\"") =>
                    {
                        skins += 1
                    }
                    _ => {}
                }
            }
        }
        let mut in_str = false;
        for c in code.chars() {
            match c {
                '"' => in_str = !in_str,
                '{' if !in_str => depth += 1,
                '}' if !in_str => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| format!("line {}: `}}` closes nothing", ln + 1))?;
                    if depth == 0 {
                        top = None;
                    }
                }
                _ => {}
            }
        }
    }
    if depth != 0 {
        return Err(format!("the file ends with {depth} unclosed `{{`"));
    }
    Ok(Fbx::Contents { stacks, skins })
}

/// The line without a `;` comment (outside strings).
fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_str = !in_str,
            ';' if !in_str => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary FBX 7.4 file with the given `Objects` children: `(name, string props)`.
    pub fn binary_fbx(objects: &[(&str, &[&str])]) -> Vec<u8> {
        fn rec(out: &mut Vec<u8>, name: &str, props: &[&str], children: &[(&str, &[&str])]) {
            let start = out.len();
            out.extend_from_slice(&[0; 12]);
            out.push(name.len() as u8);
            out.extend_from_slice(name.as_bytes());
            let p0 = out.len();
            for p in props {
                out.push(b'S');
                out.extend_from_slice(&(p.len() as u32).to_le_bytes());
                out.extend_from_slice(p.as_bytes());
            }
            let plen = out.len() - p0;
            for (n, ps) in children {
                rec(out, n, ps, &[]);
            }
            if !children.is_empty() {
                out.extend_from_slice(&[0; 13]);
            }
            let end = out.len() as u32;
            out[start..start + 4].copy_from_slice(&end.to_le_bytes());
            out[start + 4..start + 8].copy_from_slice(&(props.len() as u32).to_le_bytes());
            out[start + 8..start + 12].copy_from_slice(&(plen as u32).to_le_bytes());
        }
        let mut out = BINARY_MAGIC.to_vec();
        out.extend_from_slice(&[0x1A, 0x00]);
        out.extend_from_slice(&7400u32.to_le_bytes());
        rec(&mut out, "FBXHeaderExtension", &[], &[]);
        rec(&mut out, "Objects", &[], objects);
        out.extend_from_slice(&[0; 13]);
        out
    }

    #[test]
    fn binary_counts_stacks_and_skins() {
        let f = binary_fbx(&[
            ("Geometry", &["Cube\0\x01Geometry", "Mesh"]),
            ("Deformer", &["Armature\0\x01Deformer", "Skin"]),
            ("Deformer", &["Bone\0\x01SubDeformer", "Cluster"]),
            ("AnimationStack", &["Take 001\0\x01AnimStack", ""]),
        ]);
        assert_eq!(
            inspect(&f),
            Fbx::Contents {
                stacks: 1,
                skins: 1
            }
        );
        let s = binary_fbx(&[("Geometry", &["Cube\0\x01Geometry", "Mesh"])]);
        assert_eq!(
            inspect(&s),
            Fbx::Contents {
                stacks: 0,
                skins: 0
            }
        );
    }

    #[test]
    fn binary_corruption_is_located() {
        let mut f = binary_fbx(&[("AnimationStack", &["x"])]);
        let at = 27; // first record's end offset
        f[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let Fbx::Corrupt(m) = inspect(&f) else {
            panic!("corrupt expected")
        };
        assert!(m.contains("byte 27"), "{m}");
        for n in 0..f.len() {
            let _ = inspect(&f[..n]);
        }
    }

    #[test]
    fn ascii_counts_stacks_and_skins() {
        let text = "; FBX 7.4.0 project file\nObjects:  {\n\tDeformer: 1, \"Deformer::Skin\", \"Skin\" {\n\t}\n\tAnimationStack: 2, \"AnimStack::Take\", \"\" {\n\t}\n\tModel: 3, \"Model::{odd}\", \"Mesh\" {\n\t}\n}\n";
        assert_eq!(
            inspect(text.as_bytes()),
            Fbx::Contents {
                stacks: 1,
                skins: 1
            }
        );
        let stat = "; FBX 7.4.0 project file\nObjects:  {\n\tGeometry: 1, \"Geometry::\", \"Mesh\" {\n\t}\n}\n";
        assert_eq!(
            inspect(stat.as_bytes()),
            Fbx::Contents {
                stacks: 0,
                skins: 0
            }
        );
        assert!(matches!(inspect(b"; FBX\n}\n"), Fbx::Corrupt(_)));
    }
}
