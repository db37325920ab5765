import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { HooksSettings } from '../../shared/hooks.js';
import { McpJsonFile, type McpServers } from '../../shared/mcp-servers.js';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import { networkNarrowerOrEqual } from '../../shared/network-allowlist.js';
import { isWithin } from '../../shared/path-within.js';
import { type NetworkSetting, networkFromSetting, type ResolvedPolicy } from '../../shared/policy.js';
import type { SettingsFile } from '../../shared/settings.js';
import { DEFAULT_BACKGROUND_LIMIT } from '../agents/background-agents.js';
import { formatPolicyProblem, loadPolicy } from '../policy/load-policy.js';
import { setConfiguredProviders } from '../provider/provider-catalog.js';
import { withholdVariable } from '../sandbox/executor-env.js';
import { readUserFile, readWorkspaceFile } from '../workspace-files/read-workspace-file.js';
import { parseSettingsFile, SETTINGS_BOUNDS } from './read-settings-file.js';
import { SettingsError } from './settings-error.js';

/** The hooks of one settings file, kept apart: a workspace's run only with consent to its version. */
export interface HookSource {
  scope: 'user' | 'workspace';
  file: string;
  hooks: HooksSettings;
  /** SHA-256 of the file's bytes as read: what consent is given to. */
  sha256: string;
}

/** The MCP servers of one file (a settings file's `mcpServers`, a project's `.mcp.json`), kept apart as hooks are. */
export interface McpSource {
  scope: 'user' | 'workspace';
  file: string;
  servers: McpServers;
  /** SHA-256 of the file's bytes as read: what consent is given to. */
  sha256: string;
}

/** The settings of a run, layered: the user's file, then the workspace's (which may only narrow). */
export type Settings = Omit<SettingsFile, '$schema' | 'hooks' | 'mcpServers'> & {
  /** The files that were read, in the order they apply. */
  files: string[];
  /** Each file's hooks, the user's first; not merged, since they are trusted differently. */
  hookSources: HookSource[];
  /** Each file's MCP servers, the user's first; not merged, since they are trusted differently. */
  mcpSources: McpSource[];
};

/** What the command line sets of what a settings file may also set. */
export interface SettingsFlags {
  policy?: string | undefined;
  approval?: 'auto' | 'ask' | 'deny-writes' | undefined;
  network?: NetworkSetting | undefined;
}

export interface LoadSettingsOptions {
  /**
   * The workspace as given (`--workspace`, default `.`); undefined for the user's file alone (a
   * frontend whose sessions each name their workspace, read per session: `skate acp`).
   */
  workspace: string | undefined;
  home?: string;
  /**
   * What the flags set. They win over both files, and with the user's file they make the baseline
   * the workspace's file may only narrow: `--policy execute` is no licence for its `network: "on"`.
   */
  flags?: SettingsFlags;
}

const STRICTNESS = { auto: 0, ask: 1, 'deny-writes': 2 } as const;
const DEFAULT_POLICY = 'execute';

/** Where the user's settings live. */
export function userSettingsFile(home: string = homedir()): string {
  return path.join(home, '.skate', 'settings.json');
}

