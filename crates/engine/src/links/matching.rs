//! Which route a client reaches, which consumer a producer, and how surely.
//!
//! HTTP goes by method and by path segments: a route's parameter matches any one
//! segment, a literal only itself (a client's run-time value never matches a route's
//! literal: `/users/${id}` is not a call of `/users/me`), and the counts must agree, so
//! `/users/${id}/posts` never reaches `/users/:id`. A path under an unknown base (a
//! client's base URL from the environment, a router mounted nobody knows where) matches
//! by its known suffix.
//!
//! Confidence, weakest reason first:
//! - `possible`: the client's method cannot be read (a tRPC call whose kind is unknown);
//! - `likely`: a base is unknown, or the client names a host (which service that is,
//!   the path does not say);
//! - `exact`: the method and every segment are known and match.
//!
//! Topics match by system and name, exactly. A message published to an AMQP exchange
//! reaches a queue bound to that exchange when the binding takes its routing key:
//! `exact` by the exchange's declared type (direct: the same key; topic: the pattern,
//! word by word; fanout: any key), or with the type unknown when the key equals the
//! pattern; `likely` with the type unknown when the pattern takes the key as a topic
//! exchange would, or is empty (a fanout's usual binding); `possible` when the key
//! cannot be read, or the exchange routes by headers.

use serde::{Deserialize, Serialize};

use super::path::{Base, PathPattern, Segment};
use super::{Endpoint, ExchangeKind, LinkSite, Method, Role};
use crate::graph::Confidence;

/// A client (or producer) and the route (or consumer) it reaches, by their indexes in
/// the lists given to [`match_sites`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LinkMatch {
    pub client: usize,
    pub route: usize,
    pub confidence: Confidence,
}

/// Whether a request of `client_method` to `client` reaches a route of `route_method`
/// (None: every method) at `route`, and how surely.
pub fn match_http(
    client_method: Option<Method>,
    client: &PathPattern,
    route_method: Option<Method>,
    route: &PathPattern,
) -> Option<Confidence> {
    if let (Some(c), Some(r)) = (client_method, route_method) {
        if c != r {
            return None;
        }
    }
    let client_whole = !matches!(client.base, Base::Unknown);
    let route_whole = route.base == Base::Root;
    let (c, r) = (client.segments.as_slice(), route.segments.as_slice());
    // A suffix says something only with a literal in it: a tail of parameters and
    // catch-alls (`/:id`, `/**`) would take any path.
    let tail_of_route =
        || (0..=r.len()).any(|k| has_literal(&r[k..]) && segments_match(&r[k..], c));
    let tail_of_client = || has_literal(r) && (0..=c.len()).any(|k| segments_match(r, &c[k..]));
    let matched = match (client_whole, route_whole) {
        (true, true) => segments_match(r, c),
        // Only the client's suffix is known: some tail of the route is it.
        (false, true) => tail_of_route(),
        // The route's prefix is unknown: it is some tail of the client's path.
        (true, false) => tail_of_client(),
        // Both: the shorter's segments are the longer's tail.
        (false, false) => tail_of_route() || tail_of_client(),
    };
    if !matched {
        return None;
    }
    Some(if client_method.is_none() {
        Confidence::Possible
    } else if !client_whole || !route_whole || matches!(client.base, Base::Host(_)) {
        Confidence::Likely
    } else {
        Confidence::Exact
    })
}

fn has_literal(segments: &[Segment]) -> bool {
    segments.iter().any(|s| matches!(s, Segment::Literal(_)))
}

/// Whether the route's segments `r` take the client's `c`.
fn segments_match(r: &[Segment], c: &[Segment]) -> bool {
    match r.split_first() {
        None => c.is_empty(),
        Some((Segment::Rest { optional }, rest)) => {
            let least = usize::from(!optional);
            (least..=c.len()).any(|taken| segments_match(rest, &c[taken..]))
        }
        Some((first, rest)) => {
            let Some((head, tail)) = c.split_first() else {
                return false;
            };
            let one = match (first, head) {
                (Segment::Literal(a), Segment::Literal(b)) => a == b,
                (Segment::Literal(_), _) => false,
                (Segment::Param(_), Segment::Rest { .. }) => false,
                (Segment::Param(_), _) => true,
                (Segment::Rest { .. }, _) => unreachable!("matched above"),
            };
            one && segments_match(rest, tail)
        }
    }
}

