use super::*;

/// The problems as `key: message (found "x")` lines.
fn said(problems: &[ConfigProblem]) -> Vec<String> {
    problems.iter().map(|p| p.to_string()).collect()
}

fn only_problem(text: &str) -> (RepoConfig, ConfigProblem) {
    let (config, problems) = parse(text);
    assert_eq!(problems.len(), 1, "{:?}", said(&problems));
    (config, problems.into_iter().next().unwrap())
}

#[test]
fn no_file_an_empty_file_and_comments_only_are_the_defaults() {
    for text in ["", "\n", "# nothing yet\n", "---\n", "~\n"] {
        let (config, problems) = parse(text);
        assert_eq!(config, RepoConfig::default(), "{text:?}");
        assert!(problems.is_empty(), "{text:?}: {:?}", said(&problems));
    }
    let d = RepoConfig::default();
    assert_eq!(d.depth, 2);
    assert_eq!(d.min_confidence, Confidence::Possible);
    assert_eq!(
        d.outputs,
        Outputs {
            summary: true,
            inline: true,
            check: true
        }
    );
    assert!(d.fail_on_removed_called);
    assert!(d.fail_on_breaking);
    assert_eq!(d.max_callers, None);
    assert!(d.paths.allows_all() && d.paths.allows("any/where.ts"));
}

#[test]
fn the_readme_example_is_read_whole() {
    let text = r#"
paths:
  include: ["src/**"]
  exclude: ["**/*.generated.ts", "vendor/**"]
min_confidence: likely
depth: 3
outputs:
  summary: true
  inline: false
  check: true
fail_on_removed_called: false
fail_on_breaking: false
max_callers: 50
"#;
    let (config, problems) = parse(text);
    assert!(problems.is_empty(), "{:?}", said(&problems));
    assert_eq!(config.paths.include(), ["src/**"]);
    assert_eq!(config.paths.exclude(), ["**/*.generated.ts", "vendor/**"]);
    assert_eq!(config.min_confidence, Confidence::Likely);
    assert_eq!(config.depth, 3);
    assert_eq!(
        config.outputs,
        Outputs {
            summary: true,
            inline: false,
            check: true
        }
    );
    assert!(!config.fail_on_removed_called);
    assert!(!config.fail_on_breaking);
    assert_eq!(config.max_callers, Some(50));
}

#[test]
fn paths_are_included_then_excluded_with_globs_that_stop_at_slashes() {
    let (config, problems) = parse(
        "paths:\n  include: [\"src/**\", \"lib/*.js\"]\n  exclude: [\"**/*.generated.ts\", \"src/vendor/\"]\n",
    );
    assert!(problems.is_empty(), "{:?}", said(&problems));
    let p = &config.paths;
    assert!(p.allows("src/a.ts"));
    assert!(p.allows("src/deep/er/a.ts"));
    assert!(p.allows("lib/a.js"));
    assert!(!p.allows("lib/sub/a.js"), "`*` stops at a slash");
    assert!(!p.allows("test/a.ts"), "not included");
    assert!(!p.allows("src/api/client.generated.ts"));
    assert!(
        !p.allows("src/vendor/lodash.js"),
        "`dir/` is everything under it"
    );
    // Exclude alone: everything else counts.
    let (config, _) = parse("paths:\n  exclude: vendor/**\n");
    assert!(config.paths.allows("src/a.js"));
    assert!(!config.paths.allows("vendor/a.js"));
    // A leading `/` or `./` is the repository's root.
    let (config, _) = parse("paths:\n  include: [\"/src/**\", \"./lib/**\"]\n");
    assert_eq!(config.paths.include(), ["src/**", "lib/**"]);
    assert!(config.paths.allows("lib/x.js"));
    // An empty include is no restriction.
    let (config, problems) = parse("paths:\n  include: []\n");
    assert!(problems.is_empty());
    assert!(config.paths.allows("anything.js"));
}

