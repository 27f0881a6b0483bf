//! Next.js routes, from the file's path and its exports: the App Router's
//! `app/**/route.ts` exporting `GET`, `POST`...; the Pages Router's `pages/api/**`
//! default export (every method).

use tree_sitter::Node;

use super::{handler_of, site, Cx};
use crate::indexer::links::path::PathPattern;
use crate::indexer::links::{Endpoint, Handler, Method, Role};

/// Which kind of route file a path is, with the route's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RouteFile {
    App(String),
    Pages(String),
}

const EXTENSIONS: [&str; 6] = [".ts", ".js", ".tsx", ".jsx", ".mjs", ".mts"];

/// The route file `path` is, if one: a cheap test of the path alone.
pub(super) fn route_file(path: &str) -> Option<RouteFile> {
    let stem = EXTENSIONS.iter().find_map(|e| path.strip_suffix(e))?;
    let parts: Vec<&str> = stem.split('/').collect();
    let (file, dirs) = parts.split_last()?;
    if *file == "route" {
        let at = dirs.iter().position(|d| *d == "app")?;
        return Some(RouteFile::App(format!("/{}", dirs[at + 1..].join("/"))));
    }
    let at = dirs.iter().position(|d| *d == "pages")?;
    if dirs.get(at + 1) != Some(&"api") {
        return None;
    }
    let mut route: Vec<&str> = dirs[at + 1..].to_vec();
    if *file != "index" {
        route.push(file);
    }
    Some(RouteFile::Pages(format!("/{}", route.join("/"))))
}

pub(super) fn routes<'s>(cx: &mut Cx<'s>, root: Node<'s>, file: RouteFile) {
    let (path, app) = match file {
        RouteFile::App(p) => (p, true),
        RouteFile::Pages(p) => (p, false),
    };
    let pattern = PathPattern::route(&path);
    let mut cursor = root.walk();
    let exports: Vec<Node> = root
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "export_statement")
        .collect();
    for stmt in exports {
        for (name, handler, at) in exported(cx, stmt) {
            let method = if app {
                match Method::from_name(&name)
                    .filter(|_| name.chars().all(|c| c.is_ascii_uppercase()))
                {
                    Some(m) => Some(m),
                    None => continue,
                }
            } else if name == "default" {
                None
            } else {
                continue;
            };
            let mut s = site(
                Role::Route,
                Endpoint::Http {
                    method,
                    path: pattern.clone(),
                },
                at,
            );
            s.handler = handler;
            cx.push(s);
        }
    }
}

/// What an export statement exports: each name with its handler and where it is.
fn exported(cx: &Cx, stmt: Node) -> Vec<(String, Option<Handler>, crate::indexer::links::At)> {
    let mut out = Vec::new();
    let is_default = {
        let mut cursor = stmt.walk();
        let found = stmt.children(&mut cursor).any(|c| c.kind() == "default");
        found
    };
    let at = cx.scope.at(stmt);
    if let Some(decl) = stmt.child_by_field_name("declaration") {
        match decl.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut cursor = decl.walk();
                for d in decl.named_children(&mut cursor) {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    let handler = match d.child_by_field_name("value") {
                        Some(v) if v.kind() == "identifier" || v.kind() == "member_expression" => {
                            handler_of(cx, v)
                        }
                        _ => Some(Handler::Named {
                            name: cx.scope.text(name).to_string(),
                            at: cx.scope.at(name),
                        }),
                    };
                    out.push((cx.scope.text(name).to_string(), handler, at));
                }
            }
            _ => {
                let handler = match decl.child_by_field_name("name") {
                    Some(n) => Some(Handler::Named {
                        name: cx.scope.text(n).to_string(),
                        at: cx.scope.at(n),
                    }),
                    None => handler_of(cx, decl),
                };
                let name = if is_default {
                    "default".to_string()
                } else {
                    decl.child_by_field_name("name")
                        .map(|n| cx.scope.text(n).to_string())
                        .unwrap_or_default()
                };
                out.push((name, handler, at));
            }
        }
        return out;
    }
    if let Some(value) = stmt.child_by_field_name("value") {
        let handler = match value.child_by_field_name("name") {
            Some(n) if value.kind() != "identifier" => Some(Handler::Named {
                name: cx.scope.text(n).to_string(),
                at: cx.scope.at(n),
            }),
            _ => handler_of(cx, value),
        };
        out.push(("default".to_string(), handler, at));
        return out;
    }
    if stmt.child_by_field_name("source").is_some() {
        return out;
    }
    for (name, alias) in super::scope::export_specifiers(stmt) {
        out.push((cx.scope.text(alias).to_string(), handler_of(cx, name), at));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_files_by_path() {
        assert_eq!(
            route_file("src/app/api/users/[id]/route.ts"),
            Some(RouteFile::App("/api/users/[id]".into()))
        );
        assert_eq!(
            route_file("app/(admin)/api/route.js"),
            Some(RouteFile::App("/(admin)/api".into()))
        );
        assert_eq!(
            route_file("pages/api/users/index.ts"),
            Some(RouteFile::Pages("/api/users".into()))
        );
        assert_eq!(
            route_file("pages/api/users/[id].ts"),
            Some(RouteFile::Pages("/api/users/[id]".into()))
        );
        assert_eq!(route_file("pages/users/[id].tsx"), None);
        assert_eq!(route_file("src/app/users/page.tsx"), None);
        assert_eq!(route_file("src/routes/route.ts"), None);
    }
}
