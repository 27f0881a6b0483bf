//! Across service boundaries, for a change: the routes and topics the changed functions
//! handle, and the clients and producers (in the repository itself and in the
//! installation's other repositories) that reach them, with how surely.
//!
//! What a repository serves is read from its stored graph (its default branch's), as
//! the packages it owns are (`org`): a pull request that adds a route claims no one's
//! clients.

use serde::Serialize;

use super::matching::match_endpoints;
use super::{Endpoint, RepoLinks, Role};
use crate::blast::diff::Change;
use crate::blast::report::ChangedFunction;
use crate::graph::{Confidence, DefId, Graph};

/// A client or producer, where it is and what it reaches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinkCaller {
    /// Its repository, `owner/name`.
    pub repo: String,
    pub private: bool,
    /// Whether it is in the repository asked about (not another of the installation).
    pub own: bool,
    /// The commit its repository's graph reflects (its default branch's).
    pub commit: Option<String>,
    pub path: String,
    /// 1-based.
    pub line: u32,
    pub role: Role,
    pub endpoint: Endpoint,
}

/// A route or topic a changed function handles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Served {
    /// Its index among the changed functions (0 when asked about one definition).
    pub changed: usize,
    pub endpoint: Endpoint,
}

/// A client or producer that reaches what a changed function serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FoundLink {
    /// Its index among the changed functions.
    pub changed: usize,
    /// Its index among the served endpoints.
    pub served: usize,
    /// Its index among the callers.
    pub caller: usize,
    pub confidence: Confidence,
}

