import { existsSync } from 'node:fs';
import { sessionSettingsFrom } from '../cli/agent-settings-from-flags.js';
import type { AgentRunFlags } from '../cli/cli-flags.js';
import { note } from '../cli/note.js';
import { runHeadless } from '../cli/run-headless.js';
import { createDemoProvider, DEMO_MODEL } from './demo-provider.js';
import { createDemoWorkspace } from './demo-workspace.js';

/**
 * The first-run demo (`skate -p` without ANTHROPIC_API_KEY): a scripted model
 * drives a real executor under `execute` in a throwaway workspace, writes a
 * file, and is refused a write outside it; afterwards the host is checked.
 */
export async function runDemo(flags: AgentRunFlags): Promise<number> {
  const demo = await createDemoWorkspace();
  note(
    'ANTHROPIC_API_KEY is not set: running the demo (a scripted model; the executor and sandbox are real).',
  );
  note(`demo workspace: ${demo.dir}`);
  return runHeadless({
    settings: {
      workspace: demo.dir,
      executor: {
        kind: 'local',
        policy: 'execute',
        sandbox: flags.sandbox,
        diagnosticTools: flags.diagnosticTools ?? false,
        ...(flags.verbose && { onSandboxNote: note }),
      },
      model: {
        provider: createDemoProvider({ outsidePath: demo.outsidePath }),
        name: DEMO_MODEL,
        maxTokens: flags.maxTokens,
      },
      approval: flags.approval,
      maxTurns: flags.maxTurns,
      session: sessionSettingsFrom(flags.sessionFlags),
      ...(flags.subagents && { subagents: { maxDepth: 2 } }),
    },
    prompt: 'Show what Skate does.',
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    afterRun: () => {
      const escaped = existsSync(demo.outsidePath);
      note(
        escaped
          ? `DEMO FAILED: ${demo.outsidePath} exists on the host`
          : `checked on the host: ${demo.outsidePath} does not exist`,
      );
      return escaped ? 1 : undefined;
    },
  });
}
