import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { SettingsFile } from '../../shared/settings.js';
import { formatPolicyProblem, loadPolicy } from '../policy/load-policy.js';
import { withholdVariable } from '../sandbox/executor-env.js';
import { readSettingsFile } from './read-settings-file.js';
import { SettingsError } from './settings-error.js';

/** The settings of a run, layered: the user's file, then the workspace's (which may only narrow). */
export type Settings = Omit<SettingsFile, '$schema'> & {
  /** The files that were read, in the order they apply. */
  files: string[];
};

export interface LoadSettingsOptions {
  /** The workspace as given (`--workspace`, default `.`). */
  workspace: string;
  home?: string;
  /** Keys the command line sets: flags win, so the workspace file's value for them is not checked. */
  flagged?: ReadonlySet<'policy' | 'approval' | 'network'>;
}

const STRICTNESS = { auto: 0, ask: 1, 'deny-writes': 2 } as const;
const DEFAULT_POLICY = 'execute';

/** Where the user's settings live. */
export function userSettingsFile(home: string = homedir()): string {
  return path.join(home, '.skate', 'settings.json');
}

/**
 * Reads `~/.skate/settings.json` and `<workspace>/.skate/settings.json` and layers them. The
 * workspace file comes with the repository, so it is trusted only to narrow: it may choose a
 * policy no wider than the user's (checked with `isNarrowerOrEqual`), turn the network off,
 * make approvals stricter, and set harmless options; never `env`. Anything else is a
 * `SettingsError` naming the file and key.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<Settings> {
  const home = options.home ?? homedir();
  const userFile = userSettingsFile(home);
  const user = withPolicyPath(await readSettingsFile(userFile), userFile);
  const workspace = await realpath(options.workspace).catch(() => undefined);
  const workspaceFile = workspace && path.join(workspace, '.skate', 'settings.json');
  const project =
    workspaceFile && workspaceFile !== userFile
      ? withPolicyPath(await readSettingsFile(workspaceFile), workspaceFile)
      : undefined;
  const files = [...(user ? [userFile] : []), ...(project && workspaceFile ? [workspaceFile] : [])];
  const { $schema: _user, ...base } = user ?? {};
  if (!project || !workspaceFile || !workspace) return { ...base, files };

  const { $schema: _project, ...narrowing } = project;
  const flagged = options.flagged ?? new Set();
  if (narrowing.env) {
    throw new SettingsError(
      workspaceFile,
      'env',
      `only ${userFile} may set the harness's environment: a repository's file could send your API key elsewhere (ANTHROPIC_BASE_URL)`,
    );
  }
  if (narrowing.approval && !flagged.has('approval')) {
    const baseline = base.approval ?? 'auto';
    if (STRICTNESS[narrowing.approval] < STRICTNESS[baseline]) {
      throw new SettingsError(
        workspaceFile,
        'approval',
        `"${narrowing.approval}" is less strict than "${baseline}"; a workspace's settings may only make approvals stricter`,
      );
    }
  }
  const baselinePolicy = base.policy ?? DEFAULT_POLICY;
  let baseline: ResolvedPolicy | undefined;
  const baselineResolved = async (): Promise<ResolvedPolicy> => {
    baseline ??= await resolved(baselinePolicy, workspace, home, user ? userFile : '(default policy)');
    return baseline;
  };
  if (narrowing.policy && !flagged.has('policy')) {
    const chosen = await resolved(narrowing.policy, workspace, home, workspaceFile);
    if (!isNarrowerOrEqual(chosen, await baselineResolved())) {
      throw new SettingsError(
        workspaceFile,
        'policy',
        `"${narrowing.policy}" is wider than "${baselinePolicy}" on some axis; a workspace's settings may only choose a narrower policy (give --policy to choose a wider one yourself)`,
      );
    }
  }
  if (narrowing.network === 'on' && !flagged.has('network') && !flagged.has('policy')) {
    const baseNetwork = base.network ?? (await baselineResolved()).network.mode;
    if (baseNetwork !== 'on') {
      throw new SettingsError(
        workspaceFile,
        'network',
        `"on" would turn on the network that "${baselinePolicy}" keeps off; a workspace's settings may only turn it off (give --network on yourself)`,
      );
    }
  }
  return { ...base, ...narrowing, files };
}

/**
 * Sets the settings' `env` in `target` where it does not set the variable already: the environment
 * wins. Each variable is the harness's from then on: no sandbox gets it, nor its value (a key, a
 * proxy's password), whatever its policy passes.
 */
export function applySettingsEnv(
  env: Record<string, string> | undefined,
  target: NodeJS.ProcessEnv = process.env,
): void {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (target[name] === undefined) target[name] = value;
    withholdVariable(name);
  }
}

/** A policy path in a settings file is relative to that file, not to wherever skate was started. */
function withPolicyPath(settings: SettingsFile | undefined, file: string): SettingsFile | undefined {
  const policy = settings?.policy;
  if (!settings || !policy || !(policy.includes('/') || policy.endsWith('.json'))) return settings;
  return { ...settings, policy: path.resolve(path.dirname(file), policy) };
}

async function resolved(
  name: string,
  workspace: string,
  home: string,
  file: string,
): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace, home });
  if (!loaded.ok) throw new SettingsError(file, 'policy', formatPolicyProblem(loaded.problem));
  return loaded.policy;
}
