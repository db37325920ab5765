import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliWorld, textReply, toolCall } from '../support/cli-world.js';

/**
 * A sub-agent's own notices (a connection the proxy refused it) are kept in its own session log,
 * which is in the session format: `skate sessions show CHILD` prints them where they happened, and
 * the parent's log does not hold them a second time (real proxy, real curl in the child's sandbox).
 */
const KEY = 'sk-ant-test-sub-agent-notices';
const COMMAND = 'curl -sS --max-time 30 http://refused.example.com/ 2>&1 | head -c 80';

describe('a sub-agent’s notices', () => {
  it('a refusal by the proxy is in the child’s log: skate sessions show CHILD prints it, the parent’s log does not', async () => {
    await using world = await cliWorld({
      key: KEY,
      prefix: 'child-notices-',
      replies: [
        toolCall('s1', 'spawn_agent', { task: 'NET-CHILD: fetch the page' }),
        textReply('The child was refused.'),
      ],
    });
    const { api, ws } = world;
    api.enqueueFor(
      'NET-CHILD',
      toolCall('c1', 'shell', { command: COMMAND }),
      toolCall('c2', 'complete_task', { status: 'failed', summary: 'refused' }),
    );
    const run = await world.skate(
      ['-p', 'delegate', '--workspace', ws, '--network', 'registry.example.com'],
      {
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);

    const dir = path.join(ws, '.skate', 'sessions');
    const headers = await Promise.all(
      (await readdir(dir))
        .filter((name) => name.endsWith('.jsonl'))
        .map(async (name) => {
          const text = await readFile(path.join(dir, name), 'utf8');
          return {
            text,
            header: JSON.parse(text.slice(0, text.indexOf('\n'))) as { id: string; parentSessionId?: string },
          };
        }),
    );
    const child = headers.find((h) => h.header.parentSessionId);
    const parent = headers.find((h) => !h.header.parentSessionId);
    expect(child && parent, JSON.stringify(headers.map((h) => h.header))).toBeTruthy();
    if (!child || !parent) return;

    const shown = await world.skate(['sessions', 'show', child.header.id, '--workspace', ws]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split('\n');
    const refusal = lines.findIndex((line) => /network: refused refused\.example\.com:80 .*curl/.test(line));
    expect(refusal, shown.stdout).toBeGreaterThan(-1);
    // Where it happened: after the child's shell call, before its complete_task.
    expect(lines.findIndex((line) => line.includes('→ shell'))).toBeLessThan(refusal);
    expect(lines.findIndex((line) => line.includes('→ complete_task'))).toBeGreaterThan(refusal);
    // The child's, once: not in the parent's log too.
    expect(child.text).toContain('"type":"notice"');
    expect(parent.text).not.toContain('"type":"notice"');
  });
});