/// The endpoints `def` serves: the routes it handles, the topics it consumes (each
/// once).
pub fn served_by(links: &RepoLinks, def: DefId) -> Vec<Endpoint> {
    let mut out: Vec<Endpoint> = links
        .handled_by(def)
        .filter(|s| matches!(s.site.role, Role::Route | Role::Consumer))
        .map(|s| s.site.endpoint.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The endpoints the changed functions serve, each as `base` (the stored graph) had
/// it: a removed or renamed handler by its old name. Added functions serve nothing yet.
pub fn served_by_changes(
    base: &Graph,
    links: &RepoLinks,
    changed: &[ChangedFunction],
) -> Vec<Served> {
    let mut out = Vec::new();
    if links.sites.is_empty() {
        return out;
    }
    for (i, c) in changed.iter().enumerate() {
        if c.change == Change::Added {
            continue;
        }
        let Some(file) = base.file_id(&c.file) else {
            continue;
        };
        let name = c.renamed_from.as_deref().unwrap_or(&c.qualified_name);
        let facts = base.facts(file);
        let mut endpoints = Vec::new();
        for def in 0..facts.defs.len() as u32 {
            if facts.def_qualified(def) == name {
                endpoints.extend(served_by(links, DefId { file, def }));
            }
        }
        endpoints.sort();
        endpoints.dedup();
        out.extend(endpoints.into_iter().map(|endpoint| Served {
            changed: i,
            endpoint,
        }));
    }
    out
}

/// The clients and producers of a repository's own links, as callers.
pub fn own_callers(
    links: &RepoLinks,
    repo: &str,
    private: bool,
    commit: Option<&str>,
) -> Vec<LinkCaller> {
    links
        .sites
        .iter()
        .filter(|s| matches!(s.site.role, Role::Client | Role::Producer))
        .map(|s| LinkCaller {
            repo: repo.to_string(),
            private,
            own: true,
            commit: commit.map(str::to_string),
            path: s.path.clone(),
            line: s.site.at.line + 1,
            role: s.site.role,
            endpoint: s.site.endpoint.clone(),
        })
        .collect()
}

/// Which of `callers` reach which of `served`, with how surely: by changed function,
/// then the callers' order. A client that reaches two routes of one function is listed
/// once, at its best confidence; so is a call site that is two callers.
pub fn reaching(served: &[Served], callers: &[LinkCaller]) -> Vec<FoundLink> {
    let mut out: Vec<FoundLink> = Vec::new();
    for (si, s) in served.iter().enumerate() {
        for (ci, c) in callers.iter().enumerate() {
            let serving = match c.role {
                Role::Client => matches!(
                    s.endpoint,
                    Endpoint::Http { .. } | Endpoint::Procedure { .. }
                ),
                Role::Producer => matches!(
                    s.endpoint,
                    Endpoint::Topic { .. } | Endpoint::Binding { .. }
                ),
                _ => false,
            };
            if !serving {
                continue;
            }
            if let Some(confidence) = match_endpoints(&c.endpoint, &s.endpoint) {
                out.push(FoundLink {
                    changed: s.changed,
                    served: si,
                    caller: ci,
                    confidence,
                });
            }
        }
    }
    // Exact sorts first: the surest match of each call site is kept. One call may be
    // several callers (a message to an exchange, and to a queue its repository binds
    // to it): by its place, it is listed once.
    let place = |f: &FoundLink| {
        let c = &callers[f.caller];
        (f.changed, c.repo.as_str(), c.path.as_str(), c.line, c.role)
    };
    out.sort_by(|a, b| {
        (place(a), a.confidence, a.caller, a.served).cmp(&(
            place(b),
            b.confidence,
            b.caller,
            b.served,
        ))
    });
    out.dedup_by(|a, b| place(a) == place(b));
    out.sort_by_key(|f| (f.changed, f.caller));
    out
}

/// The route or topic a command asks about directly: `GET /users/:id` (a method, then a
/// path as a framework writes it) or `kafka:orders` (a system, then a topic's name;
/// `amqp:exchange/pattern` a binding to an exchange);
/// None for anything else (a function's name never holds a space or a system's prefix).
pub fn parse_asked(target: &str) -> Option<Endpoint> {
    use super::{Method, PathPattern, TopicSystem};
    let target = target.trim();
    if let Some((method, path)) = target.split_once(' ') {
        let method = Method::from_name(method)?;
        let path = path.trim();
        return path.starts_with('/').then(|| Endpoint::Http {
            method: Some(method),
            path: PathPattern::route(path),
        });
    }
    let (system, name) = target.split_once(':')?;
    let system = [
        TopicSystem::Kafka,
        TopicSystem::Bullmq,
        TopicSystem::Amqp,
        TopicSystem::Sqs,
        TopicSystem::Sns,
        TopicSystem::Nats,
        TopicSystem::Redis,
        TopicSystem::Nest,
    ]
    .into_iter()
    .find(|s| s.as_str() == system)?;
    if name.is_empty() {
        return None;
    }
    // `amqp:events/user.*`: the queues bound to an exchange with that pattern (its
    // type unknown), what the exchange's producers reach.
    if let (TopicSystem::Amqp, Some((exchange, pattern))) = (system, name.split_once('/')) {
        if !exchange.is_empty() {
            return Some(Endpoint::Binding {
                exchange: exchange.to_string(),
                pattern: pattern.to_string(),
                kind: None,
            });
        }
    }
    Some(Endpoint::Topic {
        system,
        name: name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::report::ChangedFunction;
    use crate::indexer::facts::DefKind;

    fn graph_of(dir: &str) -> Graph {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/services")
            .join(dir);
        let mut files = Vec::new();
        for entry in std::fs::read_dir(root.join("src")).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let text = std::fs::read_to_string(entry.path()).unwrap();
            files.push((format!("src/{name}"), text));
        }
        let mut g = Graph::default();
        for (path, text) in &files {
            g.update_file(path, text);
        }
        g
    }

    fn changed(file: &str, name: &str) -> ChangedFunction {
        ChangedFunction {
            file: file.into(),
            name: name.into(),
            qualified_name: name.into(),
            kind: DefKind::Function,
            line: 1,
            end_line: 1,
            change: Change::Body,
            renamed_from: None,
        }
    }

    fn callers(dir: &str, repo: &str) -> Vec<LinkCaller> {
        let g = graph_of(dir);
        let links = crate::links::resolve(&g);
        let mut c = own_callers(&links, repo, false, None);
        c.iter_mut().for_each(|c| c.own = false);
        c
    }

    /// `fixtures/services`: the users service's `getUser` and `handleSignup` are reached
    /// by the web app's `fetch` and the billing service's `axios` call and producer;
    /// not by another method on the same path, a longer path, or another topic.
    #[test]
    fn the_services_fixture_links_handlers_to_their_clients_and_producers() {
        let users = graph_of("users");
        let links = crate::links::resolve(&users);
        let served = served_by_changes(
            &users,
            &links,
            &[
                changed("src/app.js", "getUser"),
                changed("src/app.js", "handleSignup"),
            ],
        );
        let shown: Vec<String> = served
            .iter()
            .map(|s| format!("{} {}", s.changed, s.endpoint))
            .collect();
        assert_eq!(shown, ["0 GET /users/:id", "1 kafka:user.signup"]);
        let mut all = callers("web", "acme/web");
        all.extend(callers("billing", "acme/billing"));
        let found: Vec<String> = reaching(&served, &all)
            .iter()
            .map(|f| {
                let c = &all[f.caller];
                format!(
                    "{} {} {}:{} {} [{}]",
                    f.changed,
                    c.repo,
                    c.path,
                    c.line,
                    c.endpoint,
                    f.confidence.as_str()
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                "0 acme/web src/api.js:2 GET /users/:id [exact]",
                "0 acme/billing src/users.js:5 GET */users/:id [likely]",
                "1 acme/billing src/users.js:17 kafka:user.signup [exact]",
            ]
        );
    }

    /// A message to an exchange that also lands in a queue its repository binds is two
    /// producers at one place: one call site reaches the consumer.
    #[test]
    fn one_call_site_is_listed_once_at_its_best() {
        use crate::links::{ExchangeKind, TopicSystem};
        let caller = |endpoint| LinkCaller {
            repo: "acme/pub".into(),
            private: false,
            own: false,
            commit: None,
            path: "src/publish.ts".into(),
            line: 9,
            role: Role::Producer,
            endpoint,
        };
        let callers = [
            caller(Endpoint::Exchange {
                exchange: "events".into(),
                key: Some("user.created".into()),
            }),
            caller(Endpoint::Topic {
                system: TopicSystem::Amqp,
                name: "user-events".into(),
            }),
        ];
        let served = [
            Served {
                changed: 0,
                endpoint: Endpoint::Topic {
                    system: TopicSystem::Amqp,
                    name: "user-events".into(),
                },
            },
            Served {
                changed: 0,
                endpoint: Endpoint::Binding {
                    exchange: "events".into(),
                    pattern: "user.*".into(),
                    kind: Some(ExchangeKind::Topic),
                },
            },
        ];
        let found = reaching(&served, &callers);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].confidence, Confidence::Exact);
    }

    #[test]
    fn a_route_or_a_topic_is_asked_for_directly() {
        assert_eq!(
            parse_asked("GET /users/:id").map(|e| e.to_string()),
            Some("GET /users/:id".into())
        );
        assert_eq!(
            parse_asked("kafka:user.signup").map(|e| e.to_string()),
            Some("kafka:user.signup".into())
        );
        assert_eq!(
            parse_asked("nest:order.created").map(|e| e.to_string()),
            Some("nest:order.created".into())
        );
        assert_eq!(
            parse_asked("amqp:events/user.*").map(|e| e.to_string()),
            Some("amqp:events/user.* (binding)".into())
        );
        assert_eq!(parse_asked("getUser"), None);
        assert_eq!(parse_asked("src/app.js:12"), None);
        assert_eq!(parse_asked("FETCH /x"), None);
    }
}
