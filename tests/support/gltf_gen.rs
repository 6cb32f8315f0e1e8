//! Builds glTF models in tests with the `gltf-json` crate: nodes (TRS or matrix), skins,
//! float accessors (dense or sparse), animations with any interpolation, morph meshes and
//! extras; written as `.glb`, `.gltf` with a `data:` URI, or `.gltf` plus an external `.bin`.
#![allow(dead_code)]

use base64::Engine as _;
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type};
use json::animation::{Interpolation, Property};
use json::validation::{Checked, USize64};
use json::{Index, Root};

#[allow(unused_imports)]
pub use json::accessor::Type as AccType;
#[allow(unused_imports)]
pub use json::animation::{Interpolation as Interp, Property as Path};

/// A model under construction: the JSON root and the bytes of its one buffer.
pub struct Gen {
    pub root: Root,
    pub bin: Vec<u8>,
    /// Samplers to write without an `interpolation` key: `(animation, sampler)`.
    no_interpolation: Vec<(usize, usize)>,
}

impl Default for Gen {
    fn default() -> Gen {
        Gen::new()
    }
}

fn accessor(view: Option<usize>, count: usize, ty: Type) -> json::Accessor {
    json::Accessor {
        buffer_view: view.map(|v| Index::new(v as u32)),
        byte_offset: None,
        count: USize64(count as u64),
        component_type: Checked::Valid(GenericComponentType(ComponentType::F32)),
        extensions: None,
        extras: None,
        type_: Checked::Valid(ty),
        min: None,
        max: None,
        name: None,
        normalized: false,
        sparse: None,
    }
}

fn components(ty: Type) -> usize {
    ty.multiplicity()
}

impl Gen {
    pub fn new() -> Gen {
        let mut root = Root::default();
        root.asset.version = "2.0".to_string();
        root.asset.generator = Some("sinew tests".to_string());
        Gen {
            root,
            bin: Vec::new(),
            no_interpolation: Vec::new(),
        }
    }

    /// A node named `name` (`None`: unnamed) under `parent`.
    pub fn node(&mut self, name: Option<&str>, parent: Option<usize>) -> usize {
        let i = self.root.nodes.len();
        self.root.nodes.push(json::Node {
            name: name.map(str::to_string),
            ..Default::default()
        });
        if let Some(p) = parent {
            self.root.nodes[p]
                .children
                .get_or_insert_with(Vec::new)
                .push(Index::new(i as u32));
        }
        i
    }

    pub fn trs(&mut self, n: usize, t: Option<[f32; 3]>, r: Option<[f32; 4]>, s: Option<[f32; 3]>) {
        let node = &mut self.root.nodes[n];
        node.translation = t;
        node.rotation = r.map(json::scene::UnitQuaternion);
        node.scale = s;
    }

    /// A column-major matrix.
    pub fn matrix(&mut self, n: usize, m: [f32; 16]) {
        self.root.nodes[n].matrix = Some(m);
    }

