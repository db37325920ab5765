import { realpath } from 'node:fs/promises';
import { HOOK_EVENTS } from '../../shared/hooks.js';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import type { ConsentStore } from '../consent/consent-store.js';
import { resolvePolicy } from '../runtime/start-executor.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import type { HookSource } from '../settings/load-settings.js';
import { SettingsError } from '../settings/settings-error.js';
import { createHookRunner, type HookEntry, type HookRunner } from './hook-runner.js';

/** The policy a hook command runs under unless its settings name another: read, never write, no network. */
export const DEFAULT_HOOK_POLICY = 'readonly';

export interface SetupHooksOptions {
  sources: readonly HookSource[];
  workspace: string;
  sandbox: SandboxMode;
  /** `--no-hooks`, or `disableAllHooks` in a settings file. */
  disabled: boolean;
  /** `--trust-workspace-hooks`: the workspace's hooks run this once without asking. */
  trustWorkspace: boolean;
  consent: ConsentStore;
  /** Asks the person at hand (a terminal); undefined where nobody can answer (headless). */
  ask?: ((question: string) => Promise<boolean>) | undefined;
  note(line: string): void;
}

/**
 * The run's hooks: the user's, and a workspace file's only with consent to that version of the
 * file (given before, given now where someone can answer, or `--trust-workspace-hooks`). Each
 * command's policy is resolved here; a workspace file may only choose one no wider than the
 * default. Undefined when no hook runs.
 */
export async function setupHooks(options: SetupHooksOptions): Promise<HookRunner | undefined> {
  if (options.disabled || options.sources.length === 0) return undefined;
  const workspace = await realpath(options.workspace);
  const defaultPolicy = await resolvePolicy(DEFAULT_HOOK_POLICY, workspace);
  const entries: HookEntry[] = [];
  for (const source of options.sources) {
    const own = entriesOf(source);
    for (const entry of own) {
      const name = entry.hook.policy;
      if (!name) continue;
      // Checked here, at start: a hook's policy that does not load is a settings error, not a failure at its first event.
      const policy = await resolvePolicy(name, workspace).catch((error: Error) => {
        throw new SettingsError(source.file, `hooks.${entry.event}`, `policy "${name}": ${error.message}`);
      });
      if (source.scope === 'workspace' && !isNarrowerOrEqual(policy, defaultPolicy)) {
        throw new SettingsError(
          source.file,
          `hooks.${entry.event}`,
          `policy "${name}" is wider than ${DEFAULT_HOOK_POLICY}; a workspace's hooks may only run under a narrower one (name it in ~/.skate/settings.json instead)`,
        );
      }
    }
    if (source.scope === 'workspace' && own.length > 0 && !(await consented(source, own, options))) continue;
    entries.push(...own);
  }
  if (entries.length === 0) return undefined;
  return createHookRunner({ entries, sandbox: options.sandbox, resolvePolicy, note: options.note });
}

function entriesOf(source: HookSource): HookEntry[] {
  const entries: HookEntry[] = [];
  for (const event of HOOK_EVENTS) {
    for (const group of source.hooks[event] ?? []) {
      for (const hook of group.hooks) {
        const policy = hook.policy ?? DEFAULT_HOOK_POLICY;
        entries.push({
          event,
          matcher: group.matcher,
          hook,
          source: source.scope,
          file: source.file,
          policy,
        });
      }
    }
  }
  return entries;
}

async function consented(
  source: HookSource,
  entries: readonly HookEntry[],
  options: SetupHooksOptions,
): Promise<boolean> {
  const subject = { kind: 'hooks' as const, file: source.file, sha256: source.sha256 };
  if (await options.consent.has(subject)) return true;
  if (options.trustWorkspace) return true;
  if (options.ask) {
    const list = entries
      .map((entry) => `  ${entry.event}${entry.matcher ? ` [${entry.matcher}]` : ''}: ${entry.hook.command}`)
      .join('\n');
    const yes = await options.ask(
      `${source.file} defines hooks, commands Skate would run (sandboxed: read-only, no network) at each matching event:\n${list}\nRun them, now and until the file changes? [y/N] `,
    );
    if (yes) {
      await options.consent.grant(subject);
      return true;
    }
    options.note(`the hooks in ${source.file} will not run: you did not consent`);
    return false;
  }
  options.note(
    `the hooks in ${source.file} were not run: a workspace's hooks need your consent to this version of the file (skate hooks trust, an answer at a terminal, or --trust-workspace-hooks)`,
  );
  return false;
}
