//! Game node declarations in the catalog (`bridge.md` §1): a kind one file declares is
//! published; a kind two files declare is quarantined (an error on each naming the others),
//! never first-wins — like conflicting event identities.

use super::{Catalog, FileEntry, MAX_LISTED, list_some};
use crate::diag::Diagnostic;
use crate::nodes::game::{E_NODES_DUPLICATE, GameNode};
use std::collections::BTreeMap;

/// The publication state of one game node kind.
#[derive(Clone, Debug, PartialEq)]
pub enum GameStatus {
    Absent,
    Published(GameNode),
    /// Declared by several files (each once, sorted).
    Quarantined(Vec<String>),
}

impl Catalog {
    /// The status of game node `kind`.
    pub fn game_status(&self, kind: &str) -> GameStatus {
        match self.game_claims.get(kind).map(Vec::as_slice) {
            None | Some([]) => GameStatus::Absent,
            Some([one]) => self
                .files
                .get(one)
                .and_then(|e| e.game.iter().find(|n| n.kind == kind))
                .map_or(GameStatus::Absent, |n| GameStatus::Published(n.clone())),
            Some(many) => GameStatus::Quarantined(many.iter().map(|f| f.to_string()).collect()),
        }
    }

    /// Published game nodes, sorted by kind.
    pub fn game_nodes(&self) -> Vec<&GameNode> {
        self.game_claims
            .iter()
            .filter_map(|(kind, files)| match files.as_slice() {
                [one] => self.files.get(one)?.game.iter().find(|n| &n.kind == kind),
                _ => None,
            })
            .collect()
    }

    /// Quarantined game node kinds with their files, sorted by kind.
    pub fn game_quarantined(&self) -> Vec<super::Quarantined> {
        self.game_claims
            .iter()
            .filter(|(_, f)| f.len() > 1)
            .map(|(kind, files)| super::Quarantined {
                id: kind.clone(),
                files: files.iter().map(|f| f.to_string()).collect(),
            })
            .collect()
    }

    /// One error per claimant of a kind several files declare, naming the others.
    pub(super) fn game_conflicts(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (kind, files) in self.game_claims.iter().filter(|(_, f)| f.len() > 1) {
            for f in files {
                let Some(n) = self
                    .files
                    .get(f)
                    .and_then(|e| e.game.iter().find(|n| &n.kind == kind))
                else {
                    continue;
                };
                let others: Vec<&str> = files
                    .iter()
                    .filter(|o| *o != f)
                    .take(MAX_LISTED)
                    .map(|o| &**o)
                    .collect();
                out.push(
                    n.error(
                        E_NODES_DUPLICATE,
                        format!(
                            "game node `{kind}` is also declared by {}",
                            list_some(&others, files.len() - 1)
                        ),
                    )
                    .with_note("quarantined: graphs cannot use it until one declaration remains"),
                );
            }
        }
        out
    }

    /// The statuses of every game kind the changes touch, before applying them.
    pub(super) fn game_before(
        &self,
        changes: &[(String, Option<FileEntry>)],
    ) -> BTreeMap<String, GameStatus> {
        let mut kinds = BTreeMap::new();
        for (file, new) in changes {
            let old = self.files.get(file.as_str()).map(|e| &e.game);
            for n in old
                .into_iter()
                .flatten()
                .chain(new.iter().flat_map(|e| &e.game))
            {
                kinds
                    .entry(n.kind.clone())
                    .or_insert_with(|| self.game_status(&n.kind));
            }
        }
        kinds
    }

    /// The kinds whose status differs from `before` (sorted).
    pub(super) fn game_changed(&self, before: BTreeMap<String, GameStatus>) -> Vec<(String, bool)> {
        before
            .into_iter()
            .filter(|(kind, st)| {
                // Positions do not matter, only what graphs and the palette see.
                !same(st, &self.game_status(kind))
            })
            .map(|(k, st)| (k, matches!(st, GameStatus::Published(_))))
            .collect()
    }
}

fn same(a: &GameStatus, b: &GameStatus) -> bool {
    match (a, b) {
        (GameStatus::Published(x), GameStatus::Published(y)) => {
            x.import() == y.import()
                && x.name == y.name
                && x.category == y.category
                && x.description == y.description
                && x.file == y.file
                && x.inputs == y.inputs
        }
        _ => a == b,
    }
}
