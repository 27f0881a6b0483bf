//! Commands in PR threads (`/callers fn`, ...): answered in one reply comment from the
//! graph the review uses (the default branch's graph with the PR's files laid over it),
//! with permalinks at the PR's head for lines in its files and at the default branch's
//! commit for the rest. The command comment gets eyes when received, then a rocket (or
//! confused when a command could not be answered).
//!
//! Only commenters the repository answers (`commands_from`: by default its owners,
//! members and collaborators) get an answer; anyone else's commands are logged and left.
//! Comments that arrive while a job waits join it (one job, one PR view, one graph).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::pr::{pr_view, PrView, Versions};
use super::repo_config_cache::{repo_config, repo_config_of};
use super::{errors, App};
use crate::blast::patch::DiffLines;
use crate::github::{CommentId, Installation, Lookup, PrFile, Reaction, RepoName};
use crate::graph::{DefId, Graph};
use crate::indexer::select::{select_decided, Selected};
use crate::intake::delivery_jobs::command_comment;
use crate::links::{Endpoint, LinkCaller, RepoLinks, Role, Served};
use crate::org::{self, CallElsewhere};
use crate::query::{self, DefSite, Resolved};
use crate::queue::payloads::{AnswerCommand, CommandComment, MAX_COMMANDS_PER_COMMENT};
use crate::queue::{JobError, RunningJob};
use crate::repo_config::RepoConfig;
use crate::report::calls_elsewhere::{self, Audience};
use crate::report::command_answers;
use crate::thread_commands::{help, parse_lines, Command};
use crate::workflow::elsewhere::calls_into_packages;
use crate::workflow::links_across::{callers_of, Asking};
use crate::workflow::source::Revision;

pub async fn answer_command(
    app: &App,
    _job: &RunningJob,
    cmd: &AnswerCommand,
) -> Result<(), JobError> {
    let comments = comments(cmd);
    if comments.is_empty() {
        return Ok(());
    }
    let installation = app.github.installation(cmd.installation);
    // Who may ask is decided before anything costly (the PR, its files, the graph):
    // on a public repository anyone can comment.
    let comments = allowed(app, &installation, cmd, comments, None).await?;
    if comments.is_empty() {
        return Ok(());
    }
    let Some(view) = pr_view(
        app,
        &installation,
        cmd.installation,
        cmd.repository,
        cmd.number,
        true,
        Versions::New,
    )
    .await?
    else {
        return Ok(());
    };
    // The repository's rules at the default branch's graph commit (the PR's base).
    let loaded = repo_config(app, &installation, &view.repo, &view.base_commit).await?;
    let comments = allowed(app, &installation, cmd, comments, Some(&loaded.config)).await?;
    if comments.is_empty() {
        return Ok(());
    }
    let snapshot = app
        .cache
        .get_fresh(view.state.id)
        .await
        .map_err(errors::store)?;
    // A fork of the cached graph (copy-on-write: only what the PR's files touch is copied).
    let mut graph = snapshot.graph.clone();
    let rules = app.rules;
    crate::workflow::cpu(|| lay_over(&mut graph, &view, &rules)).map_err(JobError::retry)?;
    let link = view.link(&app.web_url);
    // Other repositories' calls into this repository's packages, for `/callers` and
    // `/blast`: read once for every comment of the job. The packages it owns are the
    // stored graph's (its default branch's): a package.json the pull request adds
    // claims nothing.
    let elsewhere = calls_into_packages(
        &app.store,
        Some(cmd.installation),
        view.state.id,
        &snapshot.graph,
    )
    .await
    .map_err(JobError::retry)?;
    let ambiguous = snapshot
        .graph
        .resolver()
        .packages()
        .into_iter()
        .filter(|(name, _)| elsewhere.ambiguous.iter().any(|a| a == name))
        .map(|(name, dir)| (name.to_string(), dir.to_string()))
        .collect();
    // Links across service boundaries: what the stored graph's handlers serve, and
    // the clients and producers of what the comments ask about (by a handler's name, or
    // a route or topic written out), here and in the installation's other repositories.
    let (handled, asked) = crate::workflow::cpu(|| {
        let links = crate::links::resolve(&snapshot.graph);
        let handled = handled_endpoints(&snapshot.graph, &links);
        let asked = asked_endpoints(&comments, &handled);
        anyhow::Ok((links, handled, asked))
    })
    .map(|(links, handled, asked)| (handled, (links, asked)))
    .map_err(JobError::retry)?;
    let (stored_links, asked) = asked;
    let full_name = view.repo.name.to_string();
    let asking = Asking {
        installation: Some(cmd.installation),
        repo: view.state.id,
        full_name: &full_name,
        private: view.repo.private,
        commit: Some(view.base_commit.as_str()),
    };
    let across = callers_of(&app.store, &asking, &stored_links, asked)
        .await
        .map_err(JobError::retry)?;
    let org = OrgCalls {
        handled,
        link_callers: across.callers,
        versions: if elsewhere.calls.is_empty() {
            Vec::new()
        } else {
            org::package_versions(&graph)
        },
        calls: elsewhere.calls,
        ambiguous,
        from_private: view.repo.private,
        web_url: &app.web_url,
    };
    for comment in &comments {
        reply(
            &installation,
            &view,
            &graph,
            &loaded.config,
            &link,
            &org,
            comment,
        )
        .await?;
    }
    Ok(())
}

