import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * MCP resources are read by the server in its own executor: a server that offers any file by path
 * (the test server's `test://file?path=`) reads what its confinement lets it, not the user's secrets.
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const SSH_KEY = 'FAKE-PRIVATE-KEY-for-mcp-resources';

describe('MCP resources', () => {
  it('a resource naming ~/.ssh/id_rsa reads nothing of it: neither the result nor the model’s next request holds the key', async () => {
    await using home = await hostDir('mcpres-sec-home-');
    await using ws = await hostDir('mcpres-sec-ws-');
    await mkdir(path.join(home.path, '.ssh'));
    const key = path.join(home.path, '.ssh', 'id_rsa');
    await writeFile(key, SSH_KEY);
    await writeFile(path.join(ws.path, 'visible.txt'), 'workspace text');
    await writeSkateSettings(home.path, {
      mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('k', 'mcp_read_resource', { server: 't', uri: `test://file?path=${encodeURIComponent(key)}` }),
      call('v', 'mcp_read_resource', {
        server: 't',
        uri: `test://file?path=${encodeURIComponent(path.join(ws.path, 'visible.txt'))}`,
      }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    // The control: the same resource reads a workspace file, so the path reached the server.
    expect(run.stdout).toContain('workspace text');
    expect(run.stdout).not.toContain(SSH_KEY);
    expect(JSON.stringify(api.requests.map((r) => r.body))).not.toContain(SSH_KEY);
  }, 120_000);
});
