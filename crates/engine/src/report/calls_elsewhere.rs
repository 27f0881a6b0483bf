//! Calls that the installation's other repositories make, as markdown: one rendering for
//! the pull request's "In other repositories" section and for the thread commands'
//! answers. A public repository's outputs never name a private repository or its paths:
//! those calls are counted, nothing more.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::escape::code;
use crate::graph::Confidence;
use crate::org::CallElsewhere;

/// Who reads what is written, and what it may link to.
#[derive(Clone, Copy, Debug)]
pub struct Audience<'a> {
    /// Whether the asking repository is private: only then are other private
    /// repositories named.
    pub from_private: bool,
    /// GitHub's web address, for permalinks.
    pub web_url: &'a str,
    /// The version each package has in the asking repository (package name, version).
    pub versions: &'a [(String, String)],
}

impl Audience<'_> {
    /// Whether `call` may be named to this audience.
    pub fn names(&self, call: &CallElsewhere) -> bool {
        !call.private || self.from_private
    }
}

/// One call site, as a list item's text (without the bullet): where, a permalink at the
/// calling repository's commit, the function it is in, the confidence, and the range of
/// the package it depends on.
pub fn site(call: &CallElsewhere, confidence: Confidence, to: &Audience) -> String {
    let web = to.web_url.trim_end_matches('/');
    let mut out = String::new();
    let place = format!("{} {}:{}", call.repo, call.path, call.call.line);
    out.push_str(&code(&place));
    if let Some(commit) = &call.commit {
        let _ = write!(
            out,
            " ([view]({web}/{}/blob/{}/{}#L{}))",
            url_path(&call.repo),
            url_path(commit),
            url_path(&call.path),
            call.call.line
        );
    }
    if let Some(caller) = &call.call.caller {
        let _ = write!(out, " in {}", code(caller));
    }
    let _ = write!(out, " [{}]", confidence.as_str());
    if let Some(range) = &call.call.range {
        let _ = write!(
            out,
            ", depends on {} {}",
            code(&call.call.package),
            code(range)
        );
        if let Some((_, version)) = to
            .versions
            .iter()
            .find(|(name, _)| *name == call.call.package)
        {
            let _ = write!(out, " (this repository has {})", code(version));
        }
    }
    out
}

/// The line that counts the calls not named to a public repository ("" when none).
pub fn hidden(sites: usize, repos: usize) -> String {
    if sites == 0 {
        return String::new();
    }
    format!(
        "{sites} call {} in {repos} private {} of this installation {} not named here.\n",
        plural(sites, "site", "sites"),
        plural(repos, "repository", "repositories"),
        plural(sites, "is", "are"),
    )
}

/// The calls from other repositories that reach one definition, as the end of a thread
/// command's answer: at most `listed` sites named, the rest counted ("" when none).
/// `reached` holds (index into `calls`, confidence).
pub fn reaching(
    calls: &[CallElsewhere],
    reached: &[(usize, Confidence)],
    to: &Audience,
    listed: usize,
) -> String {
    if reached.is_empty() {
        return String::new();
    }
    let repos: BTreeSet<&str> = reached
        .iter()
        .map(|&(i, _)| calls[i].repo.as_str())
        .collect();
    let mut out = format!(
        "\n**In other repositories**: {} call {} in {} other {} of this installation.\n\n",
        reached.len(),
        plural(reached.len(), "site", "sites"),
        repos.len(),
        plural(repos.len(), "repository", "repositories"),
    );
    let (mut shown, mut hidden_sites) = (0, 0);
    let mut hidden_repos = BTreeSet::new();
    for &(i, confidence) in reached {
        let call = &calls[i];
        if !to.names(call) {
            hidden_sites += 1;
            hidden_repos.insert(call.repo.as_str());
            continue;
        }
        shown += 1;
        if shown <= listed {
            let _ = writeln!(out, "- {}", site(call, confidence, to));
        }
    }
    if shown > listed {
        let _ = writeln!(out, "- … and {} more", shown - listed);
    }
    let note = hidden(hidden_sites, hidden_repos.len());
    if !note.is_empty() {
        out.push('\n');
        out.push_str(&note);
    }
    out
}

