import { describe, expect, it } from 'vitest';
import { AgentRuntimeError } from '../../../harness/runtime/agent-runtime-error.js';
import { type StartSettings, startAgent } from '../../../harness/runtime/start-agent.js';
import { hostDir } from '../../support/host-dir.js';
import { testPolicy } from '../../support/policies.js';
import { commandLine, processDescendants } from '../../support/process-descendants.js';
import { createScriptedProvider } from '../../support/scripted-provider.js';

async function executorsRunning(): Promise<number> {
  const lines = await Promise.all((await processDescendants(process.pid)).map(commandLine));
  return lines.filter((line) => line.includes('executor.js')).length;
}

describe('startAgent', () => {
  it('says when the executor process runs, before the provider is made and before the start resolves', async () => {
    await using ws = await hostDir('start-agent-');
    const order: string[] = [];
    let runningWhenSpawned: Promise<number> | undefined;
    const settings: StartSettings = {
      workspace: ws.path,
      executor: { kind: 'local', policy: testPolicy(ws.path), sandbox: 'required' },
      model: {
        provider: async () => {
          order.push('provider made');
          return createScriptedProvider([]);
        },
        name: 'scripted-model',
        maxTokens: 1024,
      },
      session: { kind: 'none' },
    };
    const starting = startAgent(settings, () => {
      order.push('spawned');
      runningWhenSpawned = executorsRunning();
    });
    const started = await starting;
    try {
      expect(order).toEqual(['spawned', 'provider made']);
      expect(await runningWhenSpawned).toBeGreaterThan(0);
      expect((await started.executor.listTools()).length).toBeGreaterThan(0);
    } finally {
      await started.executor.shutdown();
      await started.log.close();
    }
  });

  it('says so too when the start fails before any executor, so a caller waiting for the spawn goes on', async () => {
    await using ws = await hostDir('start-agent-');
    let spawned = false;
    const starting = startAgent(
      {
        workspace: ws.path,
        executor: { kind: 'local', policy: 'no-such-policy', sandbox: 'required' },
        model: { provider: createScriptedProvider([]), name: 'scripted-model', maxTokens: 1024 },
        session: { kind: 'none' },
      },
      () => {
        spawned = true;
      },
    );
    const error = await starting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentRuntimeError);
    expect((error as AgentRuntimeError).code).toBe('policy');
    expect(spawned).toBe(true);
    expect(await executorsRunning()).toBe(0);
  });
});
