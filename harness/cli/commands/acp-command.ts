import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../project-paths.js';
import { modelFrom, runSettingsFrom } from '../agent-settings-from-flags.js';
import { AGENT_OPTIONS, agentFlags, type CommandMain, parsed, refuseFlags } from '../cli-flags.js';
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
  // Each session's MCP servers are its workspace's (the editor's cwd), not this directory's.
  const flags = await agentFlags(values, { mcp: 'per-workspace' });
  const {
    workspace: _workspace,
    session: _session,
    ...shared
  } = runSettingsFrom(
    flags,
    modelFrom(flags, 'set ANTHROPIC_API_KEY in the environment the editor starts skate acp with'),
  );
  const [{ serveAcpOverStdio }, { createRuntimeAgents }] = await Promise.all([
    import('../../acp/serve-acp-stdio.js'),
    import('../../acp/runtime-agents.js'),
  ]);
  return serveAcpOverStdio({
    agents: createRuntimeAgents({ ...shared, onNote: note }, { mcpFor: flags.mcpFor }),
    version: await skateVersion(),
    log: note,
  });
};

/** Skate's version, for the editor's `agentInfo`: the package's own. */
async function skateVersion(): Promise<string> {
  const manifest = await readFile(path.join(projectRoot(), 'package.json'), 'utf8');
  return (JSON.parse(manifest) as { version?: string }).version ?? 'unknown';
}
