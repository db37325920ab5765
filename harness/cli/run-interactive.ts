import { ensurePlanFile } from '../planning/plan-file.js';
import { readPlan } from '../planning/read-plan.js';
import { createAgentSession } from '../runtime/agent-session.js';
import { ExecutorRegistry } from '../runtime/executor-registry.js';
import { readPolicyFor } from '../runtime/start-executor.js';
import { subAgentConversation } from '../session/sub-agent-conversation.js';
import type { RunSettings } from './agent-settings-from-flags.js';
import { preloadTuiVendor } from './esm-host.js';
import { note } from './note.js';

/**
 * `skate` on a terminal: the full-screen UI on the agent runtime, the person
 * answering its questions; with a task (`skate "task"`), that task is sent
 * once the UI is up. Sessions get a title from a cheap model call after their
 * first run. Resolves to the exit code once the UI is gone and the agent
 * (executor, session log) is closed.
 */
export async function runInteractive(settings: RunSettings, task?: string): Promise<number> {
  const session = await createAgentSession({
    ...settings,
    answerer: 'user',
    // A host off the allowlist is a question at the terminal.
    askNetwork: {},
    titleSessions: true,
    onNote: note,
    // Every executor of the session tree, for the UI's executor panel (Space s, :executors).
    executors: new ExecutorRegistry(),
  });
  // Ink and React load only here, so `skate --help` and `skate -p` never pay for them.
  const { runTui } = await importTuiOnTerminal();
  let current: { close(): Promise<void>; readonly sessionId: string | undefined } = session;
  try {
    await runTui({
      backend: session,
      initialPrompt: task,
      onBackend: (backend) => {
        current = backend;
      },
      planFile: async () => {
        const file = await ensurePlanFile(session.workspace);
        // Shown as the agent may read it, as everything Skate reads from a workspace is.
        const read = async (): Promise<string> => {
          const policy = session.policy ?? (await readPolicyFor(settings.executor, session.workspace));
          const plan = await readPlan(file, { policy, within: session.workspace });
          return plan.ok ? plan.plan : plan.message;
        };
        return { file, read };
      },
      subAgentConversation: (sessionId, callId) => subAgentConversation(session.workspace, sessionId, callId),
    });
  } finally {
    // The UI closed every agent it switched away from; this is the last one.
    await current.close();
  }
  // Back on the main screen: say how to come back, as the text output's last line does.
  if (current.sessionId !== undefined) {
    process.stdout.write(`session ${current.sessionId} · resume with: skate --resume ${current.sessionId}\n`);
  }
  return 0;
}

/**
 * Ink reads `CI`/`CONTINUOUS_INTEGRATION` once, when its module loads, and then
 * draws nothing but the last frame. The person asked for the UI on a terminal,
 * so those variables are hidden from that one load and put back after.
 */
async function importTuiOnTerminal(): Promise<typeof import('../tui/run-tui.js')> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    await preloadTuiVendor();
    return await import('../tui/run-tui.js');
  } finally {
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  }
}
