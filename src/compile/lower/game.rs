//! Emission of game-node calls (`bytecode::game`): every input evaluated first (linked value,
//! ARGS literal or declared default), then one straight run — `game.arg.*` per input in
//! declaration order, `game.call` of the node's import, `game.ret.*` per output — which is the
//! only shape the verifier accepts.

use super::emit::Emitter;
use super::{NodeId, typed};
use crate::bytecode::{self as bc, GameFlow, Import, Instr, Type};

impl Emitter<'_, '_> {
    /// Emits the call of game node `n`; returns one register per declared output, in order.
    pub(super) fn game_call(&mut self, n: NodeId, imp: &Import) -> Vec<u16> {
        let first = usize::from(imp.flow == GameFlow::Exec);
        let inputs: Vec<(u16, bool)> = (0..imp.inputs.len())
            .map(|i| self.input_temp(n, first + i))
            .collect();
        for (&(r, _), (_, ty)) in inputs.iter().zip(&imp.inputs) {
            self.hb.emit(typed!(*ty, [GameArgB, GameArgI, GameArgF, GameArgV, GameArgS, GameArgE] { src: Reg(r) }));
        }
        let import = self.hb.module().import(imp);
        self.hb.emit(Instr::GameCall { import });
        let outs: Vec<u16> = imp
            .outputs
            .iter()
            .map(|(_, ty, _)| {
                let r = self.reg(*ty);
                self.hb.emit(typed!(*ty, [GameRetB, GameRetI, GameRetF, GameRetV, GameRetS, GameRetE] { dst: Reg(r) }));
                r
            })
            .collect();
        for (&(r, temp), (_, ty)) in inputs.iter().zip(&imp.inputs) {
            if temp {
                self.hb.free_reg(*ty, r);
            }
        }
        outs
    }

    /// An exec game node: the call, then each output something reads stored in its slot.
    pub(super) fn game_exec(&mut self, n: NodeId, imp: &Import) {
        let outs = self.game_call(n, imp);
        for (i, (r, (_, ty, _))) in outs.into_iter().zip(&imp.outputs).enumerate() {
            // Output pin 0 is `then`.
            if let Some(slot) = self.lay.slot(n, i + 1) {
                self.hb.emit(typed!(*ty, [SlotSetB, SlotSetI, SlotSetF, SlotSetV, SlotSetS, SlotSetE] { slot: Slot(slot), src: Reg(r) }));
            }
            self.hb.free_reg(*ty, r);
        }
    }
}
