import { parseArgs } from 'node:util';
import { widerThanReadOnly } from '../../agents/load-agent-definitions.js';
import { setupAgentDefinitions } from '../../agents/setup-agent-definitions.js';
import { createConsentStore } from '../../consent/consent-store.js';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { loadSettings } from '../../settings/load-settings.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const DEFAULT_POLICY = 'execute';

/** One agent definition as `skate agents list` shows it. */
interface ListedAgent {
  name: string;
  description: string;
  source: 'user' | 'workspace';
  file: string;
  /** What it asks beyond reading (writes, the network); empty for a read-only one. */
  asks: string[];
  tools?: string[] | undefined;
  model?: string | undefined;
  isolation?: string | undefined;
  /** Whether it may be started: a workspace's that asks beyond reading needs consent to this version. */
  consent: 'not needed' | 'given' | 'not given';
}

/**
 * `skate agents list [--workspace DIR] [--json]`: the agent definitions a run offers (the
 * workspace's `.skate/agents` and `.claude/agents`, the user's `~/.skate/agents`), from where,
 * what each asks, and its consent; `skate agents trust|revoke NAME`: consent to a workspace's
 * definition as its file is now, or take it back. Like `skate mcp`; nothing is started.
 */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  if (sub !== 'list' && sub !== 'trust' && sub !== 'revoke')
    throw new UsageError(
      'the agents command is `skate agents list [--workspace DIR] [--json]` or `skate agents trust|revoke NAME`',
    );
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return help();
  const workspace = await resolveWorkspace(values.workspace);
  const settings = await loadSettings({ workspace });
  const consent = createConsentStore();
  const notes: string[] = [];
  const entries = await setupAgentDefinitions({
    workspace,
    // Workspace files are read as the run's agents could read them.
    policy: settings.policy ?? DEFAULT_POLICY,
    trustWorkspace: false,
    consent,
    note: (line) => notes.push(line),
  });
  for (const line of notes) process.stderr.write(inertText(`skate: ${line}\n`));
  if (sub === 'trust' || sub === 'revoke') {
    const [name, extra] = positionals;
    if (!name || extra) throw new UsageError(`skate agents ${sub} takes one agent name`);
    const definition = entries.find(
      (entry) => entry.definition.name === name && entry.definition.scope === 'workspace',
    )?.definition;
    if (!definition)
      throw new UsageError(`no workspace agent file of ${workspace} defines the agent "${name}"`);
    if (sub === 'trust')
      await consent.grant({ kind: 'agents', file: definition.file, sha256: definition.sha256 });
    else await consent.revoke('agents', definition.file);
    process.stderr.write(
      inertText(
        sub === 'trust'
          ? `skate: the agent "${name}" of ${definition.file} may be started (this version, sha256 ${definition.sha256.slice(0, 12)}…)\n`
          : `skate: the agent "${name}" of ${definition.file} will not be started without a new consent, if it asks beyond reading\n`,
      ),
    );
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const listed: ListedAgent[] = entries.map(({ definition, usable }) => {
    const asks = widerThanReadOnly(definition);
    return {
      name: definition.name,
      description: definition.description,
      source: definition.scope,
      file: definition.file,
      asks,
      ...(definition.tools && { tools: definition.tools }),
      ...(definition.model && { model: definition.model }),
      ...(definition.isolation && { isolation: definition.isolation }),
      consent:
        definition.scope === 'user' || asks.length === 0 ? 'not needed' : usable ? 'given' : 'not given',
    };
  });
  if (values.json) {
    process.stdout.write(`${jsonFor(process.stdout, listed, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('no agent files found\n');
    return 0;
  }
  const lines = listed.map((agent) => {
    const state = agent.consent === 'not given' ? 'not usable without consent' : 'usable';
    const asks = agent.asks.length > 0 ? agent.asks.join(' and ') : 'read-only';
    const extras = [
      agent.tools ? `tools ${agent.tools.join(', ')}` : undefined,
      agent.model ? `model ${agent.model}` : undefined,
      agent.isolation ? `isolation ${agent.isolation}` : undefined,
    ].filter(Boolean);
    return `${agent.name}: ${state}\n    ${agent.description.replace(/\s+/g, ' ')}\n    asks: ${asks}${extras.length > 0 ? `; ${extras.join('; ')}` : ''}\n    ${agent.source} (${agent.file})${agent.source === 'workspace' ? `; consent ${agent.consent}` : ''}`;
  });
  process.stdout.write(inertText(`${lines.join('\n')}\n`));
  return 0;
};
