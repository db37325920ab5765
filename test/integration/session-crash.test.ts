import { spawn } from 'node:child_process';
import { readFile, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { NO_RESULT_OUTPUT } from '../../harness/session/close-open-calls.js';
import { loadSession } from '../../harness/session/session-reader.js';
import { resumeSession } from '../../harness/session/session-store.js';
import type { SessionPayload } from '../../shared/session-format.js';
import { crashCycle, usage, userText } from '../support/session-fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const KILLS = 6;

/** The payloads the child logs, in order, for as many cycles as asked. */
function expectedPayloads(cycles: number): SessionPayload[] {
  return Array.from({ length: cycles }, (_, index): SessionPayload[] => {
    const { prompt, reply, results } = crashCycle(index);
    return [
      { type: 'user_message', message: prompt },
      { type: 'assistant_message', message: reply, usage: usage(100, 10), model: 'claude-sonnet-4-5' },
      { type: 'user_message', message: { role: 'user', content: results.content } },
    ];
  }).flat();
}

/** Starts the child, waits until its session exists, lets it write for `delayMs`, then SIGKILLs it. */
async function killMidWrite(workspace: string, delayMs: number): Promise<string> {
  const child = spawn(process.execPath, [distPath('test', 'support', 'session-crash-child.js'), workspace], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const file = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim()));
    child.once('exit', () => reject(new Error(`the crash child exited early: ${stderr}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill('SIGKILL');
  await exited;
  expect(stderr).toBe('');
  return file;
}

describe('a session whose writer is killed mid-write', () => {
  it('always loads (a torn last line at most), in order, and resumes cleanly, also after a lost tail', async () => {
    let torn = 0;
    for (let run = 0; run < KILLS; run++) {
      await using dir = await tempDir();
      const delayMs = Math.floor(30 + Math.random() * 400);
      const file = await killMidWrite(dir.path, delayMs);
      const context = `run ${run}, killed after ${delayMs} ms`;

      const session = await loadSession(file);
      expect(session.warnings.length, context).toBeLessThanOrEqual(1);
      const killedAt = session.events.length;
      expect(killedAt, context).toBeGreaterThan(0);
      const payloads = session.events.map((event) => event.payload);
      expect(payloads, context).toEqual(expectedPayloads(Math.ceil(killedAt / 3)).slice(0, killedAt));
      session.events.forEach((event, i) => {
        expect(event.parentId, context).toBe(i === 0 ? null : session.events[i - 1]!.id);
      });

      // Then a power cut: the page cache loses a random tail (a SIGKILL alone never tore a line here,
      // since the kernel finishes a write to a regular file before the process dies). The header was synced.
      const { size } = await stat(file);
      const headerBytes = (await readFile(file, 'utf8')).indexOf('\n') + 1;
      await truncate(file, headerBytes + Math.floor(Math.random() * (size - headerBytes)));
      const cut = await loadSession(file);
      expect(cut.warnings.length, context).toBeLessThanOrEqual(1);
      expect(cut.events, context).toEqual(session.events.slice(0, cut.events.length));
      const count = cut.events.length;
      torn += cut.warnings.length;

      const resumed = await resumeSession(dir.path, session.header.id);
      resumed.writer.userMessage(userText('after the crash'));
      await resumed.writer.close();
      expect(resumed.writer.status, context).toBe('closed');
      const after = await loadSession(file);
      expect(after.warnings, context).toEqual([]);
      expect(after.events.slice(0, count), context).toEqual(cut.events);
      expect((await stat(file)).size, context).toBe(after.validBytes);
      // A call cut off before its result is closed with an error result, so the model can go on.
      const added = after.events.slice(count).map((event) => event.payload);
      const open = count % 3 === 2;
      expect(added, context).toEqual([
        ...(open
          ? [
              {
                type: 'user_message',
                message: {
                  role: 'user',
                  content: [
                    {
                      type: 'tool_result',
                      callId: `call-${Math.floor(count / 3)}`,
                      output: NO_RESULT_OUTPUT,
                      isError: true,
                    },
                  ],
                },
              },
            ]
          : []),
        { type: 'user_message', message: userText('after the crash') },
      ]);
      expect(after.events[count]!.parentId, context).toBe(cut.events.at(-1)?.id ?? null);
      expect(path.dirname(file)).toBe(path.join(dir.path, '.skate', 'sessions'));
    }
    // A random cut lands inside a line nearly every time: the torn-line path did run.
    expect(torn).toBeGreaterThan(0);
  });
});
