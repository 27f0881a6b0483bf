//! A repository's link sites with what only the graph knows: mounted routers' prefixes
//! composed across files (`app.use('/api', users)` with `users` imported; NestJS's
//! global prefix, but on the routes it excludes), AMQP queues' bindings in any file
//! given to the queues' consumers (and a message to an exchange given the queues it
//! surely lands in), and each handler mapped to its definition.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::matching::{match_endpoints, match_sites, LinkMatch};
use super::path::{Base, PathPattern};
use super::{Endpoint, Handler, LinkSite, Method, Mounted, Role, TopicSystem};
use crate::graph::modules::ModuleTarget;
use crate::graph::{Confidence, DefId, FileId, Graph};
use crate::indexer::facts::FileFacts;

/// Mounts are followed this many levels up (a router in a router in an app...).
const MAX_MOUNT_DEPTH: usize = 8;

/// One route, client, producer or consumer of a repository, with its full endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResolvedSite {
    pub file: FileId,
    /// The file's repository-relative path.
    pub path: String,
    /// The site, its endpoint composed with the prefixes of the mounts that reach it (a
    /// router mounted twice is two sites).
    pub site: LinkSite,
    /// The definition of its handler, where the graph resolves it.
    pub handler: Option<DefId>,
}

/// A repository's sites (mounts composed into the routes, not listed), sorted by file
/// and position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RepoLinks {
    pub sites: Vec<ResolvedSite>,
}

impl RepoLinks {
    pub fn with_role(&self, role: Role) -> impl Iterator<Item = &ResolvedSite> {
        self.sites.iter().filter(move |s| s.site.role == role)
    }

    pub fn routes(&self) -> impl Iterator<Item = &ResolvedSite> {
        self.with_role(Role::Route)
    }

    pub fn clients(&self) -> impl Iterator<Item = &ResolvedSite> {
        self.with_role(Role::Client)
    }

    pub fn producers(&self) -> impl Iterator<Item = &ResolvedSite> {
        self.with_role(Role::Producer)
    }

    pub fn consumers(&self) -> impl Iterator<Item = &ResolvedSite> {
        self.with_role(Role::Consumer)
    }

    /// The sites whose handler is `d`: what a change to `d` reaches across services.
    pub fn handled_by(&self, d: DefId) -> impl Iterator<Item = &ResolvedSite> {
        self.sites.iter().filter(move |s| s.handler == Some(d))
    }

    /// Every client and producer of `callers` that reaches a route or consumer of
    /// these: indexes into `callers.sites` (`client`) and `self.sites` (`route`).
    pub fn matches_from(&self, callers: &RepoLinks) -> Vec<LinkMatch> {
        let from: Vec<LinkSite> = callers.sites.iter().map(|s| s.site.clone()).collect();
        let to: Vec<LinkSite> = self.sites.iter().map(|s| s.site.clone()).collect();
        match_sites(&from, &to)
    }
}

/// Where a router is: a file and the top-level name it is bound to there.
type OwnerKey = (FileId, String);

/// A router's mounts: each mount's file, its owner, its prefix.
type Mounts = FxHashMap<OwnerKey, Vec<(FileId, Option<String>, Endpoint)>>;

