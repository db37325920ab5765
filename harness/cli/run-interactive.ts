import { readFile } from 'node:fs/promises';
import { ensurePlanFile } from '../planning/plan-file.js';
import { createAgentSession } from '../runtime/agent-session.js';
import type { RunSettings } from './agent-settings-from-flags.js';
import { note } from './note.js';

/**
 * `skate` on a terminal with no task: the full-screen UI on the agent
 * runtime, the person answering its questions. Resolves to the exit code once
 * the UI is gone and the agent (executor, session log) is closed.
 */
export async function runInteractive(settings: RunSettings): Promise<number> {
  const session = await createAgentSession({ ...settings, answerer: 'user', onNote: note });
  // Ink and React load only here, so `skate --help` and `skate -p` never pay for them.
  const { runTui } = await import('../tui/run-tui.js');
  let current: { close(): Promise<void> } = session;
  try {
    await runTui({
      backend: session,
      onBackend: (backend) => {
        current = backend;
      },
      planFile: async () => {
        const file = await ensurePlanFile(session.workspace);
        return { file, read: () => readFile(file, 'utf8') };
      },
    });
  } finally {
    // The UI closed every agent it switched away from; this is the last one.
    await current.close();
  }
  return 0;
}
