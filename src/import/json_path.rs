//! What an "index out of bounds" from gltf-json's validation failed on: the index found at the
//! JSON path it names (`animations[2].samplers[1].input`) and the length of the list that index
//! points into (`accessors`, or the animation's own `samplers`), read from the document's JSON.

use serde_json::Value;

/// One step of a gltf-json path: `.name`, `[3]` or `["KEY"]`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step<'p> {
    Field(&'p str),
    Index(usize),
    Key(&'p str),
}

/// The steps of `path`; `None` when it is not in gltf-json's path syntax.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[\"") {
            let (key, r) = r.split_once("\"]")?;
            out.push(Step::Key(key));
            rest = r;
        } else if let Some(r) = rest.strip_prefix('[') {
            let (i, r) = r.split_once(']')?;
            out.push(Step::Index(i.parse().ok()?));
            rest = r;
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Field(&r[..end]));
            rest = &r[end..];
        }
    }
    Some(out)
}

fn walk<'v>(root: &'v Value, steps: &[Step<'_>]) -> Option<&'v Value> {
    steps.iter().try_fold(root, |v, s| match s {
        Step::Field(f) | Step::Key(f) => v.get(*f),
        Step::Index(i) => v.get(*i),
    })
}

/// The top-level list an index field points into, by the field's name.
fn list_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "input" | "output" | "inverseBindMatrices" | "indices" | "attributes" | "targets" => {
            "accessors"
        }
        "node" | "children" | "nodes" | "joints" | "skeleton" => "nodes",
        "mesh" => "meshes",
        "skin" => "skins",
        "camera" => "cameras",
        "material" => "materials",
        "bufferView" => "bufferViews",
        "buffer" => "buffers",
        "scene" => "scenes",
        "source" => "images",
        "index" => "textures",
        "sampler" => "samplers",
        _ => return None,
    })
}

/// "index 4242 must be below 3 (the number of `accessors`)" for the index at `path` in the
/// document `json`; `None` when the path or the index cannot be read back.
pub fn out_of_bounds(json: &Value, path: &str) -> Option<String> {
    let steps = steps(path)?;
    let index = walk(json, &steps)?.as_u64()?;
    // The last field name (a trailing `[k]` or `["KEY"]` belongs to it).
    let at = steps.iter().rposition(|s| matches!(s, Step::Field(_)))?;
    let Step::Field(field) = steps[at] else {
        return None;
    };
    // A channel's `sampler` points into its animation's own `samplers`.
    let (list_steps, shown) = match (field, at.checked_sub(2).map(|i| &steps[..i])) {
        ("sampler", Some(anim @ [Step::Field("animations"), Step::Index(a)])) => {
            let mut s = anim.to_vec();
            s.push(Step::Field("samplers"));
            (s, format!("`animations[{a}].samplers`"))
        }
        _ => {
            let list = list_of(field)?;
            (vec![Step::Field(list)], format!("`{list}`"))
        }
    };
    let len = walk(json, &list_steps)
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    Some(format!(
        "index {index} is out of bounds: it must be below {len} (the number of {shown})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_index_and_its_bound() {
        let doc: Value = serde_json::from_str(
            r#"{"accessors": [{}, {}, {}], "nodes": [{"children": [0, 7]}],
                "animations": [{"samplers": [{"input": 4242, "output": 1}],
                                "channels": [{"sampler": 9, "target": {"node": 0}}]}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 12}}]}]}"#,
        )
        .expect("json");
        assert_eq!(
            out_of_bounds(&doc, "animations[0].samplers[0].input").as_deref(),
            Some("index 4242 is out of bounds: it must be below 3 (the number of `accessors`)")
        );
        assert_eq!(
            out_of_bounds(&doc, "animations[0].channels[0].sampler").as_deref(),
            Some(
                "index 9 is out of bounds: it must be below 1 (the number of \
                 `animations[0].samplers`)"
            )
        );
        assert_eq!(
            out_of_bounds(&doc, "nodes[0].children[1]").as_deref(),
            Some("index 7 is out of bounds: it must be below 1 (the number of `nodes`)")
        );
        assert_eq!(
            out_of_bounds(&doc, "meshes[0].primitives[0].attributes[\"POSITION\"]").as_deref(),
            Some("index 12 is out of bounds: it must be below 3 (the number of `accessors`)")
        );
        assert_eq!(out_of_bounds(&doc, "nodes[5].mesh"), None);
        assert_eq!(out_of_bounds(&doc, "a[x]"), None);
    }
}
