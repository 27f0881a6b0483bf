//! The whole graph as JSON, Graphviz dot or GraphML.

use std::fmt::Write;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::graph::{CallerNode, DefId, FileId, Graph};

#[derive(Serialize)]
pub struct Node {
    pub id: u32,
    pub name: String,
    pub qualified_name: String,
    pub kind: &'static str,
    pub file: String,
    pub line: u32,
    pub end_line: u32,
}

#[derive(Serialize)]
pub struct EdgeOut {
    pub from: u32,
    pub to: u32,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub kind: &'static str,
    pub confidence: &'static str,
}

/// A declaration that stands for code apart from it (`types/x.d.ts` for `lib/x.js`):
/// calls resolved to `declaration` are calls of `code`.
#[derive(Serialize)]
pub struct DeclaresOut {
    pub declaration: u32,
    pub code: u32,
    pub confidence: &'static str,
}

#[derive(Serialize)]
pub struct GraphOut {
    pub nodes: Vec<Node>,
    pub edges: Vec<EdgeOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<DeclaresOut>,
}

/// Nodes are every callable definition (and interface) plus one module node per file
/// that has top-level calls; edges are every resolved call edge, 1-based lines.
pub fn collect(graph: &Graph) -> GraphOut {
    let mut files: Vec<FileId> = graph.file_ids().collect();
    files.sort_by(|a, b| graph.facts(*a).path.cmp(&graph.facts(*b).path));
    let mut nodes = Nodes::default();
    for &f in &files {
        nodes.add_defs(graph, f);
    }
    let mut edges = Vec::new();
    for &f in &files {
        edges_of(graph, f, &mut nodes, &mut edges);
    }
    let mut declares = Vec::new();
    for &f in &files {
        declares_of(graph, f, &nodes.ids, &mut declares);
    }
    GraphOut {
        nodes: nodes.nodes,
        edges,
        declares,
    }
}

/// The nodes so far, and each caller's node id.
#[derive(Default)]
struct Nodes {
    nodes: Vec<Node>,
    ids: FxHashMap<CallerNode, u32>,
}

impl Nodes {
    /// A node for each of `f`'s definitions but objects.
    fn add_defs(&mut self, graph: &Graph, f: FileId) {
        let facts = graph.facts(f);
        for (i, d) in facts.defs.iter().enumerate() {
            if d.kind == crate::indexer::facts::DefKind::Object {
                continue;
            }
            let id = self.nodes.len() as u32;
            self.ids
                .insert(CallerNode::Def(DefId::new(f, i as u32)), id);
            self.nodes.push(Node {
                id,
                name: facts.str(d.name).to_string(),
                qualified_name: facts.str(d.qualified).to_string(),
                kind: d.kind.as_str(),
                file: facts.path.clone(),
                line: d.first_line() + 1,
                end_line: d.span.end_line + 1,
            });
        }
    }

    /// The node of `caller`; a file's module node is made when first wanted.
    fn caller(&mut self, caller: CallerNode, path: &str) -> u32 {
        *self.ids.entry(caller).or_insert_with(|| {
            let id = self.nodes.len() as u32;
            self.nodes.push(Node {
                id,
                name: "<module>".into(),
                qualified_name: path.to_string(),
                kind: "module",
                file: path.to_string(),
                line: 1,
                end_line: 1,
            });
            id
        })
    }
}

/// `f`'s resolved call edges to definitions that have nodes.
fn edges_of(graph: &Graph, f: FileId, nodes: &mut Nodes, edges: &mut Vec<EdgeOut>) {
    let facts = graph.facts(f);
    for e in graph.edges(f) {
        let site = &facts.calls[e.site() as usize];
        let from_node = match site.caller() {
            Some(d) => CallerNode::Def(DefId::new(f, d)),
            None => CallerNode::Module(f),
        };
        let from = nodes.caller(from_node, &facts.path);
        let Some(&to) = nodes.ids.get(&CallerNode::Def(e.target)) else {
            continue;
        };
        edges.push(EdgeOut {
            from,
            to,
            file: facts.path.clone(),
            line: site.pos().line + 1,
            column: site.pos().column + 1,
            kind: site.kind.as_str(),
            confidence: e.confidence().as_str(),
        });
    }
}

/// Which code implements each of `f`'s declarations.
fn declares_of(
    graph: &Graph,
    f: FileId,
    ids: &FxHashMap<CallerNode, u32>,
    declares: &mut Vec<DeclaresOut>,
) {
    for d in 0..graph.facts(f).defs.len() as u32 {
        let d = DefId::new(f, d);
        let Some(&declaration) = ids.get(&CallerNode::Def(d)) else {
            continue;
        };
        for &(code, confidence) in graph.implementations_of(d) {
            if let Some(&code) = ids.get(&CallerNode::Def(code)) {
                declares.push(DeclaresOut {
                    declaration,
                    code,
                    confidence: confidence.as_str(),
                });
            }
        }
    }
}

pub fn to_json(graph: &GraphOut) -> String {
    serde_json::to_string_pretty(graph).expect("graph serialises")
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn to_dot(graph: &GraphOut) -> String {
    let mut out = String::from("digraph calls {\n  node [shape=box];\n");
    for n in &graph.nodes {
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\\n{}:{}\"];",
            n.id,
            dot_escape(&n.qualified_name),
            dot_escape(&n.file),
            n.line
        );
    }
    for e in &graph.edges {
        let style = match e.confidence {
            "exact" => "solid",
            "likely" => "dashed",
            _ => "dotted",
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{}\", style={style}];",
            e.from, e.to, e.kind
        );
    }
    out.push_str("}\n");
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn to_graphml(graph: &GraphOut) -> String {
    let mut out = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n",
        "  <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n",
        "  <key id=\"qualified_name\" for=\"node\" attr.name=\"qualified_name\" attr.type=\"string\"/>\n",
        "  <key id=\"kind\" for=\"all\" attr.name=\"kind\" attr.type=\"string\"/>\n",
        "  <key id=\"file\" for=\"all\" attr.name=\"file\" attr.type=\"string\"/>\n",
        "  <key id=\"line\" for=\"all\" attr.name=\"line\" attr.type=\"int\"/>\n",
        "  <key id=\"confidence\" for=\"edge\" attr.name=\"confidence\" attr.type=\"string\"/>\n",
        "  <graph id=\"calls\" edgedefault=\"directed\">\n"
    ));
    for n in &graph.nodes {
        let _ = writeln!(
            out,
            "    <node id=\"n{}\"><data key=\"name\">{}</data><data key=\"qualified_name\">{}</data><data key=\"kind\">{}</data><data key=\"file\">{}</data><data key=\"line\">{}</data></node>",
            n.id,
            xml_escape(&n.name),
            xml_escape(&n.qualified_name),
            n.kind,
            xml_escape(&n.file),
            n.line
        );
    }
    for (i, e) in graph.edges.iter().enumerate() {
        let _ = writeln!(
            out,
            "    <edge id=\"e{i}\" source=\"n{}\" target=\"n{}\"><data key=\"kind\">{}</data><data key=\"file\">{}</data><data key=\"line\">{}</data><data key=\"confidence\">{}</data></edge>",
            e.from,
            e.to,
            e.kind,
            xml_escape(&e.file),
            e.line,
            e.confidence
        );
    }
    out.push_str("  </graph>\n</graphml>\n");
    out
}
