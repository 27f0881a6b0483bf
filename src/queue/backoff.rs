//! How long a failed job waits before its next attempt.

use std::time::Duration;

/// The wait after failed attempt number `attempt` (from 1): `base` doubled for each
/// attempt after the first, capped at `max`, with "equal jitter": half of it fixed, the
/// other half scaled by `unit` (a random number in [0, 1)), so jobs that failed together
/// (GitHub down for a minute) do not all come back at the same moment.
pub fn backoff(attempt: i32, base: Duration, max: Duration, unit: f64) -> Duration {
    let doublings = attempt.saturating_sub(1).clamp(0, 30) as u32;
    let full = base.saturating_mul(1u32 << doublings.min(31)).min(max);
    let half = full / 2;
    half + half.mul_f64(unit.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_secs(10);
    const MAX: Duration = Duration::from_secs(600);

    #[test]
    fn doubles_per_attempt_within_its_jitter_band() {
        for (attempt, full) in [(1, 10), (2, 20), (3, 40), (4, 80), (5, 160)] {
            let full = Duration::from_secs(full);
            assert_eq!(backoff(attempt, BASE, MAX, 0.0), full / 2);
            assert_eq!(backoff(attempt, BASE, MAX, 1.0), full);
            let mid = backoff(attempt, BASE, MAX, 0.5);
            assert!(mid > full / 2 && mid < full, "{attempt}: {mid:?}");
        }
    }

    #[test]
    fn capped_and_never_overflows() {
        assert_eq!(backoff(7, BASE, MAX, 1.0), MAX);
        assert_eq!(backoff(1000, BASE, MAX, 1.0), MAX);
        assert_eq!(backoff(i32::MAX, BASE, MAX, 0.0), MAX / 2);
        // A nonsense attempt number or jitter is still a sane wait.
        assert_eq!(backoff(0, BASE, MAX, 1.0), BASE);
        assert_eq!(backoff(-3, BASE, MAX, 7.0), BASE);
    }
}
