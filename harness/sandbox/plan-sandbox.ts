import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isGlob } from '../../shared/path-patterns.js';
import { isWithin } from '../../shared/path-within.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { GuardRules, MountStep } from './mount-plan.js';
import { createPathKinds, type PathKinds } from './path-kinds.js';
import { SandboxPlanError } from './sandbox-errors.js';
import { type ScanResult, sharedScanPaths } from './scan-paths.js';

/** Private to every sandbox: host files here are hidden, and host sockets with them. */
const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run', '/dev/shm'];
/** What a process needs to start at all when a policy does not make the whole root readable. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc'];
const SKIP_DIRS = new Set(['node_modules', '.git']);

export interface PlanInput {
  policy: ResolvedPolicy;
  /** Must stay readable whatever the policy says: the node binary and Skate's own install. */
  runtimePaths: readonly string[];
  /** The resolver configuration to keep working with the network on; default /etc/resolv.conf. */
  resolvConf?: string;
  /**
   * Run on the host by the harness itself (skate-confine, the node binary): kept read-only, like
   * protected paths, even inside a write root (Skate working on its own checkout), or a command
   * could swap in code that the next executor launch runs outside any sandbox.
   */
  hostExecutables?: readonly string[];
  /** An empty host directory, mounted read-only to hide a denied directory. */
  emptyDir: string;
  home: string;
  /**
   * What no sandbox may read, whatever the policy: directories (remote MCP servers' logins) shown
   * empty, files (your settings, whose `env`, headers and MCP servers' `env` hold credentials)
   * shown as an empty file, when they exist; a link is followed to the file it names.
   */
  hidden?: readonly string[];
}

export interface SandboxPlan {
  steps: MountStep[];
  /**
   * What the create guard refuses: a mount needs an existing entry, and one made on the host would
   * show in the user's workspace (`ls -a`, `git status`, editors), so protected names that do not
   * exist are not mounted but kept from being created. Undefined when nothing is writable.
   */
  guard?: GuardRules;
  /** Things worth telling the user, e.g. a scan that hit its limits. */
  notes: string[];
  /** Things that leave the policy weaker than written (a deny glob not fully expanded): always said. */
  warnings: string[];
}

/** The directory a glob starts from: its longest prefix without glob characters. */
function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const index = parts.findIndex(isGlob);
  return parts.slice(0, index).join('/') || '/';
}

/** Skate's own configuration directory's name: read-only, existing or not, in every sandbox. */
export const SKATE_DIR = '.skate';

/** A project's MCP servers (Claude Code's file name). */
export const MCP_JSON = '.mcp.json';

/** Claude Code's directory, whose `agents` folder Skate reads as agent definitions. */
export const CLAUDE_DIR = '.claude';

/**
 * Names read-only wherever they are in a write root, and never created there: a run started in any
 * directory reads `.skate` and `.mcp.json` there, so a sandbox writing a sub-directory's would plant
 * configuration for a run started in it (the scan finds those that exist; the create guard refuses new ones).
 */
export const CONFIGURATION_NAMES: readonly string[] = [SKATE_DIR, MCP_JSON];

/**
 * What the create guard refuses anywhere on a write root's file system: the configuration names, and
 * `.claude`, since a run started in any directory reads its `.claude/agents` (a new `.claude` could
 * bring one). Of an existing `.claude` only `agents` is protected (the scan finds them): the rest of it
 * (Claude Code's own settings, commands) stays the sandbox's to write, as Skate reads none of it.
 */
export const GUARDED_NAMES: readonly string[] = [...CONFIGURATION_NAMES, CLAUDE_DIR];

/**
 * What a run started in any directory reads as configuration, as runs of path components: the
 * create guard refuses to create, open for writing or hard-link elsewhere anything under them on a
 * write root's file system, so one that exists beyond the scan's limits (depth, entries, inside
 * `node_modules` or `.git`), which is not mounted read-only, cannot be changed either.
 */
export const GUARDED_TREES: readonly string[] = [SKATE_DIR, MCP_JSON, `${CLAUDE_DIR}/agents`];

