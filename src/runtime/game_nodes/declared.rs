//! The game nodes a project declares now, against which a module's import table is checked
//! before its graph attaches (`bridge.md`: a graph compiled against other declarations —
//! a precompiled `.sbc`, a module kept across a change of `*.nodes.ron` — refuses to attach,
//! naming the node and both signatures).

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;

use crate::bytecode::{Import, ImportMismatch, VerifiedModule, mismatched_imports};
use crate::scene::SceneAssets;

/// The declared game nodes (kind → signature). With this resource in the world,
/// `attach_graphs` refuses a module that imports a kind it lacks, or with another signature
/// ([`Import::same_signature`]). `runtime::scene::spawn` checks against the loaded scene's
/// own declarations (`SceneAssets::game_nodes`) and falls back to this resource.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct GameDeclarations(pub BTreeMap<String, Import>);

impl GameDeclarations {
    /// The declarations `imports` (e.g. `catalog.game_nodes()` mapped by `GameNode::import`).
    pub fn new(imports: impl IntoIterator<Item = Import>) -> GameDeclarations {
        GameDeclarations(imports.into_iter().map(|i| (i.kind.clone(), i)).collect())
    }
}

/// The first import of `module` that `declared` lacks or declares otherwise.
pub(crate) fn mismatch(
    module: &VerifiedModule,
    declared: &BTreeMap<String, Import>,
) -> Option<ImportMismatch> {
    mismatched_imports(module.module(), |k| declared.get(k))
        .into_iter()
        .next()
}

/// [`mismatch`] against the scene's declarations, else the world's (none known: no check).
pub(crate) fn scene_mismatch(
    world: &World,
    assets: &SceneAssets,
    module: &VerifiedModule,
) -> Option<ImportMismatch> {
    if module.module().imports.is_empty() {
        return None;
    }
    match &assets.game_nodes {
        Some(d) => mismatch(module, d),
        None => mismatch(module, &world.get_resource::<GameDeclarations>()?.0),
    }
}

/// [`mismatch`] against the world's declarations (none: no check).
pub(crate) fn world_mismatch(world: &World, module: &VerifiedModule) -> Option<ImportMismatch> {
    if module.module().imports.is_empty() {
        return None;
    }
    mismatch(module, &world.get_resource::<GameDeclarations>()?.0)
}
