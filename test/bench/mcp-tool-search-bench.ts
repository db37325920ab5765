import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../harness/project-paths.js';
import { cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const MANY_TOOLS = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'many-tools-server.mjs');

/** The first request's bytes of `skate -p` with the given MCP settings (none: no server). */
async function turn1Bytes(workspace: string, settings: object | undefined): Promise<number> {
  const home = await mkdtemp(path.join(tmpdir(), 'skate-mcp-ts-bench-'));
  try {
    if (settings) {
      await writeSkateSettings(home, settings);
    }
    const hello: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'Hello.' }] };
    // Spare replies: a run may also ask for its session's title.
    await using api = await fakeMessagesApi([hello, hello, hello, hello]);
    const env = cliEnv({ home: home, api: api.url, key: 'sk-bench' });
    // The first run starts the server to learn its tools; the second offers them from memory, as a user's runs do.
    for (let run = 0; run < 2; run++) {
      const result = await runCli(['-p', 'say hello', '--output-format', 'json', '--workspace', workspace], {
        env,
      });
      if (result.code !== 0)
        throw new Error(
          `mcp tool_search bench run failed (${result.code}): ${result.stderr}${result.stdout}`,
        );
    }
    const request = api.requests.filter((r) => (r.body as { tools?: unknown[] } | undefined)?.tools).at(-1);
    if (!request?.body) throw new Error('mcp tool_search bench: no request');
    return Buffer.byteLength(JSON.stringify(request.body));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * Turn-1 request bytes with no MCP server, with a server of 50 tools all listed (a budget they
 * fit), and with the same server past the default budget (tool_search instead of the schemas).
 */
export async function benchMcpToolSearch(): Promise<object> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-mcp-ts-ws-')));
  try {
    const server = { mcpServers: { many: { command: process.execPath, args: [MANY_TOOLS] } } };
    const none = await turn1Bytes(workspace, undefined);
    const listed = await turn1Bytes(workspace, { ...server, mcp: { toolSchemaBudget: 1_000_000 } });
    const searched = await turn1Bytes(workspace, server);
    return {
      turn1BytesNoMcp: none,
      turn1Bytes50McpToolsListed: listed,
      turn1Bytes50McpToolsToolSearch: searched,
      addedBytesListed: listed - none,
      addedBytesToolSearch: searched - none,
      ratioToolSearchToListed: Math.round((searched / listed) * 100) / 100,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
