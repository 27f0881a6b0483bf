//! Issue comments (the PR conversation), the comment we keep up to date by a hidden marker,
//! and reactions.
//!
//! Creating a comment is not idempotent: after a 5xx or a timeout GitHub may or may not have
//! posted it ([`GithubError::WriteOutcomeUnknown`]).
//! [`Installation::create_or_update_marked_comment`] therefore looks for its marker before
//! posting again, so a 502 on create never leaves two comments. Editing (PATCH of the same
//! body) and reacting (GitHub answers 200 with the existing reaction) may be repeated freely.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::json;

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::limits::{check_length, MAX_BODY_CHARS};
use super::repos::RepoName;
use super::retry::RetryMode;
use super::transport::Call;

/// How many times a marked comment is posted at most when GitHub's answers leave open
/// whether it was.
const MAX_CREATE_ATTEMPTS: u32 = 3;

/// Pages of 100 comments (or reviews, or review comments) read at most when looking for
/// our own in a thread: past them, ours is taken as not there.
pub const MAX_LISTED_PAGES: u32 = 20;

/// An issue (or pull request conversation) comment's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommentId(pub u64);

/// An issue comment, with only the fields we use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueComment {
    pub id: CommentId,
    pub body: String,
    /// The author (`<slug>[bot]` for what an App writes).
    pub user_login: String,
    pub user_is_bot: bool,
    pub html_url: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// Where [`Installation::post_marked_comment`] looks for the comment it posted before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Every comment of the thread.
    All,
    /// The comments updated at or after this time (None: all of them).
    Since(Option<DateTime<Utc>>),
    /// The caller knows none was posted yet (a job's first attempt): nothing is listed,
    /// unless a post fails without saying whether it was applied (then as `Since`).
    NoneYet(Option<DateTime<Utc>>),
}

/// What [`Installation::create_or_update_marked_comment`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkedOutcome {
    /// No comment of ours carried the marker: one was posted.
    Created,
    /// Ours was edited to the new body.
    Updated,
    /// Ours already had this body: nothing was sent.
    Unchanged,
}

/// The comment carrying the marker, and what was done to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkedComment {
    pub comment: IssueComment,
    pub outcome: MarkedOutcome,
}

/// A reaction GitHub offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reaction {
    ThumbsUp,
    ThumbsDown,
    Laugh,
    Confused,
    Heart,
    Hooray,
    Rocket,
    Eyes,
}

