//! A readable rendering of a file's facts, one fact per line: what snapshot tests and
//! `blast-radius facts` show.

use std::fmt::Write;

use super::facts::*;

pub fn render(facts: &FileFacts) -> String {
    let mut out = String::new();
    if facts.parse_errors > 0 {
        let _ = writeln!(out, "parse_errors {}", facts.parse_errors);
    }
    defs(&mut out, facts);
    calls(&mut out, facts);
    modules(&mut out, facts);
    stated_types(&mut out, facts);
    out
}

/// One line a definition, with its base and stated return below it.
fn defs(out: &mut String, facts: &FileFacts) {
    for d in &facts.defs {
        let _ = writeln!(
            out,
            "def {} {}{}{} lines {}-{} name@{}:{}",
            d.kind.as_str(),
            facts.str(d.qualified),
            if d.exported { " exported" } else { "" },
            if d.is_static { " static" } else { "" },
            d.span.start_line + 1,
            d.span.end_line + 1,
            d.name_pos.line + 1,
            d.name_pos.column + 1,
        );
        if let Some(e) = d.extends() {
            let _ = writeln!(out, "  extends {}", facts.describe(e));
        }
        if let Some(r) = d.returns() {
            let _ = writeln!(out, "  returns {}", facts.describe(r));
        }
    }
}

fn calls(out: &mut String, facts: &FileFacts) {
    for c in &facts.calls {
        let caller = c.caller().map_or("<module>", |d| facts.def_qualified(d));
        let kind = match c.kind {
            CallKind::Get => "get",
            k => k.as_str(),
        };
        let _ = writeln!(
            out,
            "{kind} {} @{}:{} in {caller} -> {}",
            facts.str(c.name),
            c.pos().line + 1,
            c.pos().column + 1,
            facts.describe(c.callee),
        );
    }
}

/// Imports, exports and the CommonJS value.
fn modules(out: &mut String, facts: &FileFacts) {
    for i in &facts.imports {
        let kind = match i.kind {
            ImportKind::Named(n) => format!("{{{}}}", facts.str(n)),
            ImportKind::Default => "default".into(),
            ImportKind::Namespace => "*".into(),
            ImportKind::TypeNamespace => "typeof *".into(),
            ImportKind::Require => "require".into(),
            ImportKind::Template(c) => format!("template of {}", facts.def_qualified(c)),
        };
        let _ = writeln!(out, "import {kind} from '{}'", facts.str(i.specifier));
    }
    for e in &facts.exports {
        let value = match e.value {
            ExportValue::Local(s) => facts.describe(s),
            ExportValue::From { specifier, kind } => {
                let k = match kind {
                    ImportKind::Named(n) => format!("{{{}}}", facts.str(n)),
                    ImportKind::Default => "default".into(),
                    ImportKind::Namespace
                    | ImportKind::TypeNamespace
                    | ImportKind::Require
                    | ImportKind::Template(_) => "*".into(),
                };
                format!("{k} from '{}'", facts.str(specifier))
            }
            ExportValue::Star { specifier } => format!("* from '{}'", facts.str(specifier)),
        };
        let name = match e.value {
            ExportValue::Star { .. } => "*",
            _ => facts.str(e.name),
        };
        let _ = writeln!(out, "export {name} = {value}");
    }
    if let Some(m) = facts.module_exports {
        let _ = writeln!(out, "module.exports = {}", facts.describe(m));
    }
}

/// What the file states of types: classes' `implements`, callbacks' and functions'
/// parameters, objects' properties.
fn stated_types(out: &mut String, facts: &FileFacts) {
    for (class, ty) in &facts.implements {
        let _ = writeln!(
            out,
            "implements {} {}",
            facts.def_qualified(*class),
            facts.describe(*ty)
        );
    }
    for c in &facts.callback_params {
        let _ = writeln!(
            out,
            "callback {} arg{} param{} = {}",
            facts.def_qualified(c.def),
            c.arg,
            c.param,
            facts.describe(c.value)
        );
    }
    for p in &facts.param_types {
        let _ = writeln!(
            out,
            "param {} #{} = {}",
            facts.def_qualified(p.def),
            p.index,
            facts.describe(p.value)
        );
    }
    for p in &facts.props {
        let _ = writeln!(
            out,
            "prop {}.{} = {}",
            facts.def_qualified(p.object),
            facts.str(p.name),
            facts.describe(p.value)
        );
    }
}
