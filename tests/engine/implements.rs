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

/// A value of a type alias declared after a namespace of the same name (`namespace
/// Result {..}` then `type Result<T, E> = Ok<T, E> | Err<T, E>`, neverthrow's) is one
/// of the union's classes: its method calls reach both. A class that `implements
/// PromiseLike<Result<T, E>>` is a thenable of one, not one: calls of `Err`'s methods
/// do not reach its methods of the same name.
#[test]
fn a_type_alias_beside_a_namespace_and_a_thenable_of_it() {
    let g = graph(&[
        (
            "result.ts",
            "export namespace Result {\n  export function of() { return 1; }\n}\n\
             export type Result<T, E> = Ok<T, E> | Err<T, E>;\n\
             export class Ok<T, E> { isErr(): boolean { return false; } }\n\
             export class Err<T, E> { isErr(): boolean { return true; } }\n",
        ),
        (
            "async.ts",
            "import { Result } from './result';\n\
             export class ResultAsync<T, E> implements PromiseLike<Result<T, E>> {\n  \
             isErr(): boolean { return false; }\n  \
             then(): any { return null; }\n}\n",
        ),
        (
            "use.ts",
            "import { Result, Err } from './result';\n\
             export function check(r: Result<number, string>) { return r.isErr(); }\n\
             export function direct() { return new Err<number, string>().isErr(); }\n",
        ),
    ]);
    let sites = |name: &str| -> Vec<(String, u32)> {
        let Found::One(d) = g.find(name) else {
            panic!("one {name}");
        };
        g.callers_of(d)
            .iter()
            .map(|c| (g.facts(c.file).path.clone(), g.site(*c).pos().line + 1))
            .collect()
    };
    assert_eq!(sites("Ok.isErr"), vec![("use.ts".to_string(), 2)]);
    assert_eq!(
        sites("Err.isErr"),
        vec![("use.ts".to_string(), 2), ("use.ts".to_string(), 3)]
    );
    assert!(
        sites("ResultAsync.isErr").is_empty(),
        "{:?}",
        sites("ResultAsync.isErr")
    );
}
