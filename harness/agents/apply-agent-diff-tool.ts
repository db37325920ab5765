import path from 'node:path';
import * as z from 'zod';
import { isGlob } from '../../shared/path-patterns.js';
import { isWithin } from '../../shared/path-within.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolResult } from '../../shared/tool.js';
import type { MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import { readWorkspaceFile } from '../workspace-files/read-workspace-file.js';
import type { AgentDiffStore } from './agent-diff-store.js';
import type { AgentChange } from './agent-worktree.js';
import { inputJsonSchema } from './input-json-schema.js';
import { type ConflictHunk, mergeThreeWay } from './merge-three-way.js';

export const ApplyAgentDiffInput = z.object({
  agent_id: z
    .string()
    .min(1)
    .describe('The agent_id of a finished worktree sub-agent (from its spawn_agent result).'),
  discard: z.boolean().optional().describe('Drop its changes instead of applying them.'),
});

const DESCRIPTION = `Apply the changes a sub-agent made in its own worktree (spawn_agent with isolation "worktree") to the workspace, merged three ways like \`git apply --3way\`: files you changed meanwhile are merged with its changes; where both changed the same lines, nothing at all is written and the conflicting files and hunks are reported, for you to resolve (edit the files yourself, then discard the diff). Changes to .git, .skate, .claude, .mcp.json and other protected paths, links and binary files are refused.`;

/** Paths no diff may touch, wherever the policy puts its protected list: what Skate or git read as configuration. */
const REFUSED_ANYWHERE = new Set(['.git', '.skate', '.mcp.json', '.claude']);

export interface ApplyAgentDiffToolOptions {
  store: AgentDiffStore;
  /** The parent's policy now (the executor's, after any network switch). */
  policy(): ResolvedPolicy | undefined;
  /** The parent's executor: every write goes through it, so its sandbox is the gate. */
  executor(): ExecutorClient;
}

type Plan =
  | { path: string; action: 'write'; content: string }
  | { path: string; action: 'delete' }
  | { path: string; action: 'unchanged' };

interface Problem {
  file: string;
  why: string;
  hunks?: ConflictHunk[];
}

/**
 * `apply_agent_diff`: brings a worktree child's changes into the workspace. All or nothing: every
 * file is checked and merged first (reading the workspace as the parent's policy allows); only
 * when none conflicts or is refused are the files written, each through the parent's executor
 * (`write_file`, and `shell` `rm` for a deletion), never by the harness on the host.
 */
export function createApplyAgentDiffTool(options: ApplyAgentDiffToolOptions): MetaTool {
  return {
    definition: {
      name: 'apply_agent_diff',
      description: DESCRIPTION,
      effect: 'write',
      inputSchema: inputJsonSchema(ApplyAgentDiffInput),
    },
    async run(call): Promise<ToolResult> {
      const parsed = ApplyAgentDiffInput.safeParse(call.input);
      if (!parsed.success) {
        return invalidInputResult('apply_agent_diff', parsed.error);
      }
      const { agent_id: id, discard } = parsed.data;
      const pending = options.store.get(id);
      if (!pending) {
        const ids = options.store.ids();
        return {
          output: `no changes of "${id}" are waiting; ${ids.length > 0 ? `waiting: ${ids.join(', ')}` : 'none are waiting'}`,
          isError: true,
          code: 'not_found',
        };
      }
      if (discard) {
        options.store.delete(id);
        return {
          output: JSON.stringify({ agent_id: id, discarded: pending.diff.changes.map((c) => c.path) }),
          isError: false,
        };
      }
      const policy = options.policy();
      if (!policy || policy.write.allow.length === 0) {
        return {
          output: 'you may write nothing here, so no diff can be applied',
          isError: true,
          code: 'denied',
        };
      }
      const plans: Plan[] = [];
      const refused: Problem[] = [];
      const conflicts: Problem[] = [];
      for (const change of pending.diff.changes) {
        const why = refusal(change, policy);
        if (why) {
          refused.push({ file: change.path, why });
          continue;
        }
        const planned = await planChange(change, policy);
        if ('why' in planned) conflicts.push(planned);
        else plans.push(planned);
      }
      if (refused.length > 0 || conflicts.length > 0) {
        return {
          output: `nothing was applied: ${[
            ...conflicts.map((c) => `${c.file} conflicts (${c.why})`),
            ...refused.map((r) => `${r.file} is refused (${r.why})`),
          ].join('; ')}\n${JSON.stringify({ agent_id: id, applied: [], conflicts, refused })}`,
          isError: true,
          code: 'conflict',
        };
      }
      const executor = options.executor();
      const applied: string[] = [];
      const unchanged: string[] = [];
      const failed: Problem[] = [];
      for (const plan of plans) {
        if (plan.action === 'unchanged') {
          unchanged.push(plan.path);
          continue;
        }
        const result =
          plan.action === 'write'
            ? await executor.callTool(
                'write_file',
                { path: plan.path, content: plan.content },
                { signal: call.signal },
              )
            : await executor.callTool(
                'shell',
                { command: `rm -f -- ${shellQuote(plan.path)}` },
                { signal: call.signal },
              );
        if (result.isError) failed.push({ file: plan.path, why: result.output.slice(0, 500) });
        else applied.push(plan.path);
      }
      if (failed.length === 0) options.store.delete(id);
      const summary = {
        agent_id: id,
        applied,
        ...(unchanged.length > 0 && { unchanged }),
        ...(failed.length > 0 && { failed }),
      };
      return failed.length > 0
        ? {
            output: `some files could not be written (the others were): ${failed.map((f) => `${f.file}: ${f.why}`).join('; ')}\n${JSON.stringify(summary)}`,
            isError: true,
            code: 'failed',
          }
        : { output: JSON.stringify(summary), isError: false };
    },
  };
}

/** Why a change must not be applied at all, or undefined. */
export function refusal(change: AgentChange, policy: ResolvedPolicy): string | undefined {
  const parts = change.path.split('/');
  if (path.isAbsolute(change.path) || parts.some((part) => part === '' || part === '.' || part === '..'))
    return 'not a plain relative path';
  if (parts.some((part) => REFUSED_ANYWHERE.has(part))) return 'Skate or git read it as configuration';
  const target = path.join(policy.workspace, change.path);
  if (policy.protected.some((p) => !isGlob(p) && isWithin(p, target))) return 'protected by the policy';
  if (!policy.write.allow.some((root) => isWithin(root, target))) return 'outside what you may write';
  if (change.status !== 'deleted' && change.newMode !== '100644' && change.newMode !== '100755')
    return change.newMode === '120000' ? 'a symbolic link' : 'not a regular file';
  if (change.status !== 'added' && change.oldMode !== '100644' && change.oldMode !== '100755')
    return 'it was not a regular file';
  if ((change.status !== 'deleted' && !change.after) || (change.status !== 'added' && !change.before))
    return 'too large to apply';
  if ((change.after && !isText(change.after)) || (change.before && !isText(change.before)))
    return 'a binary file';
  return undefined;
}

async function planChange(change: AgentChange, policy: ResolvedPolicy): Promise<Plan | Problem> {
  const file = path.join(policy.workspace, change.path);
  const read = await readWorkspaceFile(file, {
    maxBytes: 16 * 1024 * 1024,
    overflow: 'refuse',
    policy,
    within: policy.workspace,
  });
  if (read.status === 'refused') return { file: change.path, why: `the workspace's file ${read.message}` };
  const ours = read.status === 'read' ? read.data.toString('utf8') : undefined;
  const base = change.before?.toString('utf8');
  const theirs = change.after?.toString('utf8');
  if (ours === theirs) return { path: change.path, action: 'unchanged' };
  if (ours === base) {
    return theirs === undefined
      ? { path: change.path, action: 'delete' }
      : { path: change.path, action: 'write', content: theirs };
  }
  if (ours === undefined)
    return { file: change.path, why: 'deleted in the workspace since the agent started' };
  if (theirs === undefined)
    return { file: change.path, why: 'changed in the workspace, deleted by the agent' };
  if (base === undefined) return { file: change.path, why: 'added by both, differently' };
  const merged = await mergeThreeWay(ours, base, theirs);
  if (merged.clean) return { path: change.path, action: 'write', content: merged.text };
  return {
    file: change.path,
    why: `${merged.hunks.length} hunk${merged.hunks.length === 1 ? '' : 's'} changed on both sides`,
    hunks: merged.hunks,
  };
}

function isText(data: Buffer): boolean {
  return !data.includes(0) && Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
