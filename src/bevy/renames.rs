//! Saves by rename-over under Bevy's watcher. Bevy 0.20's file watcher reports a file renamed
//! over another as `AssetSourceEvent::RenamedAsset`, which its asset server ignores without
//! asset processing (it reloads on added, modified and removed files only): a save that writes
//! a temporary beside the file and renames it over the file (many editors, and
//! `fsutil::write_atomic`) is missed when the rename falls in a later debounce window than the
//! temporary's creation (in the same window the debouncer reports the target as created, which
//! Bevy does reload). With watching on, the plugin therefore watches the default asset folder
//! for renames itself — only those, so nothing is reloaded twice — and reloads every loaded
//! scene asset (the reload core compares and applies only what changed).

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use bevy_app::App;
use bevy_asset::io::file::FileAssetReader;
use bevy_asset::{AssetPlugin, AssetServer, Assets};
use bevy_ecs::prelude::*;
use notify_debouncer_full::notify::event::{ModifyKind, RenameMode};
use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use super::SinewSceneAsset;

/// Bevy's file watcher's debounce time.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// The plugin's own watcher of the asset folder, reporting renames.
#[derive(Resource)]
pub(super) struct RenameWatch {
    renamed: Mutex<Receiver<()>>,
    _watcher: Mutex<Debouncer<RecommendedWatcher, RecommendedCache>>,
}

impl RenameWatch {
    /// The watcher of the asset folder of `app`'s `AssetPlugin`, when the asset server watches
    /// for changes and the folder can be watched.
    pub(super) fn new(app: &App, server: &AssetServer) -> Option<RenameWatch> {
        if !server.watching_for_changes() {
            return None;
        }
        let plugin = app.get_added_plugins::<AssetPlugin>().into_iter().next()?;
        let root = FileAssetReader::get_base_path().join(&plugin.file_path);
        let (send, renamed) = channel();
        let mut watcher = new_debouncer(DEBOUNCE, None, move |r: DebounceEventResult| {
            let renames = r
                .into_iter()
                .flatten()
                .any(|e| e.event.kind == EventKind::Modify(ModifyKind::Name(RenameMode::Both)));
            if renames {
                let _ = send.send(());
            }
        })
        .ok()?;
        watcher.watch(&root, RecursiveMode::Recursive).ok()?;
        Some(RenameWatch {
            renamed: Mutex::new(renamed),
            _watcher: Mutex::new(watcher),
        })
    }
}

/// After a rename in the asset folder, reloads every loaded scene asset (Bevy reads each again,
/// with the files it names; `reload_scenes` applies the result).
pub(super) fn reload_on_rename(
    watch: Res<RenameWatch>,
    server: Res<AssetServer>,
    scenes: Res<Assets<SinewSceneAsset>>,
) {
    let renamed = watch
        .renamed
        .lock()
        .map(|r| r.try_iter().count() > 0)
        .unwrap_or(false);
    if renamed {
        for (id, _) in scenes.iter() {
            if let Some(path) = server.get_path(id) {
                server.reload(path.into_owned());
            }
        }
    }
}
