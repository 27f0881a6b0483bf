//! A generator-based fuzz for time and memory (issue 41; cargo-fuzz needs nightly):
//! seeded random compositions of nested and long constructs, each extracted on a small
//! stack. Each file must be read within its allowances per byte (walk steps, parse
//! progress, fact bytes) or skipped as `too_costly`, and nothing may panic.
//!   cargo test --test engine fuzz                      a few hundred cases
//!   BLAST_FUZZ_CASES=1500 BLAST_FUZZ_SCALE=1500 cargo test --test engine fuzz -- --nocapture
//!   BLAST_FUZZ_SEED=711 BLAST_FUZZ_SCALE=1500 BLAST_FUZZ_DUMP=/some/dir ...  one case, kept

use std::time::{Duration, Instant};

use blast_radius::indexer::extract::last_spent;
use blast_radius::indexer::skip::SkipReason;
use blast_radius::indexer::{extract, Language};

/// xorshift64*: deterministic, and no more is needed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Wrappers around an expression: (before, after). `T` marks TypeScript-only ones,
/// `J` JSX-only ones.
const WRAPPERS: &[(&str, &str, char)] = &[
    ("(", ")", ' '),
    ("[", "]", ' '),
    ("{a: ", "}", ' '),
    ("f(", ")", ' '),
    ("() => ", "", ' '),
    ("function () { return ", " }", ' '),
    ("class { m() { return ", " } }", ' '),
    ("`${", "}`", ' '),
    ("a ? ", " : b", ' '),
    ("new ", "", ' '),
    ("a + ", "", ' '),
    ("x = ", "", ' '),
    ("async () => await ", "", ' '),
    ("{ ...", " }", ' '),
    ("", ".b", ' '),
    ("", ".b()", ' '),
    ("", "?.[c]", ' '),
    ("", "\n.then(g)", ' '),
    ("(x: { a: ", " }) => x", 'T'),
    ("<T,>(x: T): T => ", "", 'T'),
    ("", " as A<B<C>>", 'T'),
    ("(y: (z: T) => ", ") => y", 'T'),
    ("<a>{", "}</a>", 'J'),
    ("<a b={", "} />", 'J'),
];

/// Statements that repeat a construct many times over.
const LONG: &[&str] = &[
    "function h() { h() }\n",
    "class C { m() { this.m() } }\n",
    "export function f(a: number): void;\n",
    "import { x } from './x';\nx();\n",
    "a.b.c.d.e.f();\n",
    "o = { m() {}, n: () => {} };\n",
];

/// Odd bytes sprinkled in.
const ODD: &[&str] = &[
    "\u{FEFF}",
    "\r",
    "\0",
    "\"\\uD800\"",
    "/*",
    "`",
    "}",
    "<",
    "\u{2028}",
];

fn expression(rng: &mut Rng, lang: Language, depth: usize) -> String {
    let allowed = |tag: char| match tag {
        'T' => matches!(lang, Language::TypeScript | Language::Tsx),
        'J' => matches!(lang, Language::JavaScript | Language::Tsx),
        _ => true,
    };
    // Wrappers from a few kinds, so deep runs of one kind happen as well as mixes.
    let kinds: Vec<&(&str, &str, char)> = (0..1 + rng.below(3))
        .map(|_| &WRAPPERS[rng.below(WRAPPERS.len())])
        .filter(|w| allowed(w.2))
        .collect();
    let mut open = String::new();
    let mut close = Vec::new();
    for _ in 0..depth {
        let Some(&&(before, after, _)) = kinds.get(rng.below(kinds.len().max(1))) else {
            break;
        };
        open.push_str(before);
        close.push(after);
        if rng.below(8) == 0 {
            open.push('\n');
        }
    }
    close.reverse();
    format!("{open}a{}", close.concat())
}

