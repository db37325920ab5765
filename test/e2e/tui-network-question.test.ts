import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { hitTarget } from '../support/network-upstreams.js';
import { hasTmux, tmuxTerminal } from '../support/tmux-terminal.js';

/**
 * A connection the allowlist refuses, as a person at the terminal meets it (issue #21): the
 * command waits, the UI asks (once, for this session, never), the answer lets it through at
 * once and lands in the session log. tmux at 80 and 200 columns, the built `skate`, the real
 * sandbox and proxy, a host loopback server that counts who reached it.
 */
const tmux = await hasTmux();
const support = await probeSandbox();

describe.skipIf(!tmux || !support.available)(
  'a refused host becomes a question in the terminal UI (tmux)',
  () => {
    for (const columns of [80, 200]) {
      it(`asks, and "for this session" lets this and later connections through without asking again (${columns} columns)`, async () => {
        await using home = await hostDir('tui-net-home-');
        await using ws = await hostDir('tui-net-ws-');
        await using target = await hitTarget();
        const { hits, port } = target;
        // Through the proxy on purpose: NO_PROXY keeps the sandbox's own loopback local.
        const fetchOne = target.curlViaProxy;
        const replies: FakeReply[] = [
          {
            type: 'message',
            blocks: [
              {
                type: 'tool_use',
                id: 'tu_1',
                name: 'shell',
                input: { command: `${fetchOne('first')} && ${fetchOne('second')}` },
              },
            ],
            stopReason: 'tool_use',
          },
          { type: 'message', blocks: [{ type: 'text', text: 'Both requests went through.' }] },
          { type: 'message', blocks: [{ type: 'text', text: 'A title' }] },
        ];
        await using api = await fakeMessagesApi(replies);
        const skate = `node ${distPath('cli', 'skate.js')} --model claude-sonnet-4-6 --workspace ${ws.path} --network example.com`;
        await using terminal = await tmuxTerminal({
          command: `${skate}; echo "EXITED $?"; sleep 600`,
          env: { HOME: home.path, ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: api.url },
          columns,
          rows: 30,
        });
        await terminal.waitFor('NET: 1 host', 30_000);
        await terminal.type('fetch both');
        await terminal.keys('Enter');
        const asked = await terminal.waitFor('Allow for this session', 60_000);
        expect(asked).toContain(`127.0.0.1:${port}`);
        expect(asked).toContain('Allow once');
        expect(asked).toContain('Never (this session)');
        // Nothing reached the host while the question was open.
        expect(hits).toEqual([]);
        await terminal.type('2');
        await terminal.waitFor('Both requests went through.', 60_000);
        await terminal.waitFor('NET: 2 hosts', 10_000);
        expect(hits).toEqual(['/first', '/second']);
        await terminal.keys('Escape', ':', 'q', 'Enter');
        await terminal.waitFor('EXITED 0', 30_000);
        const dir = path.join(ws.path, '.skate', 'sessions');
        const [file] = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
        const log = await readFile(path.join(dir, file!), 'utf8');
        expect(log.split('\n').filter((line) => line.includes('network_decision'))).toHaveLength(1);
        expect(log).toContain(`"host":"127.0.0.1","port":${port},"decision":"session"`);
      }, 150_000);
    }
  },
);
