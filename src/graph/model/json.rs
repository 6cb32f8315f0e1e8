//! The studio's `model` JSON shape (`spec/studio.md`), with serde:
//!
//! ```json
//! {"graph": "hero", "vars": [{"name": "steps", "type": "int", "default": 0}],
//!  "nodes": [{"id": "inc", "kind": "int.add", "x": 0, "y": 0, "props": {"b": 1}}],
//!  "links": [{"from": "get.value", "to": "inc.a"}]}
//! ```
//!
//! Beyond the spec's example: `events` (custom event payloads, `[{"name": "hit", "fields":
//! [{"name": "amount", "type": "float"}]}]`, left out when there are none), `boxes` (comment
//! boxes, `[{"title": "Footsteps", "x": 0, "y": 0, "w": 400, "h": 200, "color": "#336699"}]`,
//! `color` optional, left out when there are none), `comment` (own-line comments above the item, lines joined with
//! `\n`) and `line_comment` (the end-of-line comment) on vars, nodes and links, and on the
//! model itself for the `graph` line, plus `end_comment` for the comments after the last item;
//! each is left out when empty and optional when read. Values: JSON integers are `INT`s, other
//! numbers `FLOAT`s, `[x, y, z]` a vec3, strings and booleans as themselves. `props` is an
//! object in authored order. Reading validates ([`Model::validate`]) after normalizing
//! comments, so every model read from JSON can be written as text.

use super::{BoxDef, EventDecl, Link, Model, Node, PinRef, Props, Value, Var};
use crate::graph::ast::{Number, Type};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn comment_fields<S: SerializeStruct>(
    s: &mut S,
    comment: &str,
    line: &Option<String>,
) -> Result<(), S::Error> {
    if comment.is_empty() {
        s.skip_field("comment")?;
    } else {
        s.serialize_field("comment", comment)?;
    }
    match line {
        Some(l) => s.serialize_field("line_comment", l),
        None => s.skip_field("line_comment"),
    }
}

impl Serialize for Model {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Model", 9)?;
        st.serialize_field("graph", &self.graph)?;
        if self.events.is_empty() {
            st.skip_field("events")?;
        } else {
            st.serialize_field("events", &self.events)?;
        }
        st.serialize_field("vars", &self.vars)?;
        if self.boxes.is_empty() {
            st.skip_field("boxes")?;
        } else {
            st.serialize_field("boxes", &self.boxes)?;
        }
        st.serialize_field("nodes", &self.nodes)?;
        st.serialize_field("links", &self.links)?;
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        if self.end_comment.is_empty() {
            st.skip_field("end_comment")?;
        } else {
            st.serialize_field("end_comment", &self.end_comment)?;
        }
        st.end()
    }
}

impl Serialize for EventDecl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a [(String, Type)]);
        impl Serialize for Fields<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (name, ty) in self.0 {
                    let mut m = std::collections::BTreeMap::new();
                    m.insert("name", name.as_str());
                    m.insert("type", ty.name());
                    seq.serialize_element(&m)?;
                }
                seq.end()
            }
        }
        let mut st = s.serialize_struct("EventDecl", 4)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("fields", &Fields(&self.fields))?;
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        st.end()
    }
}

impl Serialize for BoxDef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("BoxDef", 8)?;
        st.serialize_field("title", &self.title)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.serialize_field("w", &self.w)?;
        st.serialize_field("h", &self.h)?;
        match &self.color {
            Some(c) => st.serialize_field("color", c)?,
            None => st.skip_field("color")?,
        }
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        st.end()
    }
}

impl Serialize for Var {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Var", 5)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("type", self.ty.name())?;
        st.serialize_field("default", &self.default)?;
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        st.end()
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Node", 7)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("kind", &self.kind)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.serialize_field("props", &self.props)?;
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        st.end()
    }
}

impl Serialize for Link {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Link", 4)?;
        st.serialize_field("from", &self.from.to_string())?;
        st.serialize_field("to", &self.to.to_string())?;
        comment_fields(&mut st, &self.comment, &self.line_comment)?;
        st.end()
    }
}

impl Serialize for Props {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct Num(Number);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Number::Int(i) => s.serialize_i64(i),
            Number::Float(f) => s.serialize_f64(f),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(f) => s.serialize_f64(*f),
            Value::String(v) => s.serialize_str(v),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Vec3(c) => {
                let mut seq = s.serialize_seq(Some(3))?;
                for n in c {
                    seq.serialize_element(&Num(*n))?;
                }
                seq.end()
            }
        }
    }
}

// ---- reading ----