/// The link sites of every file of `g`, with mounts composed and handlers resolved.
pub fn resolve(g: &Graph) -> RepoLinks {
    let files: Vec<FileId> = g
        .file_ids()
        .filter(|&f| !g.facts(f).links.is_empty())
        .collect();
    // The owner each (file, exported name) is.
    let mut exports: FxHashMap<(FileId, String), String> = FxHashMap::default();
    for &f in &files {
        for s in &g.facts(f).links {
            if let Some(owner) = &s.owner {
                for e in &s.exported_as {
                    exports.insert((f, e.clone()), owner.clone());
                }
            }
        }
    }
    // Each router's mounts: (the mount's file, its owner, its prefix).
    let mut mounts: Mounts = FxHashMap::default();
    // NestJS's global prefixes (`app.setGlobalPrefix('api')`).
    let mut nest_prefixes: Vec<Endpoint> = Vec::new();
    // The routes they leave out (`exclude`).
    let mut nest_excluded: Vec<Endpoint> = Vec::new();
    // AMQP queues' bindings to exchanges, by the queue's name (any file's).
    let mut bindings: FxHashMap<String, Vec<Endpoint>> = FxHashMap::default();
    for &f in &files {
        let facts = g.facts(f);
        for s in facts.links.iter().filter(|s| s.role == Role::Mount) {
            let target = match s.mounted.as_ref() {
                Some(Mounted::Local(name)) => Some((f, name.clone())),
                Some(Mounted::Import { specifier, export }) => {
                    imported_file(g, &facts.path, specifier).and_then(|t| {
                        exports
                            .get(&(t, export.clone()))
                            .map(|owner| (t, owner.clone()))
                    })
                }
                Some(Mounted::NestControllers) => {
                    nest_prefixes.push(s.endpoint.clone());
                    None
                }
                Some(Mounted::NestExcluded) => {
                    nest_excluded.push(s.endpoint.clone());
                    None
                }
                Some(Mounted::Queue(q)) => {
                    bindings
                        .entry(q.clone())
                        .or_default()
                        .push(s.endpoint.clone());
                    None
                }
                None => None,
            };
            if let Some(key) = target {
                mounts
                    .entry(key)
                    .or_default()
                    .push((f, s.owner.clone(), s.endpoint.clone()));
            }
        }
    }
    let composer = Composer { mounts: &mounts };
    // One prefix for the repository's controllers; where applications set different
    // ones, which controller is whose is not read: none is applied.
    nest_prefixes.sort();
    nest_prefixes.dedup();
    let nest_prefix = match nest_prefixes.as_slice() {
        [one] => Some(one),
        _ => None,
    };
    let mut out = Vec::new();
    for &f in &files {
        let facts = g.facts(f);
        let held: &FileFacts = facts.held();
        let edges = handler_edges(g, f, held);
        for s in held
            .links
            .iter()
            .filter(|s| !matches!(s.role, Role::Mount | Role::Instance))
        {
            let handler = s
                .handler
                .as_ref()
                .and_then(|h| handler_def(g, f, &edges, h));
            let endpoints = match (&s.owner, s.role) {
                (_, Role::Route) if s.mounted == Some(Mounted::NestControllers) => {
                    let excluded = nest_excluded.iter().any(|e| excludes(e, &s.endpoint));
                    match nest_prefix
                        .filter(|_| !excluded)
                        .and_then(|p| join(p, &s.endpoint))
                    {
                        Some(prefixed) => vec![prefixed],
                        None => vec![s.endpoint.clone()],
                    }
                }
                (Some(owner), Role::Route) => composer.full(&(f, owner.clone()), &s.endpoint, 0),
                // A call on an imported object: a client only if that is an instance.
                (_, Role::Client) if s.mounted.is_some() => {
                    match imported_instance(g, &exports, &held.path, s) {
                        Some(base) => vec![on_instance(&base, &s.endpoint)],
                        None => continue,
                    }
                }
                // A queue's consumer serves the exchanges bound to it too.
                (_, Role::Consumer) => {
                    let mut all = vec![s.endpoint.clone()];
                    if let Endpoint::Topic {
                        system: TopicSystem::Amqp,
                        name,
                    } = &s.endpoint
                    {
                        all.extend(bindings.get(name.as_str()).into_iter().flatten().cloned());
                    }
                    all
                }
                // A message to an exchange lands in the queues this repository binds to
                // it: surely routed, it reaches their consumers by the queue's name (a
                // consumer elsewhere that does not bind it itself).
                (_, Role::Producer) if matches!(s.endpoint, Endpoint::Exchange { .. }) => {
                    let mut all = vec![s.endpoint.clone()];
                    let mut queues: Vec<&String> = bindings
                        .iter()
                        .filter(|(_, bound)| {
                            bound
                                .iter()
                                .any(|b| match_endpoints(&s.endpoint, b) == Some(Confidence::Exact))
                        })
                        .map(|(q, _)| q)
                        .collect();
                    queues.sort();
                    all.extend(queues.into_iter().map(|q| Endpoint::Topic {
                        system: TopicSystem::Amqp,
                        name: q.clone(),
                    }));
                    all
                }
                _ => vec![s.endpoint.clone()],
            };
            for endpoint in endpoints {
                out.push(ResolvedSite {
                    file: f,
                    path: held.path.clone(),
                    site: LinkSite {
                        endpoint,
                        ..s.clone()
                    },
                    handler,
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.file, a.site.at.start_byte, &a.site.endpoint).cmp(&(
            b.file,
            b.site.at.start_byte,
            &b.site.endpoint,
        ))
    });
    out.dedup();
    RepoLinks { sites: out }
}

/// The base of the client instance a client (of the file at `from`) is called on,
/// if the object it imports is one.
fn imported_instance(
    g: &Graph,
    exports: &FxHashMap<(FileId, String), String>,
    from: &str,
    s: &LinkSite,
) -> Option<Endpoint> {
    let Some(Mounted::Import { specifier, export }) = &s.mounted else {
        return None;
    };
    let t = imported_file(g, from, specifier)?;
    let owner = exports.get(&(t, export.clone()))?;
    let facts = g.facts(t);
    let instance = facts
        .links
        .iter()
        .find(|i| i.role == Role::Instance && i.owner.as_ref() == Some(owner))?;
    Some(instance.endpoint.clone())
}

/// A client's endpoint on an instance's base: the base's path, then the client's (an
/// absolute URL keeps its own).
fn on_instance(base: &Endpoint, client: &Endpoint) -> Endpoint {
    match (base, client) {
        (Endpoint::Http { path: b, .. }, Endpoint::Http { method, path })
            if !matches!(path.base, Base::Host(_)) =>
        {
            Endpoint::Http {
                method: *method,
                path: path.under(b),
            }
        }
        _ => client.clone(),
    }
}

/// The file an import specifier of the file at `from` leads to.
fn imported_file(g: &Graph, from: &str, specifier: &str) -> Option<FileId> {
    match g
        .resolver()
        .resolve(from, specifier, &|p| g.file_id(p).is_some())
    {
        ModuleTarget::File(p) => g.file_id(&p),
        _ => None,
    }
}

struct Composer<'a> {
    mounts: &'a Mounts,
}

impl Composer<'_> {
    /// `endpoint` of a router `key` under every prefix its mounts give it; itself when
    /// nothing mounts it.
    fn full(&self, key: &OwnerKey, endpoint: &Endpoint, depth: usize) -> Vec<Endpoint> {
        let Some(list) = self.mounts.get(key).filter(|_| depth < MAX_MOUNT_DEPTH) else {
            return vec![endpoint.clone()];
        };
        let mut out = Vec::new();
        for (file, owner, prefix) in list {
            let Some(joined) = join(prefix, endpoint) else {
                continue;
            };
            match owner {
                Some(o) => out.extend(self.full(&(*file, o.clone()), &joined, depth + 1)),
                None => out.push(joined),
            }
        }
        if out.is_empty() {
            out.push(endpoint.clone());
        }
        out
    }
}

