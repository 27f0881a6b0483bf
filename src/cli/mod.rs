//! The `blast-radius` command line: argument parsing and one function per subcommand.

mod deliver;
mod jobs;
pub mod logs;
mod progress;
mod secrets;
mod subcommands;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
pub use secrets::parse;

#[derive(Parser)]
#[command(
    name = "blast-radius",
    version,
    about = "Call graphs of JavaScript/TypeScript repositories, and the callers a change did not touch"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Args, Clone)]
pub struct RepoArgs {
    /// The repository (a git repository or a plain directory).
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Files larger than this many bytes are skipped.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_bytes: usize,
    /// Postgres URL: `index` stores the graph there; the other commands answer from the
    /// stored graph instead of indexing.
    #[arg(long, env = "BLAST_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// The repository's name in the database (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Neither read from nor write to the per-user cache of parsed files (see `cache`).
    #[arg(long, env = "BLAST_RADIUS_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_cache: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Index the repository and print what it holds.
    Index {
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// Who calls TARGET (a name, a qualified name, or FILE:LINE of a definition).
    Callers {
        target: String,
        /// Also callers of callers, this many levels.
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = AnswerFormat::Text)]
        format: AnswerFormat,
        /// Also the calls that the other repositories of its installation (in the
        /// database of --database-url) make into the repository's packages and that reach
        /// TARGET.
        #[arg(long, requires = "database_url")]
        org: bool,
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// What TARGET calls.
    Callees {
        target: String,
        #[arg(long, value_enum, default_value_t = AnswerFormat::Text)]
        format: AnswerFormat,
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// A call path from FROM to TO.
    Path {
        from: String,
        to: String,
        #[arg(long, value_enum, default_value_t = AnswerFormat::Text)]
        format: AnswerFormat,
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// The whole graph.
    Graph {
        #[arg(long, value_enum, default_value_t = GraphFormat::Json)]
        format: GraphFormat,
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// The blast radius of the change from BASE to HEAD: changed functions and the
    /// callers the change did not touch.
    Blast {
        #[arg(long)]
        base: String,
        #[arg(long, default_value = "HEAD")]
        head: String,
        /// Callers up to this many levels away.
        #[arg(long, default_value_t = 2)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
        format: ReportFormat,
        #[command(flatten)]
        repo: RepoArgs,
    },
    /// Serve the graph to coding agents over the Model Context Protocol (stdio; Streamable
    /// HTTP with --http): find_callers, find_callees, call_path, blast_radius,
    /// search_definitions. The graph follows edits on disk while it runs.
    Mcp {
        #[command(flatten)]
        repo: RepoArgs,
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8808).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// A host name (or host:port) clients may reach the HTTP server by, besides
        /// loopback addresses (the Host header is checked against DNS rebinding).
        #[arg(long, value_name = "HOST")]
        allowed_host: Vec<String>,
        /// With --http: the token every request must carry (`Authorization: Bearer
        /// TOKEN`); required unless ADDR is a loopback address.
        #[arg(long, env = "BLAST_MCP_TOKEN", hide_env_values = true)]
        token: Option<secrecy::SecretString>,
        /// find_callers also lists the calls that the other repositories of the stored
        /// repository's installation make into its packages.
        #[arg(long, requires = "database_url")]
        org: bool,
    },
    /// The facts extracted from one file, one per line (for debugging the extractor).
    Facts { file: PathBuf },
    /// The per-user cache of parsed files that `index`, `blast`, `callers` and the other
    /// local commands share: where it is and what it holds, or --clear to empty it. It
    /// lives in $BLAST_RADIUS_CACHE_DIR, else the platform's cache directory, and holds
    /// at most $BLAST_RADIUS_CACHE_MAX_MB megabytes (2048).
    Cache {
        /// Remove every entry.
        #[arg(long)]
        clear: bool,
    },
    /// Run the GitHub App: receive webhooks and keep every installed repository's graph
    /// current (intake and workers in one process).
    Serve {
        #[command(flatten)]
        server: crate::server::settings::ServerArgs,
        /// Do not apply pending database migrations at start.
        #[arg(long)]
        no_migrate: bool,
    },
    /// Run workers only: more processes, on any machine, sharing `serve`'s database.
    Work {
        #[command(flatten)]
        server: crate::server::settings::ServerArgs,
    },
    /// Check the server's configuration (the same flags and environment as `serve`), the
    /// database and GitHub: print what passed and every problem; exit non-zero on any.
    CheckConfig {
        #[command(flatten)]
        server: crate::server::settings::ServerArgs,
    },
    /// Sign a webhook payload with the App's secret and post it as GitHub would (to
    /// replay a delivery against a local server).
    Deliver {
        /// The event: push, pull_request, issue_comment, installation, ...
        #[arg(long)]
        event: String,
        /// The payload: a JSON file, as GitHub sent it (the App's "Recent Deliveries"
        /// page shows each one).
        #[arg(long)]
        payload: PathBuf,
        /// Where to post it.
        #[arg(long, default_value = "http://127.0.0.1:3000/webhook")]
        url: String,
        /// The webhook secret (the first, when several are comma-separated). Unset: the
        /// secret of the App `/setup` stored, read with DATABASE_URL and
        /// BLAST_CREDENTIALS_KEY.
        #[arg(long, env = "GITHUB_WEBHOOK_SECRET", hide_env_values = true)]
        secret: Option<secrecy::SecretString>,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: Option<secrecy::SecretString>,
        #[arg(long, env = "BLAST_CREDENTIALS_KEY", hide_env_values = true)]
        credentials_key: Option<secrecy::SecretString>,
        /// The delivery id (default: a new random one; the same id twice is a redelivery).
        #[arg(long)]
        delivery: Option<String>,
    },
    /// The App's job queue, for operators: list jobs, retry dead ones.
    Jobs {
        #[command(subcommand)]
        command: jobs::JobsCommand,
        /// Postgres (else `BLAST_DATABASE_URL`, else the server's `DATABASE_URL`).
        #[arg(
            long,
            env = "BLAST_DATABASE_URL",
            global = true,
            hide_env_values = true
        )]
        database_url: Option<String>,
    },
    /// Apply the database migrations.
    Migrate {
        /// Postgres (else `BLAST_DATABASE_URL`, else the server's `DATABASE_URL`, so a
        /// deployment's release step needs no flag).
        #[arg(long, env = "BLAST_DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum GraphFormat {
    Json,
    Dot,
    Graphml,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnswerFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    Markdown,
    Json,
}

/// The database a server command works on: the flag, else the server's `DATABASE_URL`
/// (so a deployment's release step or an operator's shell needs no flag).
fn server_database(flag: Option<String>) -> anyhow::Result<String> {
    flag.or_else(|| std::env::var("DATABASE_URL").ok())
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "say which database: --database-url postgres://USER:PASSWORD@HOST:5432/DATABASE (or DATABASE_URL)"
            )
        })
}

