//! Compiles the extractor's C routine against the headers of the tree-sitter crate in
//! use (see src/indexer/extract/children.c for why it reads private ones).

use std::path::PathBuf;

fn main() {
    let source = "src/indexer/extract/children.c";
    println!("cargo:rerun-if-changed={source}");
    // tree-sitter's build script exports its public include directory (`links`); its
    // private headers sit beside it in the crate's `src`.
    let include = PathBuf::from(
        std::env::var("DEP_TREE_SITTER_INCLUDE").expect("tree-sitter exports its include dir"),
    );
    let private = include
        .parent()
        .expect("tree-sitter's include dir has a parent")
        .join("src");
    cc::Build::new()
        .file(source)
        .include(&include)
        .include(&private)
        .flag_if_supported("-std=c11")
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .warnings(false)
        .compile("blast_children");
}
