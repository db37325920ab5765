import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AcpAgentSettings } from '../../acp/runtime-agents.js';
import { projectRoot } from '../../project-paths.js';
import { AgentRuntimeError } from '../../runtime/agent-runtime-error.js';
import { SettingsError } from '../../settings/settings-error.js';
import { modelFrom, runSettingsFrom } from '../agent-settings-from-flags.js';
import {
  AGENT_OPTIONS,
  type AgentRunFlags,
  agentFlags,
  type CommandMain,
  parsed,
  refuseFlags,
} from '../cli-flags.js';
import { note } from '../note.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

// An editor is there to answer: approvals are asked by default.
const OPTIONS = { ...AGENT_OPTIONS, approval: { type: 'string', default: 'ask' } } as const;

/** Flags of a headless run that mean nothing here: the editor gives the prompts, the workspace and the session. */
const NOT_HERE: readonly (keyof typeof AGENT_OPTIONS)[] = [
  'print',
  'output-format',
  'answers',
  'continue',
  'resume',
  'fork-at',
  'no-session',
  'workspace',
];

/**
 * `skate acp`: an Agent Client Protocol agent on stdin/stdout for an editor;
 * each ACP session is an agent on the agent runtime in the editor's cwd.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(() => parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  refuseFlags(args, NOT_HERE, 'skate acp takes prompts, the workspace and sessions from the editor');
  // Each session's settings are its workspace's (the editor's cwd), not this directory's.
  const flags = await agentFlags(values, { perWorkspace: true });
  // The model and its key are checked at start, on what the flags and your settings say.
  sessionSettings(flags);
  const built = new WeakMap<AgentRunFlags, AcpAgentSettings>();
  const settingsFor = async (workspace: string): Promise<AcpAgentSettings> => {
    try {
      // One set of settings per workspace while its files read the same (one sandbox-notes sink, one MCP pool).
      const own = await flags.forWorkspace(workspace);
      let settings = built.get(own);
      if (!settings) {
        settings = sessionSettings(own);
        built.set(own, settings);
      }
      return settings;
    } catch (error) {
      // The workspace's files are at fault, not this process's start: the editor is told, the process stays.
      if (error instanceof SettingsError || error instanceof UsageError)
        throw new AgentRuntimeError('settings', error.message);
      throw error;
    }
  };
  const [{ serveAcpOverStdio }, { createRuntimeAgents }] = await Promise.all([
    import('../../acp/serve-acp-stdio.js'),
    import('../../acp/runtime-agents.js'),
  ]);
  return serveAcpOverStdio({
    agents: createRuntimeAgents(settingsFor),
    version: await skateVersion(),
    log: note,
  });
};

/** The settings of every session in the workspace these flags are for, less its workspace and session. */
function sessionSettings(flags: AgentRunFlags): AcpAgentSettings {
  const {
    workspace: _workspace,
    session: _session,
    ...shared
  } = runSettingsFrom(
    flags,
    modelFrom(flags, 'set ANTHROPIC_API_KEY in the environment the editor starts skate acp with'),
  );
  return { ...shared, onNote: note };
}

/** Skate's version, for the editor's `agentInfo`: the package's own. */
async function skateVersion(): Promise<string> {
  const manifest = await readFile(path.join(projectRoot(), 'package.json'), 'utf8');
  return (JSON.parse(manifest) as { version?: string }).version ?? 'unknown';
}
