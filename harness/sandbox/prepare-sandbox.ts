import { homedir } from 'node:os';
import path from 'node:path';
import type { ResourceLimits } from '../../shared/executor-boot.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { ensureMcpAuthDir, mcpAuthDir } from '../mcp-oauth/oauth-store.js';
import { prepareSandboxNetwork, type SandboxNetworkOptions } from '../network/sandbox-network.js';
import { ensurePlanFile, planFilePath } from '../planning/plan-file.js';
import { builtinPolicyDir } from '../policy/load-policy.js';
import { distPath, projectRoot } from '../project-paths.js';
import { userSettingsFile } from '../settings/load-settings.js';
import { skateCacheDir } from '../skate-cache-dir.js';
import { traceStart } from '../start-trace.js';
import { createCgroupLimits } from './cgroup-limits.js';
import { sharedEmptyDir } from './empty-dir.js';
import { executorEnvironment } from './executor-env.js';
import { isolationArgs } from './isolation-args.js';
import { guardArgs, mountArgs, sandboxInit } from './mount-plan.js';
import { planSandbox, type SandboxPlan } from './plan-sandbox.js';
import { probeSandbox } from './probe-sandbox.js';
import { SandboxPlanError, SandboxUnavailableError } from './sandbox-errors.js';

let sequence = 0;

/** Homes whose `~/.skate/mcp-auth` this process made sure of (it is never removed while we run). */
const authDirsReady = new Set<string>();

async function ensureMcpAuthDirOnce(home: string): Promise<void> {
  if (authDirsReady.has(home)) return;
  if (await ensureMcpAuthDir(home)) authDirsReady.add(home);
}

export interface PrepareSandboxOptions {
  /** Things the user should know about this sandbox, e.g. a scan that hit its limits. */
  onNote?(note: string): void;
  /**
   * Things the user must see whatever the verbosity: a policy left weaker than written (a deny
   * glob not fully expanded). Given to `onNote` when absent.
   */
  onWarning?(warning: string): void;
  /** The network's gate and resolver, for a sandbox under an allowlist (its proxy). */
  network?: SandboxNetworkOptions;
}

/** A sandbox ready to start one process tree: run `[...argv, program, ...args]` with `env`, then `release`. */
export interface PreparedSandbox {
  /**
   * `skate-confine --pdeathsig --pin-fds [--guard …] [--cgroup F]… -- bwrap … --chdir WORKSPACE --
   * skate-confine [--guard-fd @guard-fd] --subreaper --`; the program to run follows.
   */
  argv: [string, ...string[]];
  /** The policy's environment: what it lets through from ours, and what it sets. */
  env: Record<string, string>;
  resourceLimits: ResourceLimits;
  /** Removes the cgroups once everything started inside has exited. */
  release(): Promise<void>;
}

/**
 * The plan policy's one writable path, `.skate/plan.md`, must exist to be bound: made here, where
 * every sandbox starts, so planning works however it started (`skate plan`, `-p --policy plan`, a
 * settings file, serve, ACP, the terminal UI); never through a symlink (see `ensurePlanFile`).
 */
async function ensurePlanFileOf(policy: ResolvedPolicy): Promise<void> {
  const file = planFilePath(policy.workspace);
  if (!policy.write.allow.includes(file)) return;
  await ensurePlanFile(policy.workspace).catch((error: Error) => {
    throw new SandboxPlanError(
      policy.name,
      `its writable plan file cannot be prepared: ${error.message}`,
      `remove what is in the way at ${file}`,
    );
  });
}

/**
 * Builds everything one bubblewrap sandbox for a policy needs: its mounts, its
 * cgroups, the create guard's rules for protected names that do not exist, and
 * the argv prefix that starts it. Shared by executors and `skate sandbox`, so
 * both get exactly the same walls. Refuses (fail closed) when bubblewrap or the
 * guard cannot work here.
 */
export async function prepareSandbox(
  policy: ResolvedPolicy,
  options: PrepareSandboxOptions = {},
): Promise<PreparedSandbox> {
  const support = await probeSandbox();
  if (!support.available) throw new SandboxUnavailableError(policy.name, support.problem, support.fix);
  traceStart('sandbox: probed');
  const confine = distPath('bin', 'skate-confine');
  // The cgroups are made while the mounts are planned: neither needs the other.
  const leasing = createCgroupLimits(policy.limits, `skate-${process.pid}-${++sequence}`);
  let plan: SandboxPlan;
  try {
    await ensurePlanFileOf(policy);
    const home = homedir();
    // Remote MCP servers' logins: made now if missing (and `~/.skate` exists), so it can be hidden.
    await ensureMcpAuthDirOnce(home);
    plan = await planSandbox({
      policy,
      // The node install (binary and its libraries) and Skate itself must stay readable.
      runtimePaths: [path.dirname(path.dirname(process.execPath)), projectRoot()],
      // Also the built-in policies, which the next run loads: a command must not widen them; and
      // the user's Skate cache, which holds the CLI's compiled code (and the probe's verdict).
      hostExecutables: [
        path.join(projectRoot(), 'dist'),
        builtinPolicyDir(),
        process.execPath,
        skateCacheDir(),
      ],
      emptyDir: sharedEmptyDir(),
      home,
      // Credentials no command needs: remote MCP servers' logins, and your settings (their `env`,
      // providers' headers and MCP servers' `env` and headers may hold keys; only the harness reads them).
      hidden: [mcpAuthDir(home), userSettingsFile(home)],
    });
    traceStart('sandbox: planned');
  } catch (error) {
    await (await leasing)?.release();
    throw error;
  }
  for (const note of plan.notes) options.onNote?.(note);
  for (const warning of plan.warnings) (options.onWarning ?? options.onNote)?.(warning);
  const lease = await leasing;
  traceStart('sandbox: cgroups');
  let network: Awaited<ReturnType<typeof prepareSandboxNetwork>>;
  try {
    network = await prepareSandboxNetwork(policy, options.network);
  } catch (error) {
    await lease?.release();
    throw new SandboxPlanError(
      policy.name,
      `its network proxy cannot start: ${(error as Error).message}`,
      'check that the temporary directory is writable',
    );
  }
  if (!lease) options.onNote?.('cgroups are not writable here: memory and process limits are not enforced');
  return {
    argv: [
      confine,
      // bwrap's outer process must not outlive us; --die-with-parent covers the inner one.
      '--pdeathsig',
      // Opens the writable binds' directories for bwrap's --bind-fd (see PIN_PREFIX).
      '--pin-fds',
      // Keeps the sandbox from creating protected names that do not exist (see GuardRules).
      ...(plan.guard ? guardArgs(plan.guard) : []),
      ...(lease?.procsFiles.flatMap((file) => ['--cgroup', file]) ?? []),
      '--',
      support.bwrap,
      ...isolationArgs(policy),
      ...mountArgs([...plan.steps, ...(network?.steps ?? [])]),
      '--chdir',
      policy.workspace,
      '--',
      ...sandboxInit(confine, plan.guard !== undefined),
    ],
    env: { ...executorEnvironment(policy, process.env), ...network?.env },
    resourceLimits: lease?.kind ?? 'none',
    async release() {
      await network?.release();
      await lease?.release();
    },
  };
}