/**
 * Everything a later run reads from a workspace or home as configuration that can start code or
 * shape an agent, whatever the policy file lists: Skate's directories, a project's MCP servers
 * (`.mcp.json`) and Claude Code's agent definitions (`.claude/agents`). A sandbox must not write
 * what the next run reads, existing or not (consent by file hash is the second line, not the first).
 */
export function configurationPaths(home: string, workspace: string): string[] {
  return [
    path.join(home, SKATE_DIR),
    path.join(workspace, SKATE_DIR),
    path.join(workspace, MCP_JSON),
    path.join(workspace, CLAUDE_DIR, 'agents'),
  ];
}

/** The nearest existing ancestor of an absent `target` (at most `root`, which exists) and the first missing name under it. */
async function existingAncestor(
  kinds: PathKinds,
  root: string,
  target: string,
): Promise<{ dir: string; name: string }> {
  let name = path.basename(target);
  let dir = path.dirname(target);
  while (dir !== root && !(await kinds.kind(dir))) {
    name = path.basename(dir);
    dir = path.dirname(dir);
  }
  return { dir, name };
}

/** The nearest existing ancestor of `target` below `root` when it is not a directory. */
async function fileAbove(kinds: PathKinds, root: string, target: string): Promise<string | undefined> {
  for (let p = path.dirname(target); p !== root && isWithin(root, p); p = path.dirname(p)) {
    const kind = await kinds.kind(p);
    if (kind) return kind === 'dir' ? undefined : p;
  }
  return undefined;
}

/**
 * Decides the sandbox's mounts for a policy: a read-only view of what may be
 * read, private /tmp and /run, writable binds for write roots, read-only binds
 * over protected paths inside them and over what the harness itself runs on
 * the host (pinning their parents so a rename cannot move them aside), and
 * masks over denied paths and host sockets.
 */
