//! Hot reload of an animator: a freshly built animator (new clips, state machine or rig) takes
//! over the running one's playback.

use super::Animator;
use super::playback::{Clock, Motion, Playback};
use crate::anim::state_machine::Machine;
use crate::anim::{BlendTree, RootDelta, TickClock};

/// `t`, an unwrapped playback time on a clip of duration `old`, on a clip of duration `new`:
/// the same cycle, the time inside it clamped to the new duration.
fn remap(t: f64, old: f64, new: f64) -> f64 {
    if !(old.is_finite() && old > 0.0 && new.is_finite() && new > 0.0 && t.is_finite()) {
        return t;
    }
    let cycles = (t / old).floor();
    let inside = (t - cycles * old).clamp(0.0, new);
    cycles * new + inside
}

impl Animator {
    /// Takes over `old`'s running state after hot reload (`self` was just built from the
    /// changed assets, as `spawn` builds one, with the same clip slots): the active state — the
    /// default clip's too — is kept when the new machine has a state of that name, its clock
    /// carried over (a single clip's time: the same cycle, the time inside it clamped to the new
    /// duration; a blend tree's phase as is), else the new entry state starts; layers keep their
    /// clips, times and weights; speed, pause, parameters, position, yaw and queued commands
    /// carry over. Crossfades in progress end.
    pub fn carry_over(&mut self, old: &Animator) {
        let duration =
            |a: &Animator, slot: usize| a.slots.get(slot).map_or(0.0, |(_, c)| c.seq().duration);
        let same_slot = |me: &Animator, slot: usize| {
            old.slots.get(slot).map(|s| &s.0) == me.slots.get(slot).map(|s| &s.0)
        };
        let carry = |me: &Animator, p: &Playback| -> Option<Playback> {
            same_slot(me, p.slot).then(|| Playback {
                id: p.id,
                slot: p.slot,
                clock: TickClock::at(remap(p.time(), duration(old, p.slot), duration(me, p.slot))),
                started: p.started,
            })
        };
        self.speed = old.speed;
        self.paused = old.paused;
        self.commands = old.commands.clone();
        self.params = old.params.clone();
        self.position = old.position;
        self.yaw = old.yaw;
        self.last_delta = RootDelta::ZERO;
        for i in 0..self.layers.len() {
            let Some(o) = old.layers.iter().find(|l| l.name == self.layers[i].name) else {
                continue;
            };
            let clip = o.clip.as_ref().and_then(|p| carry(self, p));
            let layer = &mut self.layers[i];
            layer.weight = o.weight;
            layer.clip = clip;
            layer.fade = None;
        }
        let single = |m: &Machine, state: usize| match m.states.get(state).map(|s| &s.tree) {
            Some(BlendTree::Clip(slot)) => Some(*slot),
            _ => None,
        };
        let Some(ob) = &old.base else { return };
        let name = ob
            .machine
            .states
            .get(ob.current.state)
            .map(|s| s.name.clone());
        let Some(nb) = &self.base else { return };
        let Some(state) = name.and_then(|n| nb.machine.states.iter().position(|s| s.name == n))
        else {
            return; // the new machine's entry state starts (Base::new)
        };
        let mut m = Motion::new(&nb.machine, state);
        m.started = ob.current.started;
        m.finished = ob.current.finished;
        m.clock = match (ob.current.clock, m.clock) {
            (Clock::Seconds(t), Clock::Seconds(_)) => {
                match (
                    single(&ob.machine, ob.current.state),
                    single(&nb.machine, state),
                ) {
                    (Some(a), Some(b)) => Clock::Seconds(TickClock::at(remap(
                        t.now(),
                        duration(old, a),
                        duration(self, b),
                    ))),
                    _ => Clock::Seconds(t),
                }
            }
            (Clock::Phase(p), Clock::Phase(_)) => Clock::Phase(p),
            (_, fresh) => fresh,
        };
        if let Some(nb) = &mut self.base {
            nb.current = m;
            nb.fade = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::remap;

    #[test]
    fn remap_keeps_the_cycle_and_clamps_inside_it() {
        assert_eq!(remap(0.25, 1.0, 2.0), 0.25);
        assert_eq!(remap(0.75, 1.0, 0.5), 0.5);
        assert_eq!(remap(2.75, 1.0, 0.5), 1.5);
        assert_eq!(remap(-0.25, 1.0, 0.5), 0.0);
        assert_eq!(remap(1.5, 0.0, 1.0), 1.5);
    }
}