/// The clients and producers that reach what a definition serves (or a route asked
/// for directly), as the end of a thread command's answer: at most `listed` named, the
/// private ones of other repositories counted for a public audience ("" when none).
/// `reached` holds (index into `callers`, confidence).
pub fn links_reaching(
    served: &[crate::links::Endpoint],
    callers: &[crate::links::LinkCaller],
    reached: &[(usize, Confidence)],
    to: &Audience,
    listed: usize,
) -> String {
    if reached.is_empty() {
        return String::new();
    }
    let web = to.web_url.trim_end_matches('/');
    let served: Vec<String> = served.iter().map(|e| code(&e.to_string())).collect();
    let repos: BTreeSet<&str> = reached
        .iter()
        .map(|&(i, _)| &callers[i])
        .filter(|c| !c.own)
        .map(|c| c.repo.as_str())
        .collect();
    let own = reached.iter().any(|&(i, _)| callers[i].own);
    let place = match (own, repos.len()) {
        (true, 0) => "in this repository".to_string(),
        (false, n) => format!(
            "in {n} other {} of this installation",
            plural(n, "repository", "repositories")
        ),
        (true, n) => format!(
            "in this repository and {n} other {} of this installation",
            plural(n, "repository", "repositories")
        ),
    };
    let mut out = format!(
        "\n**Across service boundaries** ({}): {} call {} {place}.\n\n",
        served.join(", "),
        reached.len(),
        plural(reached.len(), "site", "sites"),
    );
    let (mut shown, mut hidden_sites) = (0, 0);
    let mut hidden_repos = BTreeSet::new();
    for &(i, confidence) in reached {
        let c = &callers[i];
        if !c.own && c.private && !to.from_private {
            hidden_sites += 1;
            hidden_repos.insert(c.repo.as_str());
            continue;
        }
        shown += 1;
        if shown > listed {
            continue;
        }
        let _ = writeln!(out, "- {}", link_site(c, confidence, web));
    }
    if shown > listed {
        let _ = writeln!(out, "- … and {} more", shown - listed);
    }
    let note = hidden(hidden_sites, hidden_repos.len());
    if !note.is_empty() {
        out.push('\n');
        out.push_str(&note);
    }
    out
}

/// A client or producer that reaches a route or topic, on one line: where it is (its
/// repository too, unless it is the one asked about) with a permalink at the commit
/// its graph reflects, what it calls, and how surely. `web` is GitHub's web address.
pub(crate) fn link_site(c: &crate::links::LinkCaller, confidence: Confidence, web: &str) -> String {
    let place = if c.own {
        format!("{}:{}", c.path, c.line)
    } else {
        format!("{} {}:{}", c.repo, c.path, c.line)
    };
    let mut out = code(&place);
    if let Some(commit) = &c.commit {
        let _ = write!(
            out,
            " ([view]({web}/{}/blob/{}/{}#L{}))",
            url_path(&c.repo),
            url_path(commit),
            url_path(&c.path),
            c.line
        );
    }
    let verb = match c.role {
        crate::links::Role::Producer => "produces to",
        _ => "calls",
    };
    let _ = write!(
        out,
        " {verb} {} [{}]",
        code(&c.endpoint.to_string()),
        confidence.as_str()
    );
    out
}

/// The answer to `/callers "GET /users/:id"`: its heading over `found` (what
/// [`links_reaching`] wrote), or that nothing reaches it.
pub fn route_answer(endpoint: &crate::links::Endpoint, found: &str) -> String {
    let shown = code(&endpoint.to_string());
    if found.is_empty() {
        format!("**Callers of {shown}**: no client or producer in this repository or the installation's others reaches it.\n")
    } else {
        format!("**Callers of {shown}**\n{found}")
    }
}

/// Ambiguous package names named at most, the rest counted.
const AMBIGUOUS_NAMED: usize = 5;