export async function planSandbox(input: PlanInput): Promise<SandboxPlan> {
  const { policy, emptyDir } = input;
  const steps: MountStep[] = [];
  const notes: string[] = [];
  const kinds = createPathKinds();
  const hostExecutables = new Set(input.hostExecutables ?? []);
  // Configuration a later run reads (settings, policies, sessions, MCP servers, agent files), whatever
  // the policy file says: a sandbox must not write what the next run reads, existing or not.
  const skateConfig = configurationPaths(input.home, policy.workspace);
  kinds.prefetch([
    ...skateConfig,
    ...policy.read.allow,
    ...policy.write.allow,
    ...policy.protected.filter((p) => !isGlob(p)),
    ...hostExecutables,
    ...policy.read.deny.filter((p) => !isGlob(p)),
  ]);
  // The scans for masks need nothing from the checks below: they run meanwhile.
  const pendingMasks = findMasks(input, kinds, policy.write.allow);
  pendingMasks.catch(() => undefined); // awaited below, unless a check fails first

  const readAll = policy.read.allow.includes('/');
  const readRoots = readAll ? ['/'] : [...new Set([...SYSTEM_ROOTS, ...policy.read.allow])];
  for (const root of readRoots.sort()) {
    if (root === '/' || (await kinds.kind(root))) steps.push({ op: 'ro-bind', src: root, dest: root });
  }
  steps.push({ op: 'dev', dest: '/dev' }, { op: 'proc', dest: '/proc' });
  // The sandbox runs as the host's uid 0, and sysctl files check only the uid, not capabilities:
  // a writable /proc/sys would let a command set kernel.core_pattern and run code as host root.
  // bubblewrap covers /proc/sys only when access(W_OK) says it is writable, which that directory
  // never does; so the host's /proc/sys is bound read-only over the sandbox's.
  steps.push({ op: 'ro-bind', src: '/proc/sys', dest: '/proc/sys' });
  for (const dir of PRIVATE_DIRS) steps.push({ op: 'tmpfs', dest: dir });

  // Runtime files under a private directory would vanish; show them again, read-only.
  for (const runtime of input.runtimePaths) {
    if (
      PRIVATE_DIRS.some((dir) => isWithin(dir, runtime)) ||
      (!readAll && !readRoots.some((r) => isWithin(r, runtime)))
    ) {
      steps.push({ op: 'ro-bind', src: runtime, dest: runtime });
    }
  }

  // With the network on, name resolution must keep working where /etc/resolv.conf points into
  // /run (systemd-resolved's stub on Ubuntu): show that one file again, read-only.
  if (policy.network.mode === 'on') {
    const resolvConf = input.resolvConf ?? '/etc/resolv.conf';
    const resolver = await realpath(resolvConf).catch(() => undefined);
    if (resolver && resolver !== resolvConf && PRIVATE_DIRS.some((dir) => isWithin(dir, resolver))) {
      if ((await kinds.kind(resolver)) === 'file')
        steps.push({ op: 'ro-bind', src: resolver, dest: resolver });
    }
  }

  // So is a readable workspace there (a checkout under /tmp), or read-only policies could not even start in it.
  const { workspace } = policy;
  if (
    PRIVATE_DIRS.some((dir) => isWithin(dir, workspace)) &&
    (readAll || readRoots.some((r) => isWithin(r, workspace))) &&
    (await kinds.kind(workspace)) === 'dir'
  ) {
    steps.push({ op: 'ro-bind', src: workspace, dest: workspace });
  }

  const writeRoots: string[] = [];
  for (const root of [...policy.write.allow].sort((a, b) => a.length - b.length)) {
    const kind = await kinds.kind(root);
    if (!kind) {
      notes.push(`write root ${root} does not exist; nothing is writable there`);
      continue;
    }
    // bubblewrap follows symlinks: a root that is (or lies under) one would make the link's target
    // writable, wherever it points, e.g. a cloned repository's `.skate/plan.md -> ~/.bashrc`.
    const real = await realpath(root).catch(() => undefined);
    if (real !== root) {
      notes.push(`write root ${root} is reached through a symlink (to ${real}); nothing is writable there`);
      continue;
    }
    writeRoots.push(root);
    steps.push({ op: 'bind', src: root, dest: root });
  }

  // Protected paths matter only inside write roots; elsewhere everything is read-only already.
  const pinned = new Set<string>();
  const pin = async (dir: string, root: string): Promise<void> => {
    // A read-only bind protects the path, not its parent: pin every directory from `dir` up to the
    // write root as a mount point, which cannot be renamed away (and so replaced).
    for (; dir !== root && isWithin(root, dir); dir = path.dirname(dir)) {
      if (!pinned.has(dir) && (await kinds.kind(dir)) === 'dir') {
        pinned.add(dir);
        steps.push({ op: 'bind', src: dir, dest: dir });
      }
    }
  };
  const protectedTargets: string[] = [];
  const deny = new Map<string, GuardRules['deny'][number]>();
  const masks = await pendingMasks;
  notes.push(...masks.notes);
  // Shallowest first: a path inside one already protected is covered by it, and binding
  // anything inside a protected directory afterwards could make part of it writable again.
  const nestedAgents = await nestedAgentFolders(kinds, masks.claudeDirs, writeRoots);
  const targets = [...policy.protected, ...hostExecutables, ...skateConfig, ...nestedAgents].sort(
    (a, b) => a.length - b.length,
  );
  for (const listed of targets) {
    if (protectedTargets.some((done) => isWithin(done, listed))) continue;
    if (isGlob(listed)) {
      notes.push(
        `protected glob ${listed} is checked by the tools only; the kernel layer needs concrete paths`,
      );
      continue;
    }
    const root = writeRoots.find((w) => isWithin(w, listed) && w !== listed && !isWithin(listed, w));
    if (!root) continue;
    await refuseSymlinks(kinds, policy.name, root, listed);
    // A path under a file (`.git/hooks` where `.git` is a worktree's gitfile) can only come to
    // exist by replacing that file, which could then point git anywhere: protect the file.
    const target = (await fileAbove(kinds, root, listed)) ?? listed;
    if (protectedTargets.some((done) => isWithin(done, target))) continue;
    if (!(await kinds.kind(target))) {
      // Not mounted (that would leave an entry in the workspace): the create guard refuses the
      // first missing name in its nearest existing directory, which is pinned so it stays that one.
      const missing = await existingAncestor(kinds, root, target);
      await pin(missing.dir, root);
      deny.set(path.join(missing.dir, missing.name), missing);
      continue;
    }
    await pin(path.dirname(target), root);
    protectedTargets.push(target);
    steps.push({ op: 'ro-bind', src: target, dest: target });
  }

  // Nested `.skate` directories (a `skate serve` session's workspace inside this one, with its
  // logs) and `.mcp.json` files (what a run started there starts) stay read-only; the guard keeps
  // a new one, or one renamed away, from being made.
  for (const nested of masks.configNamed) {
    if (protectedTargets.some((done) => isWithin(done, nested))) continue;
    if (!writeRoots.some((w) => isWithin(w, nested) && w !== nested)) continue;
    steps.push({ op: 'ro-bind', src: nested, dest: nested });
  }
  for (const match of masks.paths) {
    steps.push(
      match.kind === 'dir'
        ? { op: 'ro-bind', src: emptyDir, dest: match.path }
        : { op: 'ro-bind', src: '/dev/null', dest: match.path },
    );
  }
  for (const listed of input.hidden ?? []) {
    // A link (a settings file kept in a dotfiles repository) is hidden where it leads.
    const hidden = (await kinds.isSymlink(listed)) ? await realpath(listed).catch(() => undefined) : listed;
    if (!hidden) continue;
    const kind = await kinds.kind(hidden);
    if (kind === 'dir') steps.push({ op: 'ro-bind', src: emptyDir, dest: hidden });
    else if (kind === 'file') steps.push({ op: 'ro-bind', src: '/dev/null', dest: hidden });
  }
  // A write root inside a tree (the plan policy's `.skate/plan.md`) is writable by design: that
  // tree is left to the mounts (the scan's read-only binds), or its one writable file would be refused.
  const trees = GUARDED_TREES.filter((tree) => !writeRoots.some((root) => `${root}/`.includes(`/${tree}/`)));
  const guard =
    writeRoots.length > 0 ? { deny: [...deny.values()], names: [...GUARDED_NAMES], trees } : undefined;
  return { steps, guard, notes, warnings: masks.warnings };
}

