import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath, projectRoot } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { hasTmux, tmuxTerminal } from '../support/tmux-terminal.js';

/**
 * Hooks as a person meets them at a terminal: the consent question for a workspace's hooks
 * before the UI starts, and a hook's decision as one line in the conversation, at 80 and 200
 * columns (tmux, the built `skate`, a local Messages API).
 */
const tmux = await hasTmux();
const SCRIPT = path.join(projectRoot(), 'test', 'fixtures', 'hooks', 'block-rm-rf.sh');

describe.skipIf(!tmux)('hooks in the terminal UI (tmux)', () => {
  for (const columns of [80, 200]) {
    it(`asks consent for a workspace's hooks, then shows the hook's deny as a line (${columns} columns)`, async () => {
      await using home = await hostDir('tui-hooks-home-');
      await using ws = await hostDir('tui-hooks-ws-');
      await mkdir(path.join(ws.path, 'keep'));
      await writeSkateSettings(ws.path, {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: SCRIPT }] }] },
      });
      const replies: FakeReply[] = [
        {
          type: 'message',
          blocks: [{ type: 'tool_use', id: 'tu_1', name: 'shell', input: { command: 'rm -rf keep' } }],
          stopReason: 'tool_use',
        },
        { type: 'message', blocks: [{ type: 'text', text: 'The hook refused it.' }] },
        { type: 'message', blocks: [{ type: 'text', text: 'A title' }] },
      ];
      await using api = await fakeMessagesApi(replies);
      const skate = `node ${distPath('cli', 'skate.js')} --model claude-sonnet-4-6 --workspace ${ws.path}`;
      await using terminal = await tmuxTerminal({
        command: `${skate}; echo "EXITED $?"; sleep 600`,
        env: { HOME: home.path, ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: api.url },
        columns,
        rows: 30,
      });
      const question = await terminal.waitFor('Run them, now and until the file changes?', 30_000);
      expect(question).toContain('defines hooks');
      await terminal.type('y');
      await terminal.keys('Enter');
      await terminal.waitFor('INSERT', 30_000);
      await terminal.type('clean up');
      await terminal.keys('Enter');
      const screen = await terminal.waitFor('The hook refused it.', 60_000);
      expect(screen).toMatch(/hook PreToolUse\(shell\) denied it: Blocked by policy/);
      expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
      const consent = JSON.parse(await readFile(path.join(home.path, '.skate', 'consent.json'), 'utf8'));
      expect(consent.grants).toEqual([
        expect.objectContaining({ kind: 'hooks', file: path.join(ws.path, '.skate', 'settings.json') }),
      ]);
      await terminal.keys('Escape', ':', 'q', 'Enter');
      await terminal.waitFor('EXITED 0', 30_000);
    }, 120_000);
  }
});