/// The line that says which of `packages` another repository of the installation owns
/// too, so that no call from elsewhere is listed for them ("" when none). The other
/// owners are not named: one may be private.
pub fn ambiguous(packages: &[String]) -> String {
    if packages.is_empty() {
        return String::new();
    }
    let mut names: Vec<String> = packages
        .iter()
        .take(AMBIGUOUS_NAMED)
        .map(|p| code(p))
        .collect();
    if packages.len() > AMBIGUOUS_NAMED {
        names.push(format!("{} more", packages.len() - AMBIGUOUS_NAMED));
    }
    format!(
        "_{} {} also the name of a package in another repository of this installation: a call from elsewhere cannot say which it means, so none is listed for {}._\n",
        names.join(", "),
        plural(packages.len(), "is", "are"),
        plural(packages.len(), "it", "them"),
    )
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A path made safe inside a markdown link's URL: every byte but unreserved characters
/// and `/` percent-encoded (a `)` or a space would end the link).
pub(crate) fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::external::{ExternalCall, Imported};

    fn call(repo: &str, private: bool, path: &str, line: u32) -> CallElsewhere {
        CallElsewhere {
            repo: repo.to_string(),
            private,
            commit: Some("c0ffee".to_string()),
            path: path.to_string(),
            call: ExternalCall {
                package: "@acme/money".to_string(),
                specifier: "@acme/money".to_string(),
                imported: Imported::Named("formatPrice".to_string()),
                steps: Vec::new(),
                construct: false,
                line,
                column: 3,
                caller: Some("checkout".to_string()),
                range: Some("^2.1.0".to_string()),
                args: 0,
            },
        }
    }

    #[test]
    fn ambiguous_names_are_escaped_and_bounded() {
        assert_eq!(ambiguous(&[]), "");
        let one = ambiguous(&["@acme/money".to_string()]);
        assert_eq!(
            one,
            "_`@acme/money` is also the name of a package in another repository of this installation: a call from elsewhere cannot say which it means, so none is listed for it._\n"
        );
        let many: Vec<String> = (0..8).map(|i| format!("p`{i}")).collect();
        let text = ambiguous(&many);
        assert!(text.contains("3 more are also"), "{text}");
        assert!(!text.contains("p`5"), "{text}");
    }

    #[test]
    fn a_public_audience_gets_private_calls_counted_never_named() {
        let calls = [
            call("acme/service", false, "src/pay (1).ts", 4),
            call("acme/secret-app", true, "src/hidden.ts", 9),
            call("acme/secret-app", true, "src/hidden2.ts", 2),
        ];
        let reached = [
            (0, Confidence::Exact),
            (1, Confidence::Exact),
            (2, Confidence::Likely),
        ];
        let versions = [("@acme/money".to_string(), "3.0.0-dev".to_string())];
        let public = Audience {
            from_private: false,
            web_url: "https://github.com/",
            versions: &versions,
        };
        let text = reaching(&calls, &reached, &public, 10);
        assert!(
            text.contains("3 call sites in 2 other repositories"),
            "{text}"
        );
        assert!(
            text.contains("(https://github.com/acme/service/blob/c0ffee/src/pay%20%281%29.ts#L4)"),
            "{text}"
        );
        assert!(
            text.contains("depends on `@acme/money` `^2.1.0` (this repository has `3.0.0-dev`)"),
            "{text}"
        );
        assert!(
            !text.contains("secret") && !text.contains("hidden"),
            "{text}"
        );
        assert!(
            text.contains(
                "2 call sites in 1 private repository of this installation are not named here"
            ),
            "{text}"
        );

        let private = Audience {
            from_private: true,
            ..public
        };
        let text = reaching(&calls, &reached, &private, 1);
        assert!(text.contains("acme/service src/pay (1).ts:4"), "{text}");
        assert!(!text.contains("hidden.ts"), "past the listed one: {text}");
        assert!(text.contains("… and 2 more"), "{text}");
        assert!(!text.contains("not named"), "{text}");
        assert_eq!(reaching(&calls, &[], &private, 5), "");
    }
}
