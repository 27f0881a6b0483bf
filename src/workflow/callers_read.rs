//! Callers of one definition from the stored rows it needs, not the whole graph: the
//! files that define the name, then level by level the edges into the definitions
//! asked about and the files they come from. The engine answers on a graph of those
//! files alone, so the answer is the one the whole graph gives (same callers, order,
//! confidences); where that cannot be shown from the rows, there is no answer here and
//! the caller loads the whole graph.

use std::collections::BTreeMap;

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::stored::StoredResolution;
use crate::graph::{DefId, Graph};
use crate::indexer::facts::{DefIdx, DefKind, FileFacts};
use crate::query::{self, CallersAnswer, TargetError};
use crate::store::{Pair, Snapshot, Store, StoredFile};

/// What a read in place found.
pub enum ReadInPlace {
    /// The answer, as the whole graph gives it.
    Answer(CallersAnswer),
    /// The target names several definitions: the choices, as the whole graph lists them.
    Ambiguous(TargetError),
    /// The rows cannot show the answer is whole (no match to suggest names for, a
    /// method reached through an interface, rows stored before they were kept, too
    /// many rows):
    /// load the whole graph.
    LoadAll,
}

/// Callers of `target` in repository `name` up to `depth` levels, read in place.
pub async fn callers_in_place(
    store: &Store,
    name: &str,
    target: &str,
    depth: u32,
) -> Result<ReadInPlace> {
    let repo = store.repository(name).await?;
    let mut snap = store.snapshot(repo.id).await?;
    if !snap.reads_in_place().await? {
        return Ok(ReadInPlace::LoadAll);
    }
    let Some(mut numbers) = snap.files_defining(target).await? else {
        return Ok(ReadInPlace::LoadAll);
    };
    if let Some((file, line)) = target.rsplit_once(':') {
        if line.parse::<u32>().is_ok() {
            numbers.extend(snap.file_number(file).await?);
        }
    }
    let mut loaded: BTreeMap<i32, StoredFile> = BTreeMap::new();
    load(&mut snap, &mut loaded, numbers).await?;
    // The lookup, on the files that can hold a match: what the whole graph finds.
    let d = {
        let g = restore(&loaded);
        match query::lookup(&g, target) {
            Ok(d) => (number_of(&loaded, &g.facts(d.file).path), d.def),
            Err(e @ TargetError::Ambiguous { .. }) => return Ok(ReadInPlace::Ambiguous(e)),
            Err(TargetError::NotFound { .. }) => return Ok(ReadInPlace::LoadAll),
        }
    };
    let mut seen: FxHashSet<(i32, DefIdx)> = FxHashSet::from_iter([d]);
    let mut frontier = vec![d];
    let mut pairs: Vec<Pair> = Vec::new();
    for _ in 0..depth.max(1) {
        // What the engine's `callers_of` gathers callers from, for each definition: the
        // definition, the class of a constructor (`new C()`), the declarations of it
        // beside its file and those paired with it apart.
        let mut asked = Vec::new();
        let mut beside: Vec<((i32, DefIdx), String)> = Vec::new();
        for &(file, def) in &frontier {
            let facts = &loaded[&file].facts;
            if reached_through_interfaces(facts, def) {
                return Ok(ReadInPlace::LoadAll);
            }
            asked.push((file, def));
            let held = &facts.defs[def as usize];
            if let (DefKind::Constructor, Some(class)) = (held.kind, held.container()) {
                asked.push((file, class));
            }
            if let Some(path) = declarations_beside(&facts.path) {
                beside.push(((file, def), path));
            }
        }
        let Some(paired) = snap.declarations_of(&asked).await? else {
            return Ok(ReadInPlace::LoadAll);
        };
        let beside_paths: Vec<String> = beside.iter().map(|(_, p)| p.clone()).collect();
        let mut wanted: Vec<i32> = paired.iter().map(|p| p.declaration.0).collect();
        wanted.extend(snap.file_numbers(&beside_paths).await?);
        load(&mut snap, &mut loaded, wanted).await?;
        asked.extend(paired.iter().map(|p| p.declaration));
        pairs.extend(paired);
        let by_path: FxHashMap<&str, &StoredFile> = loaded
            .values()
            .map(|f| (f.facts.path.as_str(), f))
            .collect();
        for ((file, def), path) in &beside {
            let Some(decls) = by_path.get(path.as_str()) else {
                continue;
            };
            let qualified = loaded[file].facts.def_qualified(*def);
            asked.extend(
                (0..decls.facts.defs.len() as DefIdx)
                    .filter(|&i| {
                        decls.facts.def_qualified(i) == qualified
                            && decls.facts.defs[i as usize].kind.is_callable()
                    })
                    .map(|i| (decls.number, i)),
            );
        }
        let Some(links) = snap.callers_into(&asked).await? else {
            return Ok(ReadInPlace::LoadAll);
        };
        load(
            &mut snap,
            &mut loaded,
            links.iter().map(|l| l.file).collect(),
        )
        .await?;
        frontier = links
            .iter()
            .filter_map(|l| Some((l.file, l.def?)))
            .filter(|&d| loaded.contains_key(&d.0) && seen.insert(d))
            .collect();
    }
    let mut g = restore(&loaded);
    let id = |g: &Graph, (file, def): (i32, DefIdx)| {
        g.file_id(&loaded.get(&file)?.facts.path)
            .map(|f| DefId::new(f, def))
    };
    let given = pairs
        .iter()
        .filter_map(|p| Some((id(&g, p.code)?, id(&g, p.declaration)?, p.confidence)))
        .collect();
    g.set_declared_pairs(given);
    let d = id(&g, d).expect("restored");
    let unresolved = snap
        .unresolved_named(g.facts(d.file).def_name(d.def))
        .await?;
    let mut answer = query::callers(&g, d, depth, 0);
    answer.completeness.unresolved_same_name = unresolved;
    Ok(ReadInPlace::Answer(answer))
}

