//! Calls the compiler checks against a stated type rather than the code they run:
//! `export const shift: (options?: O) => M = shiftCore` makes every `shift()` a call
//! of `shiftCore` (the graph's edge), but TypeScript types `shift` by its annotation,
//! so a new required parameter of `shiftCore` is an error at the declaration, not at
//! the calls. The blast radius's verdicts read this to keep such calls from `breaks`.

use super::{Resolver, Vals, Value};
use crate::graph::{FileId, Graph};
use crate::indexer::facts::DefKind;

impl Graph {
    /// Whether the callee of call `call` of file `f` is, besides code of the
    /// repository, a value of a stated function type: a signature written out (or named
    /// through an alias of one) or an instance of an interface (its call signatures).
    pub(crate) fn callee_has_stated_type(&self, f: FileId, call: usize) -> bool {
        let Some(callee) = self.facts(f).calls.get(call).map(|c| c.callee) else {
            return false;
        };
        let mut resolver = Resolver::new(self, f);
        let mut values = Vals::new();
        resolver.eval_callee(f, callee, &mut values);
        let code = values.iter().any(|v| matches!(v, Value::Def(_)));
        let stated = values.iter().any(|v| match *v {
            Value::Signature(..) => true,
            Value::Instance(d) => self.facts(d.file).def(d.def).kind == DefKind::Interface,
            _ => false,
        });
        code && stated
    }
}
