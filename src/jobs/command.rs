//! Commands in PR threads (`/callers fn`, ...): answered in one reply comment from the
//! graph the review uses (the default branch's graph with the PR's files laid over it),
//! with permalinks at the PR's head for lines in its files and at the default branch's
//! commit for the rest. The command comment gets eyes when received, then a rocket (or
//! confused when a command could not be answered).

use super::pr::{pr_view, PrView, Versions};
use super::repo_config::repo_config;
use super::{errors, App};
use crate::commands::{help, parse_comment, Command};
use crate::config::RepoConfig;
use crate::github::{CommentId, Reaction};
use crate::graph::Graph;
use crate::indexer::select::{select_decided, Selected};
use crate::intake::jobs::AnswerCommand;
use crate::query;
use crate::queue::{JobError, RunningJob};
use crate::report::answers;
use crate::workflow::source::Revision;

pub async fn answer_command(
    app: &App,
    _job: &RunningJob,
    cmd: &AnswerCommand,
) -> Result<(), JobError> {
    let commands = parse_comment(&cmd.body);
    if commands.is_empty() {
        return Ok(());
    }
    let installation = app.github.installation(cmd.installation);
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
    let comment = CommentId(cmd.comment_id as u64);
    installation
        .add_issue_comment_reaction(&view.repo.name, comment, Reaction::Eyes)
        .await
        .map_err(errors::github)?;
    // The repository's rules at the default branch's graph commit (the PR's base).
    let loaded = repo_config(app, &installation, &view.repo, &view.base_commit).await?;
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
    let mut body = String::new();
    let mut failed = false;
    for command in &commands {
        let answer = match command {
            Ok(c) => answer(&graph, c, &loaded.config, &link),
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
    // One reply per command comment, found again by its marker: a redelivery or a
    // retried job edits it instead of answering twice.
    let marker = format!("<!-- blast-radius:command:{} -->", cmd.comment_id);
    let body = answers::fit_comment(&body);
    installation
        .create_or_update_marked_comment(&view.repo.name, cmd.number, &marker, &body)
        .await
        .map_err(errors::github)?;
    let done = if failed {
        Reaction::Confused
    } else {
        Reaction::Rocket
    };
    installation
        .add_issue_comment_reaction(&view.repo.name, comment, done)
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
) -> Result<String, String> {
    let target = |name: &str| query::lookup(g, name).map_err(|e| answers::target_error(&e, link));
    Ok(match command {
        Command::Help => help(),
        Command::Callers {
            target: name,
            depth,
        }
        | Command::Blast {
            target: name,
            depth,
        } => {
            let d = target(name)?;
            let mut found = query::callers(g, d, *depth, 0);
            let before = found.callers.len();
            found.callers.retain(|c| {
                c.confidence.at_least(config.min_confidence) && config.paths.allows(&c.file)
            });
            let left_out = before - found.callers.len();
            let listed = config.max_callers.unwrap_or(usize::MAX);
            answers::callers_listing(&found, link, listed, left_out)
        }
        Command::Callees { target: name } => {
            let d = target(name)?;
            answers::callees(&query::describe(g, d), &query::callees(g, d), link)
        }
        Command::Path { from, to } => {
            let (a, b) = (target(from)?, target(to)?);
            answers::path(from, to, query::path(g, a, b).as_deref(), link)
        }
    })
}