/**
 * `agents` in each `.claude` directory the scan found inside a write root, protected as the
 * workspace's own is (read-only when it exists, refused by the guard when not; the `.claude` pinned).
 * One reached through a link is left out rather than refusing the sandbox: the agent loader reads no
 * folder reached through a link (`loadAgentDefinitions`), and the guard keeps a new `.claude` from being made.
 */
async function nestedAgentFolders(
  kinds: PathKinds,
  claudeDirs: readonly string[],
  writeRoots: readonly string[],
): Promise<string[]> {
  const folders: string[] = [];
  for (const dir of claudeDirs) {
    if (!writeRoots.some((w) => isWithin(w, dir) && w !== dir)) continue;
    const agents = path.join(dir, 'agents');
    if ((await kinds.kind(dir)) !== 'dir' || (await kinds.isSymlink(agents))) continue;
    folders.push(agents);
  }
  return folders;
}

/**
 * A mount lands on a symlink's target, never on the link, so a protected name that is a link
 * (or lies under one) inside a writable root could be deleted and replaced by a real directory:
 * `.git -> elsewhere` swapped for a `.git` with hooks. Refuse rather than pretend to protect it.
 */
async function refuseSymlinks(
  kinds: PathKinds,
  policyName: string,
  root: string,
  target: string,
): Promise<void> {
  for (let p = target; p !== root && isWithin(root, p); p = path.dirname(p)) {
    if (await kinds.isSymlink(p)) {
      throw new SandboxPlanError(
        policyName,
        `protected path ${target} is${p === target ? '' : ' under'} a symbolic link (${p}) inside the writable ${root}, and a mount cannot keep a link from being replaced`,
        `replace ${p} with the directory or file it points to, or remove ${target} from the policy's protected list`,
      );
    }
  }
}

