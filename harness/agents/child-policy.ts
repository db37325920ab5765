import path from 'node:path';
import * as z from 'zod';
import { isNarrowerOrEqual, narrowPolicy, PolicyRequest } from '../../shared/narrow-policy.js';
import { isWithin } from '../../shared/path-within.js';
import type { ResolvedPolicy } from '../../shared/policy.js';

/** What spawn_agent's input asks of the sandbox. */
export interface ChildPolicyWish {
  write_paths?: string[] | undefined;
  network?: 'off' | 'on' | undefined;
  read_only?: boolean | undefined;
}

export type ChildPolicyDecision =
  | {
      ok: true;
      policy: ResolvedPolicy;
      /** What was asked for and not granted, one line each, for the model. */
      notGranted: string[];
    }
  | { ok: false; message: string };

/**
 * The policy of a sub-agent: only ever `narrowPolicy(parent, request)`,
 * checked again with `isNarrowerOrEqual` (defence in depth: a bug in one must
 * not widen a child). Relative write paths resolve against the workspace;
 * with `forceReadOnly` (a planning parent's children, say) there are no write roots.
 */
export function childPolicyFor(
  parent: ResolvedPolicy,
  wish: ChildPolicyWish,
  options: { name: string; forceReadOnly?: boolean },
): ChildPolicyDecision {
  const readOnly = Boolean(wish.read_only || options.forceReadOnly);
  const writePaths = wish.write_paths?.map((p) => path.resolve(parent.workspace, p));
  const request = PolicyRequest.safeParse({
    name: options.name,
    ...(writePaths !== undefined && { writePaths }),
    ...(readOnly && { readOnly: true }),
    ...(wish.network !== undefined && { network: wish.network }),
  });
  if (!request.success) {
    return { ok: false, message: `the sandbox request is invalid:\n${z.prettifyError(request.error)}` };
  }
  const policy = narrowPolicy(parent, request.data);
  if (!isNarrowerOrEqual(policy, parent)) {
    return {
      ok: false,
      message: 'the narrowed policy came out wider than the parent’s; refusing to start it',
    };
  }
  const notGranted: string[] = [];
  if (readOnly && !wish.read_only && (wish.write_paths?.length ?? 0) > 0) {
    notGranted.push('write access: sub-agents of this session are read-only');
  } else {
    for (const wanted of writePaths ?? []) {
      if (!policy.write.allow.some((root) => isWithin(root, wanted))) {
        notGranted.push(`write access to ${wanted}: outside what the parent may write, or protected`);
      }
    }
  }
  if (wish.network === 'on' && policy.network.mode === 'off') notGranted.push('network: the parent has none');
  if (wish.network === 'on' && policy.network.mode === 'allowlist') {
    notGranted.push(`network: only the parent's allowlist (${policy.network.allow.join(', ') || 'no host'})`);
  }
  if (wish.read_only === false && policy.write.allow.length === 0 && !readOnly) {
    notGranted.push('write access: the parent may write nothing');
  }
  return { ok: true, policy, notGranted };
}