    /// A skin over `joints` (in this order).
    pub fn skin(&mut self, name: Option<&str>, joints: &[usize]) -> usize {
        let i = self.root.skins.len();
        self.root.skins.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: None,
            joints: joints.iter().map(|&j| Index::new(j as u32)).collect(),
            name: name.map(str::to_string),
            skeleton: None,
        });
        i
    }

    /// A buffer view over `bytes` appended to the buffer (4-byte aligned).
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let off = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let i = self.root.buffer_views.len();
        self.root.buffer_views.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(off as u64)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: None,
        });
        i
    }

    /// A dense float accessor of type `ty` over `data`.
    pub fn floats(&mut self, data: &[f32], ty: Type) -> usize {
        assert_eq!(data.len() % components(ty), 0);
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let v = self.view(&bytes);
        let i = self.root.accessors.len();
        self.root
            .accessors
            .push(accessor(Some(v), data.len() / components(ty), ty));
        i
    }

    /// A sparse float accessor: `base` (or zeros without a view) with `indices` replaced by
    /// `values` (one element each).
    pub fn sparse(
        &mut self,
        base: Option<&[f32]>,
        count: usize,
        ty: Type,
        indices: &[u16],
        values: &[f32],
    ) -> usize {
        let view = base.map(|b| {
            let bytes: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
            self.view(&bytes)
        });
        let ib: Vec<u8> = indices.iter().flat_map(|x| x.to_le_bytes()).collect();
        let iv = self.view(&ib);
        let vb: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        let vv = self.view(&vb);
        let mut a = accessor(view, count, ty);
        a.sparse = Some(json::accessor::sparse::Sparse {
            count: USize64(indices.len() as u64),
            indices: json::accessor::sparse::Indices {
                buffer_view: Index::new(iv as u32),
                byte_offset: USize64(0),
                component_type: Checked::Valid(IndexComponentType(ComponentType::U16)),
                extensions: None,
                extras: None,
            },
            values: json::accessor::sparse::Values {
                buffer_view: Index::new(vv as u32),
                byte_offset: USize64(0),
                extensions: None,
                extras: None,
            },
            extensions: None,
            extras: None,
        });
        let i = self.root.accessors.len();
        self.root.accessors.push(a);
        i
    }

    /// A new animation.
    pub fn animation(&mut self, name: Option<&str>) -> usize {
        let i = self.root.animations.len();
        self.root.animations.push(json::Animation {
            extensions: None,
            extras: None,
            channels: Vec::new(),
            name: name.map(str::to_string),
            samplers: Vec::new(),
        });
        i
    }

    /// A channel of animation `a` on `node`'s `path` with sampler accessors `input`/`output`;
    /// `interp: None` writes no `interpolation` key.
    pub fn channel_acc(
        &mut self,
        a: usize,
        node: usize,
        path: Property,
        interp: Option<Interpolation>,
        input: usize,
        output: usize,
    ) {
        let anim = &mut self.root.animations[a];
        let s = anim.samplers.len();
        anim.samplers.push(json::animation::Sampler {
            extensions: None,
            extras: None,
            input: Index::new(input as u32),
            interpolation: interp.map_or(Checked::Valid(Interpolation::Linear), Checked::Valid),
            output: Index::new(output as u32),
        });
        anim.channels.push(json::animation::Channel {
            sampler: Index::new(s as u32),
            target: json::animation::Target {
                extensions: None,
                extras: None,
                node: Index::new(node as u32),
                path: Checked::Valid(path),
            },
            extensions: None,
            extras: None,
        });
        if interp.is_none() {
            self.no_interpolation.push((a, s));
        }
    }

    /// A channel with its own accessors over `times` and `values`.
    pub fn channel(
        &mut self,
        a: usize,
        node: usize,
        path: Property,
        interp: Option<Interpolation>,
        times: &[f32],
        values: &[f32],
    ) {
        let input = self.floats(times, Type::Scalar);
        let ty = match path {
            Property::Translation | Property::Scale => Type::Vec3,
            Property::Rotation => Type::Vec4,
            Property::MorphTargetWeights => Type::Scalar,
        };
        let output = self.floats(values, ty);
        self.channel_acc(a, node, path, interp, input, output);
    }

    /// Sets animation `a`'s extras to the JSON text `extras`.
    pub fn extras(&mut self, a: usize, extras: &str) {
        self.root.animations[a].extras =
            Some(serde_json::value::RawValue::from_string(extras.to_string()).expect("json"));
    }

    /// Gives `node` a one-triangle mesh with `targets` morph targets.
    pub fn morph_mesh(&mut self, node: usize, targets: usize) {
        let pos = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let p = self.floats(&pos, Type::Vec3);
        self.root.accessors[p].min = Some(serde_json::json!([0.0, 0.0, 0.0]));
        self.root.accessors[p].max = Some(serde_json::json!([1.0, 1.0, 0.0]));
        let mut ts = Vec::new();
        for _ in 0..targets {
            let d = self.floats(&[0.0; 9], Type::Vec3);
            ts.push(json::mesh::MorphTarget {
                positions: Some(Index::new(d as u32)),
                normals: None,
                tangents: None,
            });
        }
        let mut attributes = std::collections::BTreeMap::new();
        attributes.insert(
            Checked::Valid(json::mesh::Semantic::Positions),
            Index::new(p as u32),
        );
        let m = self.root.meshes.len();
        self.root.meshes.push(json::Mesh {
            extensions: None,
            extras: None,
            name: None,
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: None,
                material: None,
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: Some(ts),
            }],
            weights: Some(vec![0.0; targets]),
        });
        self.root.nodes[node].mesh = Some(Index::new(m as u32));
    }

    fn finished(&self, uri: Option<String>) -> (Root, Vec<u8>) {
        let mut root = self.root.clone();
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        root.buffers = vec![json::Buffer {
            byte_length: USize64(bin.len() as u64),
            name: None,
            uri,
            extensions: None,
            extras: None,
        }];
        let has_parent: std::collections::BTreeSet<u32> = root
            .nodes
            .iter()
            .flat_map(|n| n.children.iter().flatten().map(|c| c.value() as u32))
            .collect();
        let tops = (0..root.nodes.len() as u32)
            .filter(|i| !has_parent.contains(i))
            .map(Index::new)
            .collect();
        root.scenes = vec![json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: tops,
        }];
        root.scene = Some(Index::new(0));
        (root, bin)
    }

    fn json_text(&self, root: &Root) -> String {
        let mut v = serde_json::to_value(root).expect("serialize");
        // Samplers written without `interpolation` (LINEAR by default).
        for &(a, s) in &self.no_interpolation {
            if let Some(o) = v["animations"][a]["samplers"][s].as_object_mut() {
                o.remove("interpolation");
            }
        }
        serde_json::to_string(&v).expect("json")
    }

    /// The model as a `.glb` file.
    pub fn glb(&self) -> Vec<u8> {
        let (root, bin) = self.finished(None);
        let mut json = self.json_text(&root).into_bytes();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        glb_bytes(&json, Some(&bin))
    }

    /// The model as a `.gltf` with its buffer in a `data:` URI.
    pub fn gltf_embedded(&self) -> Vec<u8> {
        let (_, bin) = self.finished(None);
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        );
        let (root, _) = self.finished(Some(uri));
        self.json_text(&root).into_bytes()
    }

    /// The model as a `.gltf` naming an external buffer `uri`, and that buffer's bytes.
    pub fn gltf_external(&self, uri: &str) -> (Vec<u8>, Vec<u8>) {
        let (root, bin) = self.finished(Some(uri.to_string()));
        (self.json_text(&root).into_bytes(), bin)
    }
}

