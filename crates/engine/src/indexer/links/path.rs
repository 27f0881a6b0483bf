//! Path patterns: a route's path as a framework writes it (`/users/:id`, `[id]`,
//! `:id{[0-9]+}`, `*`), or the path of the URL a client requests (`/users/${id}`),
//! normalised to segments so the two compare. Empty segments do not count: trailing and
//! duplicate slashes do not matter.

use serde::{Deserialize, Serialize};

/// One segment of a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Segment {
    /// Written out: matches only itself.
    Literal(String),
    /// A route's parameter (`:id`, `[id]`, `{id}`), or a client's segment computed at run
    /// time (`${id}`): any one segment. The name is for display only.
    Param(String),
    /// A route's catch-all (`*`, `[...slug]`, `:path*`): one or more segments, the rest
    /// of the path; `[[...slug]]` (optional) also none.
    Rest { optional: bool },
}

/// What comes before a path's segments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Base {
    /// The path is whole: it starts at the service's root.
    #[default]
    Root,
    /// Something unknown comes first: a client's base URL from an environment variable
    /// or a config value, or a route on a router whose mount is not known. Only the
    /// segments' suffix is known.
    Unknown,
    /// A client's absolute URL: its host (the path is whole, but which service the host
    /// is, nothing here says).
    Host(String),
}

/// A normalised path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PathPattern {
    pub base: Base,
    pub segments: Vec<Segment>,
}

impl std::fmt::Display for PathPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.base {
            Base::Root => {}
            Base::Unknown => f.write_str("*")?,
            Base::Host(h) => write!(f, "//{h}")?,
        }
        if self.segments.is_empty() {
            return f.write_str("/");
        }
        for s in &self.segments {
            match s {
                Segment::Literal(l) => write!(f, "/{l}")?,
                Segment::Param(p) => write!(f, "/:{p}")?,
                Segment::Rest { optional: false } => f.write_str("/**")?,
                Segment::Rest { optional: true } => f.write_str("/**?")?,
            }
        }
        Ok(())
    }
}

impl PathPattern {
    /// A route's path as Express, Koa, Fastify, Hono, NestJS or Next.js (a file path's
    /// directories) write it. Next.js route groups (`(admin)`) and parallel-route slots
    /// (`@modal`) name no segment.
    pub fn route(path: &str) -> PathPattern {
        PathPattern {
            base: Base::Root,
            segments: path.split('/').filter_map(route_segment).collect(),
        }
    }

    /// The same path under an unknown base (a router whose mount is not known).
    pub fn with_unknown_base(mut self) -> PathPattern {
        self.base = Base::Unknown;
        self
    }

    /// `prefix` then this path: a mount's prefix put before a router's route. The
    /// prefix's base is the result's.
    pub fn under(&self, prefix: &PathPattern) -> PathPattern {
        let mut segments = prefix.segments.clone();
        segments.extend(self.segments.iter().cloned());
        PathPattern {
            base: prefix.base.clone(),
            segments,
        }
    }

    /// Whether every segment is written out (no parameter, no catch-all).
    pub fn is_literal(&self) -> bool {
        self.segments
            .iter()
            .all(|s| matches!(s, Segment::Literal(_)))
    }
}

/// One segment of a route's path; None for an empty one (a leading, trailing or
/// doubled slash) and for the ones Next.js leaves out of the URL.
fn route_segment(raw: &str) -> Option<Segment> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    // Next.js: `[[...slug]]`, `[...slug]`, `[id]`, `(group)`, `@slot`.
    if s.starts_with("[[...") && s.ends_with("]]") {
        return Some(Segment::Rest { optional: true });
    }
    if s.starts_with("[...") && s.ends_with(']') {
        return Some(Segment::Rest { optional: false });
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return Some(Segment::Param(inner.to_string()));
    }
    if s.starts_with('(') && s.ends_with(')') || s.starts_with('@') {
        return None;
    }
    // `*`, `*splat` (Express 5): the rest.
    if s.starts_with('*') {
        return Some(Segment::Rest { optional: false });
    }
    // OpenAPI's and Express 5's `{id}`.
    if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        return Some(Segment::Param(param_name(inner.trim_start_matches(':'))));
    }
    if let Some(p) = s.strip_prefix(':') {
        // `:path*` and `:path+` (path-to-regexp 0.x, koa-router): the rest.
        if p.ends_with('*') {
            return Some(Segment::Rest { optional: true });
        }
        if p.ends_with('+') {
            return Some(Segment::Rest { optional: false });
        }
        return Some(Segment::Param(param_name(p)));
    }
    Some(Segment::Literal(s.to_string()))
}

/// A parameter's name without its pattern: Hono's `id{[0-9]+}`, Express's `id(\\d+)`,
/// an optional `id?`.
fn param_name(p: &str) -> String {
    let end = p.find(['{', '(', '?']).unwrap_or(p.len());
    p[..end].to_string()
}

/// A piece of a client's URL as its expression builds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlPart {
    /// Text known where the URL is written (a literal, a template's text, a same-file
    /// constant).
    Text(String),
    /// A value known only at run time (`${id}`, `+ id`), by the expression's text.
    Value(String),
}

