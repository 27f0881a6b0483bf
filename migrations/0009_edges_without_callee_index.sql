-- The edges table's index by callee goes. Every answer the product gives (callers,
-- blast radius, commands, MCP) comes from the graph in memory, loaded from files'
-- resolution column; nothing the App runs reads edges by callee. The index was the
-- dearest part of a repository's first write: its keys arrive in random order, one
-- B-tree insert each, where the caller-file index is written in order. Operators who
-- query callers in SQL still can: `edges_by_caller_file` leads with repo_id, so such a
-- query reads one repository's edges, not the table.
DROP INDEX IF EXISTS edges_by_callee;
