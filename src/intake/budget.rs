//! The unverified budget: bytes of webhook bodies read but not yet checked against the
//! signature, across every request at once, and for each client address.
//!
//! A body cannot be verified before it is whole, so anyone who can reach `/webhook` can
//! make the server hold bytes for up to the body timeout. Two rules keep that from
//! shutting GitHub out:
//!
//! - **A share per address.** One address holds at most
//!   [`IntakeLimits::unverified_bytes_per_address`](super::IntakeLimits): when its bodies
//!   would pass it, its own slowest reader is dropped to make room.
//! - **The slowest reader goes, not the newcomer.** When the bodies of all addresses
//!   would pass the whole budget, the reader with the fewest bytes per second since its
//!   request began is dropped (its caller gets 503) and the new bytes are taken. Refusing
//!   the newcomer instead would let whoever fills the budget first (stalled junk, which
//!   costs nothing to keep open) refuse GitHub. GitHub posts a body it already holds, in
//!   full, at once: its reader is the fastest one there, so to see it dropped, junk must
//!   arrive faster than GitHub's delivery does, over the whole budget. That is a flood of
//!   bandwidth, not a few slow connections.
//!
//! Bytes are counted as they arrive (never reserved from a `Content-Length`), in units of
//! [`UNIT`]: a reader holding one byte is charged a unit, so the table of readers holding
//! bytes has at most `budget / UNIT` entries and choosing whom to drop stays cheap.
//! A dropped reader's bytes are counted free at once; its buffer goes when its task,
//! woken, returns (moments later).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::Notify;

/// The budget is counted in units of this many bytes.
pub const UNIT: usize = 64 * 1024;

/// The budget of every unverified body, and of each address's.
#[derive(Debug)]
pub struct Budget {
    total_units: usize,
    per_address_units: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    held: usize,
    next_id: u64,
    readers: HashMap<u64, Reader>,
    /// Units held per address key (`None`: unknown addresses, one share).
    by_address: HashMap<Option<IpAddr>, usize>,
}

#[derive(Debug)]
struct Reader {
    address: Option<IpAddr>,
    units: usize,
    bytes: usize,
    start: Instant,
    dropped: Arc<Dropped>,
}

/// Set, and the reader woken, when it is dropped to make room for another.
#[derive(Debug, Default)]
struct Dropped {
    flag: AtomicBool,
    wake: Notify,
}

/// Why a reader got no more bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct NoRoom;

impl Budget {
    pub fn new(total_bytes: usize, per_address_bytes: usize) -> Arc<Budget> {
        let units = |b: usize| b.div_ceil(UNIT).max(1);
        Arc::new(Budget {
            total_units: units(total_bytes),
            per_address_units: units(per_address_bytes.min(total_bytes)),
            state: Mutex::new(State::default()),
        })
    }

