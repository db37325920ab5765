import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';

export interface Turn1Figures {
  /** Bytes of the first Messages API request of `skate -p` (system, tools, the prompt). */
  turn1_request_bytes: number;
  /** Of which the tool definitions (names, descriptions, input schemas). */
  turn1_tool_bytes: number;
  turn1_tools: number;
}

/** What the first request of a headless run costs in bytes, every uncached turn. */
export async function benchTurn1(): Promise<Turn1Figures> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-turn1-bench-')));
  try {
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'Hello.' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    ]);
    const result = await runCli(['-p', 'say hello', '--output-format', 'json', '--workspace', workspace], {
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-bench', ANTHROPIC_BASE_URL: api.url },
    });
    const request = api.requests[0];
    if (result.code !== 0 || !request?.body) throw new Error(`turn-1 bench run failed: ${result.stderr}`);
    const tools = (request.body as { tools?: unknown[] }).tools ?? [];
    return {
      turn1_request_bytes: Number(request.headers['content-length'] ?? JSON.stringify(request.body).length),
      turn1_tool_bytes: Buffer.byteLength(JSON.stringify(tools)),
      turn1_tools: tools.length,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
