import { readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import { isWithin } from '../../shared/path-within.js';
import { checkPolicy, type PolicyCheck } from '../../shared/validate-policy.js';
import { projectRoot } from '../project-paths.js';

export interface LoadPolicyOptions {
  workspace: string;
  home?: string;
}

/** The policies shipped with Skate. */
export function builtinPolicyDir(): string {
  return path.join(projectRoot(), 'sandbox-policies');
}

/**
 * Where a policy name is looked up. Deliberately not the workspace: a cloned
 * repository must not be able to ship a wider policy under a familiar name.
 */
export function policySearchPath(home: string): string[] {
  return [path.join(home, '.skate', 'policies'), builtinPolicyDir()];
}

function isPathLike(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || nameOrPath.endsWith('.json');
}

/** Loads a policy by name (user dir, then built-in) or by file path, resolved for a workspace. */
export async function loadPolicy(nameOrPath: string, options: LoadPolicyOptions): Promise<PolicyCheck> {
  const home = options.home ?? homedir();
  const workspace = await realpath(options.workspace).catch(() => path.resolve(options.workspace));
  const candidates = isPathLike(nameOrPath)
    ? [path.resolve(nameOrPath)]
    : policySearchPath(home).map((dir) => path.join(dir, `${nameOrPath}.json`));
  for (const source of candidates) {
    let text: string;
    try {
      text = await readFile(source, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return {
        ok: false,
        problem: {
          errorType: 'invalid_json',
          source,
          message: (error as Error).message,
          suggestion: 'fix the JSON syntax (a trailing comma or a missing quote, most often)',
        },
      };
    }
    const checked = checkPolicy(raw, source, { workspace, home });
    // The built-in policies are Skate's own, read-only in every sandbox even inside a write root.
    if (!checked.ok || isWithin(builtinPolicyDir(), source)) return checked;
    return trustedOnlyToNarrow(checked, source, { workspace, home });
  }
  return {
    ok: false,
    problem: {
      errorType: 'not_found',
      source: nameOrPath,
      message: `no policy named "${nameOrPath}"`,
      suggestion: isPathLike(nameOrPath)
        ? 'check the path'
        : `use a built-in policy (execute, execute-git, readonly, plan, full), a file path, or add ${path.join(home, '.skate', 'policies', `${nameOrPath}.json`)}`,
    },
  };
}

/** What a policy file in a place a sandbox may write may be at most: the shipped default policy. */
const DEFAULT_POLICY = 'execute';

/**
 * A policy file that lies (after links) inside the workspace, or inside a write root of the policy
 * it defines, is a file an earlier run's sandbox could have rewritten (issue #20, item 4): given by
 * path, or by a name whose `~/.skate/policies` file is a link to it, it is workspace content, and
 * may only narrow the default policy, checked each time it is loaded, so a change a sandbox made
 * can only narrow. What lies in `~/.skate` (read-only in every sandbox) or outside those places is
 * the user's, and trusted as given.
 */
async function trustedOnlyToNarrow(
  checked: Extract<PolicyCheck, { ok: true }>,
  source: string,
  places: { workspace: string; home: string },
): Promise<PolicyCheck> {
  const real = await realpath(source).catch(() => source);
  const userDir = await realpath(path.join(places.home, '.skate')).catch(() =>
    path.join(places.home, '.skate'),
  );
  if (isWithin(userDir, real)) return checked;
  const writable = [places.workspace, ...checked.policy.write.allow].find((root) => isWithin(root, real));
  if (writable === undefined) return checked;
  // The shipped one: a user's `execute.json` may be the very file being checked.
  const ceiling = await loadPolicy(path.join(builtinPolicyDir(), `${DEFAULT_POLICY}.json`), places);
  if (!ceiling.ok) return ceiling;
  if (isNarrowerOrEqual(checked.policy, ceiling.policy)) return checked;
  return {
    ok: false,
    problem: {
      errorType: 'writable_location',
      source,
      message: `lies in ${writable}, which a sandbox can write, and is wider than "${DEFAULT_POLICY}" on some axis: an earlier run could have widened it`,
      suggestion: `keep wider policies in ${path.join(places.home, '.skate', 'policies')} (no sandbox can write there) and give their name: --policy NAME`,
    },
  };
}

/** One line for a terminal: source, field, problem and what to do. */
export function formatPolicyProblem(problem: Extract<PolicyCheck, { ok: false }>['problem']): string {
  const where = problem.field ? `${problem.source}: ${problem.field}` : problem.source;
  return `invalid policy (${problem.errorType}) ${where}: ${problem.message}\n  suggestion: ${problem.suggestion}`;
}