/// Whether a NestJS `exclude` entry names a route: its method (or every method) and
/// its path, a parameter taking a parameter or any one segment, a catch-all the rest.
fn excludes(excluded: &Endpoint, route: &Endpoint) -> bool {
    let (
        Endpoint::Http {
            method: em,
            path: ep,
        },
        Endpoint::Http {
            method: rm,
            path: rp,
        },
    ) = (excluded, route)
    else {
        return false;
    };
    if em.is_some() && em != rm {
        return false;
    }
    super::matching::match_http(Some(rm.unwrap_or(Method::Get)), rp, None, ep).is_some()
}

/// A mount's prefix before a route's endpoint.
fn join(prefix: &Endpoint, endpoint: &Endpoint) -> Option<Endpoint> {
    match (prefix, endpoint) {
        (Endpoint::Http { path: p, .. }, Endpoint::Http { method, path }) => Some(Endpoint::Http {
            method: *method,
            path: PathPattern {
                base: match p.base {
                    Base::Host(_) => Base::Unknown,
                    ref b => b.clone(),
                },
                ..path.under(p)
            },
        }),
        (Endpoint::Procedure { path: p, .. }, Endpoint::Procedure { path, kind }) => {
            Some(Endpoint::Procedure {
                // A procedure made on its own has no path but the mount's.
                path: if path.is_empty() {
                    p.clone()
                } else {
                    format!("{p}.{path}")
                },
                kind: *kind,
            })
        }
        _ => None,
    }
}

/// The definitions the file's call sites resolve to, by site index: a handler passed
/// by name is a reference the graph resolves.
fn handler_edges(g: &Graph, f: FileId, facts: &FileFacts) -> FxHashMap<u32, DefId> {
    let named = facts
        .links
        .iter()
        .any(|s| matches!(s.handler, Some(Handler::Named { .. })));
    let mut out: FxHashMap<u32, (DefId, Confidence)> = FxHashMap::default();
    if named {
        for e in g.edges(f) {
            let entry = out.entry(e.site()).or_insert((e.target, e.confidence()));
            if e.confidence() < entry.1 {
                *entry = (e.target, e.confidence());
            }
        }
    }
    out.into_iter().map(|(k, (d, _))| (k, d)).collect()
}

/// The definition a handler is: a definition named there or written there, else what
/// the reference there resolves to, else the one function of the file's top level with
/// its name (a handler passed as an object's property, `{ handler: metrics }`, is no
/// reference the graph records).
fn handler_def(g: &Graph, f: FileId, edges: &FxHashMap<u32, DefId>, h: &Handler) -> Option<DefId> {
    let view = g.facts(f);
    let facts = view.held();
    match h {
        Handler::Named { at, name } => {
            if let Some(i) = facts
                .defs
                .iter()
                .position(|d| d.name_pos.line == at.line && d.name_pos.column == at.column)
            {
                return Some(DefId::new(f, i as u32));
            }
            let site = facts.calls.iter().position(|c| {
                let p = c.pos();
                p.line == at.line && p.column == at.column
            });
            if let Some(d) = site.and_then(|s| edges.get(&(s as u32)).copied()) {
                return Some(d);
            }
            let mut same_name = facts.defs.iter().enumerate().filter(|(i, d)| {
                d.container().is_none()
                    && d.kind.is_callable()
                    && view.def_name(*i as u32) == name.as_str()
            });
            match (same_name.next(), same_name.next()) {
                (Some((i, _)), None) => Some(DefId::new(f, i as u32)),
                _ => None,
            }
        }
        Handler::Inline { at } => facts
            .defs
            .iter()
            .position(|d| d.span.start_byte == at.start_byte)
            .map(|i| DefId::new(f, i as u32)),
    }
}
