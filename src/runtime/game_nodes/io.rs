//! A game node call as its implementation sees it: [`GameCall`] (the world and the call's
//! inputs and outputs) and [`CallIo`] (typed getters of the inputs by name, typed setters of the
//! outputs; the owned form a Bevy system bound with `add_sinew_node` receives).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::GameNodeError;
use crate::bytecode::{Import, Type, Value};

/// One call of a game node, as its implementation sees it: the call's inputs and outputs
/// ([`CallIo`], through `Deref`: `call.f32("volume")?`, `call.set_bool("played", true)`) and
/// the game's world ([`GameCall::world`]).
pub struct GameCall<'w> {
    world: &'w mut World,
    pub(super) io: CallIo<'w>,
}

impl fmt::Debug for GameCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.fmt(f)
    }
}

impl<'w> GameCall<'w> {
    /// A call of `import` by `entity` with `args` (inputs in declaration order); `outputs`
    /// holds the declared defaults and receives what the setters write.
    pub fn new(
        world: &'w mut World,
        entity: Entity,
        import: &'w Import,
        args: &'w [Value],
        outputs: &'w mut Vec<Value>,
    ) -> GameCall<'w> {
        GameCall {
            world,
            io: CallIo {
                entity,
                import: Cow::Borrowed(import),
                args: Cow::Borrowed(args),
                outputs: Outputs::Borrowed(outputs),
                misuse: None,
            },
        }
    }

    /// The game's world.
    pub fn world(&mut self) -> &mut World {
        self.world
    }

    /// The world and the call's inputs and outputs at once.
    pub fn split(&mut self) -> (&mut World, &mut CallIo<'w>) {
        (self.world, &mut self.io)
    }
}

impl<'w> std::ops::Deref for GameCall<'w> {
    type Target = CallIo<'w>;
    fn deref(&self) -> &CallIo<'w> {
        &self.io
    }
}

impl<'w> std::ops::DerefMut for GameCall<'w> {
    fn deref_mut(&mut self) -> &mut CallIo<'w> {
        &mut self.io
    }
}

enum Outputs<'a> {
    Borrowed(&'a mut Vec<Value>),
    Owned(Vec<Value>),
}

impl Outputs<'_> {
    fn slots(&self) -> &[Value] {
        match self {
            Outputs::Borrowed(v) => v,
            Outputs::Owned(v) => v,
        }
    }
    fn slots_mut(&mut self) -> &mut [Value] {
        match self {
            Outputs::Borrowed(v) => v,
            Outputs::Owned(v) => v,
        }
    }
}

/// A game node call's inputs and outputs: the calling entity, typed getters of the inputs by
/// name and typed setters of the outputs. [`GameCall`] derefs to it; `CallIo<'static>` is the
/// owned form a Bevy system bound with `add_sinew_node` receives and returns (it has no world:
/// the system takes what it needs as its own parameters; `docs/bridge.md`).
pub struct CallIo<'a> {
    entity: Entity,
    import: Cow<'a, Import>,
    args: Cow<'a, [Value]>,
    outputs: Outputs<'a>,
    /// A setter's misuse (unknown output, wrong type): the call fails with it.
    pub(super) misuse: Option<GameNodeError>,
}

impl fmt::Debug for CallIo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameCall")
            .field("kind", &self.import.kind)
            .field("entity", &self.entity)
            .field("args", &self.args)
            .field("outputs", &self.outputs.slots())
            .finish()
    }
}