    /// A reader for one body from `address` (its key: see
    /// [`ClientAddr::key`](super::client::ClientAddr::key)), holding nothing yet; its
    /// speed is counted from now.
    pub fn reader(self: &Arc<Self>, address: Option<IpAddr>) -> Share {
        let id = {
            let mut state = self.lock();
            state.next_id += 1;
            state.next_id
        };
        Share {
            budget: self.clone(),
            id,
            address,
            start: Instant::now(),
            dropped: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes held now, in all (for tests and the log).
    pub fn held_bytes(&self) -> usize {
        self.lock().held * UNIT
    }
}

/// One body's hold on the budget; its units are given back when it is dropped.
#[derive(Debug)]
pub struct Share {
    budget: Arc<Budget>,
    id: u64,
    address: Option<IpAddr>,
    start: Instant,
    dropped: Arc<Dropped>,
}

impl Share {
    /// Makes the share cover `bytes` in all, dropping slower readers to make room; or
    /// [`NoRoom`] when the body alone passes its address's share, or this reader was
    /// dropped already.
    pub fn cover(&mut self, bytes: usize) -> Result<(), NoRoom> {
        let budget = &*self.budget;
        let mut state = budget.lock();
        if self.dropped.flag.load(Ordering::SeqCst) {
            return Err(NoRoom);
        }
        let now = Instant::now();
        let have = state.readers.get(&self.id).map_or(0, |r| r.units);
        let need = bytes.div_ceil(UNIT).saturating_sub(have);
        if need > 0 {
            let address = self.address;
            while state.of_address(address) + need > budget.per_address_units {
                let victim = state.slowest(now, self.id, |r| r.address == address);
                state.drop_reader(victim.ok_or(NoRoom)?);
            }
            while state.held + need > budget.total_units {
                let victim = state.slowest(now, self.id, |_| true);
                state.drop_reader(victim.ok_or(NoRoom)?);
            }
            state.held += need;
            *state.by_address.entry(address).or_default() += need;
        }
        let reader = state.readers.entry(self.id).or_insert_with(|| Reader {
            address: self.address,
            units: 0,
            bytes: 0,
            start: self.start,
            dropped: self.dropped.clone(),
        });
        reader.units += need;
        reader.bytes = bytes;
        Ok(())
    }

    /// Resolves once this reader was dropped to make room for another.
    pub async fn dropped(&self) {
        // `notify_one` keeps its wake-up for a waiter that comes later.
        self.dropped.wake.notified().await
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut state = self.budget.lock();
        if state.readers.contains_key(&self.id) {
            state.drop_reader(self.id);
        }
    }
}

impl State {
    fn of_address(&self, address: Option<IpAddr>) -> usize {
        self.by_address.get(&address).copied().unwrap_or(0)
    }

    /// The reader with the fewest bytes per second since it began (the oldest among
    /// equals) that `eligible` allows, other than `me` and holding something.
    fn slowest(&self, now: Instant, me: u64, eligible: impl Fn(&Reader) -> bool) -> Option<u64> {
        self.readers
            .iter()
            .filter(|(id, r)| **id != me && r.units > 0 && eligible(r))
            .min_by(|(_, a), (_, b)| {
                // a.bytes / a.age against b.bytes / b.age, without dividing.
                let age = |r: &Reader| now.saturating_duration_since(r.start).as_nanos().max(1);
                (a.bytes as u128 * age(b))
                    .cmp(&(b.bytes as u128 * age(a)))
                    .then(a.start.cmp(&b.start))
            })
            .map(|(id, _)| *id)
    }

    /// Frees `id`'s units and, when it is another's, wakes it to give up.
    fn drop_reader(&mut self, id: u64) {
        let Some(reader) = self.readers.remove(&id) else {
            return;
        };
        self.held -= reader.units;
        if let Some(n) = self.by_address.get_mut(&reader.address) {
            *n -= reader.units;
            if *n == 0 {
                self.by_address.remove(&reader.address);
            }
        }
        reader.dropped.flag.store(true, Ordering::SeqCst);
        reader.dropped.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ip(n: u8) -> Option<IpAddr> {
        Some(IpAddr::from([192, 0, 2, n]))
    }

    fn is_dropped(share: &Share) -> bool {
        share.dropped.flag.load(Ordering::SeqCst)
    }

    #[test]
    fn an_address_holds_at_most_its_share_by_giving_up_its_own_slowest() {
        let budget = Budget::new(8 * UNIT, 2 * UNIT);
        let mut a1 = budget.reader(ip(1));
        let mut b = budget.reader(ip(2));
        a1.cover(UNIT).unwrap();
        b.cover(UNIT).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let mut a2 = budget.reader(ip(1));
        a2.cover(UNIT).unwrap();
        assert_eq!(budget.held_bytes(), 3 * UNIT);
        // a1 is the slower of address 1: it goes, b (another address) stays.
        let mut a3 = budget.reader(ip(1));
        a3.cover(UNIT).unwrap();
        assert!(is_dropped(&a1) && !is_dropped(&a2) && !is_dropped(&b));
        assert_eq!(budget.held_bytes(), 3 * UNIT);
        // One body bigger than the share, with nobody of its own to drop: no room.
        let mut big = budget.reader(ip(3));
        assert_eq!(big.cover(3 * UNIT), Err(NoRoom));
        drop((a2, a3, b, big));
        assert_eq!(budget.held_bytes(), 0);
    }

    #[test]
    fn a_full_budget_drops_the_slowest_reader_not_the_newcomer() {
        let budget = Budget::new(4 * UNIT, 4 * UNIT);
        let mut slow = budget.reader(ip(1));
        slow.cover(2 * UNIT).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let mut fast = budget.reader(ip(2));
        fast.cover(2 * UNIT).unwrap();
        let mut newcomer = budget.reader(ip(3));
        newcomer.cover(UNIT).unwrap();
        assert!(is_dropped(&slow));
        assert!(!is_dropped(&fast));
        assert_eq!(budget.held_bytes(), 3 * UNIT);
        // A dropped reader's share is already free: dropping it frees nothing twice.
        drop(slow);
        assert_eq!(budget.held_bytes(), 3 * UNIT);
    }
}
