//! One recovery round's decisions, pure: from GitHub's delivery log and the GUIDs intake
//! already recorded, which deliveries to ask GitHub for again, and how far the log is
//! now taken.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Duration, Utc};

use crate::github::{DeliveryLog, HookDelivery};

/// GitHub may record an attempt a little after it was made (it waits up to 10 s for an
/// answer): the mark stays this far behind the round's start.
pub const LOG_LAG: Duration = Duration::seconds(60);

/// How much one round may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Redeliveries asked for in one round.
    pub redeliveries: usize,
    /// Redeliveries of one GUID, counted in GitHub's log, before it is given up on: a
    /// delivery that fails every time (it makes intake fail) must not be sent forever.
    pub per_delivery: usize,
}

/// What a round does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// One attempt per missed delivery to ask GitHub to deliver again, oldest first, at
    /// most [`Limits::redeliveries`].
    pub redeliver: Vec<HookDelivery>,
    /// Missed deliveries still to be taken (those asked for again included).
    pub outstanding: usize,
    /// When the oldest of them was first attempted.
    pub oldest_outstanding: Option<DateTime<Utc>>,
    /// Missed deliveries not asked for again: refused for good (a bad signature, a
    /// payload we cannot read) or redelivered [`Limits::per_delivery`] times already.
    pub given_up: Vec<String>,
    /// The new high-water mark: none when the log was not read back to the old one.
    pub taken_through: Option<DateTime<Utc>>,
}

/// Whether an answer of ours (or none) is worth another delivery: no answer at all (the
/// server was down, or slow), a 5xx (the database, a shutdown), 408 and 429. A 4xx says
/// the delivery itself was refused (a bad signature, an unreadable payload): it would be
/// again.
pub fn worth_redelivering(status_code: u16) -> bool {
    matches!(status_code, 0 | 408 | 429 | 500..=599)
}