/// The calls the installation's other repositories make into the packages of the
/// repository a command is asked in.
pub(super) struct OrgCalls<'a> {
    calls: Vec<CallElsewhere>,
    /// What the stored graph's handlers serve: (file, qualified name, endpoint).
    handled: Vec<(String, String, Endpoint)>,
    /// The clients and producers that may reach what the commands ask about.
    link_callers: Vec<LinkCaller>,
    /// The packages (name, directory) another repository of the installation owns too.
    ambiguous: Vec<(String, String)>,
    versions: Vec<(String, String)>,
    from_private: bool,
    web_url: &'a str,
}

impl OrgCalls<'_> {
    /// The calls that reach `def` and that `config` shows, as the end of an answer.
    fn reaching(&self, g: &Graph, def: DefId, config: &RepoConfig) -> String {
        // A function of a package another repository owns too: nothing is listed
        // across, and the answer says why.
        let path = &g.facts(def.file).path;
        let ambiguous: Vec<String> = self
            .ambiguous
            .iter()
            .filter(|(_, dir)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .map(|(name, _)| name.clone())
            .collect();
        if !ambiguous.is_empty() {
            return format!("\n{}", calls_elsewhere::ambiguous(&ambiguous));
        }
        let facts = g.facts(def.file);
        let name = facts.def_qualified(def.def);
        let served: Vec<Endpoint> = self
            .handled
            .iter()
            .filter(|(p, q, _)| p == path && q == name)
            .map(|(_, _, e)| e.clone())
            .collect();
        let across = self.links_reaching(&served, config);
        if self.calls.is_empty() {
            return across;
        }
        let mut reached = org::reaching(g, def, &self.calls);
        reached.retain(|&(_, confidence)| confidence.at_least(config.min_confidence));
        let audience = Audience {
            from_private: self.from_private,
            web_url: self.web_url,
            versions: &self.versions,
        };
        let listed = config
            .max_callers
            .unwrap_or(LISTED_ELSEWHERE)
            .min(LISTED_ELSEWHERE);
        calls_elsewhere::reaching(&self.calls, &reached, &audience, listed) + &across
    }

    /// The clients and producers that reach `served`, as the end of an answer.
    fn links_reaching(&self, served: &[Endpoint], config: &RepoConfig) -> String {
        let asked: Vec<Served> = served
            .iter()
            .map(|e| Served {
                changed: 0,
                endpoint: e.clone(),
            })
            .collect();
        let reached: Vec<(usize, crate::graph::Confidence)> =
            crate::links::across::reaching(&asked, &self.link_callers)
                .into_iter()
                .filter(|f| f.confidence.at_least(config.min_confidence))
                .map(|f| (f.caller, f.confidence))
                .collect();
        let audience = Audience {
            from_private: self.from_private,
            web_url: self.web_url,
            versions: &[],
        };
        let listed = config
            .max_callers
            .unwrap_or(LISTED_ELSEWHERE)
            .min(LISTED_ELSEWHERE);
        calls_elsewhere::links_reaching(served, &self.link_callers, &reached, &audience, listed)
    }

    /// The answer to `/callers "GET /users/:id"`: who reaches a route or topic.
    fn route_answer(&self, endpoint: &Endpoint, config: &RepoConfig) -> String {
        let found = self.links_reaching(std::slice::from_ref(endpoint), config);
        calls_elsewhere::route_answer(endpoint, &found)
    }
}

/// What each handler of `links` (the stored graph's) serves: (its file, its qualified
/// name, the endpoint).
fn handled_endpoints(g: &Graph, links: &RepoLinks) -> Vec<(String, String, Endpoint)> {
    links
        .sites
        .iter()
        .filter(|s| matches!(s.site.role, Role::Route | Role::Consumer))
        .filter_map(|s| {
            let d = s.handler?;
            let facts = g.facts(d.file);
            Some((
                facts.path.clone(),
                facts.def_qualified(d.def).to_string(),
                s.site.endpoint.clone(),
            ))
        })
        .collect()
}

