import type { AgentRunFlags } from '../cli/cli-flags.js';
import { EXIT } from '../cli/exit-codes.js';
import { note } from '../cli/note.js';
import { runHeadless } from '../cli/run-headless.js';
import { UsageError } from '../cli/usage-error.js';
import { createDemoProvider, DEMO_MODEL } from './demo-provider.js';
import { createDemoWorkspace, type DemoWorkspace } from './demo-workspace.js';

/**
 * The first-run demo (`skate -p` without ANTHROPIC_API_KEY): a scripted model
 * drives a real executor under `execute` in a throwaway workspace, writes a
 * file, and is refused a write outside it; afterwards the host is checked.
 */
export async function runDemo(flags: AgentRunFlags): Promise<number> {
  // Everything that can refuse the run is checked before the demo's folder is made.
  if (flags.sessionFlags.continueSession || flags.sessionFlags.resume) {
    throw new UsageError('the demo (ANTHROPIC_API_KEY is not set) has no session to continue');
  }
  const demo = await createDemoWorkspace();
  try {
    return await runIn(demo, flags);
  } finally {
    await demo.remove();
  }
}

async function runIn(demo: DemoWorkspace, flags: AgentRunFlags): Promise<number> {
  note(
    'ANTHROPIC_API_KEY is not set: running the demo (a scripted model; the executor and sandbox are real).',
  );
  note(`demo workspace: ${demo.dir} (removed after the run)`);
  return runHeadless({
    settings: {
      workspace: demo.dir,
      executor: {
        kind: 'local',
        policy: 'execute',
        sandbox: flags.sandbox,
        diagnosticTools: flags.diagnosticTools ?? false,
        onSandboxWarning: note,
        ...(flags.verbose && { onSandboxNote: note }),
      },
      model: {
        provider: createDemoProvider({ outsidePath: demo.outsidePath }),
        name: DEMO_MODEL,
        maxTokens: flags.maxTokens,
      },
      approval: flags.approval,
      maxTurns: flags.maxTurns,
      // The workspace (and any session log in it) is deleted when the demo ends:
      // recording one would only end in a `--resume` hint for a session that is gone.
      session: { kind: 'none' },
      ...(flags.subagents && { subagents: { maxDepth: 2 } }),
    },
    prompt: 'Show what Skate does.',
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    verbose: flags.verbose,
    afterRun: async () => {
      const { lines, escaped } = await demo.check();
      for (const line of lines) note(line);
      return escaped ? EXIT.error : undefined;
    },
  });
}
