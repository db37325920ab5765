import { parseArgs } from 'node:util';
import { HOOK_EVENTS } from '../../../shared/hooks.js';
import { createConsentStore } from '../../consent/consent-store.js';
import { DEFAULT_HOOK_POLICY } from '../../hooks/setup-hooks.js';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { type HookSource, loadSettings } from '../../settings/load-settings.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/** One configured hook as `skate hooks list` shows it. */
interface ListedHook {
  event: string;
  matcher: string;
  command: string;
  timeout: number;
  fail: string;
  policy: string;
  source: 'user' | 'workspace';
  file: string;
  /** For a workspace's hooks: whether you consented to this version of the file. */
  consent: 'not needed' | 'given' | 'not given';
}

/**
 * `skate hooks list [--workspace DIR] [--json]`: every hook configured, from where, and whether
 * it would run; `skate hooks trust [--workspace DIR]`: consent to the workspace file's hooks as
 * they are now (a later edit needs a new consent); `skate hooks revoke`: take it back.
 */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  if (sub !== 'list' && sub !== 'trust' && sub !== 'revoke')
    throw new UsageError('the hooks command is `skate hooks list|trust|revoke [--workspace DIR]`');
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const workspace = await resolveWorkspace(values.workspace);
  const settings = await loadSettings({ workspace });
  const consent = createConsentStore();
  const project = settings.hookSources.find((source) => source.scope === 'workspace');
  if (sub === 'trust' || sub === 'revoke') {
    if (!project) throw new UsageError(`${workspace}/.skate/settings.json defines no hooks`);
    if (sub === 'trust') await consent.grant({ kind: 'hooks', file: project.file, sha256: project.sha256 });
    else await consent.revoke('hooks', project.file);
    process.stderr.write(
      inertText(
        sub === 'trust'
          ? `skate: the hooks of ${project.file} will run (this version, sha256 ${project.sha256.slice(0, 12)}…)\n`
          : `skate: the hooks of ${project.file} will not run without a new consent\n`,
      ),
    );
    return 0;
  }
  const listed: ListedHook[] = [];
  for (const source of settings.hookSources) {
    const given =
      source.scope === 'user'
        ? 'not needed'
        : (await consent.has({ kind: 'hooks', file: source.file, sha256: source.sha256 }))
          ? 'given'
          : 'not given';
    listed.push(...listOf(source, given));
  }
  if (values.json) {
    process.stdout.write(`${jsonFor(process.stdout, listed, 2)}\n`);
    return 0;
  }
  const off = settings.disableAllHooks ? ' (disableAllHooks: none run)' : '';
  if (listed.length === 0) {
    process.stdout.write(`no hooks configured${off}\n`);
    return 0;
  }
  const lines = listed.map(
    (hook) =>
      `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}: ${hook.command}\n    ${hook.source} (${hook.file}); timeout ${hook.timeout} s; fail ${hook.fail}; policy ${hook.policy}${hook.source === 'workspace' ? `; consent ${hook.consent}` : ''}`,
  );
  process.stdout.write(inertText(`${off ? `${off.trim()}\n` : ''}${lines.join('\n')}\n`));
  return 0;
};

function listOf(source: HookSource, consent: ListedHook['consent']): ListedHook[] {
  return HOOK_EVENTS.flatMap((event) =>
    (source.hooks[event] ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({
        event,
        matcher: group.matcher ?? '',
        command: hook.command,
        timeout: hook.timeout ?? 60,
        fail:
          hook.fail ??
          (event === 'PreToolUse' || event === 'PermissionRequest' || event === 'UserPromptSubmit'
            ? 'closed'
            : 'open'),
        policy: hook.policy ?? DEFAULT_HOOK_POLICY,
        source: source.scope,
        file: source.file,
        consent,
      })),
    ),
  );
}
