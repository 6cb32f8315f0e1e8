//! Reading a generated manifest back (`AnimManifest::from_ron`) through `ron_span`, like every
//! other RON input: unknown, duplicate and missing fields are named, a newer format is refused
//! for its version before its fields, and the first problem is reported at its line and column.

use super::manifest::{AnimManifest, ClipEntry, FORMAT, ManifestDiagnostic, SkeletonEntry};
use crate::diag::{Severity, Span};
use crate::ron_span::{DecodeError, Fields, Value, expect_struct, parse};

/// `line:column` of byte `span.start` in `text` (1-based; columns count characters).
fn at(text: &str, span: Span) -> String {
    let before = text.get(..span.start as usize).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{line}:{column}")
}

/// Collects a manifest's values, keeping every decode error.
struct Reader {
    errs: Vec<DecodeError>,
}

impl Reader {
    fn strukt<'v>(
        &mut self,
        v: &'v Value,
        name: &str,
        known: &'static [&'static str],
    ) -> Option<Fields<'v>> {
        expect_struct(v, name, known, &mut self.errs)
    }
    fn ok<T>(&mut self, r: Result<T, DecodeError>) -> Option<T> {
        r.map_err(|e| self.errs.push(e)).ok()
    }
    fn string(&mut self, f: &Fields<'_>, name: &'static str) -> String {
        let v = f.required(name, &mut self.errs);
        v.and_then(|v| self.ok(v.as_str().map(str::to_string)))
            .unwrap_or_default()
    }
    fn count(&mut self, f: &Fields<'_>, name: &'static str) -> u64 {
        let v = f.required(name, &mut self.errs);
        v.and_then(|v| {
            let n = self.ok(v.as_i64())?;
            let r = u64::try_from(n).map_err(|_| DecodeError::mismatch("a count (0 or more)", v));
            self.ok(r)
        })
        .unwrap_or_default()
    }
    fn list<'v>(&mut self, f: &Fields<'v>, name: &'static str) -> &'v [Value] {
        let v = f.required(name, &mut self.errs);
        v.and_then(|v| self.ok(v.as_list())).unwrap_or_default()
    }
}

const FIELDS: &[&str] = &[
    "format",
    "model",
    "source",
    "fingerprint",
    "runtime_supported",
    "skeletons",
    "clips",
    "diagnostics",
];
const SKELETON: &[&str] = &["name", "file", "signature", "joints"];
const CLIP: &[&str] = &[
    "id", "label", "index", "duration", "skeleton", "file", "markers",
];
const DIAGNOSTIC: &[&str] = &["severity", "code", "message"];

