import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * Issue #22: an MCP server's progress notifications are its own text, and as many as it likes. A
 * hostile server sends 10,000 of them, full of terminal control sequences and 5,000 characters
 * long, then holds the call: what reaches a program (stream-json) is a handful of bounded lines,
 * what reaches a terminal (tmux that lets panes set titles and the clipboard) is inert, and the run
 * goes on to its end.
 */
const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');
const tmux = await hasTmux();
// The server's message: a title, the clipboard, tmux's window name, a clear, a line break, 5,000 characters.
const FLOOD = { count: 10_000, hostile: true, thenMs: 2000 };

async function floodHome(home: string): Promise<void> {
  await writeSkateSettings(home, { mcpServers: { f: { command: process.execPath, args: [SLOW_SERVER] } } });
}

describe('a flood of hostile MCP progress notifications', () => {
  it('reaches a program (stream-json) as a few bounded one-line progress events, and the run ends normally', async () => {
    await using home = await hostDir('mcp-progress-flood-home-');
    await using ws = await hostDir('mcp-progress-flood-ws-');
    await floodHome(home.path);
    await using api = await fakeMessagesApi([call('f1', 'mcp__f__flood', FLOOD), text('Survived.')]);
    const env = cliEnv({ home: home.path, api: api.url });
    const started = performance.now();
    const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            id?: string;
            text?: string;
            output?: string;
            durationMs?: number;
          },
      );
    const shown = events.filter((event) => event.type === 'tool_output_line' && event.id === 'f1');
    const durationMs =
      events.find((event) => event.type === 'tool_call_result' && event.id === 'f1')?.durationMs ?? 0;
    // Ten a second at most while the call ran (watched from 0.4 s), whatever the server sent.
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown.length).toBeLessThanOrEqual(Math.ceil(durationMs / 100) + 2);
    expect(shown.length).toBeLessThan(200);
    for (const event of shown) {
      expect(event.text).toMatch(/^\d+\/10000 /);
      expect(event.text).not.toMatch(/[\r\n]/);
      expect(event.text!.length).toBeLessThanOrEqual(241);
    }
    expect(events.find((event) => event.type === 'tool_call_result' && event.id === 'f1')?.output).toBe(
      'flood done',
    );
    expect(result.stdout).toContain('Survived.');
    expect(performance.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it.skipIf(!tmux)(
    'shows inert on the running call line in the terminal UI: no title, window name or clipboard set; the run goes on',
    async () => {
      await using home = await hostDir('mcp-progress-flood-tui-home-');
      await floodHome(home.path);
      await using s = await skateTerminal({
        // Wide enough for the call's arguments and then its progress on its one line.
        columns: 200,
        rows: 30,
        env: { HOME: home.path },
        replies: [call('f1', 'mcp__f__flood', FLOOD), text('Survived the flood.'), text('Title')],
        permissive: true,
      });
      const { terminal } = s;
      await terminal.waitFor(/^ INSERT /m, 60_000);
      const title = await terminal.format('#{pane_title}');
      await s.send('flood me');
      // The latest notification on the call's line, its sequences as visible stand-ins.
      const running = await terminal.waitFor(/running [\d.]+s · \d+\/10000 ␛\]0;PWNED-TITLE␇/, 60_000);
      for (const row of running.split('\n')) expect(row.length, row).toBeLessThanOrEqual(200);
      expect(running).toContain('␛]52;c;UFdORUQ=␇␛kPWNED-WINDOW␛\\␛[2J');
      await terminal.waitFor('Survived the flood.', 60_000);
      expect(await terminal.buffers()).toEqual([]);
      expect(await terminal.format('#{pane_title}')).toBe(title);
      expect(await terminal.format('#{window_name}')).not.toContain('PWNED');
      await s.command('q');
      expect((await s.exited()).status).toBe(0);
    },
    180_000,
  );
});