/**
 * Reads `~/.skate/settings.json` and `<workspace>/.skate/settings.json` and layers them. The
 * workspace file comes with the repository (or was planted), so it is trusted only to narrow the
 * baseline, which is the user's file with the flags over it: a policy no wider than the baseline's
 * (`isNarrowerOrEqual`), the network only where the baseline has it already, approvals no less
 * strict, harmless options (model, turns, tokens); never `env`. A key the flags set is the flag's,
 * and the file's value for it is dropped. The file itself is read as the baseline policy lets an
 * agent read (`readWorkspaceFile`): a link out of the workspace, to a denied file, a FIFO or a
 * device is refused. Anything else is a `SettingsError` naming the file and key.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<Settings> {
  const home = options.home ?? homedir();
  const flags = options.flags ?? {};
  const userFile = userSettingsFile(home);
  const workspace =
    options.workspace === undefined ? undefined : await realpath(options.workspace).catch(() => undefined);
  const userRead = await readUserFile(userFile, SETTINGS_BOUNDS);
  if (userRead.status === 'read' && workspace)
    await refuseLinkIntoWorkspace(userFile, userRead.real, workspace, home);
  const user = withPolicyPath(parseSettingsFile(userFile, userRead), userFile);
  const { $schema: _user, hooks: userHooks, mcpServers: userMcp, ...base } = user ?? {};
  const hookSources: HookSource[] = [];
  if (userHooks && userRead.status === 'read')
    hookSources.push({ scope: 'user', file: userFile, hooks: userHooks, sha256: sha256(userRead.data) });
  const mcpSources: McpSource[] = [];
  if (userMcp && userRead.status === 'read')
    mcpSources.push({ scope: 'user', file: userFile, servers: userMcp, sha256: sha256(userRead.data) });
  const workspaceFile = workspace && path.join(workspace, '.skate', 'settings.json');
  const baselinePolicy = flags.policy ?? base.policy ?? DEFAULT_POLICY;
  let baseline: Promise<ResolvedPolicy> | undefined;
  const baselineResolved = (): Promise<ResolvedPolicy> => {
    const source = flags.policy ? '--policy' : user?.policy ? userFile : '(default policy)';
    baseline ??= resolved(baselinePolicy, workspace ?? options.workspace ?? '.', home, source);
    return baseline;
  };
  const projectRead =
    workspaceFile && workspaceFile !== userFile
      ? await readWorkspaceFile(workspaceFile, {
          ...SETTINGS_BOUNDS,
          policy: baselineResolved,
          within: workspace,
        })
      : undefined;
  const project =
    workspaceFile && projectRead
      ? withPolicyPath(parseSettingsFile(workspaceFile, projectRead), workspaceFile)
      : undefined;
  const files = [...(user ? [userFile] : []), ...(project && workspaceFile ? [workspaceFile] : [])];
  // A project's .mcp.json (Claude Code's), read as its settings file is; its servers need consent.
  const mcpJson = workspace ? await readMcpJson(workspace, baselineResolved) : undefined;
  if (!project || !workspaceFile || !workspace) {
    if (mcpJson) mcpSources.push(mcpJson);
    return { ...base, files, hookSources, mcpSources };
  }

  const {
    $schema: _project,
    hooks: projectHooks,
    disableAllHooks: projectOff,
    mcpServers: projectMcp,
    ...narrowing
  } = project;
  if (projectMcp && projectRead?.status === 'read') {
    mcpSources.push({
      scope: 'workspace',
      file: workspaceFile,
      servers: projectMcp,
      sha256: sha256(projectRead.data),
    });
  }
  if (mcpJson) mcpSources.push(mcpJson);
  if (narrowing.mcp?.workspaceServersHeadless !== undefined) {
    throw new SettingsError(
      workspaceFile,
      'mcp.workspaceServersHeadless',
      `only ${userFile} may let headless runs use a workspace's MCP servers: a repository's file would consent to its own code`,
    );
  }
  // A workspace's `disableAllHooks` turns off its own hooks only: the user's hooks are the user's rules
  // (a PreToolUse that blocks `rm -rf`), and a cloned repository must not be able to switch them off.
  if (projectHooks && projectRead?.status === 'read' && projectOff !== true) {
    hookSources.push({
      scope: 'workspace',
      file: workspaceFile,
      hooks: projectHooks,
      sha256: sha256(projectRead.data),
    });
  }
  if (narrowing.env) {
    throw new SettingsError(
      workspaceFile,
      'env',
      `only ${userFile} may set the harness's environment: a repository's file could send your API key elsewhere (ANTHROPIC_BASE_URL)`,
    );
  }
  if (narrowing.providers) {
    throw new SettingsError(
      workspaceFile,
      'providers',
      `only ${userFile} may name model servers: a repository's file could send a key, or your code, to a server of its choosing`,
    );
  }
  // What the flags set is theirs: the file's value for it is not used, so it is not checked.
  if (flags.approval) delete narrowing.approval;
  if (flags.policy) delete narrowing.policy;
  if (flags.network) delete narrowing.network;
  if (narrowing.approval) {
    const strictest = base.approval ?? 'auto';
    if (STRICTNESS[narrowing.approval] < STRICTNESS[strictest]) {
      throw new SettingsError(
        workspaceFile,
        'approval',
        `"${narrowing.approval}" is less strict than "${strictest}"; a workspace's settings may only make approvals stricter`,
      );
    }
  }
  // The run's network switch applies to whichever policy is chosen: compare them under it.
  const networkOverride = flags.network ?? base.network;
  if (narrowing.policy) {
    const chosen = await resolved(narrowing.policy, workspace, home, workspaceFile);
    if (
      !isNarrowerOrEqual(
        withNetwork(chosen, networkOverride),
        withNetwork(await baselineResolved(), networkOverride),
      )
    ) {
      throw new SettingsError(
        workspaceFile,
        'policy',
        `"${narrowing.policy}" is wider than "${baselinePolicy}" on some axis; a workspace's settings may only choose a narrower policy (give --policy to choose a wider one yourself)`,
      );
    }
  }
  if (narrowing.network !== undefined && narrowing.network !== 'off') {
    const baseNetwork = networkOverride
      ? networkFromSetting(networkOverride)
      : (await baselineResolved()).network;
    if (!networkNarrowerOrEqual(networkFromSetting(narrowing.network), baseNetwork)) {
      const wanted = narrowing.network === 'on' ? '"on"' : 'its allowlist';
      throw new SettingsError(
        workspaceFile,
        'network',
        baseNetwork.mode === 'off'
          ? `${wanted} would turn on the network that "${baselinePolicy}" keeps off; a workspace's settings may only narrow the network (give --network yourself)`
          : `${wanted} would reach hosts your allowlist does not; a workspace's settings may only narrow the network (give --network yourself)`,
      );
    }
  }
  if (
    narrowing.backgroundAgents !== undefined &&
    narrowing.backgroundAgents > (base.backgroundAgents ?? DEFAULT_BACKGROUND_LIMIT)
  ) {
    throw new SettingsError(
      workspaceFile,
      'backgroundAgents',
      `${narrowing.backgroundAgents} is more than ${base.backgroundAgents ?? DEFAULT_BACKGROUND_LIMIT}; a workspace's settings may only lower how many background sub-agents run at once`,
    );
  }
  // A workspace may set its servers' timeouts (harmless); headless use of its servers it may not (above).
  const mcp = narrowing.mcp || base.mcp ? { ...base.mcp, ...narrowing.mcp } : undefined;
  return { ...base, ...narrowing, ...(mcp && { mcp }), files, hookSources, mcpSources };
}

/** `<workspace>/.mcp.json`, read as the baseline policy lets an agent read; undefined when there is none. */
async function readMcpJson(
  workspace: string,
  policy: () => Promise<ResolvedPolicy>,
): Promise<McpSource | undefined> {
  const file = path.join(workspace, '.mcp.json');
  const read = await readWorkspaceFile(file, { ...SETTINGS_BOUNDS, policy, within: workspace });
  if (read.status === 'missing') return undefined;
  if (read.status === 'refused') throw new SettingsError(file, undefined, read.message);
  let raw: unknown;
  try {
    raw = JSON.parse(read.data.toString('utf8'));
  } catch (error) {
    throw new SettingsError(file, undefined, `is not valid JSON (${(error as Error).message})`);
  }
  const parsed = McpJsonFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SettingsError(
      file,
      issue?.path.map(String).join('.') || undefined,
      issue?.message ?? 'is not valid',
    );
  }
  return { scope: 'workspace', file, servers: parsed.data.mcpServers, sha256: sha256(read.data) };
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `~/.skate` is read-only in every sandbox, but a link there is protected only as far as what it
 * leads to: one into this workspace leads to a file this run's sandboxes can write (and, with
 * `env`, send the API key elsewhere), so it is refused. Links elsewhere (a dotfiles repository, a
 * Nix store) are the user's.
 */
