import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { tempDir } from '../support/temp-dir.js';
import { tmuxTerminal } from '../support/tmux-terminal.js';

function skateCommand(workspace: string, prompt: string): string {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  return [
    process.execPath,
    distPath('cli', 'skate.js'),
    '-p',
    prompt,
    '--approval',
    'ask',
    '--workspace',
    workspace,
  ]
    .map(quote)
    .join(' ');
}

function env(baseUrl: string): Record<string, string> {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return {
    ...Object.fromEntries(inherited),
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: baseUrl,
    NO_COLOR: '1',
  };
}

/** The command in a 200×50 terminal; `[exit N]` is printed when it ends, and the pane stays open. */
function terminal(command: string, environment: Record<string, string>) {
  return tmuxTerminal({
    command: `${command}; echo "[exit $?]"; sleep 600`,
    env: environment,
    columns: 200,
    rows: 50,
  });
}

describe('the approval prompt in a real terminal (tmux)', () => {
  it('shows the command it asks about and holds parallel output until it is answered', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_1', name: 'shell', input: { command: 'echo from-the-shell' } },
          { type: 'tool_use', id: 'tu_2', name: 'list_dir', input: { path: '.' } },
        ],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Finished.' }] },
    ]);
    await using term = await terminal(skateCommand(dir.path, 'run it'), env(api.url));
    await term.waitFor(/\[y\/N or a reason\]/);
    // list_dir needs no approval and is done at once; its result must wait for the answer.
    await sleep(700);
    const asking = await term.screen();
    expect(asking).toContain('allow shell?');
    expect(asking).toContain('$ echo from-the-shell');
    expect(asking).not.toMatch(/↳ .*entries/);
    const lines = asking.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('[y/N or a reason]');

    await term.keys('y', 'Enter');
    const after = await term.waitFor(/\[exit \d+\]/);
    expect(after).toContain('[exit 0]');
    expect(after).toMatch(/↳ .*entries/);
    expect(after).toMatch(/exit 0 · \d+ lines? · \d+ ms\n\s+from-the-shell/);
    expect(after).toContain('Finished.');
  });

  it('cancels cleanly on the first Ctrl-C at the prompt, showing the edit it asked about', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'greet.js');
    await writeFile(file, 'export const greet = () => "hello";\n');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_1',
            name: 'edit_file',
            input: { path: 'greet.js', old_string: '"hello"', new_string: '"good morning"' },
          },
        ],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Should not be asked for.' }] },
    ]);
    await using term = await terminal(skateCommand(dir.path, 'edit it'), env(api.url));
    const asking = await term.waitFor(/\[y\/N or a reason\]/);
    expect(asking).toContain('allow edit_file?');
    expect(asking).toContain('greet.js');
    expect(asking).toContain('- "hello"');
    expect(asking).toContain('+ "good morning"');

    await term.keys('C-c');
    const after = await term.waitFor(/\[exit \d+\]/, 10_000);
    expect(after).toContain('[exit 130]');
    expect(after).toContain('interrupting');
    expect(after).not.toContain('could not answer');
    expect(after).not.toContain('AbortError');
    expect(await readFile(file, 'utf8')).toBe('export const greet = () => "hello";\n');
    expect(api.requests).toHaveLength(1);
  });
});
