//! Calls into packages outside the repository, kept with what they call: the package,
//! the specifier, the name imported and the path of members, calls and `new`s from it
//! to the call. Another repository that owns the package can then say which of its
//! functions each one reaches (the `org` module), where one graph alone stops at the import.
//!
//! Only what the file states is followed: a name bound to an import, its members, what
//! calling or constructing it gives, and stated types (`c: Client` is an instance of
//! the imported `Client`). A call through a local function that wraps the package is
//! that function's call, not the package's.

use serde::{Deserialize, Serialize};

use super::modules::ModuleResolver;
use super::{FileId, Graph, Target};
use crate::indexer::facts::*;

/// Steps from an import to the called value, at most: longer chains are dropped.
const MAX_STEPS: usize = 12;
/// Bindings followed from one call's callee, at most (`a = b`, `b = c`, ...).
const MAX_BINDINGS: usize = 16;

/// Node's own modules: no repository owns them, and their calls are most of what a
/// service makes into packages.
const NODE_BUILTINS: [&str; 34] = [
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "stream",
    "string_decoder",
    "timers",
    "tls",
    "tty",
    "url",
    "util",
    "vm",
    "zlib",
];

/// What is imported from the package.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Imported {
    /// `import { name } from`, or a destructured `require`'s name.
    Named(String),
    /// `import x from`
    Default,
    /// `import * as ns from`, `import('x')`
    Namespace,
    /// `require('x')`: whatever `module.exports` is.
    Require,
}

/// One step from the imported value towards the called one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Step {
    /// `.name`
    Member(String),
    /// What calling the value gives.
    Call,
    /// An instance of the class the value is (`new C()`, `c: C`).
    New,
}

/// A call from a file into a package outside the repository.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExternalCall {
    /// The package's name (`@acme/money`).
    pub package: String,
    /// The specifier as written (`@acme/money/format`).
    pub specifier: String,
    pub imported: Imported,
    /// From the imported value to the one called.
    pub steps: Vec<Step>,
    /// `new X()` rather than `X()`.
    pub construct: bool,
    /// The call's position, 1-based.
    pub line: u32,
    pub column: u32,
    /// The qualified name of the function the call is in; None at the top level.
    pub caller: Option<String>,
    /// The range of the package the nearest package.json asks for (`^2.1.0`,
    /// `workspace:*`); None when none lists it.
    pub range: Option<String>,
    /// What the call passes and how its result is taken, packed ([`ExternalCall::args`];
    /// 0: not known). What the owner's new contract judges it by (issue 44). Stored
    /// beside the encoded call, not in it: calls stored before it decode as they were.
    #[serde(skip)]
    pub args: u8,
}

impl ExternalCall {
    /// What the call passes and how its result is taken; None when not known (a call
    /// stored before they were kept, or not one that passes arguments).
    pub fn args(&self) -> Option<CallArgs> {
        unpack_args(self.args)
    }

    pub fn set_args(&mut self, args: Option<CallArgs>) {
        self.args = pack_args(args);
    }
    /// The name read from the package itself: the imported name, or for a namespace
    /// or `require` the first member read from it (`*` / `=` when there is none).
    /// What a lookup by (package, exported name) keys on.
    pub fn export_name(&self) -> &str {
        match (&self.imported, self.steps.first()) {
            (Imported::Named(name), _) => name,
            (Imported::Default, _) => "default",
            (Imported::Namespace | Imported::Require, Some(Step::Member(name))) => name,
            (Imported::Namespace, _) => "*",
            (Imported::Require, _) => "=",
        }
    }

    /// The last name on the way to the call: what a reader recognises.
    pub fn called_name(&self) -> &str {
        self.steps
            .iter()
            .rev()
            .find_map(|s| match s {
                Step::Member(name) => Some(name.as_str()),
                _ => None,
            })
            .unwrap_or_else(|| self.export_name())
    }
}

