//! A push to a default branch: the handler of `apply_push`.

use super::graph_catch_up::catch_up;
use super::install::active;
use super::{errors, App};
use crate::queue::payloads::ApplyPush;
use crate::queue::JobError;

pub async fn apply_push(app: &App, job: &ApplyPush) -> Result<(), JobError> {
    if !active(app, job.installation, None).await? {
        return Ok(());
    }
    let installation = app.github.installation(job.installation);
    let repo = match installation.get_repository_by_id(job.repository).await {
        Ok(repo) => repo,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(errors::github(e)),
    };
    catch_up(app, &installation, job.installation, &repo).await?;
    Ok(())
}
