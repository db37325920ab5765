import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { listSessions } from '../../harness/session/session-store.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { tempDir } from '../support/temp-dir.js';
import { hasTmux, tmuxTerminal } from '../support/tmux-terminal.js';

/**
 * The UI's commands in a real terminal: tmux runs the built `skate` against
 * the local Messages API server; keys go in with send-keys, the screen comes
 * back with capture-pane. Sessions are recorded (no --no-session) where the
 * test needs them.
 */
const tmux = await hasTmux();

const text = (words: string, output = 20): Extract<FakeReply, { type: 'message' }> => ({
  type: 'message',
  blocks: [{ type: 'text', text: words }],
  usage: { input_tokens: 400, output_tokens: output },
});

async function ui(replies: FakeReply[], args: string, rows = 30) {
  const dir = await tempDir();
  await writeFile(path.join(dir.path, 'a.ts'), 'export const a = 1;\n');
  const api = await fakeMessagesApi(replies);
  const skate = `node ${distPath('cli', 'skate.js')} --model claude-sonnet-4-6 --workspace ${dir.path} ${args}`;
  const terminal = await tmuxTerminal({
    command: `${skate}; echo "EXITED $?"; sleep 600`,
    env: { ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: api.url, EDITOR: 'true' },
    columns: 100,
    rows,
  });
  return {
    dir,
    api,
    terminal,
    async [Symbol.asyncDispose]() {
      await terminal[Symbol.asyncDispose]();
      await api[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Waits until the server has seen `count` requests and answered the last of them. */
async function requestsDone(api: Awaited<ReturnType<typeof fakeMessagesApi>>, count: number): Promise<void> {
  for (let i = 0; i < 200 && api.requests.length < count; i++) await new Promise((r) => setTimeout(r, 50));
  expect(api.requests.length).toBeGreaterThanOrEqual(count);
  await api.requests[count - 1]!.finished;
}

describe.skipIf(!tmux)('skate UI commands in a real terminal (tmux)', () => {
  it(':sessions lists the titled sessions newest first; Enter resumes an earlier one and the next prompt continues it', async () => {
    await using s = await ui(
      [
        text('First answer.'),
        text('Greeting the first session', 6),
        text('Second answer.'),
        text('Second session title', 6),
        text('Continued the first.'),
      ],
      '',
    );
    const { terminal, api } = s;
    await terminal.waitFor('INSERT');
    await terminal.type('first task');
    await terminal.keys('Enter');
    await terminal.waitFor('First answer.');
    // The title request goes out after the run; let it land before the session is switched.
    await requestsDone(api, 2);
    expect(api.requests[1]!.body!.model).toMatch(/haiku/);
    await terminal.keys('Escape', ':');
    await terminal.type('clear');
    await terminal.keys('Enter');
    await terminal.waitFor('clear: done');
    await terminal.keys('i');
    await terminal.type('second task');
    await terminal.keys('Enter');
    await terminal.waitFor('Second answer.');
    await requestsDone(api, 4);

    await terminal.keys('Escape', ':');
    await terminal.type('sessions');
    await terminal.keys('Enter');
    let screen = await terminal.waitFor('sessions, newest first');
    // Newest first, this one marked; both titled by the cheap model.
    expect(screen).toMatch(/• Second session title/);
    expect(screen.indexOf('Second session title')).toBeLessThan(screen.indexOf('Greeting the first session'));
    await terminal.keys('j', 'Enter');
    screen = await terminal.waitFor('First answer.');
    expect(screen).not.toContain('Second answer.');
    expect(screen).toContain('› first task');

    await terminal.keys('i');
    await terminal.type('go on');
    await terminal.keys('Enter');
    await terminal.waitFor('Continued the first.');
    // The request carried the first session's conversation, not the second's.
    const sent = JSON.stringify(api.requests[4]!.body!.messages);
    expect(sent).toContain('first task');
    expect(sent).not.toContain('second task');
    await terminal.keys('Escape', ':', 'q', 'Enter');
    await terminal.waitFor('EXITED 0');

    const { sessions } = await listSessions(s.dir.path);
    const first = sessions.find((session) => session.title === 'Greeting the first session');
    expect(first).toMatchObject({ prompts: 2, turns: 2, titled: true });
    expect(sessions.find((session) => session.title === 'Second session title')).toMatchObject({
      prompts: 1,
    });
  });

  it('skate "task" on a terminal opens the UI with that task running', async () => {
    await using s = await ui(
      [
        {
          type: 'message',
          blocks: [
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a.ts' } },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 500, output_tokens: 30 },
        },
        // A slow last reply: the UI is up and the task visibly running before it ends.
        { ...text('The file exports a.'), chunkDelayMs: 150 },
      ],
      '--no-session "what does a.ts export"',
    );
    const { terminal, api } = s;
    let screen = await terminal.waitFor('› what does a.ts export');
    expect(screen).toContain('INSERT');
    screen = await terminal.waitFor('The file exports a.');
    expect(screen).toContain('▸ read_file(a.ts)');
    expect(JSON.stringify(api.requests[0]!.body!.messages)).toContain('what does a.ts export');
    // No session, so no title request: the two replies were all.
    expect(api.requests).toHaveLength(2);
    await terminal.keys('Escape', ':', 'q', 'Enter');
    await terminal.waitFor('EXITED 0');
  });
});
