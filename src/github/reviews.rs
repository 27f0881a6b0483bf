//! Pull request reviews: one review with inline comments on diff lines, and what was said
//! before.
//!
//! Sent with our own JSON, not octocrab's `create_review` (it takes octocrab's response
//! model, which cannot be built outside octocrab, and its `event` handling is not ours to
//! choose). Every review we send has `event: COMMENT`: a review without an event stays
//! PENDING, invisible to everyone but its author. Inline comments are on the head side
//! (`side: RIGHT`); GitHub rejects the whole review with 422 when one of them is not on a
//! line of the file's diff hunks, so check them first with
//! [`DiffLines`](super::DiffLines).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};

use super::comments::{AuthorJson, MarkedOutcome, Reaction, MAX_LISTED_PAGES};
use super::error::{GithubError, Result};
use super::installation::Installation;
use super::limits::{check_length, MAX_BODY_CHARS};
use super::repos::RepoName;
use super::retry::RetryMode;
use super::transport::Call;
use crate::model::CommitSha;

/// How many times a marked review is posted at most when GitHub's answers leave open
/// whether it was.
const MAX_CREATE_ATTEMPTS: u32 = 3;

/// A review's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReviewId(pub u64);

/// A review comment's id (an inline comment, in a review thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReviewCommentId(pub u64);

/// An inline comment of a review to send: on head-side `line` of `path` (or lines
/// `start_line..=line`, one hunk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReviewComment {
    pub path: String,
    pub line: u32,
    /// For a comment on several lines: the first, strictly before `line`, in its hunk.
    pub start_line: Option<u32>,
    pub body: String,
}

/// A review to send (always as `event: COMMENT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReview {
    /// The commit the comments' lines refer to; GitHub takes the PR's head when `None`.
    /// Give the head the analysis ran on, so a newer push cannot shift the lines.
    pub commit_id: Option<CommitSha>,
    pub body: String,
    pub comments: Vec<NewReviewComment>,
}

/// A review's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    Commented,
    Approved,
    ChangesRequested,
    Dismissed,
    /// Not submitted: seen by its author only.
    Pending,
    #[serde(other)]
    Unknown,
}

/// A review, with only the fields we use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    pub id: ReviewId,
    pub user_login: String,
    pub body: String,
    pub state: ReviewState,
    pub commit_id: Option<CommitSha>,
    pub submitted_at: Option<DateTime<Utc>>,
    pub html_url: Option<String>,
}

/// An inline review comment, with only the fields we use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewComment {
    pub id: ReviewCommentId,
    pub review_id: Option<ReviewId>,
    pub path: String,
    /// `None` once the line is outdated (no longer in the diff).
    pub line: Option<u32>,
    pub start_line: Option<u32>,
    /// `RIGHT` or `LEFT`.
    pub side: Option<String>,
    pub body: String,
    pub user_login: String,
    pub commit_id: Option<CommitSha>,
    /// The comment this one answers, in a thread.
    pub in_reply_to_id: Option<ReviewCommentId>,
    pub html_url: Option<String>,
}

/// What [`Installation::create_marked_review`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkedReview {
    pub review: Review,
    /// `Created`, or `Unchanged` when a review of ours with the marker was there already.
    pub outcome: MarkedOutcome,
}

#[derive(Deserialize)]
struct ReviewJson {
    id: u64,
    user: Option<AuthorJson>,
    #[serde(default)]
    body: Option<String>,
    state: ReviewState,
    commit_id: Option<String>,
    submitted_at: Option<DateTime<Utc>>,
    html_url: Option<String>,
}

impl From<ReviewJson> for Review {
    fn from(j: ReviewJson) -> Review {
        Review {
            id: ReviewId(j.id),
            user_login: j.user.map(|u| u.login).unwrap_or_default(),
            body: j.body.unwrap_or_default(),
            state: j.state,
            commit_id: j.commit_id.filter(|c| !c.is_empty()).map(CommitSha),
            submitted_at: j.submitted_at,
            html_url: j.html_url,
        }
    }
}

#[derive(Deserialize)]
struct ReviewCommentJson {
    id: u64,
    pull_request_review_id: Option<u64>,
    path: String,
    line: Option<u32>,
    start_line: Option<u32>,
    side: Option<String>,
    #[serde(default)]
    body: String,
    user: Option<AuthorJson>,
    commit_id: Option<String>,
    in_reply_to_id: Option<u64>,
    html_url: Option<String>,
}