#[test]
fn a_bad_exclude_glob_is_left_out_and_a_bad_include_drops_the_include() {
    let (config, problems) = parse("paths:\n  exclude: [\"vendor/**\", \"src/[a\", 3]\n");
    assert_eq!(config.paths.exclude(), ["vendor/**"]);
    assert!(!config.paths.allows("vendor/x.js"));
    let said = said(&problems);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].starts_with("paths.exclude[1]: not a valid glob"),
        "{said:?}"
    );
    assert!(
        said[0].contains("left out") && said[0].contains("src/[a"),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("paths.exclude[2]: expected a glob"),
        "{said:?}"
    );

    let (config, problem) = only_problem("paths:\n  include: [\"src/**\", \"{lib\"]\n");
    assert!(config.paths.include().is_empty());
    assert!(
        config.paths.allows("test/a.js"),
        "every path, as by default"
    );
    assert_eq!(problem.key, "paths.include[1]");
    assert!(
        problem.message.contains("every path is included"),
        "{problem}"
    );
}

#[test]
fn unknown_keys_are_named_with_the_key_they_most_likely_meant() {
    let (config, problems) = parse(
        "depht: 3\noutputs:\n  inlin: false\n  check: false\ncolour: blue\ninline: false\npaths:\n  exlude: [a]\n",
    );
    // The known key next to the misspelled one still applies.
    assert!(!config.outputs.check);
    assert!(config.outputs.inline, "a misspelled key changes nothing");
    assert_eq!(config.depth, 2);
    assert_eq!(
        said(&problems),
        [
            "depht: unknown key, ignored; did you mean `depth`?",
            "outputs.inlin: unknown key, ignored; did you mean `outputs.inline`?",
            "colour: unknown key, ignored",
            "inline: unknown key, ignored; did you mean `outputs.inline`?",
            "paths.exlude: unknown key, ignored; did you mean `paths.exclude`?",
        ]
    );
}

#[test]
fn wrong_types_and_values_out_of_range_keep_that_key_s_default_only() {
    let (config, problems) = parse(
        "depth: 9\nmax_callers: many\nmin_confidence: sure\nfail_on_removed_called: no\noutputs:\n  summary: 0\n  inline: false\n",
    );
    assert_eq!(config.depth, DEFAULT_DEPTH);
    assert_eq!(config.max_callers, None);
    assert_eq!(config.min_confidence, Confidence::Possible);
    assert!(config.fail_on_removed_called);
    assert!(config.outputs.summary);
    assert!(
        !config.outputs.inline,
        "the good key next to a bad one applies"
    );
    let said = said(&problems);
    assert_eq!(said.len(), 5, "{said:?}");
    assert_eq!(
        said[0],
        "depth: out of range: use a whole number from 1 to 5; the default (2) was used (found \"9\")"
    );
    assert_eq!(
        said[1],
        "max_callers: expected a whole number from 1 to 1000, found a string; the default (every caller) was used (found \"many\")"
    );
    assert!(
        said[2].starts_with(
            "min_confidence: not a confidence: use one of `exact`, `likely`, `possible`"
        ),
        "{said:?}"
    );
    assert!(
        said[3].starts_with("fail_on_removed_called: expected true or false, found a string"),
        "{said:?}"
    );
    assert!(
        said[4].starts_with("outputs.summary: expected true or false"),
        "{said:?}"
    );
}

#[test]
fn numbers_must_be_whole_and_in_range() {
    for (text, ok) in [
        ("depth: 1", Some(1)),
        ("depth: 5", Some(5)),
        ("depth: 0", None),
        ("depth: -1", None),
        ("depth: 2.5", None),
        ("depth: 1e3", None),
        ("depth: \"2\"", None),
        ("depth: [2]", None),
    ] {
        let (config, problems) = parse(text);
        match ok {
            Some(d) => {
                assert_eq!(config.depth, d, "{text}");
                assert!(problems.is_empty(), "{text}: {:?}", said(&problems));
            }
            None => {
                assert_eq!(config.depth, DEFAULT_DEPTH, "{text}");
                assert_eq!(problems.len(), 1, "{text}: {:?}", said(&problems));
                assert_eq!(problems[0].key, "depth", "{text}: {:?}", said(&problems));
            }
        }
    }
    assert_eq!(parse("max_callers: 1000").0.max_callers, Some(1000));
    assert_eq!(parse("max_callers: 1001").0.max_callers, None);
}