/// Whether what a client or producer calls (`from`) is what a route or consumer serves
/// (`to`), and how surely.
pub fn match_endpoints(from: &Endpoint, to: &Endpoint) -> Option<Confidence> {
    match (from, to) {
        (
            Endpoint::Http { method, path },
            Endpoint::Http {
                method: route_method,
                path: route_path,
            },
        ) => match_http(*method, path, *route_method, route_path),
        (
            Endpoint::Topic { system, name },
            Endpoint::Topic {
                system: s2,
                name: n2,
            },
        ) => (system == s2 && name == n2).then_some(Confidence::Exact),
        (Endpoint::Procedure { path, kind }, Endpoint::Procedure { path: p2, kind: k2 }) => {
            if path != p2 {
                return None;
            }
            match (kind, k2) {
                (Some(a), Some(b)) if a != b => None,
                (Some(_), Some(_)) => Some(Confidence::Exact),
                _ => Some(Confidence::Possible),
            }
        }
        (
            Endpoint::Exchange { exchange, key },
            Endpoint::Binding {
                exchange: bound,
                pattern,
                kind,
            },
        ) if exchange == bound => match_binding(key.as_deref(), pattern, *kind),
        _ => None,
    }
}

/// Whether a binding of `pattern` to an exchange of `kind` takes a message of `key`.
fn match_binding(
    key: Option<&str>,
    pattern: &str,
    kind: Option<ExchangeKind>,
) -> Option<Confidence> {
    use ExchangeKind::*;
    let Some(key) = key else {
        return Some(Confidence::Possible);
    };
    match kind {
        Some(Fanout) => Some(Confidence::Exact),
        Some(Headers) => Some(Confidence::Possible),
        Some(Direct) => (key == pattern).then_some(Confidence::Exact),
        Some(Topic) => topic_takes(pattern, key).then_some(Confidence::Exact),
        None if key == pattern => Some(Confidence::Exact),
        None if pattern.is_empty() || topic_takes(pattern, key) => Some(Confidence::Likely),
        None => None,
    }
}

/// Whether a topic exchange's binding `pattern` takes routing `key`: words split on
/// `.`, `*` one word, `#` none or more. A key or pattern longer than AMQP allows (a
/// short string, 255 bytes) takes nothing; the rest is matched in time bounded by the
/// product of their word counts (`#.#.#...` against a long key is no search tree).
pub fn topic_takes(pattern: &str, key: &str) -> bool {
    const MAX_BYTES: usize = 255;
    if pattern.len() > MAX_BYTES || key.len() > MAX_BYTES {
        return false;
    }
    let p: Vec<&str> = pattern.split('.').collect();
    let k: Vec<&str> = if key.is_empty() {
        Vec::new()
    } else {
        key.split('.').collect()
    };
    // takes[j]: whether the pattern's words from i on take the key's words from j on,
    // for i from the last word back to the first.
    let mut takes = vec![false; k.len() + 1];
    takes[k.len()] = true;
    for word in p.iter().rev() {
        let mut next = vec![false; k.len() + 1];
        for j in (0..=k.len()).rev() {
            next[j] = match *word {
                "#" => takes[j] || (j < k.len() && next[j + 1]),
                "*" => j < k.len() && takes[j + 1],
                w => j < k.len() && k[j] == w && takes[j + 1],
            };
        }
        takes = next;
    }
    takes[0]
}

