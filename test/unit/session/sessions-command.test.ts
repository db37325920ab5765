import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsListCommand, sessionsShowCommand } from '../../../harness/cli/commands/sessions-command.js';
import { UsageError } from '../../../harness/cli/usage-error.js';
import { sessionsDir } from '../../../harness/session/session-paths.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import { assistant, results, toolResult, toolUse, usage, userText } from '../../support/session-fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

const MODEL = 'claude-sonnet-4-5';

interface Captured {
  out: { write(text: string): boolean };
  err: { write(text: string): boolean };
  text: { out: string; err: string };
}

/** Captures what a command prints. */
function capture(): Captured {
  const text = { out: '', err: '' };
  return {
    out: {
      write: (chunk: string) => {
        text.out += chunk;
        return true;
      },
    },
    err: {
      write: (chunk: string) => {
        text.err += chunk;
        return true;
      },
    },
    text,
  };
}

/** A parent session with a tool call, a failed call, a compaction and a sub-agent; and the child. */
async function workspaceWithSessions(workspace: string): Promise<{ parentId: string; childId: string }> {
  const parent = await createSessionWriter({ workspace, model: MODEL, policy: 'execute' });
  parent.userMessage(
    userText('Fix the failing test in src/foo.ts please, it has been red since Monday morning'),
  );
  parent.assistantMessage(
    assistant(
      { type: 'text', text: 'Reading the file first.' },
      toolUse('c1', 'read_file', { path: 'src/foo.ts', limit: 20 }),
      toolUse('c2', 'shell', { command: 'npm test\nexit' }),
    ),
    usage(12_345, 678, 98_000, 1_200),
    MODEL,
  );
  parent.toolResults(
    results(
      toolResult('c1', 'export const foo = 1;\nline two\nline three'),
      toolResult('c2', 'denied by policy', true),
    ),
  );
  const child = await createSessionWriter({
    workspace,
    model: 'claude-haiku-4-5',
    policy: 'readonly',
    parentSessionId: parent.header.id,
  });
  child.userMessage(userText('find the test'));
  child.assistantMessage(
    assistant({ type: 'text', text: 'test/foo.test.ts' }),
    usage(1_000, 100),
    'claude-haiku-4-5',
  );
  await child.close();
  parent.append({
    type: 'subagent_link',
    childSessionId: child.header.id,
    callId: 'c3',
    task: 'find the test',
  });
  parent.compaction('We read src/foo.ts.\nThe shell was denied.', 3);
  parent.assistantMessage(assistant({ type: 'text', text: 'Done.' }), usage(100, 20), 'claude-opus-4-6');
  await parent.close();
  return { parentId: parent.header.id, childId: child.header.id };
}