/// Decides a round from the attempts GitHub logged since the mark (`log`), the GUIDs
/// among them that intake recorded (`recorded`), and when the round started.
pub fn plan(
    log: &DeliveryLog,
    recorded: &HashSet<String>,
    started: DateTime<Utc>,
    limits: Limits,
) -> Plan {
    let mut by_guid: BTreeMap<&str, Vec<&HookDelivery>> = BTreeMap::new();
    for attempt in &log.attempts {
        by_guid.entry(&attempt.guid).or_default().push(attempt);
    }
    let mut missed: Vec<(DateTime<Utc>, &HookDelivery)> = Vec::new();
    let mut given_up = Vec::new();
    for (guid, attempts) in by_guid {
        if recorded.contains(guid) || attempts.iter().any(|a| a.succeeded()) {
            continue;
        }
        let first = attempts
            .iter()
            .map(|a| a.delivered_at)
            .min()
            .unwrap_or(started);
        let latest = attempts
            .iter()
            .max_by_key(|a| (a.delivered_at, a.id))
            .expect("a GUID has an attempt");
        let redelivered = attempts.iter().filter(|a| a.redelivery).count();
        if !worth_redelivering(latest.status_code) || redelivered >= limits.per_delivery {
            given_up.push(guid.to_string());
            continue;
        }
        missed.push((first, latest));
    }
    missed.sort_by_key(|(first, a)| (*first, a.id));
    let oldest_outstanding = missed.first().map(|(first, _)| *first);
    let behind = started - LOG_LAG;
    let taken_through = log
        .complete
        .then(|| oldest_outstanding.map_or(behind, |oldest| oldest.min(behind)));
    Plan {
        outstanding: missed.len(),
        redeliver: missed
            .into_iter()
            .take(limits.redeliveries)
            .map(|(_, a)| a.clone())
            .collect(),
        oldest_outstanding,
        given_up,
        taken_through,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        redeliveries: 2,
        per_delivery: 3,
    };

    fn at(minutes_ago: i64) -> DateTime<Utc> {
        now() - Duration::minutes(minutes_ago)
    }

    fn now() -> DateTime<Utc> {
        "2026-12-06T12:00:00Z".parse().unwrap()
    }

    fn attempt(id: u64, guid: &str, minutes_ago: i64, code: u16, redelivery: bool) -> HookDelivery {
        HookDelivery {
            id,
            guid: guid.into(),
            delivered_at: at(minutes_ago),
            redelivery,
            status: if code / 100 == 2 {
                "OK".into()
            } else if code == 0 {
                "failed to connect".into()
            } else {
                format!("Invalid HTTP Response: {code}")
            },
            status_code: code,
            event: "pull_request".into(),
            action: Some("opened".into()),
            installation_id: Some(7),
            repository_id: Some(1000),
        }
    }

    fn log(attempts: Vec<HookDelivery>, complete: bool) -> DeliveryLog {
        DeliveryLog {
            attempts,
            complete,
            pages: 1,
        }
    }

    #[test]
    fn a_failed_delivery_with_no_later_success_and_not_recorded_is_asked_for_again() {
        let log = log(
            vec![
                attempt(5, "c", 1, 0, false),
                attempt(4, "b", 2, 200, true),
                attempt(3, "b", 3, 503, false),
                attempt(2, "a", 4, 503, false),
                attempt(1, "r", 5, 503, false),
            ],
            true,
        );
        let recorded = HashSet::from(["r".to_string()]);
        let p = plan(&log, &recorded, now(), LIMITS);
        let asked: Vec<u64> = p.redeliver.iter().map(|a| a.id).collect();
        // b succeeded later, r is recorded: a then c, oldest first.
        assert_eq!(asked, [2, 5]);
        assert_eq!(p.outstanding, 2);
        assert_eq!(p.oldest_outstanding, Some(at(4)));
        // The mark stays at the oldest missed one until it is taken.
        assert_eq!(p.taken_through, Some(at(4)));
    }

    #[test]
    fn the_cap_bounds_a_round_and_the_rest_waits_for_the_next() {
        let attempts = (0..10)
            .map(|i| attempt(100 - i, &format!("g{i}"), 10 + i as i64, 0, false))
            .collect();
        let p = plan(&log(attempts, true), &HashSet::new(), now(), LIMITS);
        assert_eq!(p.redeliver.len(), 2);
        assert_eq!(p.outstanding, 10);
        assert_eq!(p.redeliver[0].guid, "g9", "oldest first");
        assert_eq!(p.taken_through, Some(at(19)));
    }

    #[test]
    fn refusals_for_good_and_deliveries_that_always_fail_are_given_up() {
        let log = log(
            vec![
                attempt(9, "bad-signature", 2, 401, false),
                attempt(8, "poison", 3, 500, true),
                attempt(7, "poison", 4, 500, true),
                attempt(6, "poison", 5, 500, true),
                attempt(5, "poison", 6, 500, false),
            ],
            true,
        );
        let p = plan(&log, &HashSet::new(), now(), LIMITS);
        assert!(p.redeliver.is_empty());
        assert_eq!(p.given_up, ["bad-signature", "poison"]);
        assert_eq!(p.outstanding, 0);
        assert_eq!(p.taken_through, Some(now() - LOG_LAG));
    }

    #[test]
    fn a_log_not_read_back_to_the_mark_does_not_move_it() {
        let p = plan(
            &log(vec![attempt(1, "a", 1, 503, false)], false),
            &HashSet::new(),
            now(),
            LIMITS,
        );
        assert_eq!(p.redeliver.len(), 1);
        assert_eq!(p.taken_through, None);
    }

    #[test]
    fn which_answers_are_worth_another_delivery() {
        for code in [0, 408, 429, 500, 502, 503, 504] {
            assert!(worth_redelivering(code), "{code}");
        }
        for code in [400, 401, 404, 413, 422] {
            assert!(!worth_redelivering(code), "{code}");
        }
    }
}