/// Every pair of a calling site (client, producer) of `from` and a serving site
/// (route, consumer) of `to` that match, with how surely; sorted. Mounts match
/// nothing. A client of an HTTP route with several routes that take it (`/users/me` and
/// `/users/:id`) matches each of them.
pub fn match_sites(from: &[LinkSite], to: &[LinkSite]) -> Vec<LinkMatch> {
    let mut out = Vec::new();
    for (i, c) in from.iter().enumerate() {
        let serving = match c.role {
            Role::Client => Role::Route,
            Role::Producer => Role::Consumer,
            _ => continue,
        };
        for (j, r) in to.iter().enumerate() {
            if r.role != serving {
                continue;
            }
            if let Some(confidence) = match_endpoints(&c.endpoint, &r.endpoint) {
                out.push(LinkMatch {
                    client: i,
                    route: j,
                    confidence,
                });
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_binding_takes_keys_word_by_word() {
        assert!(topic_takes("user.*", "user.created"));
        assert!(!topic_takes("user.*", "user.created.v2"));
        assert!(!topic_takes("user.*", "user"));
        assert!(topic_takes("user.#", "user"));
        assert!(topic_takes("user.#", "user.created.v2"));
        assert!(topic_takes("#.created", "order.line.created"));
        assert!(topic_takes("#", "anything.at.all"));
        assert!(topic_takes("a.#.b.#", "a.b"));
        assert!(!topic_takes("a.*.b", "a.b"));
        // Many `#` against a key that never ends as the pattern does: answered at once,
        // not by trying every split.
        let hostile = format!("{}x", "#.".repeat(60));
        assert!(!topic_takes(&hostile, &"w.".repeat(60)[..119]));
        assert!(!topic_takes(&"a.".repeat(200), "a"));
        assert!(topic_takes("*.created", "order.created"));
        assert!(!topic_takes("*.created", "order.updated"));
        assert!(!topic_takes("user.created", "user.createdx"));
    }

    #[test]
    fn an_exchange_reaches_a_binding_by_its_type() {
        use ExchangeKind::*;
        let m = |key: Option<&str>, pattern: &str, kind| {
            match_endpoints(
                &Endpoint::Exchange {
                    exchange: "events".into(),
                    key: key.map(str::to_string),
                },
                &Endpoint::Binding {
                    exchange: "events".into(),
                    pattern: pattern.into(),
                    kind,
                },
            )
        };
        let k = Some("user.created");
        assert_eq!(m(k, "user.*", Some(Topic)), Some(Confidence::Exact));
        // A direct exchange reads `*` as itself.
        assert_eq!(m(k, "user.*", Some(Direct)), None);
        assert_eq!(m(k, "user.created", Some(Direct)), Some(Confidence::Exact));
        assert_eq!(m(k, "", Some(Fanout)), Some(Confidence::Exact));
        assert_eq!(m(k, "order.*", Some(Topic)), None);
        // The type unknown: equal keys are sure, a pattern or an empty binding likely.
        assert_eq!(m(k, "user.created", None), Some(Confidence::Exact));
        assert_eq!(m(k, "user.*", None), Some(Confidence::Likely));
        assert_eq!(m(k, "", None), Some(Confidence::Likely));
        assert_eq!(m(k, "user.deleted", None), None);
        assert_eq!(m(None, "user.*", Some(Topic)), Some(Confidence::Possible));
        // Another exchange, or a queue of the exchange's name: nothing.
        let other = Endpoint::Exchange {
            exchange: "audit".into(),
            key: k.map(str::to_string),
        };
        let binding = Endpoint::Binding {
            exchange: "events".into(),
            pattern: "#".into(),
            kind: Some(Topic),
        };
        assert_eq!(match_endpoints(&other, &binding), None);
        let queue = Endpoint::Topic {
            system: crate::links::TopicSystem::Amqp,
            name: "events".into(),
        };
        assert_eq!(match_endpoints(&queue, &binding), None);
    }
    use crate::links::path::{client_path, UrlPart};

    fn route(p: &str) -> PathPattern {
        PathPattern::route(p)
    }

    fn url(parts: &[&str]) -> PathPattern {
        // `$x` is a value, the rest text.
        let parts: Vec<UrlPart> = parts
            .iter()
            .map(|p| match p.strip_prefix('$') {
                Some(v) => UrlPart::Value(v.into()),
                None => UrlPart::Text((*p).into()),
            })
            .collect();
        client_path(&parts).unwrap()
    }

    const GET: Option<Method> = Some(Method::Get);
    const POST: Option<Method> = Some(Method::Post);

    #[test]
    fn a_parameter_takes_one_segment_and_counts_must_agree() {
        let users_id = route("/users/:id");
        assert_eq!(
            match_http(GET, &url(&["/users/", "$id"]), GET, &users_id),
            Some(Confidence::Exact)
        );
        assert_eq!(
            match_http(GET, &url(&["/users/42"]), GET, &users_id),
            Some(Confidence::Exact)
        );
        // Longer and shorter paths never match.
        assert_eq!(
            match_http(GET, &url(&["/users/", "$id", "/posts"]), GET, &users_id),
            None
        );
        assert_eq!(match_http(GET, &url(&["/users"]), GET, &users_id), None);
        // A run-time value is no literal.
        assert_eq!(
            match_http(GET, &url(&["/users/", "$id"]), GET, &route("/users/me")),
            None
        );
    }

    #[test]
    fn another_method_on_the_same_path_does_not_match() {
        let p = route("/users/:id");
        assert_eq!(match_http(POST, &url(&["/users/1"]), GET, &p), None);
        // A route of every method takes it.
        assert_eq!(
            match_http(POST, &url(&["/users/1"]), None, &p),
            Some(Confidence::Exact)
        );
        // A client whose method is unknown: possible.
        assert_eq!(
            match_http(None, &url(&["/users/1"]), GET, &p),
            Some(Confidence::Possible)
        );
    }

    #[test]
    fn an_unknown_base_matches_by_suffix_as_likely() {
        let p = route("/api/v1/orders/:id");
        let c = url(&["$process.env.API", "/orders/", "$id"]);
        assert_eq!(match_http(GET, &c, GET, &p), Some(Confidence::Likely));
        let c = url(&["$base", "/v2/orders/", "$id"]);
        assert_eq!(match_http(GET, &c, GET, &p), None);
        // No literal known: nothing said.
        assert_eq!(
            match_http(GET, &url(&["$base", "/"]), GET, &route("/")),
            None
        );
        assert_eq!(
            match_http(
                GET,
                &url(&["$base", "/orders/", "$id"]),
                GET,
                &route("/docs/[...slug]")
            ),
            None
        );
        assert_eq!(
            match_http(
                GET,
                &url(&["/orders/7"]),
                GET,
                &route("/:id").with_unknown_base()
            ),
            None
        );
        // A router mounted nobody knows where.
        let sub = route("/orders/:id").with_unknown_base();
        assert_eq!(
            match_http(GET, &url(&["/api/orders/7"]), GET, &sub),
            Some(Confidence::Likely)
        );
        let host = url(&["https://orders.internal/orders/", "$id"]);
        assert_eq!(
            match_http(GET, &host, GET, &route("/orders/:id")),
            Some(Confidence::Likely)
        );
    }

    #[test]
    fn a_catch_all_takes_the_rest() {
        let p = route("/docs/[...slug]");
        assert!(match_http(GET, &url(&["/docs/a/b"]), GET, &p).is_some());
        assert!(match_http(GET, &url(&["/docs"]), GET, &p).is_none());
        let p = route("/docs/[[...slug]]");
        assert!(match_http(GET, &url(&["/docs"]), GET, &p).is_some());
    }

    #[test]
    fn topics_match_by_system_and_name() {
        use crate::links::TopicSystem;
        let t = |s, n: &str| Endpoint::Topic {
            system: s,
            name: n.into(),
        };
        assert_eq!(
            match_endpoints(
                &t(TopicSystem::Kafka, "orders"),
                &t(TopicSystem::Kafka, "orders")
            ),
            Some(Confidence::Exact)
        );
        assert_eq!(
            match_endpoints(
                &t(TopicSystem::Kafka, "orders"),
                &t(TopicSystem::Kafka, "payments")
            ),
            None
        );
        assert_eq!(
            match_endpoints(
                &t(TopicSystem::Redis, "orders"),
                &t(TopicSystem::Kafka, "orders")
            ),
            None
        );
    }
}