fn int_of<E: de::Error>(v: u64) -> Result<i64, E> {
    i64::try_from(v).map_err(|_| E::custom(format!("integer {v} is out of range for int (i64)")))
}

fn float_of<E: de::Error>(v: f64) -> Result<f64, E> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(E::custom("a float must be finite"))
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(Number::Int(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Number::Int(int_of(v)?)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(Number::Float(float_of(v)?)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a literal: a number, a string, a boolean or [x, y, z]")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
                Ok(Value::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
                Ok(Value::Int(int_of(v)?))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
                Ok(Value::Float(float_of(v)?))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
                Ok(Value::Bool(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
                Ok(Value::String(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
                Ok(Value::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut c = [Number::Int(0); 3];
                for (i, slot) in c.iter_mut().enumerate() {
                    *slot = seq
                        .next_element::<Num>()?
                        .ok_or_else(|| de::Error::invalid_length(i, &"3 numbers"))?
                        .0;
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(4, &"3 numbers"));
                }
                Ok(Value::Vec3(c))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Props {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Props, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Props;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of name: literal")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Props, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Props(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn pin_ref<'de, D: Deserializer<'de>>(d: D) -> Result<PinRef, D::Error> {
    let s = String::deserialize(d)?;
    PinRef::parse(&s).ok_or_else(|| de::Error::custom(format!("`{s}` is not `node.pin`")))
}

fn ty<'de, D: Deserializer<'de>>(d: D) -> Result<Type, D::Error> {
    let s = String::deserialize(d)?;
    Type::from_name(&s).ok_or_else(|| {
        de::Error::custom(format!(
            "unknown type `{s}` (expected bool, int, float, vec3, string or entity)"
        ))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVar {
    name: String,
    #[serde(rename = "type", deserialize_with = "ty")]
    ty: Type,
    default: Value,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    id: String,
    kind: String,
    #[serde(default)]
    x: Option<i64>,
    #[serde(default)]
    y: Option<i64>,
    #[serde(default)]
    props: Props,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    #[serde(deserialize_with = "pin_ref")]
    from: PinRef,
    #[serde(deserialize_with = "pin_ref")]
    to: PinRef,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: String,
    #[serde(rename = "type", deserialize_with = "ty")]
    ty: Type,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: String,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBox {
    title: String,
    x: i64,
    y: i64,
    w: i64,
    h: i64,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    graph: String,
    #[serde(default)]
    events: Vec<RawEvent>,
    #[serde(default)]
    vars: Vec<RawVar>,
    #[serde(default)]
    boxes: Vec<RawBox>,
    #[serde(default)]
    nodes: Vec<RawNode>,
    #[serde(default)]
    links: Vec<RawLink>,
    #[serde(default)]
    comment: String,
    #[serde(default)]
    line_comment: Option<String>,
    #[serde(default)]
    end_comment: String,
}

impl<'de> Deserialize<'de> for Model {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Model, D::Error> {
        let r = RawModel::deserialize(d)?;
        let mut m = Model {
            graph: r.graph,
            events: r
                .events
                .into_iter()
                .map(|e| EventDecl {
                    name: e.name,
                    fields: e.fields.into_iter().map(|f| (f.name, f.ty)).collect(),
                    comment: e.comment,
                    line_comment: e.line_comment,
                })
                .collect(),
            vars: r
                .vars
                .into_iter()
                .map(|v| Var {
                    name: v.name,
                    ty: v.ty,
                    default: v.default,
                    comment: v.comment,
                    line_comment: v.line_comment,
                })
                .collect(),
            boxes: r
                .boxes
                .into_iter()
                .map(|b| BoxDef {
                    title: b.title,
                    x: b.x,
                    y: b.y,
                    w: b.w,
                    h: b.h,
                    color: b.color,
                    comment: b.comment,
                    line_comment: b.line_comment,
                })
                .collect(),
            nodes: r
                .nodes
                .into_iter()
                .map(|n| Node {
                    id: n.id,
                    kind: n.kind,
                    x: n.x,
                    y: n.y,
                    props: n.props,
                    comment: n.comment,
                    line_comment: n.line_comment,
                })
                .collect(),
            links: r
                .links
                .into_iter()
                .map(|l| Link {
                    from: l.from,
                    to: l.to,
                    comment: l.comment,
                    line_comment: l.line_comment,
                })
                .collect(),
            comment: r.comment,
            line_comment: r.line_comment,
            end_comment: r.end_comment,
        };
        m.normalize_comments();
        m.validate().map_err(de::Error::custom)?;
        Ok(m)
    }
}