impl CallIo<'_> {
    /// An owned copy (the import and inputs copied, the outputs as set so far).
    pub fn to_owned_call(&self) -> CallIo<'static> {
        CallIo {
            entity: self.entity,
            import: Cow::Owned(self.import.clone().into_owned()),
            args: Cow::Owned(self.args.to_vec()),
            outputs: Outputs::Owned(self.outputs.slots().to_vec()),
            misuse: self.misuse.clone(),
        }
    }

    /// Takes the outputs (and any setter misuse) of `other`, a call of the same node (its
    /// owned copy, after an implementation ran on it).
    pub fn take_outputs(&mut self, other: CallIo<'_>) {
        let n = self.outputs.slots().len();
        if other.import.kind == self.import.kind && other.outputs.slots().len() == n {
            self.outputs
                .slots_mut()
                .clone_from_slice(other.outputs.slots());
        }
        if let Some(m) = other.misuse {
            self.misuse.get_or_insert(m);
        }
    }

    /// The outputs as they stand (declaration order).
    pub fn outputs(&self) -> &[Value] {
        self.outputs.slots()
    }

    /// The calling entity (the graph's own).
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// The node's kind (`game.play_sound`).
    pub fn kind(&self) -> &str {
        &self.import.kind
    }

    fn input(&self, name: &str, ty: Type) -> Result<&Value, GameNodeError> {
        let Some(i) = self.import.inputs.iter().position(|(n, _)| n == name) else {
            let names: Vec<&str> = self.import.inputs.iter().map(|p| p.0.as_str()).collect();
            return Err(GameNodeError(format!(
                "`{}` has no input `{name}` (inputs: {})",
                self.import.kind,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        let declared = self.import.inputs[i].1;
        if declared != ty {
            return Err(GameNodeError(format!(
                "input `{name}` of `{}` is {declared}, read as {ty}",
                self.import.kind
            )));
        }
        self.args
            .get(i)
            .ok_or_else(|| GameNodeError(format!("input `{name}` is missing")))
    }

    /// A `String` input.
    pub fn str(&self, name: &str) -> Result<&str, GameNodeError> {
        match self.input(name, Type::Str)? {
            Value::Str(s) => Ok(s),
            _ => Err(mismatch(name)),
        }
    }

    /// An `Int` input.
    pub fn int(&self, name: &str) -> Result<i64, GameNodeError> {
        match self.input(name, Type::Int)? {
            Value::Int(i) => Ok(*i),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Float` input (the VM's `f64` rounded to `f32`).
    pub fn f32(&self, name: &str) -> Result<f32, GameNodeError> {
        self.f64(name).map(|x| x as f32)
    }

    /// A `Float` input at the VM's precision.
    pub fn f64(&self, name: &str) -> Result<f64, GameNodeError> {
        match self.input(name, Type::Float)? {
            Value::Float(x) => Ok(*x),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Bool` input.
    pub fn bool(&self, name: &str) -> Result<bool, GameNodeError> {
        match self.input(name, Type::Bool)? {
            Value::Bool(b) => Ok(*b),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Vec3` input.
    pub fn vec3(&self, name: &str) -> Result<glam::Vec3, GameNodeError> {
        match self.input(name, Type::Vec3)? {
            Value::Vec3(v) => Ok(glam::Vec3::from_array(*v)),
            _ => Err(mismatch(name)),
        }
    }

    /// An `Entity` input (the graph's own entity when the input is unlinked; an error when a
    /// linked value is unset).
    pub fn entity_in(&self, name: &str) -> Result<Entity, GameNodeError> {
        match self.input(name, Type::Entity)? {
            Value::Entity(Some(bits)) => Entity::try_from_bits(*bits)
                .ok_or_else(|| GameNodeError(format!("input `{name}` is not an entity"))),
            Value::Entity(None) => Err(GameNodeError(format!(
                "input `{name}` of `{}` is an unset entity",
                self.import.kind
            ))),
            _ => Err(mismatch(name)),
        }
    }

    fn set(&mut self, name: &str, v: Value) {
        match self.import.outputs.iter().position(|o| o.0 == name) {
            Some(i) if self.import.outputs[i].1 == v.ty() => {
                if let Some(slot) = self.outputs.slots_mut().get_mut(i) {
                    *slot = v;
                }
            }
            Some(i) => {
                self.misuse.get_or_insert(GameNodeError(format!(
                    "output `{name}` of `{}` is {}, set as {}",
                    self.import.kind,
                    self.import.outputs[i].1,
                    v.ty()
                )));
            }
            None => {
                let names: Vec<&str> = self.import.outputs.iter().map(|o| o.0.as_str()).collect();
                self.misuse.get_or_insert(GameNodeError(format!(
                    "`{}` has no output `{name}` (outputs: {})",
                    self.import.kind,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
    }

    /// Sets a `Float` output (a misnamed or mistyped output fails the call).
    pub fn set_f32(&mut self, name: &str, v: f32) {
        self.set(name, Value::Float(f64::from(v)));
    }
    /// Sets a `Float` output at the VM's precision.
    pub fn set_f64(&mut self, name: &str, v: f64) {
        self.set(name, Value::Float(v));
    }
    /// Sets an `Int` output.
    pub fn set_int(&mut self, name: &str, v: i64) {
        self.set(name, Value::Int(v));
    }
    /// Sets a `Bool` output.
    pub fn set_bool(&mut self, name: &str, v: bool) {
        self.set(name, Value::Bool(v));
    }
    /// Sets a `String` output.
    pub fn set_str(&mut self, name: &str, v: &str) {
        self.set(name, Value::Str(Arc::from(v)));
    }
    /// Sets a `Vec3` output.
    pub fn set_vec3(&mut self, name: &str, v: glam::Vec3) {
        self.set(name, Value::Vec3(v.to_array()));
    }
    /// Sets an `Entity` output (`None`: unset).
    pub fn set_entity(&mut self, name: &str, v: Option<Entity>) {
        self.set(name, Value::Entity(v.map(Entity::to_bits)));
    }
}

fn mismatch(name: &str) -> GameNodeError {
    GameNodeError(format!("input `{name}` does not hold its declared type"))
}
