//! The closed set of languages we parse, and how a path maps to one.

use serde::{Deserialize, Serialize};

/// The component formats read (see the `component` module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentKind {
    Vue,
    Svelte,
    Astro,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// .js .jsx .mjs .cjs: the JavaScript grammar parses JSX too.
    JavaScript,
    /// .ts .mts .cts (and .d.ts)
    TypeScript,
    /// .tsx
    Tsx,
    /// .vue, .svelte, .astro: components, whose script blocks are read in their own
    /// script language (see the `component` module).
    Vue,
    Svelte,
    Astro,
    /// An Angular component's template file (`.html`): read as one when its text says
    /// so (see `angular::is_template`), never from its path alone.
    Angular,
}

impl Language {
    /// The script languages, each with a grammar of its own.
    pub const ALL: [Language; 3] = [Language::JavaScript, Language::TypeScript, Language::Tsx];

    /// The language of a repository path, or None when we do not index it.
    pub fn from_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "js" | "jsx" | "mjs" | "cjs" => Some(Language::JavaScript),
            "ts" | "mts" | "cts" => Some(Language::TypeScript),
            "tsx" => Some(Language::Tsx),
            "vue" => Some(Language::Vue),
            "svelte" => Some(Language::Svelte),
            "astro" => Some(Language::Astro),
            _ => None,
        }
    }

    /// The component format, for a component file.
    pub fn component(self) -> Option<ComponentKind> {
        match self {
            Language::Vue => Some(ComponentKind::Vue),
            Language::Svelte => Some(ComponentKind::Svelte),
            Language::Astro => Some(ComponentKind::Astro),
            _ => None,
        }
    }

    /// The grammar of a script language. A component has none of its own: its blocks are
    /// parsed in theirs (the `component` module chooses it); asked anyway, the
    /// answer is TypeScript's, which reads the most.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript
            | Language::Vue
            | Language::Svelte
            | Language::Astro
            | Language::Angular => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Vue => "vue",
            Language::Svelte => "svelte",
            Language::Astro => "astro",
            Language::Angular => "angular",
        }
    }
}

/// `.d.ts` (and `.d.mts`/`.d.cts`) files contribute declarations only.
pub fn is_declaration_file(path: &str) -> bool {
    path.ends_with(".d.ts") || path.ends_with(".d.mts") || path.ends_with(".d.cts")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_into_a_parser() {
        for lang in Language::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&lang.grammar())
                .unwrap_or_else(|e| panic!("{}: {e}", lang.name()));
            let tree = parser.parse("f(1)", None).expect("parse");
            assert_eq!(tree.root_node().kind(), "program");
        }
    }

    #[test]
    fn paths_map_to_languages() {
        assert_eq!(Language::from_path("a/b.jsx"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("a/b.cjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("a/b.d.ts"), Some(Language::TypeScript));
        assert_eq!(Language::from_path("a/b.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("a/B.vue"), Some(Language::Vue));
        assert_eq!(Language::from_path("a/b.svelte"), Some(Language::Svelte));
        assert_eq!(Language::from_path("a/b.astro"), Some(Language::Astro));
        assert_eq!(Language::from_path("a/b.json"), None);
        assert_eq!(Language::from_path("Makefile"), None);
        assert!(is_declaration_file("x/y.d.ts"));
        assert!(!is_declaration_file("x/y.ts"));
    }
}
