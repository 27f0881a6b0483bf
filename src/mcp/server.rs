//! The MCP handler: five tools and one resource over the served graph. Each tool asks
//! the query layer and returns the JSON the CLI's `--format json` prints (as structured
//! content, and as text for clients that read only text). A target that names no
//! definition, or several, is a tool error carrying the candidates.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Value};

use super::blast_tool::{blast_radius, BlastArgs};
use super::live::{Served, Snapshot};
use crate::graph::DefId;
use crate::links::across::{served_by, Served as ServedEndpoint};
use crate::org;
use crate::query;
use crate::report::json;
use crate::workflow::elsewhere::calls_into_packages;
use crate::workflow::links_across::{callers_of, Asking};

/// The graph's summary, as a resource.
pub const SUMMARY_URI: &str = "blast-radius://graph/summary";

/// Definitions a search lists unless asked for another number, and at most.
const SEARCH_LIMIT: usize = 20;
const SEARCH_MAX: usize = 500;

const INSTRUCTIONS: &str =
    "Blast Radius: a deterministic call graph of this JavaScript/TypeScript \
repository (tree-sitter; imports, classes and types resolved). Before you change a function's \
behaviour or signature, call find_callers to see every call site you must check; after editing, \
call blast_radius (no arguments: your uncommitted change) to list the callers your change did \
not touch. Targets are a name, Class.method, or FILE:LINE of the definition; search_definitions \
finds the exact spelling. When an answer's `complete` is false, the list is a lower bound. \
The graph follows edits on disk: ask again after you edit.";