/// Reads a manifest (see the module's documentation).
pub fn from_ron(text: &str) -> Result<AnimManifest, String> {
    let v = parse(text).map_err(|e| format!("{}: {}", at(text, e.span), e.message))?;
    let mut r = Reader { errs: Vec::new() };
    let first = |errs: &[DecodeError]| {
        errs.first().map_or_else(String::new, |e| {
            format!("{}: {}", at(text, e.span), e.message())
        })
    };
    let Some(f) = r.strukt(&v, "AnimManifest", FIELDS) else {
        return Err(first(&r.errs));
    };
    // The version first, so a newer file is refused for its version, not its fields.
    if let Some(n) = f.get("format").and_then(|x| x.value.as_i64().ok())
        && n > i64::from(FORMAT)
    {
        return Err(format!(
            "manifest format {n} is newer than this reader ({FORMAT})"
        ));
    }
    let format = r.count(&f, "format");
    let model = r.string(&f, "model");
    let source = r.string(&f, "source");
    let fingerprint = r.string(&f, "fingerprint");
    let runtime_supported = f
        .required("runtime_supported", &mut r.errs)
        .and_then(|v| r.ok(v.as_bool()))
        .unwrap_or_default();
    let mut skeletons = Vec::new();
    for s in r.list(&f, "skeletons") {
        let Some(s) = r.strukt(s, "SkeletonEntry", SKELETON) else {
            continue;
        };
        let joints = r
            .list(&s, "joints")
            .iter()
            .filter_map(|j| r.ok(j.as_str().map(str::to_string)))
            .collect();
        skeletons.push(SkeletonEntry {
            name: r.string(&s, "name"),
            file: r.string(&s, "file"),
            signature: r.string(&s, "signature"),
            joints,
        });
    }
    let mut clips = Vec::new();
    for c in r.list(&f, "clips") {
        let Some(c) = r.strukt(c, "ClipEntry", CLIP) else {
            continue;
        };
        let duration = c
            .required("duration", &mut r.errs)
            .and_then(|v| r.ok(v.as_f64()))
            .unwrap_or_default();
        clips.push(ClipEntry {
            id: r.string(&c, "id"),
            label: r.string(&c, "label"),
            index: usize::try_from(r.count(&c, "index")).unwrap_or(usize::MAX),
            duration,
            skeleton: r.string(&c, "skeleton"),
            file: r.string(&c, "file"),
            markers: usize::try_from(r.count(&c, "markers")).unwrap_or(usize::MAX),
        });
    }
    let mut diagnostics = Vec::new();
    for d in r.list(&f, "diagnostics") {
        let Some(d) = r.strukt(d, "ManifestDiagnostic", DIAGNOSTIC) else {
            continue;
        };
        let severity = d.required("severity", &mut r.errs).and_then(|v| {
            let s = match v.as_variant() {
                Some(x) if x.args.is_none() && x.name == "Error" => Ok(Severity::Error),
                Some(x) if x.args.is_none() && x.name == "Warning" => Ok(Severity::Warning),
                Some(x) if x.args.is_none() && x.name == "Note" => Ok(Severity::Note),
                _ => Err(DecodeError::mismatch("`Error`, `Warning` or `Note`", v)),
            };
            r.ok(s)
        });
        diagnostics.push(ManifestDiagnostic {
            severity: severity.unwrap_or(Severity::Error),
            code: r.string(&d, "code"),
            message: r.string(&d, "message"),
        });
    }
    if !r.errs.is_empty() {
        return Err(first(&r.errs));
    }
    if format != u64::from(FORMAT) {
        return Err(format!("manifest format {format} is not {FORMAT}"));
    }
    Ok(AnimManifest {
        format: FORMAT,
        model,
        source,
        fingerprint,
        runtime_supported,
        skeletons,
        clips,
        diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_round_trip_and_problems_are_named_where_they_are() {
        let m = AnimManifest {
            format: FORMAT,
            model: "5473eea4-4dd5-4860-bd3d-87fd3ae04744".into(),
            source: "models/a \"b\".glb".into(),
            fingerprint: "sha256:00".into(),
            runtime_supported: true,
            skeletons: vec![SkeletonEntry {
                name: "rig".into(),
                file: "rig.skel".into(),
                signature: "ab".into(),
                joints: vec!["root".into(), "root/arm".into()],
            }],
            clips: vec![ClipEntry {
                id: "id".into(),
                label: "Walk".into(),
                index: 2,
                duration: 1e-7,
                skeleton: "ab".into(),
                file: "walk.animseq".into(),
                markers: 3,
            }],
            diagnostics: vec![ManifestDiagnostic {
                severity: Severity::Warning,
                code: "W0701".into(),
                message: "m".into(),
            }],
        };
        assert_eq!(from_ron(&m.to_ron()), Ok(m.clone()));
        let text = m.to_ron().replace("    source:", "    sauce:");
        let e = from_ron(&text).unwrap_err();
        assert!(e.starts_with("4:5: ") && e.contains("`sauce`"), "{e}");
        let text = m.to_ron().replace("format: 1", "format: 9");
        assert_eq!(
            from_ron(&text).unwrap_err(),
            "manifest format 9 is newer than this reader (1)"
        );
        let text = m.to_ron().replace("severity: Warning", "severity: Loud");
        assert!(
            from_ron(&text)
                .unwrap_err()
                .contains("`Error`, `Warning` or `Note`")
        );
        let text = m.to_ron().replace("index: 2", "index: -2");
        assert!(from_ron(&text).unwrap_err().contains("a count"));
    }
}