/// The declaration file TypeScript reads beside a JavaScript file, as the engine's
/// `declarations_beside` names it (`x.js` → `x.d.ts`, `x.mjs` → `x.d.mts`).
fn declarations_beside(path: &str) -> Option<String> {
    let (base, ext) = path.rsplit_once('.')?;
    let declarations = match ext {
        "js" | "jsx" => "d.ts",
        "mjs" => "d.mts",
        "cjs" => "d.cts",
        _ => return None,
    };
    Some(format!("{base}.{declarations}"))
}

/// Adds the stored files among `numbers` not loaded yet.
async fn load(
    snap: &mut Snapshot,
    loaded: &mut BTreeMap<i32, StoredFile>,
    mut numbers: Vec<i32>,
) -> Result<()> {
    numbers.retain(|n| !loaded.contains_key(n));
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.is_empty() {
        return Ok(());
    }
    for file in snap.files(&numbers).await? {
        loaded.insert(file.number, file);
    }
    Ok(())
}

fn number_of(loaded: &BTreeMap<i32, StoredFile>, path: &str) -> i32 {
    loaded
        .values()
        .find(|f| f.facts.path == path)
        .map(|f| f.number)
        .expect("a loaded file")
}

/// Whether calls through an interface may reach `def` (a method of a class that
/// implements one): which interfaces those are takes the resolver over imports.
fn reached_through_interfaces(facts: &FileFacts, def: DefIdx) -> bool {
    let held = &facts.defs[def as usize];
    let method = matches!(
        held.kind,
        DefKind::Method | DefKind::Getter | DefKind::Setter
    ) && !held.is_static;
    match held.container() {
        Some(class) if method => facts.implements.iter().any(|(c, _)| *c == class),
        _ => false,
    }
}

/// A graph of the loaded files, in their stored order (the whole graph's order, so its
/// answers list ties alike), each keeping only its edges into loaded files: the edges
/// into the definitions asked about are all among those.
fn restore(loaded: &BTreeMap<i32, StoredFile>) -> Graph {
    let paths: FxHashSet<&str> = loaded.values().map(|f| f.facts.path.as_str()).collect();
    let files = loaded
        .values()
        .map(|f| (f.facts.clone(), within(&f.resolution, &paths)))
        .collect();
    Graph::restore(files, Vec::new())
}

/// A stored resolution cut down to its edges into `paths` (its dependencies dropped:
/// they matter only to a graph that changes).
fn within(r: &StoredResolution, paths: &FxHashSet<&str>) -> StoredResolution {
    let mut files: Vec<String> = Vec::new();
    let mut index: FxHashMap<u32, u32> = FxHashMap::default();
    let mut edges = Vec::new();
    for e in &r.edges {
        let Some(path) = r.files.get(e.file as usize) else {
            continue;
        };
        if !paths.contains(path.as_str()) {
            continue;
        }
        let i = *index.entry(e.file).or_insert_with(|| {
            files.push(path.clone());
            (files.len() - 1) as u32
        });
        edges.push(crate::graph::stored::StoredEdge { file: i, ..*e });
    }
    StoredResolution {
        files,
        edges,
        deps: Vec::new(),
        fallback_names: r.fallback_names.clone(),
        external: r.external,
        external_sites: r.external_sites.clone(),
        unresolved_sites: r.unresolved_sites.clone(),
    }
}
