import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * Notices survive the session (#24): a network decision and the refusal it led to are shown in
 * the conversation live, kept in the session log, and shown the same way, in the same place,
 * after `skate --resume ID` in a new process (real tmux, real proxy, real curl).
 */
const tmux = await hasTmux();
const COMMAND = 'curl -sS --max-time 30 http://refused.example.com/ 2>&1 | head -c 80';

const REPLIES: FakeReply[] = [
  {
    type: 'message',
    blocks: [{ type: 'tool_use', id: 'tu_curl', name: 'shell', input: { command: COMMAND } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 100, output_tokens: 10 },
  },
  { type: 'message', blocks: [{ type: 'text', text: 'The proxy said no.' }] },
  // The session's title (a cheap model, after the first run).
  { type: 'message', blocks: [{ type: 'text', text: 'Refused host' }] },
];

/** The conversation's notice lines about the network, in order. */
function networkLines(screen: string): string[] {
  return screen
    .split('\n')
    .map((row) => row.trim())
    .filter((row) => row.startsWith('network: ') || row.includes(' network: '));
}

describe.skipIf(!tmux)('notices after --resume (#24, tmux)', { timeout: 120_000 }, () => {
  it('a network decision and a refusal read the same after skate --resume as they did live', async () => {
    // The first terminal stays (its pane waits after skate quit): disposing it removes the workspace.
    await using s = await skateTerminal({
      replies: REPLIES,
      columns: 120,
      sessions: true,
      args: ['--network', 'registry.example.com'],
    });
    const workspace = s.workspace;
    const { terminal } = s;
    await terminal.waitFor('[ NET: 1 host ]');
    await s.send('fetch it');
    await terminal.waitFor('Never (this session)', 60_000);
    await terminal.type('3');
    const live = networkLines(await terminal.waitFor('The proxy said no.', 60_000));
    expect(live).toHaveLength(2);
    expect(live[0]).toContain('network: never refused.example.com:80 (this session)');
    expect(live[1]).toMatch(/network: refused refused\.example\.com:80 \([^)]+\) — curl/);
    await s.command('q');
    expect((await s.exited()).status).toBe(0);
    const names = await readdir(path.join(workspace, '.skate', 'sessions'));
    const id = names.find((name) => name.endsWith('.jsonl'))!.slice(0, -'.jsonl'.length);
    // On disk: the refusal as a notice, the answer as a network decision.
    const log = await readFile(path.join(workspace, '.skate', 'sessions', `${id}.jsonl`), 'utf8');
    const payloads = log
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line).payload);
    expect(payloads).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        event: expect.objectContaining({ type: 'network_denied', host: 'refused.example.com', port: 80 }),
      }),
    );
    expect(payloads).toContainEqual({
      type: 'network_decision',
      host: 'refused.example.com',
      port: 80,
      decision: 'never',
    });

    await using resumed = await skateTerminal({
      replies: [],
      columns: 120,
      sessions: true,
      workspace,
      args: ['--resume', id],
    });
    const screen = await resumed.terminal.waitFor('The proxy said no.', 30_000);
    expect(networkLines(screen)).toEqual(live);
    // In the same place: after the call that tried, before the reply that followed it.
    const at = (text: string): number => screen.indexOf(text);
    expect(at('▸ shell(')).toBeLessThan(at('network: never'));
    expect(at('network: refused refused.example.com')).toBeLessThan(at('The proxy said no.'));
  });
});
