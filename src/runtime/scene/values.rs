//! The typed values a scene gives its graphs at spawn: graph variables (`("b.bpg", vars:
//! {…})`) and the payload values of `Send(target, "custom::NAME", {…})`, converted to runtime
//! values with `Entity("name")` resolved to the spawned entity. The loader has checked every
//! name and type (`project::vars`); a mismatch here (a hand-built scene) is a [`SpawnError`].

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::SpawnError;
use crate::runtime::hub::Value;
use crate::runtime::instance::Graphs;
use crate::scene::{EntityDef, SceneAssets, VarSetting, VarValue};

/// A scene value as the runtime holds it; `entities[i]` is the scene's entity `i`.
fn value_of(v: &VarValue, entities: &[Entity]) -> Result<Value, SpawnError> {
    Ok(match v {
        VarValue::Bool(b) => Value::Bool(*b),
        VarValue::Int(i) => Value::Int(*i),
        VarValue::Float(x) => Value::Float(*x),
        VarValue::Str(s) => Value::Str(Arc::from(s.as_str())),
        VarValue::Vec3(x) => Value::Vec3(*x),
        VarValue::Entity(k) => {
            Value::Entity(Some(entities.get(*k).map(|e| e.to_bits()).ok_or_else(
                || SpawnError("a scene value names an unknown entity".into()),
            )?))
        }
    })
}

/// A `Send`'s payload in the declaration order of the event's payload
/// ([`SceneAssets::payloads`]); a field not given takes its type's default, as it does when a
/// graph's `event.send` leaves a field pin unlinked.
pub(super) fn send_values(
    event: &str,
    fields: &[VarSetting],
    assets: &SceneAssets,
    entities: &[Entity],
) -> Result<Box<[Value]>, SpawnError> {
    if fields.is_empty() {
        return Ok(Box::default());
    }
    let name = event.strip_prefix("custom::").unwrap_or(event);
    let declared = assets.payloads.get(name).map(Vec::as_slice).unwrap_or(&[]);
    for f in fields {
        if !declared
            .iter()
            .any(|(n, t)| *n == f.name && *t == f.value.ty())
        {
            return Err(SpawnError(format!(
                "custom event `{event}` declares no payload field `{}` of type {}",
                f.name,
                f.value.ty().name()
            )));
        }
    }
    declared
        .iter()
        .map(|(n, t)| match fields.iter().find(|f| f.name == *n) {
            Some(f) => value_of(&f.value, entities),
            None => Ok(crate::runtime::instance::default_value(*t)),
        })
        .collect()
}

/// The values the scene gives `def`'s graph instances (`("b.bpg", vars: {…})`) as
/// (instance, variable, value), checked against the modules before anything is inserted: the
/// loader has checked every name and type, so a mismatch here (a hand-built scene) is a
/// [`SpawnError`].
pub(super) fn scene_vars<'d>(
    def: &'d EntityDef,
    modules: &[Arc<crate::bytecode::VerifiedModule>],
    entities: &[Entity],
) -> Result<Vec<(usize, &'d str, Value)>, SpawnError> {
    let mut out = Vec::new();
    for (instance, (g, m)) in def.graphs.iter().zip(modules).enumerate() {
        for v in &g.vars {
            let value = value_of(&v.value, entities)?;
            let ty = value.ty();
            if !m
                .module()
                .vars
                .iter()
                .any(|d| d.name == v.name && d.ty == ty)
            {
                return Err(SpawnError(format!(
                    "graph `{}` declares no variable `{}` of type {}",
                    g.path.path,
                    v.name,
                    ty.name()
                )));
            }
            out.push((instance, v.name.as_str(), value));
        }
    }
    Ok(out)
}

/// Sets the checked [`scene_vars`] on `entity`'s just-attached instances, before any handler
/// runs (`begin_play` is delivered in tick 1's flush).
pub(super) fn set_scene_vars(world: &mut World, entity: Entity, vars: Vec<(usize, &str, Value)>) {
    if let Some(mut graphs) = world.get_mut::<Graphs>(entity) {
        let instances = graphs.instances_mut();
        for (i, name, value) in vars {
            if let Some(inst) = instances.get_mut(i) {
                inst.set_var(name, value);
            }
        }
    }
}

/// A scene entity's `returns` as the headless recorder reads them.
pub(super) fn game_returns(
    def: &EntityDef,
    entities: &[Entity],
) -> Result<crate::runtime::game_nodes::GameReturns, SpawnError> {
    let mut out = Vec::with_capacity(def.returns.len());
    for r in &def.returns {
        let mut outputs = Vec::with_capacity(r.outputs.len());
        for o in &r.outputs {
            outputs.push((o.name.clone(), value_of(&o.value, entities)?));
        }
        out.push((r.kind.clone(), outputs));
    }
    Ok(crate::runtime::game_nodes::GameReturns(out))
}
