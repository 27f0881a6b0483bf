//! The deployment files agree with the code: the Dockerfile's dependency layer stubs
//! every bench Cargo.toml declares (else it does not build) and copies what the build
//! compiles in; fly.toml migrates on release, health-checks `/healthz` and runs
//! intake (no workers) and workers as separate processes; the manifest asks for what the App's features need. (No Docker daemon runs
//! in CI: what can be checked without one is checked here.)

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

#[test]
fn the_dockerfile_stubs_every_bench_and_copies_what_is_compiled_in() {
    let cargo = read("Cargo.toml");
    let docker = read("Dockerfile");
    let mut lines = cargo.lines();
    let mut benches = Vec::new();
    while let Some(line) = lines.next() {
        if line.trim() == "[[bench]]" {
            let name = lines
                .find_map(|l| l.trim().strip_prefix("name = "))
                .unwrap()
                .trim_matches('"');
            benches.push(name.to_string());
        }
    }
    assert!(benches.len() >= 4, "{benches:?}");
    let stubbed = docker
        .lines()
        .find_map(|l| l.split("for b in ").nth(1))
        .and_then(|rest| rest.split("; do").next())
        .expect("the stub loop");
    let stubbed: Vec<&str> = stubbed.split_whitespace().collect();
    for bench in &benches {
        assert!(
            stubbed.contains(&bench.as_str()),
            "the Dockerfile does not stub benches/{bench}.rs"
        );
    }
    // Every workspace member's manifest is in the dependency layer, or it does not build.
    let members = cargo
        .lines()
        .find_map(|l| l.strip_prefix("members = "))
        .expect("Cargo.toml names its workspace members");
    for member in members
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
    {
        assert!(
            docker
                .lines()
                .any(|l| l.starts_with("COPY ") && l.contains(&format!("{member}/Cargo.toml"))),
            "the Dockerfile's dependency layer does not copy {member}/Cargo.toml"
        );
    }
    // Files the source includes at compile time from outside src/.
    for compiled_in in ["app-manifest.yml", "migrations", "crates"] {
        assert!(
            docker
                .lines()
                .any(|l| l.starts_with("COPY ") && l.contains(compiled_in)),
            "the Dockerfile does not copy {compiled_in}"
        );
    }
}

#[test]
fn fly_migrates_on_release_and_checks_health() {
    let fly = read("fly.toml");
    assert!(fly.contains("release_command = \"blast-radius migrate\""));
    assert!(fly.contains("path = \"/healthz\""));
    assert!(fly.contains("worker = \"blast-radius work\""));
    // The shutdown grace (20 s by default) and the release of what is left fit before
    // the kill.
    assert!(fly.contains("kill_signal = \"SIGTERM\""));
    assert!(fly.contains("kill_timeout = \"30s\""));
    // Intake runs no workers: a worker killed for memory never takes intake with it.
    let web = fly
        .lines()
        .find_map(|l| l.trim().strip_prefix("web = "))
        .expect("a web process");
    assert_eq!(web, "\"blast-radius serve --no-migrate --workers 0\"");
    assert!(fly.contains("BLAST_CLIENT_IP_HEADER = \"Fly-Client-IP\""));
}