#[derive(Clone)]
pub struct GraphServer {
    served: Arc<Served>,
    /// The repository directory (git commands for blast_radius run there).
    repo: PathBuf,
    /// Whether find_callers adds the calls the other repositories of the stored graph's
    /// installation make into it (`mcp --database-url ... --org`).
    org: bool,
    tool_router: ToolRouter<GraphServer>,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct CallersArgs {
    /// The function: its name (`classifyFields`), qualified name (`UserService.getUser`),
    /// or FILE:LINE of its definition (`src/users.ts:12`).
    pub target: String,
    /// Levels of callers: 1 (default) lists the call sites of the target; 2 adds the
    /// callers of those callers, and so on.
    #[serde(default)]
    pub depth: Option<u32>,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct TargetArgs {
    /// The function: its name, qualified name (`Class.method`), or FILE:LINE of its
    /// definition.
    pub target: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct PathArgs {
    /// Where the path starts: a name, `Class.method`, or FILE:LINE.
    pub from: String,
    /// Where it ends: a name, `Class.method`, or FILE:LINE.
    pub to: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct BlastRadiusArgs {
    /// The git revision the change starts from (a branch, tag or commit). Default: HEAD.
    #[serde(default)]
    pub base: Option<String>,
    /// The git revision the change ends at. Default: the working tree as it is on disk,
    /// uncommitted edits and new files included.
    #[serde(default)]
    pub head: Option<String>,
    /// Levels of callers to follow from each changed function (default 2).
    #[serde(default)]
    pub depth: Option<u32>,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// A name or part of one (any case), a qualified name, a file path (its definitions),
    /// or FILE:LINE.
    pub query: String,
    /// How many definitions to list (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A tool's answer: the JSON as structured content and as text.
fn answer(value: Value) -> CallToolResult {
    CallToolResult::structured(value)
}

/// A tool error the model can act on: what went wrong, as the same kind of JSON.
fn failure(error: &str, message: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::structured_error(json!({ "error": error, "message": message.to_string() }))
}

impl GraphServer {
    pub fn new(served: Arc<Served>, repo: PathBuf, org: bool) -> GraphServer {
        GraphServer {
            served,
            repo,
            org,
            tool_router: Self::tool_router(),
        }
    }

    /// The graph as it is now, or the tool error that says why there is none.
    async fn snapshot(&self) -> Result<Arc<Snapshot>, CallToolResult> {
        self.served
            .current()
            .await
            .map_err(|e| failure("graph_unavailable", format!("{e:#}")))
    }

    /// With `--org`, the calls from the installation's other repositories that reach
    /// `def`, as a callers answer's `elsewhere` list.
    async fn elsewhere(
        &self,
        snapshot: &Snapshot,
        def: DefId,
    ) -> Result<Option<Value>, CallToolResult> {
        let (true, Some((store, name))) = (self.org, self.served.stored()) else {
            return Ok(None);
        };
        let unavailable = |e: anyhow::Error| failure("org_unavailable", format!("{e:#}"));
        let state = store
            .repository(name)
            .await
            .map_err(|e| unavailable(e.into()))?;
        let calls = calls_into_packages(store, state.installation, state.id, &snapshot.graph)
            .await
            .map_err(unavailable)?
            .calls;
        let reached = org::reaching(&snapshot.graph, def, &calls);
        Ok(Some(json::calls_elsewhere(&calls, &reached)))
    }
}

impl GraphServer {
    /// With `--org`, the clients and producers that reach the routes and topics `def`
    /// handles (issue 47): this repository's, from its graph, and those the database's
    /// other repositories of its installation store, as a callers answer's `across`
    /// list; None when it handles none.
    async fn across(
        &self,
        snapshot: &Snapshot,
        def: DefId,
    ) -> Result<Option<Value>, CallToolResult> {
        let (true, Some((store, name))) = (self.org, self.served.stored()) else {
            return Ok(None);
        };
        let links = crate::links::resolve(&snapshot.graph);
        let served: Vec<ServedEndpoint> = served_by(&links, def)
            .into_iter()
            .map(|endpoint| ServedEndpoint {
                changed: 0,
                endpoint,
            })
            .collect();
        if served.is_empty() {
            return Ok(None);
        }
        let unavailable = |e: anyhow::Error| failure("org_unavailable", format!("{e:#}"));
        let state = store
            .repository(name)
            .await
            .map_err(|e| unavailable(e.into()))?;
        let commit = state.commit.as_ref().map(|c| c.as_str().to_string());
        let asking = Asking {
            installation: state.installation,
            repo: state.id,
            full_name: &state.full_name,
            // Said of its own sites only; the answer marks every site's repository.
            private: false,
            commit: commit.as_deref(),
        };
        let across = callers_of(store, &asking, &links, served)
            .await
            .map_err(unavailable)?;
        Ok(Some(json::links_across(
            &across.served,
            &across.callers,
            &across.found,
        )))
    }
}

/// One definition from a TARGET, or the tool error with the candidates.
fn lookup(snapshot: &Snapshot, target: &str) -> Result<DefId, CallToolResult> {
    snapshot
        .names()
        .lookup(&snapshot.graph, target)
        .map_err(|e| CallToolResult::structured_error(json::target_error(&e)))
}

fn either(r: Result<CallToolResult, CallToolResult>) -> Result<CallToolResult, ErrorData> {
    Ok(r.unwrap_or_else(|e| e))
}

#[tool_router]
impl GraphServer {
    /// Every call site of a function (a lower bound when `complete` is false): file,
    /// line, column, the calling function, the call's kind and how sure the graph is
    /// (`exact`: resolved through imports, classes or types; `likely`/`possible`: matched
    /// by name). Ask before changing a function's behaviour or signature.
    #[tool(name = "find_callers", annotations(read_only_hint = true))]
    async fn find_callers(
        &self,
        Parameters(args): Parameters<CallersArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        either(
            async {
                let snapshot = self.snapshot().await?;
                let d = lookup(&snapshot, &args.target)?;
                let found = snapshot.names().callers(
                    &snapshot.graph,
                    d,
                    args.depth.unwrap_or(1),
                    snapshot.skipped.len(),
                );
                let mut value = json::callers(&found);
                if let Some(elsewhere) = self.elsewhere(&snapshot, d).await? {
                    value["elsewhere"] = elsewhere;
                }
                if let Some(across) = self.across(&snapshot, d).await? {
                    value["across"] = across;
                }
                Ok(answer(value))
            }
            .await,
        )
    }

    /// What a function calls: each call site in it and the definition it resolves to,
    /// with the call's kind and confidence.
    #[tool(name = "find_callees", annotations(read_only_hint = true))]
    async fn find_callees(
        &self,
        Parameters(args): Parameters<TargetArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        either(
            async {
                let snapshot = self.snapshot().await?;
                let d = lookup(&snapshot, &args.target)?;
                let g = &snapshot.graph;
                Ok(answer(json::callees(
                    &query::describe(g, d),
                    &query::callees(g, d),
                )))
            }
            .await,
        )
    }

    /// A chain of calls from one function to another (`path`: each step a definition,
    /// `from` first), or `path: null` when `from` never reaches `to`.
    #[tool(name = "call_path", annotations(read_only_hint = true))]
    async fn call_path(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        either(
            async {
                let snapshot = self.snapshot().await?;
                let (a, b) = (lookup(&snapshot, &args.from)?, lookup(&snapshot, &args.to)?);
                let g = &snapshot.graph;
                let found = query::path(g, a, b);
                Ok(answer(json::path(
                    &query::describe(g, a),
                    &query::describe(g, b),
                    found.as_deref(),
                )))
            }
            .await,
        )
    }

    /// The blast radius of a change: the functions it changed (signature, body, removed,
    /// renamed) and their callers, each marked `touched: false` when the change did not
    /// edit it — the call sites to check before shipping. With no arguments: your
    /// uncommitted change (working tree against HEAD). With `base` only: the working
    /// tree against that revision; with both: the commits between them.
    #[tool(name = "blast_radius", annotations(read_only_hint = true))]
    async fn blast_radius(
        &self,
        Parameters(args): Parameters<BlastRadiusArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = BlastArgs {
            base: args.base,
            head: args.head,
            depth: args.depth.unwrap_or(2).max(1),
        };
        Ok(match blast_radius(&self.served, &self.repo, args).await {
            Ok(report) => answer(json::blast(&report)),
            Err(e) => failure("blast_failed", format!("{e:#}")),
        })
    }

    /// Definitions by name, ranked: exact names first, then the same but for case, then
    /// names starting with the query, then names containing it; a file path lists that
    /// file's definitions. When nothing matches, `did_you_mean` holds the closest names.
    /// Use it to find the exact target for the other tools.
    #[tool(name = "search_definitions", annotations(read_only_hint = true))]
    async fn search_definitions(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        either(
            async {
                let snapshot = self.snapshot().await?;
                let limit = args.limit.unwrap_or(SEARCH_LIMIT).clamp(1, SEARCH_MAX);
                let found = query::search(&snapshot.graph, &args.query, limit);
                Ok(answer(json::search(&found)))
            }
            .await,
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for GraphServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            "blast-radius",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            SUMMARY_URI,
            "graph-summary",
        )
        .with_title("Call graph summary")
        .with_description(
            "Files, definitions, call sites, edges by confidence, unmatched calls, and the \
             files the index skipped (callers in them are missing from every answer).",
        )
        .with_mime_type("application/json")]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != SUMMARY_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}; the summary is {SUMMARY_URI}", request.uri),
                None,
            ));
        }
        let snapshot = self
            .served
            .current()
            .await
            .map_err(|e| ErrorData::internal_error(format!("{e:#}"), None))?;
        let summary = query::summary(&snapshot.graph, &snapshot.skipped_list());
        let text = json::pretty(&json::summary(&summary));
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, SUMMARY_URI).with_mime_type("application/json")
        ])
        .into())
    }
}
