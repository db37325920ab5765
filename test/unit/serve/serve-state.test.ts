import { describe, expect, it } from 'vitest';
import { createAgentSession } from '../../../harness/runtime/agent-session.js';
import { resolvePolicy } from '../../../harness/runtime/start-executor.js';
import type { RunBuffer } from '../../../harness/serve/run-buffer.js';
import { ServeError } from '../../../harness/serve/serve-error.js';
import { ServeState } from '../../../harness/serve/serve-state.js';
import type { StreamMessage } from '../../../shared/serve-api.js';
import { hostDir } from '../../support/host-dir.js';
import { eventually, isAlive } from '../../support/processes.js';
import { createScriptedProvider, type ScriptedTurn } from '../../support/scripted-provider.js';

const text = (words: string): ScriptedTurn => ({ steps: [{ type: 'text', text: words }] });
const pause: ScriptedTurn = { steps: [{ type: 'text', text: 'thinking…' }, { type: 'pause' }] };

async function serveState(
  root: string,
  turns: ScriptedTurn[],
  limits: { maxSessions?: number; maxRuns?: number; idleMs?: number } = {},
) {
  const provider = createScriptedProvider(turns);
  const state = new ServeState({
    server: { root, policy: 'execute', approval: 'auto' },
    rootPolicy: await resolvePolicy('execute', root),
    defaultModel: 'scripted-model',
    maxSessions: limits.maxSessions ?? 8,
    maxRuns: limits.maxRuns ?? 8,
    idleMs: limits.idleMs ?? 60_000,
    replayLimit: 1000,
    requestTimeoutMs: 60_000,
    start: (start) =>
      createAgentSession({
        workspace: start.workspace,
        executor: { kind: 'local', policy: start.policy, sandbox: 'required' },
        model: { provider, name: start.model, maxTokens: 1024 },
        approval: start.approval,
        maxTurns: 10,
        session: start.session,
        answerer: 'user',
      }),
  });
  return { state, provider, [Symbol.asyncDispose]: () => state.shutdown() };
}

async function finished(run: RunBuffer): Promise<StreamMessage[]> {
  while (!run.isEnded) await run.changed();
  const read = run.read(0);
  if (read.gone) throw new Error('gone');
  return read.entries.map((entry) => entry.message);
}

async function refusal(action: () => unknown): Promise<ServeError> {
  try {
    await action();
  } catch (error) {
    // As the HTTP layer sees it: the runtime's refusals mapped to the API's codes.
    return ServeError.fromUnknown(error);
  }
  throw new Error('not refused');
}

describe('ServeState (real executors, scripted model)', () => {
  it('caps sessions, and a deleted session makes room', async () => {
    await using root = await hostDir('serve-state-cap-');
    await using served = await serveState(root.path, [], { maxSessions: 2 });
    const { state } = served;
    const [a] = await Promise.all([state.create({}), state.create({})]);
    const third = await refusal(() => state.create({}));
    expect(third).toMatchObject({ code: 'too_many_sessions', status: 429 });
    const pid = a!.executorPid!;
    await state.delete(a!.id);
    expect(await eventually(async () => !(await isAlive(pid)))).toBe(true);
    expect((await refusal(() => state.get(a!.id))).code).toBe('not_found');
    await state.create({});
    expect(state.list()).toHaveLength(2);
  });

  it('runs one prompt per session, caps runs across sessions, and answers only pending requests', async () => {
    await using root = await hostDir('serve-state-runs-');
    await using served = await serveState(root.path, [pause, text('second')], { maxRuns: 1 });
    const { state } = served;
    const [a, b] = await Promise.all([state.create({}), state.create({})]);
    const run = a.prompt({ text: 'wait' });
    expect(a.info().status).toBe('running');
    expect((await refusal(() => a.prompt({ text: 'again' }))).code).toBe('busy');
    expect((await refusal(() => b.prompt({ text: 'other' }))).code).toBe('too_many_runs');
    expect((await refusal(() => b.command({ type: 'interrupt' }))).code).toBe('not_pending');
    const wrong = await refusal(() =>
      a.command({ type: 'loop_decision', requestId: 'r1', decision: 'stop' }),
    );
    expect(wrong.code).toBe('not_pending');
    // Wait until the model is streaming, then interrupt.
    expect(await eventually(() => run.lastId >= 3)).toBe(true);
    a.command({ type: 'interrupt' });
    const messages = await finished(run);
    expect(messages[0]).toMatchObject({ type: 'run_start', sessionId: a.id });
    expect(messages.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
    // The slot came back: b runs now.
    expect((await finished(b.prompt({ text: 'other' }))).at(-1)).toMatchObject({
      status: 'complete',
      finalMessage: 'second',
    });
  });

  it('stops an idle agent, resumes it from the log with its conversation, and keeps ids increasing', async () => {
    await using root = await hostDir('serve-state-idle-');
    await using served = await serveState(root.path, [text('one'), text('two')], { idleMs: 150 });
    const { state, provider } = served;
    const session = await state.create({});
    const first = await finished(session.prompt({ text: 'first' }));
    const pid = session.executorPid!;
    expect(await eventually(() => session.info().status === 'stopped', 5_000)).toBe(true);
    expect(await eventually(async () => !(await isAlive(pid)))).toBe(true);
    const second = session.prompt({ text: 'second' });
    expect(second.firstId).toBe(first.length + 1);
    expect((await finished(second)).at(-1)).toMatchObject({ status: 'complete', finalMessage: 'two' });
    expect(provider.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(session.info().lastEventId).toBe(second.lastId);
  });

  it('refuses what the server policy does not allow', async () => {
    await using root = await hostDir('serve-state-policy-');
    await using served = await serveState(root.path, []);
    const { state } = served;
    for (const request of [
      { policy: 'full' },
      { network: 'on' as const },
      { workspace: '..' },
      { workspace: '.git' },
    ]) {
      if (request.workspace === '.git')
        await import('node:fs/promises').then((fs) => fs.mkdir(`${root.path}/.git`));
      const refused = await refusal(() => state.create(request));
      expect(refused.code, JSON.stringify(request)).toBe('forbidden');
    }
    expect((await refusal(() => state.create({ workspace: 'missing' }))).code).toBe('bad_request');
    expect(state.list()).toEqual([]);
    const plan = await state.create({ policy: 'readonly' });
    expect(plan.info()).toMatchObject({ policy: 'readonly', network: 'off', approval: 'auto' });
  });
});