/// Runs the command line; the error is what the user is told.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Index { repo } => subcommands::index(&repo),
        Command::Callers {
            target,
            depth,
            format,
            org,
            repo,
        } => subcommands::callers(&repo, &target, depth, format, org),
        Command::Callees {
            target,
            format,
            repo,
        } => subcommands::callees(&repo, &target, format),
        Command::Path {
            from,
            to,
            format,
            repo,
        } => subcommands::path(&repo, &from, &to, format),
        Command::Graph { format, repo } => subcommands::graph(&repo, format),
        Command::Blast {
            base,
            head,
            depth,
            format,
            repo,
        } => subcommands::blast(&repo, &base, &head, depth, format),
        Command::Mcp {
            repo,
            http,
            allowed_host,
            token,
            org,
        } => subcommands::mcp(&repo, http, allowed_host, token, org),
        Command::Facts { file } => subcommands::facts(&file),
        Command::Cache { clear } => subcommands::cache(clear),
        Command::Migrate { database_url } => subcommands::migrate(&server_database(database_url)?),
        Command::Jobs {
            command,
            database_url,
        } => jobs::run(&server_database(database_url)?, command),
        Command::CheckConfig { server } => subcommands::check_config(&server),
        Command::Deliver {
            event,
            payload,
            url,
            secret,
            database_url,
            credentials_key,
            delivery,
        } => {
            let secret = match secret {
                Some(secret) => secret,
                None => deliver::stored_secret(database_url, credentials_key)?,
            };
            deliver::deliver(&event, &payload, &url, &secret, delivery)
        }
        Command::Serve { server, no_migrate } => subcommands::serve(
            &server,
            crate::server::Mode::Serve {
                migrate: !no_migrate,
            },
        ),
        Command::Work { server } => subcommands::serve(&server, crate::server::Mode::Work),
    }
}