/// A GLB container around a JSON chunk and an optional BIN chunk (lengths as given).
pub fn glb_bytes(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&(json.len() as u32).to_le_bytes());
    body.extend_from_slice(b"JSON");
    body.extend_from_slice(json);
    if let Some(b) = bin {
        body.extend_from_slice(&(b.len() as u32).to_le_bytes());
        body.extend_from_slice(b"BIN\0");
        body.extend_from_slice(b);
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A glTF of a chain of `depth` nodes and `skins` skins on its deepest joint, translated by
/// one clip: each skin's skeleton holds the whole chain.
pub fn skins_on_one_deep_joint(depth: usize, skins: usize) -> Vec<u8> {
    let mut nodes: Vec<String> = (0..depth)
        .map(|i| {
            if i + 1 < depth {
                format!("{{\"name\":\"joint_{i:05}\",\"children\":[{}]}}", i + 1)
            } else {
                format!("{{\"name\":\"joint_{i:05}\"}}")
            }
        })
        .collect();
    nodes.shrink_to_fit();
    let last = depth - 1;
    let skin_list: Vec<String> = (0..skins)
        .map(|_| format!("{{\"joints\":[{last}]}}"))
        .collect();
    format!(
        "{{\"asset\":{{\"version\":\"2.0\"}},\"scene\":0,\"scenes\":[{{\"nodes\":[0]}}],\
         \"nodes\":[{}],\"skins\":[{}],\
         \"animations\":[{{\"name\":\"Move\",\"samplers\":[{{\"input\":0,\"output\":1}}],\
         \"channels\":[{{\"sampler\":0,\"target\":{{\"node\":{last},\"path\":\"translation\"}}}}]}}],\
         \"buffers\":[{{\"byteLength\":16,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}}],\
         \"bufferViews\":[{{\"buffer\":0,\"byteLength\":16}}],\
         \"accessors\":[{{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\",\"min\":[0],\"max\":[0]}},\
         {{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}}]}}",
        nodes.join(","),
        skin_list.join(",")
    )
    .into_bytes()
}
