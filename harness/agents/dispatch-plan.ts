import type { AgentBudget, AgentDefinition } from '../../shared/agent-definition.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { childPolicyFor } from './child-policy.js';
import type { ResultContractName } from './result-contracts.js';
import type { AgentCatalogEntry } from './setup-agent-definitions.js';

/** What spawn_agent's input asks, as far as the plan goes. */
export interface DispatchWish {
  agent?: string | undefined;
  write_paths?: string[] | undefined;
  network?: 'off' | 'on' | undefined;
  read_only?: boolean | undefined;
  tools?: string[] | undefined;
  result_schema?: ResultContractName | undefined;
  budget?: AgentBudget | undefined;
}

/** How one dispatch runs: the child's policy and everything a definition and the input narrowed. */
export interface DispatchPlan {
  policy: ResolvedPolicy;
  notGranted: string[];
  definition?: AgentDefinition | undefined;
  tools?: string[] | undefined;
  model?: string | undefined;
  maxTurns: number;
  contract: ResultContractName;
  budget: AgentBudget;
  /** The definition's body, its system prompt. */
  role?: string | undefined;
}

export type DispatchPlanResult =
  | { ok: true; plan: DispatchPlan }
  | { ok: false; code: 'invalid_input' | 'policy'; message: string };

export interface DispatchPlanOptions {
  parent: ResolvedPolicy;
  agents: readonly AgentCatalogEntry[];
  agentId: string;
  forceReadOnly: boolean;
  maxTurns: number;
}

/**
 * The plan of one dispatch. A named definition narrows first (its `write_paths` and `network`
 * through `childPolicyFor`, so only ever `narrowPolicy` of the parent), then the call's own
 * input narrows that again; tools are the intersection, turn caps and budgets the smaller.
 * Neither can widen: each step is a narrowing of the step before, checked by `isNarrowerOrEqual`.
 */
export function planDispatch(wish: DispatchWish, options: DispatchPlanOptions): DispatchPlanResult {
  let entry: AgentCatalogEntry | undefined;
  if (wish.agent !== undefined) {
    entry = options.agents.find((candidate) => candidate.definition.name === wish.agent);
    if (!entry) {
      const names = options.agents.map((candidate) => candidate.definition.name);
      return {
        ok: false,
        code: 'invalid_input',
        message: `no agent "${wish.agent}"; ${names.length > 0 ? `the agents are ${names.join(', ')}` : 'no agent files are defined'}`,
      };
    }
    if (!entry.usable) return { ok: false, code: 'policy', message: entry.why };
  }
  const definition = entry?.definition;
  let parent = options.parent;
  const notGranted: string[] = [];
  if (definition) {
    const narrowed = childPolicyFor(
      parent,
      { write_paths: definition.write_paths, network: definition.network },
      { name: definition.name, forceReadOnly: options.forceReadOnly },
    );
    if (!narrowed.ok)
      return { ok: false, code: 'policy', message: `agent "${definition.name}": ${narrowed.message}` };
    parent = narrowed.policy;
    notGranted.push(...narrowed.notGranted.map((line) => `${line} (agent "${definition.name}")`));
  }
  const decision = childPolicyFor(parent, wish, {
    name: options.agentId,
    forceReadOnly: options.forceReadOnly,
  });
  if (!decision.ok) return { ok: false, code: 'policy', message: decision.message };
  notGranted.push(...decision.notGranted);
  const tools =
    definition?.tools && wish.tools
      ? definition.tools.filter((name) => wish.tools?.includes(name))
      : (wish.tools ?? definition?.tools);
  return {
    ok: true,
    plan: {
      policy: decision.policy,
      notGranted,
      definition,
      tools,
      model: definition?.model,
      maxTurns: Math.min(options.maxTurns, definition?.max_turns ?? options.maxTurns),
      contract: wish.result_schema ?? definition?.result_schema ?? 'generic',
      budget: smallerBudget(definition?.budget, wish.budget),
      role: definition?.prompt,
    },
  };
}

function smallerBudget(a: AgentBudget | undefined, b: AgentBudget | undefined): AgentBudget {
  const least = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const total = least(a?.total, b?.total);
  const perResponse = least(a?.output_per_response, b?.output_per_response);
  return {
    ...(total !== undefined && { total }),
    ...(perResponse !== undefined && { output_per_response: perResponse }),
  };
}