fn case(seed: u64, scale: usize) -> (&'static str, Language, String) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (path, lang) = [
        ("f.js", Language::JavaScript),
        ("f.jsx", Language::JavaScript),
        ("f.ts", Language::TypeScript),
        ("f.tsx", Language::Tsx),
    ][rng.below(4)];
    let mut source = String::new();
    for _ in 0..1 + rng.below(4) {
        match rng.below(3) {
            0 | 1 => {
                let depth = rng.below(scale);
                source.push_str(&format!("x = {};\n", expression(&mut rng, lang, depth)));
            }
            _ => source.push_str(&LONG[rng.below(LONG.len())].repeat(rng.below(scale * 4))),
        }
        if rng.below(4) == 0 {
            let at = rng.below(source.len() + 1);
            if source.is_char_boundary(at) {
                source.insert_str(at, ODD[rng.below(ODD.len())]);
            }
        }
    }
    // Sometimes cut short: unclosed constructs.
    if rng.below(4) == 0 {
        let mut cut = rng.below(source.len() + 1);
        while !source.is_char_boundary(cut) {
            cut -= 1;
        }
        source.truncate(cut);
    }
    (path, lang, source)
}

/// Extracts each case on a 2 MiB stack (a test thread's); the slowest, for the report.
fn run(seeds: std::ops::Range<u64>, scale: usize) -> (Duration, usize) {
    let dump = std::env::var_os("BLAST_FUZZ_DUMP").map(std::path::PathBuf::from);
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut slowest = (Duration::ZERO, 0);
            for seed in seeds {
                let (path, lang, source) = case(seed, scale);
                if let Some(dir) = &dump {
                    // To run a case through `blast-radius index` or a profiler.
                    std::fs::write(dir.join(format!("{seed}-{path}")), &source).unwrap();
                }
                let started = Instant::now();
                let result = extract(path, lang, &source);
                let took = started.elapsed();
                let spent = last_spent();
                let bytes = source.len();
                assert!(
                    spent.max_parse_reports == 20_000 + bytes
                        && spent.max_parse_bytes == (16 << 20) + 160 * bytes,
                    "seed {seed}: allowances {spent:?} for {bytes} bytes"
                );
                match result {
                    Ok(facts) => {
                        // Read: the walk ran, within its allowance.
                        assert_eq!(
                            spent.max_steps,
                            200_000 + 8 * bytes as u64,
                            "seed {seed}: allowances {spent:?} for {bytes} bytes"
                        );
                        assert!(
                            spent.steps <= spent.max_steps
                                && spent.parse_reports <= spent.max_parse_reports
                                && spent.parse_bytes <= spent.max_parse_bytes,
                            "seed {seed}: read past its allowance {spent:?}"
                        );
                        assert!(
                            facts.weight() <= (1 << 20) + 24 * bytes,
                            "seed {seed}: {} bytes of facts for {bytes}",
                            facts.weight()
                        );
                    }
                    Err(reason) => assert_eq!(reason, SkipReason::TooCostly, "seed {seed}"),
                }
                if took > slowest.0 {
                    slowest = (took, seed as usize);
                }
            }
            slowest
        })
        .expect("spawn")
        .join()
        .expect("a case panicked or overflowed the stack")
}

#[test]
fn random_nestings_and_repetitions_stay_within_their_allowances() {
    let cases = std::env::var("BLAST_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let scale = std::env::var("BLAST_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    // One case alone: BLAST_FUZZ_SEED=711.
    let seeds = match std::env::var("BLAST_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(seed) => seed..seed + 1,
        None => 0..cases,
    };
    let (took, seed) = run(seeds, scale);
    eprintln!("fuzz: {cases} cases at scale {scale}, slowest {took:?} (seed {seed})");
}

#[test]
fn the_generator_is_deterministic_and_varied() {
    assert_eq!(case(7, 400), case(7, 400));
    let distinct: std::collections::BTreeSet<String> = (0..50).map(|s| case(s, 400).2).collect();
    assert!(distinct.len() > 45);
}