describe('skate sessions list', () => {
  it('prints a table with sub-agents under their parent, totals including them', async () => {
    await using dir = await tempDir();
    const { parentId, childId } = await workspaceWithSessions(dir.path);
    await writeFile(path.join(sessionsDir(dir.path), 'stray.jsonl'), 'hello\n');
    const io = capture();
    const now = new Date(Date.now() + 5 * 60_000);
    expect(await sessionsListCommand({ workspace: dir.path, json: false, ...io, now })).toBe(0);
    const lines = io.text.out.split('\n');
    expect(lines[0]).toMatch(/^ID\s+WHEN\s+TURNS\s+TOKENS in\/out\/cache\s+EST\. COST\s+TITLE$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${parentId.slice(0, 13)}\\s+5m ago\\s+2\\s+13.4k/798/99.2k\\s+\\$0.08\\s+Fix the failing test in src/foo.ts please, it has been red …$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^└ ${childId.slice(0, 13)}\\s+5m ago\\s+1\\s+1.00k/100/0\\s+<\\$0.01\\s+\\(sub-agent\\) find the test$`,
      ),
    );
    expect(lines).toHaveLength(4);
    expect(io.text.err).toMatch(/^skate: skipped .*stray\.jsonl:1: not a Skate session/);
  });

  it('prints a JSON array with --json, and says so when there are no sessions', async () => {
    await using dir = await tempDir();
    const empty = capture();
    await sessionsListCommand({ workspace: dir.path, json: false, ...empty });
    expect(empty.text.out).toBe('no sessions yet in this workspace\n');
    const { parentId } = await workspaceWithSessions(dir.path);
    const io = capture();
    await sessionsListCommand({ workspace: dir.path, json: true, ...io });
    const listed = JSON.parse(io.text.out) as { id: string; total: { usage: { inputTokens: number } } }[];
    expect(listed).toHaveLength(2);
    expect(listed.find((session) => session.id === parentId)?.total.usage.inputTokens).toBe(13_445);
  });
});

describe('skate sessions show', () => {
  it('prints a readable transcript with ids, calls, results, usage, compactions and sub-agents', async () => {
    await using dir = await tempDir();
    const { parentId, childId } = await workspaceWithSessions(dir.path);
    const session = await loadSession(path.join(sessionsDir(dir.path), `${parentId}.jsonl`));
    const io = capture();
    expect(
      await sessionsShowCommand({ workspace: dir.path, id: parentId.slice(0, 16), json: false, ...io }),
    ).toBe(0);
    const text = io.text.out;
    expect(text).toContain(`session ${parentId}\n`);
    expect(text).toContain(`· model ${MODEL} · policy execute\n  cwd ${dir.path}\n`);
    expect(text).toContain(
      ' user\n  Fix the failing test in src/foo.ts please, it has been red since Monday morning\n',
    );
    expect(text).toContain(
      ` assistant · ${MODEL} · in 12.3k out 678 cache read 98.0k write 1.20k · $0.08\n` +
        '  Reading the file first.\n' +
        '  → read_file path="src/foo.ts" limit=20\n' +
        '  → shell command="npm test\\nexit"\n',
    );
    // Results are named after the calls they answer (an audit view derived on reading).
    expect(text).toContain(
      ' tool results\n  ← read_file: export const foo = 1; (+2 more lines)\n  ✗ shell: denied by policy\n',
    );
    expect(text).toContain(` sub-agent session ${childId} (call c3)\n  find the test\n`);
    expect(text).toContain(
      ' compaction: 3 messages replaced by a summary\n  We read src/foo.ts.\n  The shell was denied.\n',
    );
    expect(text).toContain(` model: ${MODEL} → claude-opus-4-6\n`);
    expect(text).toMatch(
      /\ntotals: 2 model turns · in 12.4k out 698 cache read 98.0k write 1.20k · est\. \$0\.08\n/,
    );
    expect(text).toMatch(
      /\n {2}with sub-agents: in 13.4k out 798 cache read 98.0k write 1.20k · est\. \$0\.08\n$/,
    );
    // Every event shown is headed by an id prefix that --fork-at accepts.
    const heads = [...text.matchAll(/^#(\S+) /gm)].map((match) => match[1]!);
    expect(heads.length).toBeGreaterThan(5);
    for (const head of heads) expect(session.findEvent(head).id.startsWith(head)).toBe(true);
  });

  it('prints header, events and totals with --json', async () => {
    await using dir = await tempDir();
    const { parentId } = await workspaceWithSessions(dir.path);
    const io = capture();
    await sessionsShowCommand({ workspace: dir.path, id: parentId, json: true, ...io });
    const shown = JSON.parse(io.text.out) as { header: { id: string }; events: unknown[]; totals: unknown };
    expect(shown.header.id).toBe(parentId);
    expect(shown.events).toHaveLength(7);
    expect(shown).toHaveProperty('totals.usage.inputTokens', 13_445);
  });

  it('treats an unknown or ambiguous id as a usage error and a corrupt file as exit 1', async () => {
    await using dir = await tempDir();
    const { parentId } = await workspaceWithSessions(dir.path);
    await expect(
      sessionsShowCommand({ workspace: dir.path, id: 'abc', json: false, ...capture() }),
    ).rejects.toThrow(UsageError);
    await expect(
      sessionsShowCommand({ workspace: dir.path, id: '0', json: false, ...capture() }),
    ).rejects.toThrow(/2 sessions start with 0/);
    const file = path.join(sessionsDir(dir.path), `${parentId}.jsonl`);
    await writeFile(file, '{"type":"session","version":7}\n');
    const io = capture();
    expect(await sessionsShowCommand({ workspace: dir.path, id: parentId, json: false, ...io })).toBe(1);
    expect(io.text.err).toMatch(/^skate: .*:1: session format version 7 is not supported/);
  });
});
