//! The closed set of languages we parse, and how a path maps to one.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// .js .jsx .mjs .cjs: the JavaScript grammar parses JSX too.
    JavaScript,
    /// .ts .mts .cts (and .d.ts)
    TypeScript,
    /// .tsx
    Tsx,
}

impl Language {
    pub const ALL: [Language; 3] = [Language::JavaScript, Language::TypeScript, Language::Tsx];

    /// The language of a repository path, or None when we do not index it.
    pub fn from_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "js" | "jsx" | "mjs" | "cjs" => Some(Language::JavaScript),
            "ts" | "mts" | "cts" => Some(Language::TypeScript),
            "tsx" => Some(Language::Tsx),
            _ => None,
        }
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
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
        assert_eq!(Language::from_path("a/b.json"), None);
        assert_eq!(Language::from_path("Makefile"), None);
        assert!(is_declaration_file("x/y.d.ts"));
        assert!(!is_declaration_file("x/y.ts"));
    }
}
