// A real MCP client (the official TypeScript SDK) driving `blast-radius mcp` through a
// scenario, for tests/process/mcp.rs: `node client.mjs SCENARIO.json`. The scenario names the
// transport and the steps; every step's result is printed, in order, as one JSON array.
//
//   { "stdio": { "command": "...", "args": [...] } }  or  { "http": "http://127.0.0.1:PORT/mcp" }
//   (with "token": "..." sent as a Bearer token over HTTP)
//   "steps": [
//     { "op": "tools" },                                   // tools/list
//     { "op": "call", "name": "find_callers", "arguments": { "target": "f" } },
//     { "op": "resources" },                               // resources/list
//     { "op": "read", "uri": "blast-radius://graph/summary" },
//     { "op": "write", "path": "/abs/file.js", "text": "..." },  // an edit, no result
//     { "op": "remove", "path": "/abs/file.js" },
//     { "op": "run", "command": "git", "args": [...] }         // a command's stdout
//   ]
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));

const transport = scenario.http
  ? new StreamableHTTPClientTransport(new URL(scenario.http), {
      requestInit: scenario.token ? { headers: { Authorization: `Bearer ${scenario.token}` } } : {},
    })
  : new StdioClientTransport({
      command: scenario.stdio.command,
      args: scenario.stdio.args,
      env: { ...process.env },
      stderr: "inherit",
    });

const client = new Client({ name: "blast-radius-tests", version: "1.0.0" });
await client.connect(transport);

const results = [];
for (const step of scenario.steps) {
  switch (step.op) {
    case "tools":
      results.push((await client.listTools()).tools);
      break;
    case "call":
      results.push(await client.callTool({ name: step.name, arguments: step.arguments ?? {} }));
      break;
    case "resources":
      results.push((await client.listResources()).resources);
      break;
    case "read":
      results.push(await client.readResource({ uri: step.uri }));
      break;
    case "write":
      mkdirSync(dirname(step.path), { recursive: true });
      writeFileSync(step.path, step.text);
      results.push(null);
      break;
    case "remove":
      rmSync(step.path, { force: true });
      results.push(null);
      break;
    case "run":
      results.push(
        execFileSync(step.command, step.args, {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
        }),
      );
      break;
    default:
      throw new Error(`unknown step ${JSON.stringify(step)}`);
  }
}
results.push({ server: client.getServerVersion(), protocol: transport.protocolVersion ?? null });
await client.close();
process.stdout.write(JSON.stringify(results));
