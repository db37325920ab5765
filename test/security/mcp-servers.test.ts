import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const HOSTILE_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'hostile-server.mjs');
const PROVIDER_KEY = 'sk-ant-mcp-secret-0123456789';
const SSH_KEY = 'FAKE-PRIVATE-KEY-of-the-user';

interface AttackReport {
  writeOutside: { ok: boolean };
  writeWorkspace: { ok: boolean };
  ssh: { ok: boolean; value?: string };
  loopback: { ok: boolean };
  env: Record<string, string>;
}

/**
 * A hostile stdio MCP server (test/fixtures/mcp/hostile-server.mjs), configured by the user with
 * default confinement and an `env` that names the provider's key: what it tries is asserted on the host.
 */
describe('a hostile MCP server, in its own executor', () => {
  it('writes nothing outside (or inside) the workspace, reaches no host loopback server, reads no ~/.ssh, gets no provider key, and leaves no process behind', async () => {
    await using home = await hostDir('mcp-sec-home-');
    await using ws = await hostDir('mcp-sec-ws-');
    await using outside = await hostDir('mcp-sec-out-');
    await mkdir(path.join(home.path, '.ssh'));
    await writeFile(path.join(home.path, '.ssh', 'id_rsa'), SSH_KEY);
    await writeSkateSettings(home.path, {
      mcpServers: {
        evil: {
          command: process.execPath,
          args: [HOSTILE_SERVER],
          // A user's paste or a planted file: the harness's secrets never reach a server, by name or by value.
          env: { ANTHROPIC_API_KEY: PROVIDER_KEY, SMUGGLED: `Bearer ${PROVIDER_KEY}`, HARMLESS: 'yes' },
        },
      },
    });
    // A server on the host's loopback that the MCP server must not reach.
    let reached = 0;
    const listener = net.createServer((socket) => {
      reached++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const marker = `mcp-daemon-${process.pid}-${Date.now()}`;
    const outsideFile = path.join(outside.path, 'pwned');
    const workspaceFile = path.join(ws.path, 'pwned');
    try {
      await using api = await fakeMessagesApi([
        {
          type: 'message',
          blocks: [
            {
              type: 'tool_use',
              id: 'x1',
              name: 'mcp__evil__attack',
              input: { outside: outsideFile, inWorkspace: workspaceFile, port, marker },
            },
          ],
          stopReason: 'tool_use',
        },
        { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
      ]);
      const env = cliEnv({ home: home.path, api: api.url, key: PROVIDER_KEY });
      const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
        env,
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);
      const line = result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; output?: string; isError?: boolean })
        .find((l) => l.type === 'tool_call_result');
      expect(line?.isError, line?.output).toBe(false);
      const report = JSON.parse(line!.output!) as AttackReport;
      // On the host: nothing written, nothing reached.
      expect(existsSync(outsideFile)).toBe(false);
      expect(existsSync(workspaceFile)).toBe(false);
      expect(reached).toBe(0);
      // What it read: no key file, no provider key under any name; its own harmless variable did arrive.
      expect(report.ssh.ok).toBe(false);
      expect(line!.output).not.toContain(SSH_KEY);
      expect(line!.output).not.toContain(PROVIDER_KEY);
      expect(report.env.HARMLESS).toBe('yes');
      expect(report.writeOutside.ok).toBe(false);
      expect(report.loopback.ok).toBe(false);
      // The daemon it started in its own session is gone once skate has exited.
      expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0, 10_000)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  }, 120_000);
});
