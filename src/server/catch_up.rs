//! The periodic catch-up: deliveries can be lost (the server was down, GitHub gave up,
//! the database was restored), so every installation is brought in line with GitHub at
//! start and then on a schedule.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::jobs::App;
use crate::model::InstallationId;
use crate::queue::payloads::{installation_key, SyncInstallation};
use crate::queue::NewJob;

/// At start and then every `minutes` (once only with 0), asks for a sync of every
/// installation (see [`to_sync`]).
pub(super) async fn catch_up_loop(app: Arc<App>, minutes: u64, mut stop: watch::Receiver<bool>) {
    loop {
        for (id, account) in to_sync(&app).await {
            let job = NewJob::of(&SyncInstallation {
                installation: id,
                account,
                action: "catch_up".into(),
            })
            .serial(installation_key(id))
            .coalesce(format!("sync_installation:{}", id.0));
            if let Err(e) = app.queue.enqueue(&job).await {
                tracing::warn!(installation = id.0, error = %e, "catch-up not queued");
            }
        }
        if minutes == 0 {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(minutes * 60)) => {}
            _ = stop.wait_for(|s| *s) => return,
        }
    }
}

/// The installations to sync, with the account of those the store does not know yet:
/// every one the store knows (the sync purges one GitHub no longer has), and every one
/// `GET /app/installations` lists that the store lost (a missed `created` delivery, a
/// restored database), unless suspended (no work until unsuspended).
async fn to_sync(app: &App) -> Vec<(InstallationId, Option<String>)> {
    let known = match app.store.installation_ids().await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "catch-up: installations unreadable");
            return Vec::new();
        }
    };
    let mut all: Vec<_> = known.iter().map(|id| (*id, None)).collect();
    match app.github.list_installations().await {
        Ok(listed) => {
            for info in listed {
                if info.suspended || known.contains(&info.id) {
                    continue;
                }
                tracing::info!(
                    installation = info.id.0,
                    "catch-up: an installation the store lacks"
                );
                all.push((info.id, Some(info.account_login)));
            }
        }
        // The known ones still catch up.
        Err(e) => tracing::warn!(error = %e, "catch-up: GitHub's installations unreadable"),
    }
    all
}
