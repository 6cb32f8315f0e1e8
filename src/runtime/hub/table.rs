//! Subscriptions: the integer hasher and the subscription table (dense per-entity-index
//! channels, hash maps for large indices and `Global`).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use bevy_ecs::prelude::*;

use super::{Channel, EventId, Subscriber};

// ---------------------------------------------------------------------------------------------
// Integer hashing
// ---------------------------------------------------------------------------------------------

/// Multiplicative hasher for integer keys (rustc-hash style). Not DoS resistant: keys are
/// interned ids and entity bits chosen by the runtime, never by input text.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

const HASH_K: u64 = 0xf135_7aea_2e62_a9c5;

impl IntHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = self.0.wrapping_add(x).wrapping_mul(HASH_K);
    }
}

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
pub(super) type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

/// Subscription key: exact `(identity, channel)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct SubKey {
    pub(super) id: EventId,
    pub(super) channel: Channel,
}

/// One subscription on a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SubEntry {
    pub(super) id: EventId,
    pub(super) who: Subscriber,
}

/// The subscriptions on one entity channel, sorted by identity (stable: subscription order is
/// kept within an identity).
#[derive(Debug, Default)]
struct ChannelSubs {
    bits: u64,
    entries: Vec<SubEntry>,
}

impl ChannelSubs {
    #[inline]
    fn find(&self, id: EventId) -> &[SubEntry] {
        let e = &self.entries;
        if e.len() <= 8 {
            // Short lists: a linear scan beats a binary search.
            let Some(first) = e.iter().position(|x| x.id == id) else {
                return &[];
            };
            let len = e[first..].iter().take_while(|x| x.id == id).count();
            &e[first..first + len]
        } else {
            let lo = e.partition_point(|x| x.id < id);
            let hi = lo + e[lo..].partition_point(|x| x.id == id);
            &e[lo..hi]
        }
    }
}

/// Entity channels with an index below this live in a dense table indexed by entity index
/// (sequential, cache-friendly lookups); larger indices go to a hash map.
const DENSE_CHANNELS: usize = 1 << 20;

/// Subscriptions: dense per-entity-index table for entity channels, hash maps for the rest.
/// `members` holds every subscription once more, so a duplicate is found in O(1) however many
/// subscribers one pair has (one graph attached 20,000 times to one entity).
#[derive(Debug, Default)]
pub(super) struct SubTable {
    dense: Vec<ChannelSubs>,
    sparse: IntMap<u64, ChannelSubs>,
    global: IntMap<EventId, Vec<SubEntry>>,
    members: HashSet<(SubKey, Subscriber)>,
}

fn member(channel: Channel, e: &SubEntry) -> (SubKey, Subscriber) {
    (SubKey { id: e.id, channel }, e.who)
}

/// Entity index of channel bits, `None` for bits no entity has.
#[inline]
fn index_of(bits: u64) -> Option<usize> {
    Entity::try_from_bits(bits).map(|e| e.index_u32() as usize)
}

impl SubTable {
    #[inline]
    fn channel(&self, bits: u64) -> Option<&ChannelSubs> {
        let idx = index_of(bits)?;
        let slot = if idx < self.dense.len() {
            &self.dense[idx]
        } else if self.sparse.is_empty() {
            return None;
        } else {
            self.sparse.get(&bits)?
        };
        (slot.bits == bits).then_some(slot)
    }

    /// The slot for `bits`, reset if it held a dead entity with the same index.
    fn channel_mut(&mut self, bits: u64) -> Option<&mut ChannelSubs> {
        let idx = index_of(bits)?;
        let slot = if idx < DENSE_CHANNELS {
            if idx >= self.dense.len() {
                self.dense.resize_with(idx + 1, ChannelSubs::default);
            }
            &mut self.dense[idx]
        } else {
            self.sparse.entry(bits).or_default()
        };
        if slot.bits != bits {
            for e in &slot.entries {
                self.members.remove(&member(Channel::Entity(slot.bits), e));
            }
            slot.bits = bits;
            slot.entries.clear();
        }
        Some(slot)
    }

