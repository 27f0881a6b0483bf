//! Nuxt's auto-imports: in a Nuxt app, templates and scripts use the app's components,
//! composables and utilities without importing them, by the names Nuxt gives them.
//!
//! The rules, as Nuxt documents them (`components/`, `composables/`, `utils/` of the
//! app's source directory: the directory of `nuxt.config.*`, or its `app/` in Nuxt 4):
//! - a component is named after its path under `components/`, its folders a prefix
//!   (`components/base/foo/Button.vue` is `BaseFooButton`), a prefix the file's name
//!   repeats said once (`components/account/AccountAvatar.vue` is `AccountAvatar`),
//!   `index` its folder's name, `.client`/`.server` aside; `Lazy` before any name loads
//!   it lazily;
//! - the top-level exports of `composables/*` and `utils/*` (and of their folders'
//!   `index` files) are available by their names.
//!
//! A name found by these rules is matched with `likely` confidence (several: `possible`),
//! never `exact`: `nuxt.config` may move or rename the directories (`components.dirs`,
//! `pathPrefix: false`, `imports.dirs`), which is not read. Imports and script bindings
//! come first: only a name nothing binds is looked up here.

use super::{DefId, FileId, Graph};
use crate::indexer::facts::*;

/// The config files whose directory is a Nuxt app's root.
const CONFIGS: [&str; 4] = [
    "nuxt.config.ts",
    "nuxt.config.js",
    "nuxt.config.mjs",
    "nuxt.config.mts",
];

/// Where an app's sources may be, under its root: Nuxt 3's root, Nuxt 4's `app/`, and the
/// common `srcDir: 'src'`.
const SOURCE_DIRS: [&str; 3] = ["", "app/", "src/"];

/// Whether `path` is a Nuxt config: adding or removing one changes what every file of
/// the app may call.
pub(crate) fn is_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    CONFIGS.contains(&name)
}

/// The names Nuxt gives the component at `path`, if it lies under a `components/`
/// folder (its own name and its `Lazy` one); nothing for other files. Whether that
/// folder is a Nuxt app's is asked where the name is used.
pub(crate) fn component_names(path: &str) -> Option<[String; 2]> {
    let (_, under) = path.rsplit_once("components/")?;
    let mut parts: Vec<&str> = under.split('/').collect();
    let file = parts.pop()?;
    let (stem, extension) = file.rsplit_once('.')?;
    if !matches!(extension, "vue" | "tsx" | "jsx" | "ts" | "js") {
        return None;
    }
    let stem = stem
        .strip_suffix(".client")
        .or_else(|| stem.strip_suffix(".server"))
        .unwrap_or(stem);
    let mut prefix: Vec<String> = parts.iter().flat_map(|p| split_by_case(p)).collect();
    let file_parts = if stem == "index" {
        Vec::new()
    } else {
        split_by_case(stem)
    };
    // The prefix up to where the file's name repeats it.
    if let Some(first) = file_parts.first() {
        if let Some(at) = prefix.iter().position(|p| p.eq_ignore_ascii_case(first)) {
            prefix.truncate(at);
        }
    }
    let name: String = prefix
        .iter()
        .chain(file_parts.iter())
        .map(|p| capitalized(p))
        .collect();
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some([format!("Lazy{name}"), name])
}

/// Words of a name, split where its case changes and at `-`, `_`, `.`, as Nuxt's
/// `splitByCase` does (`AccountAvatar`, `account-avatar` are both `Account`, `Avatar`).
fn split_by_case(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in s.chars() {
        if matches!(c, '-' | '_' | '.' | ' ') {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

impl Graph {
    /// The root of the Nuxt app file `f` belongs to: the nearest folder above it that
    /// holds a `nuxt.config.*` (with a trailing `/`; empty for the repository's root).
    pub(crate) fn nuxt_root(&self, f: FileId) -> Option<String> {
        let path = &self.slot(f).facts().path;
        let mut dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        loop {
            let prefix = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            if CONFIGS
                .iter()
                .any(|c| self.file_id(&format!("{prefix}{c}")).is_some())
            {
                return Some(prefix);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
        }
    }

    /// What an unbound `name` used in file `f` of a Nuxt app names by Nuxt's rules: a
    /// component of the app's `components/` (for a tag), or a top-level export of its
    /// `composables/` or `utils/` (for a call).
    pub(crate) fn nuxt_candidates(&self, f: FileId, site: &CallSite, name: &str) -> Vec<DefId> {
        // Most repositories are no Nuxt app: they pay one comparison per unbound name.
        if self.nuxt_configs == 0 {
            return Vec::new();
        }
        let Some(root) = self.nuxt_root(f) else {
            return Vec::new();
        };
        let Some(id) = self.names.get(name) else {
            return Vec::new();
        };
        let Some(list) = self.by_name_list(id) else {
            return Vec::new();
        };
        let in_dir = |path: &str, dir: &str| {
            SOURCE_DIRS.iter().any(|s| {
                path.strip_prefix(&root)
                    .and_then(|p| p.strip_prefix(s))
                    .and_then(|p| p.strip_prefix(dir))
                    .is_some()
            })
        };
        let mut out: Vec<DefId> = list
            .iter()
            .copied()
            .filter(|d| {
                let facts = self.slot(d.file).facts();
                let def = facts.def(d.def);
                let path = facts.path.as_str();
                if site.kind == CallKind::Jsx {
                    def.kind == DefKind::Component
                        && in_dir(path, "components/")
                        && component_names(path).is_some_and(|n| n.iter().any(|n| n == name))
                } else {
                    def.container().is_none()
                        && def.exported
                        && matches!(def.kind, DefKind::Function | DefKind::Class)
                        && ["composables/", "utils/"].iter().any(|dir| {
                            in_dir(path, dir) && {
                                // `composables/x.ts`, or `composables/x/index.ts`.
                                let rest = path.rsplit_once(dir).map_or("", |(_, r)| r);
                                match rest.split_once('/') {
                                    None => true,
                                    Some((_, file)) => file.starts_with("index."),
                                }
                            }
                        })
                }
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_named_as_nuxt_names_them() {
        let name = |p: &str| component_names(p).map(|[_, n]| n);
        assert_eq!(
            name("components/base/foo/Button.vue").as_deref(),
            Some("BaseFooButton")
        );
        assert_eq!(
            name("app/components/account/AccountAvatar.vue").as_deref(),
            Some("AccountAvatar")
        );
        assert_eq!(
            name("components/base/BaseButton.vue").as_deref(),
            Some("BaseButton")
        );
        assert_eq!(
            name("components/TheHeader.vue").as_deref(),
            Some("TheHeader")
        );
        assert_eq!(name("components/form/index.vue").as_deref(), Some("Form"));
        assert_eq!(
            name("components/ui/date-picker.client.vue").as_deref(),
            Some("UiDatePicker")
        );
        assert_eq!(
            name("components/status/StatusCard.vue").as_deref(),
            Some("StatusCard")
        );
        assert_eq!(
            component_names("components/Modal.vue")
                .map(|[lazy, _]| lazy)
                .as_deref(),
            Some("LazyModal")
        );
        assert_eq!(name("src/lib/Button.vue"), None);
        assert_eq!(name("components/readme.md"), None);
    }

    #[test]
    fn words_split_where_case_changes() {
        assert_eq!(split_by_case("AccountAvatar"), ["Account", "Avatar"]);
        assert_eq!(split_by_case("date-picker"), ["date", "picker"]);
        assert_eq!(split_by_case("ui"), ["ui"]);
    }
}