async function refuseLinkIntoWorkspace(
  file: string,
  real: string,
  workspace: string,
  home: string,
): Promise<void> {
  const userDir = await realpath(path.join(home, '.skate')).catch(() => path.join(home, '.skate'));
  if (!isWithin(workspace, real) || isWithin(userDir, real)) return;
  throw new SettingsError(
    file,
    undefined,
    `leads to ${real}, inside the workspace, which its sandboxes can write; keep your settings outside every directory an agent may write`,
  );
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

/**
 * Makes the settings' providers the catalog's, and withholds each one's key variable
 * (`apiKeyEnv`) from every sandbox by name and by value, whatever it is called.
 */
export function applySettingsProviders(providers: SettingsFile['providers']): void {
  setConfiguredProviders(providers);
  for (const provider of Object.values(providers ?? {})) {
    if (provider.apiKeyEnv) withholdVariable(provider.apiKeyEnv);
  }
}

/** A policy path in a settings file is relative to that file, not to wherever skate was started. */
function withPolicyPath(settings: SettingsFile | undefined, file: string): SettingsFile | undefined {
  const policy = settings?.policy;
  if (!settings || !policy || !(policy.includes('/') || policy.endsWith('.json'))) return settings;
  return { ...settings, policy: path.resolve(path.dirname(file), policy) };
}

function withNetwork(policy: ResolvedPolicy, setting: NetworkSetting | undefined): ResolvedPolicy {
  return setting ? { ...policy, network: networkFromSetting(setting) } : policy;
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
