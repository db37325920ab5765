import { realpath } from 'node:fs/promises';
import type { AgentDefinition } from '../../shared/agent-definition.js';
import type { ConsentStore } from '../consent/consent-store.js';
import { resolvePolicy } from '../runtime/start-executor.js';
import { loadAgentDefinitions, widerThanReadOnly } from './load-agent-definitions.js';

/** An agent the run offers by name; one a workspace defines beyond read-only is usable only with consent. */
export type AgentCatalogEntry =
  | { definition: AgentDefinition; usable: true }
  | { definition: AgentDefinition; usable: false; why: string };

export interface SetupAgentDefinitionsOptions {
  workspace: string;
  /** The run's policy name: workspace agent files are read as its agents could read them. */
  policy: string;
  home?: string | undefined;
  /** `--trust-workspace-agents`: the workspace's definitions are used this once without asking. */
  trustWorkspace: boolean;
  consent: ConsentStore;
  /** Asks the person at hand (a terminal); undefined where nobody can answer (headless). */
  ask?: ((question: string) => Promise<boolean>) | undefined;
  note(line: string): void;
}

/**
 * The run's agent definitions, each with whether it may be used: the user's always; a
 * workspace's read-only ones always (they can only narrow, and read nothing the parent cannot);
 * a workspace's that ask for writes or the network only with consent to that version of the
 * file (given before, given now at a terminal, or `--trust-workspace-agents`), as for hooks.
 */
export async function setupAgentDefinitions(
  options: SetupAgentDefinitionsOptions,
): Promise<AgentCatalogEntry[]> {
  const workspace = await realpath(options.workspace);
  let policy: ReturnType<typeof resolvePolicy> | undefined;
  const definitions = await loadAgentDefinitions({
    workspace,
    home: options.home,
    policy: () => {
      policy ??= resolvePolicy(options.policy, workspace);
      return policy;
    },
    note: options.note,
  });
  const entries: AgentCatalogEntry[] = [];
  for (const definition of definitions) {
    const wants = definition.scope === 'workspace' ? widerThanReadOnly(definition) : [];
    if (wants.length === 0) {
      entries.push({ definition, usable: true });
      continue;
    }
    const subject = { kind: 'agents' as const, file: definition.file, sha256: definition.sha256 };
    let given = options.trustWorkspace || (await options.consent.has(subject));
    if (!given && options.ask) {
      given = await options.ask(
        `${definition.file} defines agent "${definition.name}", which asks for ${wants.join(' and ')} (never more than the agent that starts it).\nOffer it, now and until the file changes? [y/N] `,
      );
      if (given) await options.consent.grant(subject);
    }
    if (given) entries.push({ definition, usable: true });
    else
      entries.push({
        definition,
        usable: false,
        why: `agent "${definition.name}" (${definition.file}) asks for ${wants.join(' and ')} and the user has not consented to this version of the file (an answer at a terminal, or --trust-workspace-agents)`,
      });
  }
  return entries;
}