impl From<ReviewCommentJson> for ReviewComment {
    fn from(j: ReviewCommentJson) -> ReviewComment {
        ReviewComment {
            id: ReviewCommentId(j.id),
            review_id: j.pull_request_review_id.map(ReviewId),
            path: j.path,
            line: j.line,
            start_line: j.start_line,
            side: j.side,
            body: j.body,
            user_login: j.user.map(|u| u.login).unwrap_or_default(),
            commit_id: j.commit_id.map(CommitSha),
            in_reply_to_id: j.in_reply_to_id.map(ReviewCommentId),
            html_url: j.html_url,
        }
    }
}

/// The JSON of `review`, or why GitHub would refuse it.
fn review_json(what: &str, review: &NewReview) -> Result<Value> {
    check_length(what, "review body", &review.body, MAX_BODY_CHARS)?;
    let mut comments = Vec::with_capacity(review.comments.len());
    for c in &review.comments {
        check_length(what, "review comment body", &c.body, MAX_BODY_CHARS)?;
        let invalid = |message: String| GithubError::Invalid {
            what: what.to_string(),
            message,
        };
        if c.line == 0 {
            return Err(invalid(format!("{}: lines start at 1", c.path)));
        }
        let mut comment = json!({
            "path": c.path,
            "body": c.body,
            "line": c.line,
            "side": "RIGHT",
        });
        if let Some(start) = c.start_line {
            if start == 0 || start >= c.line {
                return Err(invalid(format!(
                    "{}: start_line {start} must precede line {} (GitHub refuses the review)",
                    c.path, c.line
                )));
            }
            comment["start_line"] = json!(start);
            comment["start_side"] = json!("RIGHT");
        }
        comments.push(comment);
    }
    let mut body = json!({
        "body": review.body,
        "event": "COMMENT",
        "comments": comments,
    });
    if let Some(commit) = &review.commit_id {
        body["commit_id"] = json!(commit.as_str());
    }
    Ok(body)
}

impl Installation {
    /// `POST /repos/{owner}/{repo}/pulls/{number}/reviews` with `event: COMMENT` (never
    /// left pending). A comment off the diff makes GitHub refuse the whole review: a 422
    /// ([`GithubError::is_unprocessable`]) saying "Pull request review thread line must be
    /// part of the diff". Not retried after a 5xx or a timeout
    /// ([`GithubError::WriteOutcomeUnknown`]): see
    /// [`create_marked_review`](Self::create_marked_review).
    pub async fn create_review(
        &self,
        repo: &RepoName,
        number: u64,
        review: &NewReview,
    ) -> Result<Review> {
        let route = format!("{}/pulls/{number}/reviews", repo.route());
        let what = format!("POST {route}");
        let body = review_json(&what, review)?;
        let call = Call::post(route, body, RetryMode::NotIdempotent).notifying();
        let got = self.sender().send_buffered(&call).await?;
        Ok(got.json::<ReviewJson>(&call.what())?.into())
    }

