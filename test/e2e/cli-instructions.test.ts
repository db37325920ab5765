import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

function systemText(body: { system?: unknown } | undefined): string {
  return JSON.stringify(body?.system ?? '');
}

describe('project instructions (AGENTS.md)', () => {
  it('reach the system prompt of the agent and of its sub-agents; --verbose says which were loaded', async () => {
    await using home = await hostDir('instructions-home-');
    await using ws = await tempDir();
    await mkdir(path.join(ws.path, '.git'));
    await writeFile(path.join(ws.path, 'AGENTS.md'), 'Always run `make check` before finishing.\n');
    await mkdir(path.join(home.path, '.skate'));
    await writeFile(path.join(home.path, '.skate', 'AGENTS.md'), 'Write British English.\n');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_1',
            name: 'spawn_agent',
            input: { task: 'look around', read_only: true },
          },
        ],
        stopReason: 'tool_use',
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_c1',
            name: 'complete_task',
            input: {
              status: 'completed',
              summary: 'looked',
              files_changed: [],
              tests_run: [],
              follow_ups: [],
            },
          },
        ],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] },
    ]);
    const result = await runCli(['-p', 'go', '--workspace', ws.path, '--verbose'], {
      env: { ...process.env, HOME: home.path, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: api.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `instructions: ${home.path}/.skate/AGENTS.md \\(\\d+ bytes\\), ${ws.path}/AGENTS.md \\(\\d+ bytes\\)`,
      ),
    );
    expect(api.requests).toHaveLength(3);
    for (const request of api.requests) {
      const system = systemText(request.body);
      expect(system).toContain('Always run `make check` before finishing.');
      expect(system).toContain('Write British English.');
    }
    // The sub-agent's prompt is the one with the sub-agent section.
    expect(
      api.requests.filter((request) => systemText(request.body).includes('You are a sub-agent')),
    ).toHaveLength(1);
  });
});