impl Graph {
    /// File `f`'s calls into packages outside the repository, in the order of its call
    /// sites. Node's own modules are left out.
    pub fn external_calls(&self, f: FileId) -> Vec<ExternalCall> {
        let facts = self.facts(f);
        if facts.declaration_only {
            return Vec::new();
        }
        let targets = &self.slot(f).targets;
        let mut out = Vec::new();
        for site in facts.calls.iter() {
            let construct = match site.kind {
                CallKind::Call | CallKind::Jsx | CallKind::Reference | CallKind::Decorator => false,
                CallKind::New => true,
                // Property reads: a call only when they reach a getter, and every read
                // of an imported object would be one.
                _ => continue,
            };
            let mut steps = Vec::new();
            let mut bindings = 0;
            let Some(import) = chain(&facts, site.callee, &mut steps, &mut bindings, 0) else {
                continue;
            };
            let import = facts.imports[import as usize];
            if targets.get(&import.specifier) != Some(&Target::External) {
                continue;
            }
            let specifier = facts.str(import.specifier);
            let Some(package) = ModuleResolver::package_of(specifier) else {
                continue;
            };
            if specifier.starts_with("node:") || NODE_BUILTINS.contains(&package) {
                continue;
            }
            let imported = match import.kind {
                ImportKind::Named(name) => Imported::Named(facts.str(name).to_string()),
                ImportKind::Default | ImportKind::Template(_) => Imported::Default,
                ImportKind::Namespace | ImportKind::TypeNamespace => Imported::Namespace,
                ImportKind::Require => Imported::Require,
            };
            let pos = site.pos();
            out.push(ExternalCall {
                package: package.to_string(),
                specifier: specifier.to_string(),
                imported,
                steps,
                construct,
                line: pos.line + 1,
                column: pos.column + 1,
                caller: site.caller().map(|d| facts.def_qualified(d).to_string()),
                range: self
                    .resolver
                    .dependency_range(&facts.path, package)
                    .map(str::to_string),
                args: pack_args(site.args()),
            });
        }
        out
    }
}

const ARGS_KNOWN: u8 = 0x80;
const ARGS_SPREAD: u8 = 0x40;
const ARGS_AWAITED: u8 = 0x20;
const ARGS_DISCARDED: u8 = 0x10;

/// A call's arguments as one byte, as the store keeps them (0: not known).
pub fn pack_args(args: Option<CallArgs>) -> u8 {
    let Some(a) = args else {
        return 0;
    };
    ARGS_KNOWN
        | a.count.min(CallArgs::MAX_COUNT)
        | if a.spread { ARGS_SPREAD } else { 0 }
        | if a.awaited { ARGS_AWAITED } else { 0 }
        | if a.discarded { ARGS_DISCARDED } else { 0 }
}

/// [`pack_args`] read back.
pub fn unpack_args(b: u8) -> Option<CallArgs> {
    (b & ARGS_KNOWN != 0).then_some(CallArgs {
        count: b & 0x0f,
        spread: b & ARGS_SPREAD != 0,
        awaited: b & ARGS_AWAITED != 0,
        discarded: b & ARGS_DISCARDED != 0,
    })
}

/// The import `id` starts from, with the steps from it to `id` pushed onto `steps`;
/// None when the value does not start at an import.
fn chain(
    facts: &super::Facts<'_>,
    id: SymId,
    steps: &mut Vec<Step>,
    bindings: &mut usize,
    depth: usize,
) -> Option<ImportIdx> {
    if depth > MAX_STEPS {
        return None;
    }
    let step = |operand: SymId, step: Step, steps: &mut Vec<Step>, bindings: &mut usize| {
        let import = chain(facts, operand, steps, bindings, depth + 1)?;
        steps.push(step);
        (steps.len() <= MAX_STEPS).then_some(import)
    };
    match facts.sym(id) {
        Sym::Import(i) => Some(i),
        Sym::Binding(b) => {
            *bindings += 1;
            if *bindings > MAX_BINDINGS {
                return None;
            }
            let value = facts.bindings.get(b as usize)?.value;
            chain(facts, value, steps, bindings, depth + 1)
        }
        Sym::Member(operand, name) => {
            let name = facts.str(name).to_string();
            step(operand, Step::Member(name), steps, bindings)
        }
        Sym::Return(operand) => step(operand, Step::Call, steps, bindings),
        // A package's thenable is not known: its promise is what it resolves to.
        Sym::Awaited(operand) => chain(facts, operand, steps, bindings, depth + 1),
        Sym::Instance(operand) => step(operand, Step::New, steps, bindings),
        Sym::Either(a, b) => {
            let before = (steps.len(), *bindings);
            if let Some(import) = chain(facts, a, steps, bindings, depth + 1) {
                return Some(import);
            }
            steps.truncate(before.0);
            chain(facts, b, steps, bindings, depth + 1)
        }
        _ => None,
    }
}
