//! Calls through an interface reach the classes that implement it.

use crate::common;

use blast_radius::graph::{Found, Graph};

fn graph(files: &[(&str, &str)]) -> Graph {
    common::graph_of(files.iter().copied())
}

#[test]
fn callers_of_an_implementation_include_calls_through_its_interface() {
    let g = graph(&[
        (
            "repo.ts",
            "export interface Repo { find(id: string): User; }\n\
             export class User {}\n",
        ),
        (
            "sql.ts",
            "import { Repo, User } from './repo';\n\
             export class SqlRepo implements Repo {\n  find(id: string): User { return new User(); }\n  other() {}\n}\n",
        ),
        (
            "service.ts",
            "import { Repo } from './repo';\n\
             export class Service {\n  constructor(private repo: Repo) {}\n  get(id: string) { return this.repo.find(id); }\n}\n",
        ),
    ]);
    let Found::One(find) = g.find("SqlRepo.find") else {
        panic!("one SqlRepo.find");
    };
    let callers = g.callers_of(find);
    let sites: Vec<(String, u32)> = callers
        .iter()
        .map(|c| (g.facts(c.file).path.clone(), g.site(*c).pos().line + 1))
        .collect();
    assert_eq!(sites, vec![("service.ts".to_string(), 4)]);
    let Found::One(other) = g.find("SqlRepo.other") else {
        panic!("one SqlRepo.other");
    };
    assert!(
        g.callers_of(other).is_empty(),
        "not in the interface: no callers"
    );
}
