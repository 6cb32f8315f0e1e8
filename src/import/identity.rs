//! Identities: the model UUID kept in a `MODEL.ext.meta` sidecar (`ModelMeta(uuid: "...")`),
//! clip sub-asset IDs (UUID v5 of `clip/<label>` in the model UUID's namespace), the source
//! fingerprint, and the pure decisions the CLI applies: matching a model that moved without its
//! sidecar to an existing manifest, and finding sidecars that claim one UUID.

use super::signature::sha256_hex;
use std::collections::BTreeMap;
use uuid::Uuid;

/// A clip's stable sub-asset ID.
pub fn clip_id(model: &Uuid, label: &str) -> String {
    Uuid::new_v5(model, format!("clip/{label}").as_bytes())
        .hyphenated()
        .to_string()
}

/// `sha256:<hex>` of a source file's bytes.
pub fn fingerprint(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// The sidecar's file name for a model file name: the whole name plus `.meta`.
pub fn sidecar_name(model_file_name: &str) -> String {
    format!("{model_file_name}.meta")
}

/// The sidecar text for `uuid`.
pub fn sidecar_text(uuid: &Uuid) -> String {
    format!("ModelMeta(uuid: \"{}\")\n", uuid.hyphenated())
}

/// Reads a sidecar: `ModelMeta(uuid: "<uuid>")` (the struct name may be omitted), through
/// `ron_span` like every other RON input: what is wrong is named with its line and column.
pub fn parse_sidecar(text: &str) -> Result<Uuid, String> {
    use crate::ron_span::{DecodeError, expect_struct, parse};
    let at = |span: crate::diag::Span| {
        let before = text.get(..span.start as usize).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        format!("line {line}, column {column}")
    };
    let bad = |what: String| format!("not `ModelMeta(uuid: \"...\")`: {what}");
    let decode = |e: &DecodeError| bad(format!("{} at {}", e.message(), at(e.span)));
    let v = parse(text).map_err(|e| bad(format!("{} at {}", e.message, at(e.span))))?;
    let mut errs = Vec::new();
    let uuid = expect_struct(&v, "ModelMeta", &["uuid"], &mut errs)
        .and_then(|f| f.required("uuid", &mut errs))
        .map(|u| u.as_str());
    if let Some(e) = errs.first() {
        return Err(decode(e));
    }
    let uuid = match uuid {
        Some(Ok(u)) => u,
        Some(Err(e)) => return Err(decode(&e)),
        None => return Err(bad("no `uuid`".into())),
    };
    Uuid::parse_str(uuid)
        .ok()
        .filter(|u| !u.is_nil())
        .ok_or_else(|| format!("`{}` is not a UUID", crate::ron_span::short(uuid)))
}

/// An existing manifest, as the reconciliation sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// Where the manifest is (for messages).
    pub manifest: String,
    /// Its model UUID.
    pub model: Uuid,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The model it records still exists with a sidecar claiming its UUID (so a file with the
    /// same bytes elsewhere is a copy, not that model moved).
    pub still_owned: bool,
}

/// What a model without a sidecar gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reconciled {
    /// Exactly one manifest whose model is gone has this fingerprint: the model moved.
    Moved {
        /// The UUID to reuse.
        model: Uuid,
        /// The manifest matched.
        manifest: String,
    },
    /// No manifest matches: a new model (a fresh v4 UUID).
    New,
    /// Several manifests match: never "first wins".
    Ambiguous(Vec<String>),
}

/// Matches a fingerprint against existing manifests (in any order; the answer does not depend
/// on it).
pub fn reconcile(fingerprint: &str, known: &[Known]) -> Reconciled {
    let mut hits: Vec<&Known> = known
        .iter()
        .filter(|k| k.fingerprint == fingerprint && !k.still_owned)
        .collect();
    hits.sort_by(|a, b| a.manifest.cmp(&b.manifest));
    hits.dedup_by(|a, b| a.model == b.model);
    match hits.as_slice() {
        [] => Reconciled::New,
        [one] => Reconciled::Moved {
            model: one.model,
            manifest: one.manifest.clone(),
        },
        many => Reconciled::Ambiguous(many.iter().map(|k| k.manifest.clone()).collect()),
    }
}