impl Reaction {
    /// GitHub's name for it (`content`).
    pub fn content(self) -> &'static str {
        match self {
            Reaction::ThumbsUp => "+1",
            Reaction::ThumbsDown => "-1",
            Reaction::Laugh => "laugh",
            Reaction::Confused => "confused",
            Reaction::Heart => "heart",
            Reaction::Hooray => "hooray",
            Reaction::Rocket => "rocket",
            Reaction::Eyes => "eyes",
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct AuthorJson {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: String,
}

#[derive(Deserialize)]
struct IssueCommentJson {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    user: Option<AuthorJson>,
    html_url: Option<String>,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
}

impl From<IssueCommentJson> for IssueComment {
    fn from(j: IssueCommentJson) -> IssueComment {
        let (user_login, user_is_bot) = match j.user {
            Some(u) => (u.login, u.kind == "Bot"),
            None => (String::new(), false),
        };
        IssueComment {
            id: CommentId(j.id),
            body: j.body.unwrap_or_default(),
            user_login,
            user_is_bot,
            html_url: j.html_url,
            created_at: j.created_at,
            updated_at: j.updated_at,
        }
    }
}

/// The route listing the comments of `number`, only those updated at or after `since`
/// when given.
fn comments_route(repo: &RepoName, number: u64, since: Option<DateTime<Utc>>) -> String {
    let route = format!("{}/issues/{number}/comments", repo.route());
    match since {
        Some(since) => super::transport::with_query(
            &route,
            &format!(
                "since={}",
                since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        ),
        None => route,
    }
}

/// `body` with `marker` in it: as is if it holds it already, else with the marker on a line
/// of its own at the end.
pub fn with_marker(body: &str, marker: &str) -> String {
    if body.contains(marker) {
        body.to_string()
    } else if body.is_empty() {
        marker.to_string()
    } else {
        format!("{body}\n\n{marker}")
    }
}

impl Installation {
    /// `POST /repos/{owner}/{repo}/issues/{number}/comments`. Not retried after a 5xx or a
    /// timeout ([`GithubError::WriteOutcomeUnknown`]): see
    /// [`create_or_update_marked_comment`](Installation::create_or_update_marked_comment).
    pub async fn create_issue_comment(
        &self,
        repo: &RepoName,
        number: u64,
        body: &str,
    ) -> Result<IssueComment> {
        let route = format!("{}/issues/{number}/comments", repo.route());
        let call = Call::post(route, json!({ "body": body }), RetryMode::NotIdempotent).notifying();
        check_length(&call.what(), "comment body", body, MAX_BODY_CHARS)?;
        let got = self.sender().send_buffered(&call).await?;
        Ok(got.json::<IssueCommentJson>(&call.what())?.into())
    }

    /// `PATCH /repos/{owner}/{repo}/issues/comments/{id}`: replaces the body.
    pub async fn update_issue_comment(
        &self,
        repo: &RepoName,
        id: CommentId,
        body: &str,
    ) -> Result<IssueComment> {
        let route = format!("{}/issues/comments/{}", repo.route(), id.0);
        // The same body sent twice is the same comment: safe to retry.
        let call = Call::patch(route, json!({ "body": body }), RetryMode::Idempotent).notifying();
        check_length(&call.what(), "comment body", body, MAX_BODY_CHARS)?;
        let got = self.sender().send_buffered(&call).await?;
        Ok(got.json::<IssueCommentJson>(&call.what())?.into())
    }

    /// `GET /repos/{owner}/{repo}/issues/{number}/comments`, every page, oldest first.
    pub async fn list_issue_comments(
        &self,
        repo: &RepoName,
        number: u64,
    ) -> Result<Vec<IssueComment>> {
        self.list_issue_comments_since(repo, number, None).await
    }

    /// [`list_issue_comments`](Self::list_issue_comments), only those updated at or
    /// after `since` when given.
    pub async fn list_issue_comments_since(
        &self,
        repo: &RepoName,
        number: u64,
        since: Option<DateTime<Utc>>,
    ) -> Result<Vec<IssueComment>> {
        let route = comments_route(repo, number, since);
        self.sender()
            .get_all_pages(&route, |page: Vec<IssueCommentJson>| {
                page.into_iter().map(IssueComment::from).collect()
            })
            .await
    }

    /// The oldest comment on issue or PR `number` written by this App's bot user
    /// ([`bot_login`](Installation::bot_login)) whose body contains `marker` (a hidden
    /// `<!-- ... -->` line). Comments by anyone else are never taken, even with the marker.
    pub async fn find_marked_comment(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
    ) -> Result<Option<IssueComment>> {
        self.find_marked_comment_since(repo, number, marker, None)
            .await
    }

    /// [`find_marked_comment`](Self::find_marked_comment) among the comments updated at
    /// or after `since` (a reply is never older than what it answers): a thread full of
    /// comments is not listed whole.
    pub async fn find_marked_comment_since(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
        since: Option<DateTime<Utc>>,
    ) -> Result<Option<IssueComment>> {
        let bot = self.bot_login().await?;
        let route = comments_route(repo, number, since);
        // Only ours with the marker are kept, page by page: a thread of long comments by
        // others is never held whole.
        let (ours, complete) = self
            .sender()
            .get_pages_kept(&route, MAX_LISTED_PAGES, |c: IssueCommentJson| {
                let ours = c
                    .user
                    .as_ref()
                    .is_some_and(|u| u.login.eq_ignore_ascii_case(&bot));
                let marked = c.body.as_deref().is_some_and(|b| b.contains(marker));
                (ours && marked).then(|| IssueComment::from(c))
            })
            .await?;
        if !complete && ours.is_empty() {
            tracing::warn!(repo = %repo, number, pages = MAX_LISTED_PAGES, "comments past the pages read were not looked at for our marker");
        }
        Ok(ours.into_iter().next())
    }

    /// The one comment of ours on `number` that carries `marker`: edited to `body` if it
    /// exists (nothing sent when it already says that), posted otherwise. `marker` is added
    /// at the end of `body` when `body` does not hold it.
    ///
    /// When a post fails without saying whether it was applied (a 5xx, a timeout), the
    /// comments are listed again and the marker looked for before posting again, so the PR
    /// never gets two. (GitHub may list a fresh comment a moment late; a caller that stored
    /// the comment's id should edit by id first.)
    pub async fn create_or_update_marked_comment(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
        body: &str,
    ) -> Result<MarkedComment> {
        self.post_marked_comment(repo, number, marker, body, Lookup::All)
            .await
    }

    /// [`create_or_update_marked_comment`](Self::create_or_update_marked_comment), looking
    /// for the earlier comment as `lookup` says first.
    pub async fn post_marked_comment(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
        body: &str,
        lookup: Lookup,
    ) -> Result<MarkedComment> {
        let body = with_marker(body, marker);
        let what = format!("{}/issues/{number}/comments", repo.route());
        check_length(&what, "comment body", &body, MAX_BODY_CHARS)?;
        let since = match lookup {
            Lookup::All => None,
            Lookup::Since(t) | Lookup::NoneYet(t) => t,
        };
        let existing = match lookup {
            Lookup::NoneYet(_) => None,
            _ => {
                self.find_marked_comment_since(repo, number, marker, since)
                    .await?
            }
        };
        if let Some(existing) = existing {
            return self.bring_up_to_date(repo, existing, &body, false).await;
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.create_issue_comment(repo, number, &body).await {
                Ok(comment) => {
                    return Ok(MarkedComment {
                        comment,
                        outcome: MarkedOutcome::Created,
                    })
                }
                Err(GithubError::WriteOutcomeUnknown { what, message }) => {
                    tracing::warn!(%what, %message, attempt, "posting a comment may have failed: looking for it");
                    if let Some(found) = self
                        .find_marked_comment_since(repo, number, marker, since)
                        .await?
                    {
                        return self.bring_up_to_date(repo, found, &body, true).await;
                    }
                    if attempt >= MAX_CREATE_ATTEMPTS {
                        return Err(GithubError::WriteOutcomeUnknown { what, message });
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn bring_up_to_date(
        &self,
        repo: &RepoName,
        comment: IssueComment,
        body: &str,
        just_created: bool,
    ) -> Result<MarkedComment> {
        let created_or = |other| {
            if just_created {
                MarkedOutcome::Created
            } else {
                other
            }
        };
        if comment.body == body {
            return Ok(MarkedComment {
                comment,
                outcome: created_or(MarkedOutcome::Unchanged),
            });
        }
        let comment = self.update_issue_comment(repo, comment.id, body).await?;
        Ok(MarkedComment {
            comment,
            outcome: created_or(MarkedOutcome::Updated),
        })
    }

    /// `POST /repos/{owner}/{repo}/issues/comments/{id}/reactions`: reacts to a comment in
    /// a PR conversation (a command: `eyes` when received, then `rocket` or `confused`).
    /// Reacting twice the same way is one reaction.
    pub async fn add_issue_comment_reaction(
        &self,
        repo: &RepoName,
        id: CommentId,
        reaction: Reaction,
    ) -> Result<()> {
        let route = format!("{}/issues/comments/{}/reactions", repo.route(), id.0);
        self.react(route, reaction).await
    }

    pub(super) async fn react(&self, route: String, reaction: Reaction) -> Result<()> {
        // GitHub answers 200 with the existing reaction when it is there already.
        let call = Call::post(
            route,
            json!({ "content": reaction.content() }),
            RetryMode::Idempotent,
        );
        self.sender().send_buffered(&call).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_is_added_once() {
        let m = "<!-- blast-radius:summary -->";
        assert_eq!(with_marker("hello", m), format!("hello\n\n{m}"));
        assert_eq!(
            with_marker(&format!("{m}\nhello"), m),
            format!("{m}\nhello")
        );
        assert_eq!(with_marker("", m), m);
    }

    #[test]
    fn comments_decode_with_missing_fields() {
        let j: IssueCommentJson = serde_json::from_str(
            r#"{"id":5,"body":null,"user":{"login":"app[bot]","type":"Bot"},"created_at":"2024-01-01T00:00:00Z"}"#,
        )
        .unwrap();
        let c = IssueComment::from(j);
        assert_eq!(c.id, CommentId(5));
        assert!(c.user_is_bot && c.body.is_empty());
    }
}