    /// The one submitted review of ours on `number` whose body carries `marker` (say, the
    /// head sha it is about): returned as it is if it exists, else `review` is posted, with
    /// `marker` added at the end of its body when missing. After a post that may or may not
    /// have been applied, the reviews are read again before posting again.
    pub async fn create_marked_review(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
        review: &NewReview,
    ) -> Result<MarkedReview> {
        let review = NewReview {
            body: super::comments::with_marker(&review.body, marker),
            ..review.clone()
        };
        review_json(
            &format!("POST {}/pulls/{number}/reviews", repo.route()),
            &review,
        )?;
        if let Some(found) = self.find_marked_review(repo, number, marker).await? {
            return Ok(MarkedReview {
                review: found,
                outcome: MarkedOutcome::Unchanged,
            });
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.create_review(repo, number, &review).await {
                Ok(created) => {
                    return Ok(MarkedReview {
                        review: created,
                        outcome: MarkedOutcome::Created,
                    })
                }
                Err(GithubError::WriteOutcomeUnknown { what, message }) => {
                    tracing::warn!(%what, %message, attempt, "posting a review may have failed: looking for it");
                    if let Some(found) = self.find_marked_review(repo, number, marker).await? {
                        return Ok(MarkedReview {
                            review: found,
                            outcome: MarkedOutcome::Created,
                        });
                    }
                    if attempt >= MAX_CREATE_ATTEMPTS {
                        return Err(GithubError::WriteOutcomeUnknown { what, message });
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The oldest submitted (not pending) review on `number` by this App's bot user whose
    /// body contains `marker`.
    pub async fn find_marked_review(
        &self,
        repo: &RepoName,
        number: u64,
        marker: &str,
    ) -> Result<Option<Review>> {
        let bot = self.bot_login().await?;
        let route = format!("{}/pulls/{number}/reviews", repo.route());
        // Only ours with the marker are kept, page by page, at most MAX_LISTED_PAGES.
        let (ours, _) = self
            .sender()
            .get_pages_kept(&route, MAX_LISTED_PAGES, |r: ReviewJson| {
                let ours = r
                    .user
                    .as_ref()
                    .is_some_and(|u| u.login.eq_ignore_ascii_case(&bot));
                let marked = r.body.as_deref().is_some_and(|b| b.contains(marker));
                (ours && marked && r.state != ReviewState::Pending).then(|| Review::from(r))
            })
            .await?;
        Ok(ours.into_iter().next())
    }

    /// The inline comments `login` (our bot) left on `number`, from at most
    /// [`MAX_LISTED_PAGES`] pages; the others' are dropped page by page, never held.
    pub async fn list_review_comments_by(
        &self,
        repo: &RepoName,
        number: u64,
        login: &str,
    ) -> Result<Vec<ReviewComment>> {
        let route = format!("{}/pulls/{number}/comments", repo.route());
        let (ours, _) = self
            .sender()
            .get_pages_kept(&route, MAX_LISTED_PAGES, |c: ReviewCommentJson| {
                c.user
                    .as_ref()
                    .is_some_and(|u| u.login.eq_ignore_ascii_case(login))
                    .then(|| ReviewComment::from(c))
            })
            .await?;
        Ok(ours)
    }

    /// `GET /repos/{owner}/{repo}/pulls/{number}/reviews`, every page, oldest first.
    pub async fn list_reviews(&self, repo: &RepoName, number: u64) -> Result<Vec<Review>> {
        let route = format!("{}/pulls/{number}/reviews", repo.route());
        self.sender()
            .get_all_pages(&route, |page: Vec<ReviewJson>| {
                page.into_iter().map(Review::from).collect()
            })
            .await
    }

    /// `GET /repos/{owner}/{repo}/pulls/{number}/comments`, every page: the inline comments
    /// of every review of the PR.
    pub async fn list_review_comments(
        &self,
        repo: &RepoName,
        number: u64,
    ) -> Result<Vec<ReviewComment>> {
        let route = format!("{}/pulls/{number}/comments", repo.route());
        self.sender()
            .get_all_pages(&route, |page: Vec<ReviewCommentJson>| {
                page.into_iter().map(ReviewComment::from).collect()
            })
            .await
    }
}

impl Installation {
    /// `POST /repos/{owner}/{repo}/pulls/comments/{id}/reactions`: reacts to a review
    /// comment (a command in a review thread).
    pub async fn add_review_comment_reaction(
        &self,
        repo: &RepoName,
        id: ReviewCommentId,
        reaction: Reaction,
    ) -> Result<()> {
        let route = format!("{}/pulls/comments/{}/reactions", repo.route(), id.0);
        self.react(route, reaction).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(line: u32, start_line: Option<u32>) -> NewReviewComment {
        NewReviewComment {
            path: "src/a.js".into(),
            line,
            start_line,
            body: "called from b.js".into(),
        }
    }

    #[test]
    fn reviews_are_sent_as_comment_with_right_side_anchors() {
        let review = NewReview {
            commit_id: Some(CommitSha("abc".into())),
            body: "summary".into(),
            comments: vec![comment(5, None), comment(9, Some(7))],
        };
        let v = review_json("POST x", &review).unwrap();
        assert_eq!(v["event"], "COMMENT");
        assert_eq!(v["commit_id"], "abc");
        assert_eq!(v["comments"][0]["side"], "RIGHT");
        assert!(v["comments"][0].get("start_line").is_none());
        assert_eq!(v["comments"][1]["start_line"], 7);
        assert_eq!(v["comments"][1]["start_side"], "RIGHT");
        assert!(v.get("position").is_none());
    }

    #[test]
    fn what_github_would_refuse_is_refused_first() {
        let mut review = NewReview {
            commit_id: None,
            body: "x".into(),
            comments: vec![comment(5, Some(5))],
        };
        let err = review_json("POST x", &review).unwrap_err();
        assert!(err.to_string().contains("must precede"), "{err}");
        review.comments = vec![comment(0, None)];
        assert!(review_json("POST x", &review).is_err());
        review.comments = vec![];
        review.body = "b".repeat(MAX_BODY_CHARS + 1);
        let err = review_json("POST x", &review).unwrap_err();
        assert!(matches!(err, GithubError::TooLong { .. }), "{err}");
    }

    #[test]
    fn pending_reviews_decode() {
        let j: ReviewJson = serde_json::from_str(
            r#"{"id":1,"user":{"login":"a"},"body":"","state":"PENDING","commit_id":"c"}"#,
        )
        .unwrap();
        assert_eq!(Review::from(j).state, ReviewState::Pending);
    }
}