/// Groups of models whose sidecars claim one UUID: `(uuid, models sorted)` for every UUID
/// claimed more than once, in UUID order.
pub fn duplicate_claims<'a>(
    claims: impl IntoIterator<Item = (&'a str, Uuid)>,
) -> Vec<(Uuid, Vec<String>)> {
    let mut by: BTreeMap<Uuid, Vec<String>> = BTreeMap::new();
    for (model, uuid) in claims {
        by.entry(uuid).or_default().push(model.to_string());
    }
    by.into_iter()
        .filter_map(|(u, mut v)| {
            v.sort();
            v.dedup();
            (v.len() > 1).then_some((u, v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_ids_are_v5_in_the_model_namespace() {
        let m = Uuid::parse_str("6f1c3c1e-2a57-4c62-9d3b-0c9f4f6b9e11").expect("uuid");
        let id = clip_id(&m, "Walk");
        let u = Uuid::parse_str(&id).expect("valid");
        assert_eq!(u.get_version_num(), 5);
        assert_eq!(id, Uuid::new_v5(&m, b"clip/Walk").to_string());
        assert_ne!(id, clip_id(&m, "Run"));
        assert!(crate::animseq::is_valid_id(&id));
        assert_eq!(id, id.to_lowercase());
    }

    #[test]
    fn sidecars_round_trip() {
        let u = Uuid::new_v4();
        assert_eq!(parse_sidecar(&sidecar_text(&u)), Ok(u));
        assert_eq!(parse_sidecar(&format!("(uuid: \"{u}\")")), Ok(u));
        assert!(parse_sidecar("ModelMeta(uuid: \"nope\")").is_err());
        assert!(
            parse_sidecar("ModelMeta(uuid: \"00000000-0000-0000-0000-000000000000\")").is_err()
        );
        assert!(parse_sidecar("ModelMeta(uuid: \"x\", extra: 1)").is_err());
        assert_eq!(sidecar_name("fox.glb"), "fox.glb.meta");
    }

    #[test]
    fn a_bad_sidecar_is_named_at_its_line_and_column() {
        // Issue #25: read through `ron_span` (spans), not serde's `ron`.
        let e = parse_sidecar("ModelMeta(\n  uid: \"x\")").unwrap_err();
        assert!(e.starts_with("not `ModelMeta(uuid: \"...\")`: "), "{e}");
        assert!(
            e.contains("`uid`") && e.ends_with("at line 2, column 3"),
            "{e}"
        );
        let e = parse_sidecar("ModelMeta(uuid: 3)").unwrap_err();
        assert!(e.ends_with("at line 1, column 17"), "{e}");
        let e = parse_sidecar("ModelMeta(uuid: ").unwrap_err();
        assert!(e.contains("at line 1, column"), "{e}");
    }

    #[test]
    fn reconciliation_never_picks_the_first() {
        let k = |m: &str, u: u128, fp: &str, owned: bool| Known {
            manifest: m.to_string(),
            model: Uuid::from_u128(u),
            fingerprint: fp.to_string(),
            still_owned: owned,
        };
        assert_eq!(reconcile("a", &[]), Reconciled::New);
        assert_eq!(
            reconcile("a", &[k("m1", 1, "a", false), k("m2", 2, "b", false)]),
            Reconciled::Moved {
                model: Uuid::from_u128(1),
                manifest: "m1".into()
            }
        );
        assert_eq!(
            reconcile("a", &[k("m2", 2, "a", false), k("m1", 1, "a", false)]),
            Reconciled::Ambiguous(vec!["m1".into(), "m2".into()])
        );
        // A manifest whose model is still there claims its own file: this one is a copy.
        assert_eq!(reconcile("a", &[k("m1", 1, "a", true)]), Reconciled::New);
    }

    #[test]
    fn duplicate_claims_name_both_models() {
        let u = Uuid::from_u128(7);
        let d = duplicate_claims([("b.glb", u), ("a.glb", u), ("c.glb", Uuid::from_u128(8))]);
        assert_eq!(d, vec![(u, vec!["a.glb".to_string(), "b.glb".to_string()])]);
    }
}
