import { spawn } from 'node:child_process';
import path from 'node:path';
import { createHookRunner, HOOK_SHELL, type HookEntry } from '../../harness/hooks/hook-runner.js';
import type { AgentHooks } from '../../harness/hooks/hook-verdict.js';
import { projectRoot } from '../../harness/project-paths.js';
import { resolvePolicy } from '../../harness/runtime/start-executor.js';
import { median, round } from './stats.js';

const RUNS = 20;
const SCRIPT = path.join(projectRoot(), 'test', 'fixtures', 'hooks', 'block-rm-rf.sh');

export interface HookFigures {
  /** What PreToolUse adds to a call with no hook configured (the engine asks `has` and moves on). */
  hook_none_us: number;
  /** One PreToolUse command hook (the jq `rm -rf` script) confined under readonly: sandbox, bwrap, bash, jq. */
  hook_confined_ms: number;
  /** The same hook under the `full` policy (skate-confine without bubblewrap). */
  hook_full_policy_ms: number;
  /** The same script as a plain `bash -c` spawn with the same stdin: the baseline. */
  hook_unconfined_bash_ms: number;
  hook_confined_vs_unconfined: number;
}

function bashOnce(stdin: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const [shell, ...flags] = HOOK_SHELL;
    const child = spawn(shell, [...flags, SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
    child.once('error', reject);
    child.once('close', () => resolve(performance.now() - start));
  });
}

async function fireOnce(hooks: AgentHooks): Promise<number> {
  const start = performance.now();
  const verdict = await hooks.fire(
    'PreToolUse',
    { tool_name: 'shell', tool_input: { command: 'ls -la' } },
    { signal: new AbortController().signal, emit: () => undefined, tool: { name: 'shell', callId: 'tu_1' } },
  );
  if (verdict.permission) throw new Error(`bench hook decided ${verdict.permission.decision}`);
  return performance.now() - start;
}

function agentHooks(workspace: string, policy: string | undefined): AgentHooks {
  const entries: HookEntry[] = policy
    ? [
        {
          event: 'PreToolUse',
          matcher: 'Bash',
          hook: { type: 'command', command: SCRIPT },
          source: 'user',
          file: 'bench',
          policy,
        },
      ]
    : [];
  return createHookRunner({ entries, sandbox: 'required', resolvePolicy, note: () => undefined }).forAgent({
    agent: [],
    workspace,
    sessionId: () => 'bench',
    transcriptPath: () => undefined,
    policy: () => undefined,
    permissionMode: () => 'default',
  });
}

/**
 * Cost per tool call of one PreToolUse command hook: none configured, confined (the default
 * readonly policy), under `full`, and a plain `bash -c` of the same script, interleaved so that
 * load on the machine falls on all of them alike.
 */
export async function benchHooks(workspace: string): Promise<HookFigures> {
  const none = agentHooks(workspace, undefined);
  const confined = agentHooks(workspace, 'readonly');
  const full = agentHooks(workspace, 'full');
  const stdin = JSON.stringify({
    hook_event_name: 'PreToolUse',
    tool_name: 'shell',
    tool_input: { command: 'ls' },
  });
  // Warm: the sandbox probe's verdict, the policies, the page cache for bash and jq.
  await fireOnce(confined);
  await fireOnce(full);
  await bashOnce(stdin);
  const noneUs: number[] = [];
  const confinedMs: number[] = [];
  const fullMs: number[] = [];
  const bashMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    if (none.has('PreToolUse')) await fireOnce(none);
    noneUs.push(Number(process.hrtime.bigint() - start) / 1000);
    confinedMs.push(await fireOnce(confined));
    fullMs.push(await fireOnce(full));
    bashMs.push(await bashOnce(stdin));
  }
  const confinedMedian = median(confinedMs);
  const bashMedian = median(bashMs);
  return {
    hook_none_us: round(median(noneUs), 2),
    hook_confined_ms: round(confinedMedian),
    hook_full_policy_ms: round(median(fullMs)),
    hook_unconfined_bash_ms: round(bashMedian),
    hook_confined_vs_unconfined: round(confinedMedian / bashMedian, 2),
  };
}