interface Masks {
  paths: { path: string; kind: 'file' | 'dir' }[];
  /** Entries named as `CONFIGURATION_NAMES` (`.skate`, `.mcp.json`) found in the workspace and the write roots. */
  configNamed: string[];
  /** Directories named `.claude` found there (their `agents` is what a run started beside them reads). */
  claudeDirs: string[];
  notes: string[];
  warnings: string[];
}

/**
 * Denied paths that exist (globs expanded by scanning), host sockets in the scanned trees, and
 * nested `.skate` and `.claude` directories and `.mcp.json` files in the workspace and in write
 * roots outside it.
 */
async function findMasks(input: PlanInput, kinds: PathKinds, writeRoots: readonly string[]): Promise<Masks> {
  const { policy } = input;
  const paths: Masks['paths'] = [];
  const configNamed: string[] = [];
  const claudeDirs: string[] = [];
  const notes: string[] = [];
  const warnings: string[] = [];
  const globsByBase = new Map<string, string[]>();
  for (const pattern of policy.read.deny.filter(isGlob)) {
    const base = globBase(pattern);
    globsByBase.set(base, [...(globsByBase.get(base) ?? []), pattern]);
  }
  // The workspace is always scanned, for its sockets and configuration names if not for deny globs;
  // so is a write root outside it, for configuration names.
  if (!globsByBase.has(policy.workspace)) globsByBase.set(policy.workspace, []);
  for (const root of writeRoots) {
    if (!isWithin(policy.workspace, root) && !globsByBase.has(root)) globsByBase.set(root, []);
  }
  const named = new Set(GUARDED_NAMES);
  const walkedNamed = new Set([CLAUDE_DIR]);
  // The scans run together (the home scan beside the workspace's); their results are taken in order.
  const scanning: Promise<[string, string[], ScanResult]>[] = [];
  for (const [base, patterns] of globsByBase) {
    if (PRIVATE_DIRS.some((dir) => isWithin(dir, base) && !isWithin(base, policy.workspace))) continue;
    const writable = writeRoots.some((root) => isWithin(root, base) || isWithin(base, root));
    const deep = base === policy.workspace || writable || patterns.some((p) => p.includes('**'));
    const limits = {
      maxDepth: deep ? 16 : 2,
      maxEntries: 200_000,
      skipDirs: SKIP_DIRS,
      ...(writable && { named, walkedNamed }),
    };
    scanning.push(sharedScanPaths(base, patterns, limits).then((scan) => [base, patterns, scan]));
  }
  const home = { maxDepth: 3, maxEntries: 20_000, skipDirs: SKIP_DIRS };
  scanning.push(sharedScanPaths(input.home, [], home).then((scan) => [input.home, [], scan]));
  for (const pattern of policy.read.deny) {
    if (isGlob(pattern)) continue;
    const kind = await kinds.kind(pattern);
    if (kind) paths.push({ path: pattern, kind: kind === 'dir' ? 'dir' : 'file' });
  }
  const scans = await Promise.all(scanning);
  for (const [base, patterns, scan] of scans) {
    paths.push(...scan.matches);
    for (const found of scan.named) {
      if (path.basename(found) === CLAUDE_DIR) claudeDirs.push(found);
      else configNamed.push(found);
    }
    for (const socket of scan.sockets) paths.push({ path: socket, kind: 'file' });
    if (!scan.truncated) continue;
    // A socket scan that stops short is the documented residual risk (README, "Unix sockets by
    // path"); a deny glob that stops short leaves files readable that the policy denies.
    if (patterns.length > 0) {
      warnings.push(
        `scan of ${base} hit its limits; files matching ${patterns.join(', ')} beyond them are not hidden`,
      );
    } else {
      notes.push(`scan of ${base} hit its limits; sockets beyond them are not masked`);
    }
  }
  const unique = new Map(paths.map((p) => [p.path, p]));
  return {
    paths: [...unique.values()],
    configNamed: [...new Set(configNamed)].sort(),
    claudeDirs: [...new Set(claudeDirs)].sort(),
    notes,
    warnings,
  };
}
