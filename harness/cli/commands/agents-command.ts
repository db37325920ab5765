import { widerThanReadOnly } from '../../agents/load-agent-definitions.js';
import { setupAgentDefinitions } from '../../agents/setup-agent-definitions.js';
import { loadSettings } from '../../settings/load-settings.js';
import { inertText } from '../../terminal/inert-text.js';
import { type ConsentCommand, consentSubcommands } from '../consent-command.js';
import { withSubcommands } from '../subcommands.js';
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
 * The agent definitions a run offers (the workspace's `.skate/agents` and `.claude/agents`, the
 * user's `~/.skate/agents`), from where, what each asks, and its consent: `skate agents list`;
 * `trust|revoke NAME` consent to a workspace's definition as its file is now, or take it back.
 */
const AGENTS_CONSENT: ConsentCommand<ListedAgent> = {
  command: 'agents',
  item: 'agent',
  async load({ workspace, consent }) {
    const settings = await loadSettings({ workspace });
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
    return {
      listed,
      text: () => (listed.length === 0 ? 'no agent files found\n' : `${listed.map(agentLines).join('\n')}\n`),
      target(name) {
        const definition = entries.find(
          (entry) => entry.definition.name === name && entry.definition.scope === 'workspace',
        )?.definition;
        if (!definition)
          throw new UsageError(`no workspace agent file of ${workspace} defines the agent "${name}"`);
        return {
          subject: { kind: 'agents', file: definition.file, sha256: definition.sha256 },
          what: `the agent "${name}" of ${definition.file}`,
          granted: 'may be started',
          revoked: 'will not be started without a new consent, if it asks beyond reading',
        };
      },
    };
  },
};

function agentLines(agent: ListedAgent): string {
  const state = agent.consent === 'not given' ? 'not usable without consent' : 'usable';
  const asks = agent.asks.length > 0 ? agent.asks.join(' and ') : 'read-only';
  const extras = [
    agent.tools ? `tools ${agent.tools.join(', ')}` : undefined,
    agent.model ? `model ${agent.model}` : undefined,
    agent.isolation ? `isolation ${agent.isolation}` : undefined,
  ].filter(Boolean);
  return `${agent.name}: ${state}\n    ${agent.description.replace(/\s+/g, ' ')}\n    asks: ${asks}${extras.length > 0 ? `; ${extras.join('; ')}` : ''}\n    ${agent.source} (${agent.file})${agent.source === 'workspace' ? `; consent ${agent.consent}` : ''}`;
}

/** `skate agents list [--workspace DIR] [--json]`, `skate agents trust|revoke NAME`; like `skate mcp`, nothing is started. */
export const run = withSubcommands('agents', consentSubcommands(AGENTS_CONSENT));