/// The path a client requests, from the pieces its URL is built of. A value before any
/// text is an unknown base (`${API_URL}/users`); a value inside a segment makes the
/// segment a parameter (`/users/${id}`, `/files/${name}.json`). A query string and a
/// fragment do not count. None when nothing says where the path is (no text at all).
pub fn client_path(parts: &[UrlPart]) -> Option<PathPattern> {
    // The URL as text, each value a NUL (no URL holds one), with the values' names.
    let mut text = String::new();
    let mut names = Vec::new();
    for p in parts {
        match p {
            UrlPart::Text(t) => text.push_str(t),
            UrlPart::Value(v) => {
                text.push('\0');
                names.push(v.as_str());
            }
        }
    }
    if !text.chars().any(|c| c != '\0') {
        return None;
    }
    let mut base = Base::Root;
    let mut rest = text.as_str();
    let mut skipped_values = 0;
    if let Some(after) = rest
        .strip_prefix("https://")
        .or_else(|| rest.strip_prefix("http://"))
        .or_else(|| rest.strip_prefix("//"))
    {
        let end = after.find('/').unwrap_or(after.len());
        let host = &after[..end];
        skipped_values += host.matches('\0').count();
        base = if host.contains('\0') || host.is_empty() {
            Base::Unknown
        } else {
            Base::Host(host.to_string())
        };
        rest = &after[end..];
    } else if rest.starts_with('\0') {
        // `${base}/users`: everything up to the first slash is the base.
        let end = rest.find('/').unwrap_or(rest.len());
        skipped_values += rest[..end].matches('\0').count();
        base = Base::Unknown;
        rest = &rest[end..];
    } else if !rest.starts_with('/') {
        // `users/1`: relative to a base the call does not say.
        base = Base::Unknown;
    }
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let path = &rest[..end];
    let mut names = names.into_iter().skip(skipped_values);
    let mut segments = Vec::new();
    for s in path.split('/') {
        if s.is_empty() {
            continue;
        }
        let values = s.matches('\0').count();
        if values == 0 {
            // An OpenAPI template's `{id}` (openapi-fetch's paths) is no literal.
            match s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                Some(name) if !name.is_empty() && !name.contains(['{', '}']) => {
                    segments.push(Segment::Param(name.to_string()))
                }
                _ => segments.push(Segment::Literal(s.to_string())),
            }
            continue;
        }
        let mut name = String::new();
        for _ in 0..values {
            if let Some(n) = names.next() {
                if name.is_empty() {
                    name = value_name(n);
                }
            }
        }
        segments.push(Segment::Param(name));
    }
    Some(PathPattern { base, segments })
}

/// A short name for a value's expression: `user.id` is `id`, `encodeURIComponent(id)` is
/// `id`.
fn value_name(expr: &str) -> String {
    let inner = match (expr.find('('), expr.rfind(')')) {
        (Some(open), Some(close)) if open < close => &expr[open + 1..close],
        _ => expr,
    };
    let last = inner
        .rsplit(['.', ' ', ','])
        .find(|s| !s.is_empty())
        .unwrap_or(inner);
    let name: String = last
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    if name.is_empty() {
        "param".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(p: &PathPattern) -> String {
        p.to_string()
    }

    #[test]
    fn every_framework_spelling_of_a_parameter_is_one_parameter() {
        let forms = [
            "/users/:id",
            "/users/[id]",
            "/users/:id{[0-9]+}",
            "users/:id/",
            "//users//{id}",
            "/users/:id(\\d+)",
        ];
        for f in forms {
            let p = PathPattern::route(f);
            assert_eq!(p.segments.len(), 2, "{f}");
            assert_eq!(p.segments[0], Segment::Literal("users".into()), "{f}");
            assert_eq!(p.segments[1], Segment::Param("id".into()), "{f}");
            assert_eq!(p.base, Base::Root);
        }
    }

    #[test]
    fn next_groups_and_slots_name_no_segment_and_catch_alls_are_the_rest() {
        let p = PathPattern::route("/(shop)/@modal/docs/[...slug]");
        assert_eq!(show(&p), "/docs/**");
        let p = PathPattern::route("/docs/[[...slug]]");
        assert_eq!(p.segments[1], Segment::Rest { optional: true });
        assert_eq!(show(&PathPattern::route("/")), "/");
        assert_eq!(show(&PathPattern::route("/files/*")), "/files/**");
    }

    #[test]
    fn a_client_url_becomes_segments_and_values_parameters() {
        let t = |s: &str| UrlPart::Text(s.into());
        let v = |s: &str| UrlPart::Value(s.into());
        let p = client_path(&[t("/users/"), v("user.id"), t("/posts?limit=10")]).unwrap();
        assert_eq!(show(&p), "/users/:id/posts");
        let p = client_path(&[v("process.env.API_URL"), t("/users/"), v("id")]).unwrap();
        assert_eq!(p.base, Base::Unknown);
        assert_eq!(show(&p), "*/users/:id");
        let p = client_path(&[t("https://api.example.com/v1/orders/"), v("id")]).unwrap();
        assert_eq!(p.base, Base::Host("api.example.com".into()));
        assert_eq!(show(&p), "//api.example.com/v1/orders/:id");
        let p = client_path(&[t("users/1")]).unwrap();
        assert_eq!(show(&p), "*/users/1");
        let p = client_path(&[t("/files/"), v("name"), t(".json")]).unwrap();
        assert_eq!(show(&p), "/files/:name");
        assert_eq!(client_path(&[v("url")]), None);
    }
}