/// The endpoints the comments' `/callers` and `/blast` ask about: written out, or
/// served by a handler of the name asked (by qualified or simple name).
fn asked_endpoints(
    comments: &[CommandComment],
    handled: &[(String, String, Endpoint)],
) -> Vec<Served> {
    let mut out: Vec<Endpoint> = Vec::new();
    for c in comments {
        for command in parse_lines(&c.lines).into_iter().flatten() {
            let (Command::Callers { target, .. } | Command::Blast { target, .. }) = command else {
                continue;
            };
            if let Some(e) = crate::links::across::parse_asked(&target) {
                out.push(e);
                continue;
            }
            out.extend(
                handled
                    .iter()
                    .filter(|(_, q, _)| {
                        q == &target || q.rsplit('.').next() == Some(target.as_str())
                    })
                    .map(|(_, _, e)| e.clone()),
            );
        }
    }
    out.sort();
    out.dedup();
    out.into_iter()
        .map(|endpoint| Served {
            changed: 0,
            endpoint,
        })
        .collect()
}

/// Call sites in other repositories named in one answer, at most.
const LISTED_ELSEWHERE: usize = 20;

/// The comments to answer, a payload of the version before batches included (its one
/// comment whole, read here as intake reads a comment now).
fn comments(cmd: &AnswerCommand) -> Vec<CommandComment> {
    let mut all = cmd.batch.clone();
    if let (Some(id), Some(body)) = (cmd.comment_id, &cmd.body) {
        let author = cmd.author.as_deref().unwrap_or("");
        all.push(command_comment(id, author, None, None, body));
    }
    all
}

/// The comments whose authors `config` answers; with no config yet, the one at the
/// stored graph's commit, or the defaults when there is no stored graph yet (answering
/// would index the repository: a commenter it may not answer never starts that). Those
/// left out are logged, never answered.
async fn allowed(
    app: &App,
    installation: &Installation,
    cmd: &AnswerCommand,
    comments: Vec<CommandComment>,
    config: Option<&RepoConfig>,
) -> Result<Vec<CommandComment>, JobError> {
    let stored;
    let defaults = RepoConfig::default();
    let config = match config {
        Some(c) => c,
        None => {
            let state = app
                .store
                .repository_by_github_id(cmd.repository)
                .await
                .map_err(errors::store)?;
            let found = state.and_then(|s| {
                let commit = s.commit.clone()?;
                let name = s.full_name.parse::<RepoName>().ok()?;
                Some((name, commit))
            });
            match found {
                Some((name, commit)) => {
                    stored =
                        repo_config_of(app, installation, cmd.repository, &name, &commit).await?;
                    &stored.config
                }
                None => &defaults,
            }
        }
    };
    let (yes, no): (Vec<_>, Vec<_>) = comments
        .into_iter()
        .partition(|c| config.answers_commands_from(c.association.as_deref().unwrap_or("NONE")));
    for c in &no {
        tracing::info!(
            comment = c.comment_id,
            author = %c.author,
            association = c.association.as_deref().unwrap_or("-"),
            "command not answered: the repository answers commands from {}",
            config.commands_from.join(", ")
        );
    }
    Ok(yes)
}

/// Answers one comment's commands in one reply comment, found again by its marker.
#[allow(clippy::too_many_arguments)]
async fn reply(
    installation: &Installation,
    view: &PrView,
    graph: &Graph,
    config: &RepoConfig,
    link: &(dyn Fn(&str, u32) -> String + Sync),
    org: &OrgCalls<'_>,
    comment: &CommandComment,
) -> Result<(), JobError> {
    let context = PrContext::of(view);
    let id = CommentId(comment.comment_id as u64);
    installation
        .add_issue_comment_reaction(&view.repo.name, id, Reaction::Eyes)
        .await
        .map_err(errors::github)?;
    let mut body = String::new();
    let mut failed = false;
    for command in &parse_lines(&comment.lines) {
        let answer = match command {
            Ok(c) => crate::workflow::cpu(|| {
                answer(
                    graph,
                    c,
                    config,
                    link,
                    &|site| context.rank(site),
                    Some(org),
                )
            }),
            Err(e) => Err(e.reply()),
        };
        match answer {
            Ok(text) => body.push_str(&text),
            Err(text) => {
                failed = true;
                body.push_str(&text);
                body.push('\n');
            }
        }
        body.push('\n');
    }
    if comment.more > 0 {
        let _ = writeln!(
            body,
            "_{} more command{} in this comment {} not answered: at most {MAX_COMMANDS_PER_COMMENT} are, per comment._",
            comment.more,
            if comment.more == 1 { "" } else { "s" },
            if comment.more == 1 { "was" } else { "were" },
        );
    }
    // One reply per command comment, found again by its marker among the comments newer
    // than the command: a retried job, a redelivery, or the same comment sent again under
    // another delivery id edits it instead of answering twice. Even a job's first
    // attempt looks: a delivery id proves nothing about the comment.
    let marker = format!("<!-- blast-radius:command:{} -->", comment.comment_id);
    let body = command_answers::fit_comment(&body);
    installation
        .post_marked_comment(
            &view.repo.name,
            view.pr.number,
            &marker,
            &body,
            Lookup::Since(comment.created_at),
        )
        .await
        .map_err(errors::github)?;
    let done = if failed {
        Reaction::Confused
    } else {
        Reaction::Rocket
    };
    installation
        .add_issue_comment_reaction(&view.repo.name, id, done)
        .await
        .map_err(errors::github)?;
    Ok(())
}

