import path from 'node:path';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import { isGlob } from '../../shared/path-patterns.js';
import { isWithin } from '../../shared/path-within.js';
import { type NetworkSetting, networkLabel, type ResolvedPolicy } from '../../shared/policy.js';
import { applyRunOverrides } from '../../shared/run-overrides.js';
import type { CreateSessionRequest } from '../../shared/serve-api.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import { resolvePolicy, resolveWorkspace } from '../runtime/start-executor.js';
import { ServeError } from './serve-error.js';

/** What the server was started with: the ceiling of every session. */
export interface ServerLimits {
  /** `--workspace`, real: every session's workspace lies inside it. */
  root: string;
  /** `--policy`: applied to each session's workspace, the widest a session may get. */
  policy: string;
  /** `--network`, when given: the server policy's network for every session. */
  network?: NetworkSetting | undefined;
  /** `--approval`: sessions may ask for stricter, never laxer. */
  approval: ApprovalMode;
}

/** What a session gets, checked. */
export interface SessionGrant {
  workspace: string;
  policy: ResolvedPolicy;
  /** The server's policy for this workspace: what the session's later switches are checked against. */
  ceiling: ResolvedPolicy;
  approval: ApprovalMode;
}

/** How strict an approval mode is: a session may only move right. */
const STRICTNESS: readonly ApprovalMode[] = ['auto', 'ask', 'deny-writes'];

/** Skate's own directory: protected in every workspace at every depth, whatever a policy lists. */
const SKATE_DIR_NAME = '.skate';

/**
 * The names the server's policy protects in a workspace (`${workspace}/.git`,
 * `.skate`, `.vscode`, …): a session's workspace may have none of them as a
 * component at any depth, so `sub/.skate/sessions` (another session's logs) or
 * `lib/.git/hooks` is never a workspace of its own, writable as a whole.
 */
export function protectedNames(rootPolicy: ResolvedPolicy): Set<string> {
  const names = new Set([SKATE_DIR_NAME]);
  for (const entry of rootPolicy.protected) {
    if (!isGlob(entry) && path.dirname(entry) === rootPolicy.workspace) names.add(path.basename(entry));
  }
  return names;
}

/**
 * The workspace, policy and approval mode of a new session, never wider than
 * the server's. The server's policy is resolved for the session's workspace
 * (a subdirectory gets the same rules, rooted there) and is the ceiling:
 * the requested policy must be `isNarrowerOrEqual` to it, the check
 * sub-agents' policies pass. The workspace must lie inside the server's, not
 * inside anything the server's policy protects or hides, and no component of
 * it below the server's workspace may be a protected name (`protectedNames`).
 * Messages name the workspace as the client did: relative to the server's.
 */
export async function grantSession(
  server: ServerLimits,
  rootPolicy: ResolvedPolicy,
  request: Pick<CreateSessionRequest, 'workspace' | 'policy' | 'network' | 'approval'>,
): Promise<SessionGrant> {
  const workspace = await resolveWorkspace(path.resolve(server.root, request.workspace ?? '.'));
  if (!isWithin(server.root, workspace)) {
    throw new ServeError('forbidden', "the workspace is outside the server's --workspace");
  }
  const shown = path.relative(server.root, workspace) || '.';
  const shut = [...rootPolicy.protected, ...rootPolicy.read.deny].find(
    (p) => !isGlob(p) && isWithin(p, workspace),
  );
  const names = protectedNames(rootPolicy);
  const component = shown.split(path.sep).find((part) => names.has(part));
  if (shut || component) {
    const what =
      component ??
      (isWithin(server.root, shut!)
        ? path.relative(server.root, shut!)
        : "a path above the server's workspace");
    throw new ServeError(
      'forbidden',
      `workspace ${shown} is inside ${what}, which the server's policy protects`,
    );
  }
  const withNetwork = (policy: ResolvedPolicy, setting: NetworkSetting | undefined): ResolvedPolicy =>
    setting ? applyRunOverrides(policy, { network: setting }) : policy;
  const ceiling = withNetwork(await resolvePolicy(server.policy, workspace), server.network);
  const wanted = withNetwork(
    request.policy ? await resolvePolicy(request.policy, workspace) : ceiling,
    request.network,
  );
  if (!isNarrowerOrEqual(wanted, ceiling)) {
    const network = request.network ? ` with network ${networkLabel(wanted.network)}` : '';
    throw new ServeError(
      'forbidden',
      `policy ${request.policy ?? ceiling.name}${network} is wider than the server's (${ceiling.name}, network ${networkLabel(ceiling.network)})`,
    );
  }
  const approval = request.approval ?? server.approval;
  if (STRICTNESS.indexOf(approval) < STRICTNESS.indexOf(server.approval)) {
    throw new ServeError(
      'forbidden',
      `approval ${approval} is laxer than the server's ${server.approval} (auto < ask < deny-writes)`,
    );
  }
  return { workspace, policy: wanted, ceiling, approval };
}

/** `policy` with the network switched to `mode`, refused when that is wider than the server's `ceiling`. */
export function grantNetwork(
  policy: ResolvedPolicy,
  ceiling: ResolvedPolicy,
  setting: NetworkSetting,
): ResolvedPolicy {
  const wanted = applyRunOverrides(policy, { network: setting });
  if (!isNarrowerOrEqual(wanted, ceiling)) {
    throw new ServeError(
      'forbidden',
      `network ${networkLabel(wanted.network)} is wider than the server's policy (${ceiling.name}, network ${networkLabel(ceiling.network)})`,
    );
  }
  return wanted;
}

/**
 * Refuses planning where the `plan` policy would widen the server's: apart
 * from the plan file it must be narrower-or-equal to `ceiling`, and the plan
 * file (inside `.skate`, which policies protect from tools) is written only
 * where the server lets sessions write their workspace at all.
 */
export async function grantPlanning(workspace: string, ceiling: ResolvedPolicy): Promise<void> {
  const plan = await resolvePolicy('plan', workspace);
  const readOnly: ResolvedPolicy = { ...plan, write: { ...plan.write, allow: [] } };
  const writesWorkspace = ceiling.write.allow.some((root) => !isGlob(root) && isWithin(root, workspace));
  if (!writesWorkspace || !isNarrowerOrEqual(readOnly, ceiling)) {
    throw new ServeError(
      'forbidden',
      `planning (the plan policy) is wider than the server's policy ${ceiling.name} for this workspace`,
    );
  }
}
