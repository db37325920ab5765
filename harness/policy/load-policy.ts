import { readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
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
    return checkPolicy(raw, source, { workspace, home });
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

/** One line for a terminal: source, field, problem and what to do. */
export function formatPolicyProblem(problem: Extract<PolicyCheck, { ok: false }>['problem']): string {
  const where = problem.field ? `${problem.source}: ${problem.field}` : problem.source;
  return `invalid policy (${problem.errorType}) ${where}: ${problem.message}\n  suggestion: ${problem.suggestion}`;
}