/// The PR's files laid over the base graph, by the one selection policy.
fn lay_over(
    graph: &mut Graph,
    view: &PrView,
    rules: &crate::indexer::skip::SkipRules,
) -> anyhow::Result<()> {
    let files = view.fetched.new.read_paths(&view.fetched.changed)?;
    let present: std::collections::BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for path in &view.fetched.changed {
        if !present.contains(path.as_str()) {
            graph.remove_file(path);
        }
    }
    for f in &files {
        match select_decided(&f.path, &f.bytes, f.skip, rules) {
            Selected::Code(_, text) | Selected::Config(text) => {
                graph.update_file(&f.path, text);
            }
            Selected::Skipped(_) | Selected::Ignored => {
                graph.remove_file(&f.path);
            }
        }
    }
    Ok(())
}

/// One command's answer (markdown), or what to tell the user instead. Callers are the
/// ones the repository's configuration shows (its paths, its lowest confidence), at most
/// its `max_callers`.
fn answer(
    g: &Graph,
    command: &Command,
    config: &RepoConfig,
    link: &dyn Fn(&str, u32) -> String,
    rank: &dyn Fn(DefSite<'_>) -> u8,
    org: Option<&OrgCalls<'_>>,
) -> Result<String, String> {
    let resolve = |name: &str| {
        query::lookup_preferring(g, name, rank).map_err(|e| command_answers::target_error(&e, link))
    };
    // A name the PR decides answers for its definition, naming the others; a name
    // nothing decides, with few candidates, answers for each.
    let each = |name: &str, one: &dyn Fn(DefId) -> String| -> Result<String, String> {
        Ok(match resolve(name)? {
            Resolved::One { def, passed_over } => {
                let mut out = one(def);
                out.push_str(&command_answers::passed_over(name, &passed_over, link));
                out
            }
            Resolved::Each(defs) => defs.iter().map(|&d| one(d)).collect::<Vec<_>>().join("\n"),
        })
    };
    match command {
        Command::Help => Ok(help()),
        Command::Callers {
            target: name,
            depth,
        }
        | Command::Blast {
            target: name,
            depth,
        } if org.is_some() && crate::links::across::parse_asked(name).is_some() => {
            let endpoint = crate::links::across::parse_asked(name).expect("just parsed");
            Ok(org.expect("checked").route_answer(&endpoint, config))
        }
        Command::Callers {
            target: name,
            depth,
        }
        | Command::Blast {
            target: name,
            depth,
        } => each(name, &|d| {
            let mut found = query::callers(g, d, *depth, 0);
            let before = found.callers.len();
            found.callers.retain(|c| {
                c.confidence.at_least(config.min_confidence) && config.paths.allows(&c.file)
            });
            let left_out = before - found.callers.len();
            let listed = config.max_callers.unwrap_or(usize::MAX);
            let mut out = command_answers::callers_listing(&found, link, listed, left_out);
            if let Some(org) = org {
                out.push_str(&org.reaching(g, d, config));
            }
            out
        }),
        Command::Callees { target: name } => each(name, &|d| {
            command_answers::callees(&query::describe(g, d), &query::callees(g, d), link)
        }),
        Command::Path { from, to } => {
            // A path needs one definition at each end.
            let one = |name: &str| match resolve(name)? {
                Resolved::One { def, passed_over } => Ok((def, passed_over)),
                Resolved::Each(defs) => Err(command_answers::target_error(
                    &query::TargetError::Ambiguous {
                        target: name.to_string(),
                        candidates: defs.iter().map(|&d| query::describe(g, d)).collect(),
                    },
                    link,
                )),
            };
            let ((a, over_a), (b, over_b)) = (one(from)?, one(to)?);
            let mut out = command_answers::path(from, to, query::path(g, a, b).as_deref(), link);
            out.push_str(&command_answers::passed_over(from, &over_a, link));
            out.push_str(&command_answers::passed_over(to, &over_b, link));
            Ok(out)
        }
    }
}

/// How a pull request ranks the definitions a name may mean: one it changed (an added
/// line inside it) 2, one in a file it touched 1, any other 0.
pub(super) struct PrContext {
    added: BTreeMap<String, Vec<u32>>,
}

impl PrContext {
    pub(super) fn of(view: &PrView) -> PrContext {
        PrContext::new(&view.fetched.changed, &view.fetched.files)
    }

    /// From the PR's changed paths and its files as GitHub lists them (their patches).
    pub(super) fn new(changed: &[String], files: &[PrFile]) -> PrContext {
        let mut added: BTreeMap<String, Vec<u32>> =
            changed.iter().map(|p| (p.clone(), Vec::new())).collect();
        for f in files {
            if let Some(patch) = &f.patch {
                added
                    .entry(f.path.0.clone())
                    .or_default()
                    .extend(DiffLines::parse(patch).added_lines());
            }
        }
        PrContext { added }
    }

    pub(super) fn rank(&self, site: DefSite<'_>) -> u8 {
        match self.added.get(site.file) {
            None => 0,
            Some(lines)
                if lines
                    .iter()
                    .any(|l| (site.start_line..=site.end_line).contains(l)) =>
            {
                2
            }
            Some(_) => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::{extract, Language};

    fn graph(files: &[(&str, &str)]) -> Graph {
        let facts = files
            .iter()
            .map(|(path, text)| extract(path, Language::TypeScript, text).expect("read"))
            .collect();
        Graph::build(facts, Vec::new())
    }

    #[test]
    fn a_name_the_pull_request_decides_answers_for_its_definition() {
        let g = graph(&[
            ("src/money.ts", "export function formatPrice(x) {\n  return x;\n}\n"),
            ("src/legacy/money.ts", "export function formatPrice(x) {\n  return '$' + x;\n}\n"),
            ("src/a.ts", "import { formatPrice } from './money';\nexport function a() { return formatPrice(1); }\n"),
        ]);
        let link = |f: &str, l: u32| format!("https://example.test/{f}#L{l}");
        let config = RepoConfig::default();
        let ask = Command::Callers {
            target: "formatPrice".into(),
            depth: 1,
        };
        // The PR changes src/money.ts's formatPrice (line 2 added).
        let file = PrFile {
            path: crate::model::RepoPath("src/money.ts".into()),
            previous_path: None,
            status: crate::github::FileStatus::Modified,
            sha: None,
            additions: 1,
            deletions: 1,
            patch: Some(
                "@@ -1,3 +1,3 @@\n export function formatPrice(x) {\n-  return x + 0;\n+  return x;\n }"
                    .into(),
            ),
        };
        let context = PrContext::new(&["src/money.ts".into()], &[file]);
        let text = answer(&g, &ask, &config, &link, &|s| context.rank(s), None).unwrap();
        assert!(
            text.contains("**Callers of [`formatPrice`]")
                || text.contains("**Callers of `formatPrice`"),
            "{text}"
        );
        assert!(text.contains("src/money.ts:1"), "{text}");
        assert!(text.contains("also names"), "{text}");
        assert!(text.contains("src/legacy/money.ts:1"), "{text}");
        assert_eq!(text.matches("**Callers of").count(), 1, "{text}");

        // Nothing in the PR decides, two candidates: an answer for each.
        let none = PrContext::new(&[], &[]);
        let text = answer(&g, &ask, &config, &link, &|s| none.rank(s), None).unwrap();
        assert_eq!(text.matches("**Callers of").count(), 2, "{text}");

        // Four candidates and nothing decides: listed, as the CLI does.
        let g = graph(&[
            ("a.ts", "export function f() {}\n"),
            ("b.ts", "export function f() {}\n"),
            ("c.ts", "export function f() {}\n"),
            ("d.ts", "export function f() {}\n"),
        ]);
        let ask = Command::Callers {
            target: "f".into(),
            depth: 1,
        };
        let listed = answer(&g, &ask, &config, &link, &|s| none.rank(s), None).unwrap_err();
        assert!(listed.contains("names 4 definitions"), "{listed}");
    }
}