    #[inline]
    pub(super) fn get(&self, id: EventId, channel: Channel) -> &[SubEntry] {
        match channel {
            Channel::Global => self.global.get(&id).map_or(&[], |v| v.as_slice()),
            Channel::Entity(bits) => self.channel(bits).map_or(&[], |c| c.find(id)),
        }
    }

    /// The list subscriptions on `channel` live in (`None` when the channel names no entity).
    fn list_mut(&mut self, channel: Channel, id: EventId) -> Option<&mut Vec<SubEntry>> {
        match channel {
            Channel::Global => Some(self.global.entry(id).or_default()),
            Channel::Entity(bits) => self.channel_mut(bits).map(|c| &mut c.entries),
        }
    }

    /// Adds `who`; false when it was already there (or the channel names no entity).
    pub(super) fn add(&mut self, id: EventId, channel: Channel, who: Subscriber) -> bool {
        let entry = SubEntry { id, who };
        if matches!(channel, Channel::Entity(bits) if index_of(bits).is_none()) {
            return false;
        }
        // Before `list_mut`, which may reset a dead entity's slot (and its members).
        let key = member(channel, &entry);
        if self.list_mut(channel, id).is_none() || self.members.contains(&key) {
            return false;
        }
        self.members.insert(key);
        let Some(list) = self.list_mut(channel, id) else {
            return false;
        };
        let at = list.partition_point(|x| x.id <= id);
        list.insert(at, entry);
        true
    }

    /// Adds every entry of `new` to the entity channel `bits` (those not already there), in one
    /// stable sort: O(n log n) for n subscriptions, where one insertion each would shift the
    /// list n times. Returns the entries added, in `new`'s order.
    pub(super) fn add_all(&mut self, bits: u64, new: &[SubEntry]) -> Vec<SubEntry> {
        let channel = Channel::Entity(bits);
        if self.channel_mut(bits).is_none() {
            return Vec::new();
        }
        let added: Vec<SubEntry> = new
            .iter()
            .filter(|e| self.members.insert(member(channel, e)))
            .copied()
            .collect();
        if let Some(c) = self.channel_mut(bits) {
            c.entries.extend_from_slice(&added);
            c.entries.sort_by_key(|e| e.id); // stable: subscription order within an identity
        }
        added
    }

    /// Removes every subscription on the channel `bits` (whoever the subscriber).
    pub(super) fn clear_channel(&mut self, bits: u64) {
        let Some(idx) = index_of(bits) else { return };
        let entries = if idx < self.dense.len() {
            let slot = &mut self.dense[idx];
            if slot.bits == bits {
                std::mem::take(&mut slot.entries)
            } else {
                Vec::new()
            }
        } else {
            self.sparse
                .remove(&bits)
                .map(|c| c.entries)
                .unwrap_or_default()
        };
        for e in &entries {
            self.members.remove(&member(Channel::Entity(bits), e));
        }
    }

    /// Removes every subscription of `entity` under `key`.
    pub(super) fn remove(&mut self, key: SubKey, entity: Entity) {
        match key.channel {
            Channel::Global => {
                if let Some(list) = self.global.get_mut(&key.id) {
                    let members = &mut self.members;
                    list.retain(|x| {
                        let keep = x.who.entity != entity;
                        if !keep {
                            members.remove(&member(key.channel, x));
                        }
                        keep
                    });
                    if list.is_empty() {
                        self.global.remove(&key.id);
                    }
                }
            }
            Channel::Entity(bits) => {
                let Some(idx) = index_of(bits) else { return };
                let slot = if idx < self.dense.len() {
                    &mut self.dense[idx]
                } else {
                    match self.sparse.get_mut(&bits) {
                        Some(s) => s,
                        None => return,
                    }
                };
                if slot.bits == bits {
                    let members = &mut self.members;
                    slot.entries.retain(|x| {
                        let keep = !(x.id == key.id && x.who.entity == entity);
                        if !keep {
                            members.remove(&member(key.channel, x));
                        }
                        keep
                    });
                }
                if slot.entries.is_empty() && idx >= DENSE_CHANNELS {
                    self.sparse.remove(&bits);
                }
            }
        }
    }
}