#[test]
fn confidence_names_in_any_case_with_a_suggestion_for_a_typo() {
    assert_eq!(
        parse("min_confidence: Exact").0.min_confidence,
        Confidence::Exact
    );
    let (config, problem) = only_problem("min_confidence: likley");
    assert_eq!(config.min_confidence, Confidence::Possible);
    assert!(
        problem.message.contains("did you mean `likely`?"),
        "{problem}"
    );
    assert_eq!(problem.found.as_deref(), Some("likley"));
}

#[test]
fn a_yaml_syntax_error_or_a_file_that_is_not_a_mapping_gives_every_default() {
    let (config, problem) = only_problem("depth: 3\noutputs: [inline\n");
    assert_eq!(config, RepoConfig::default());
    assert_eq!(problem.key, "");
    assert!(
        problem
            .message
            .starts_with("the file is not valid YAML at line"),
        "{problem}"
    );
    assert!(
        problem.message.ends_with("every default was used"),
        "{problem}"
    );

    let (config, problem) = only_problem("- depth: 3\n");
    assert_eq!(config, RepoConfig::default());
    assert!(problem.message.contains("not a list"), "{problem}");

    let (config, problem) = only_problem("depth: 3\ndepth: 4\n");
    assert_eq!(
        config,
        RepoConfig::default(),
        "a duplicate key is a YAML error"
    );
    assert!(problem.message.contains("not valid YAML"), "{problem}");

    let (config, problems) = parse_bytes(b"depth: \xff\n");
    assert_eq!(config, RepoConfig::default());
    assert_eq!(problems.len(), 1);
    assert!(problems[0].message.contains("not UTF-8"));
}

#[test]
fn sections_of_the_wrong_shape_and_odd_keys_are_problems() {
    let (config, problems) = parse("paths: src/**\noutputs: false\n1: x\n");
    assert_eq!(config, RepoConfig::default());
    let said = said(&problems);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said[0].starts_with("paths: expected the keys include, exclude"),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("outputs: expected the keys summary, inline, check"),
        "{said:?}"
    );
    assert!(
        said[2].starts_with("a number is not a key name"),
        "{said:?}"
    );
}

#[test]
fn a_key_left_empty_is_not_set() {
    let (config, problems) = parse("depth:\noutputs:\n  inline:\npaths:\n");
    assert_eq!(config, RepoConfig::default());
    assert!(problems.is_empty(), "{:?}", said(&problems));
}

#[test]
fn commands_are_answered_from_members_unless_the_file_says_whom() {
    let default = RepoConfig::default();
    for ok in ["OWNER", "MEMBER", "COLLABORATOR", "member"] {
        assert!(default.answers_commands_from(ok), "{ok}");
    }
    for no in ["CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE", ""] {
        assert!(!default.answers_commands_from(no), "{no}");
    }
    let (config, problems) = parse("commands_from: [owner, contributor, first-timer, king]\n");
    assert!(config.answers_commands_from("CONTRIBUTOR"));
    assert!(config.answers_commands_from("FIRST_TIMER"));
    assert!(!config.answers_commands_from("MEMBER"));
    let said = said(&problems);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("unknown author association"), "{said:?}");
    let (config, problems) = parse("commands_from: everyone\n");
    assert_eq!(config, RepoConfig::default());
    assert_eq!(problems.len(), 1);
}

#[test]
fn an_alias_bomb_is_a_problem_and_the_defaults() {
    // 28 KB: one anchor of 5,000 values used by 4,000 aliases (20 million values).
    let anchored = vec!["x"; 5_000].join(", ");
    let uses = vec!["*a"; 4_000].join(", ");
    let text =
        format!("commands_from: [NONE]\npaths:\n  include: &a [{anchored}]\n  exclude: [{uses}]\n");
    assert!(text.len() < 64 * 1024);
    let (config, problem) = only_problem(&text);
    assert_eq!(
        config,
        RepoConfig::default(),
        "not even commands_from applies"
    );
    assert_eq!(
        problem.to_string(),
        "the file expands to more than 10000 values (aliases repeat what an anchor holds); every default was used"
    );
}
