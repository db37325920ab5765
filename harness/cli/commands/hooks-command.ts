import { HOOK_EVENTS } from '../../../shared/hooks.js';
import { DEFAULT_HOOK_POLICY } from '../../hooks/setup-hooks.js';
import { type HookSource, loadSettings } from '../../settings/load-settings.js';
import { type ConsentCommand, consentSubcommands } from '../consent-command.js';
import { withSubcommands } from '../subcommands.js';
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
 * Every hook configured, from where, and whether it would run: `skate hooks list`; `trust`
 * consents to the workspace file's hooks as they are now (a later edit needs a new consent),
 * `revoke` takes it back. A file's hooks are consented to as a whole, so these take no name.
 */
const HOOKS_CONSENT: ConsentCommand<ListedHook> = {
  command: 'hooks',
  async load({ workspace, consent }) {
    const settings = await loadSettings({ workspace });
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
    const off = settings.disableAllHooks ? ' (disableAllHooks: none run)' : '';
    return {
      listed,
      text: () =>
        listed.length === 0
          ? `no hooks configured${off}\n`
          : `${off ? `${off.trim()}\n` : ''}${listed.map(hookLines).join('\n')}\n`,
      target() {
        const project = settings.hookSources.find((source) => source.scope === 'workspace');
        if (!project) throw new UsageError(`${workspace}/.skate/settings.json defines no hooks`);
        return {
          subject: { kind: 'hooks', file: project.file, sha256: project.sha256 },
          what: `the hooks of ${project.file}`,
          granted: 'will run',
          revoked: 'will not run without a new consent',
        };
      },
    };
  },
};

function hookLines(hook: ListedHook): string {
  return `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}: ${hook.command}\n    ${hook.source} (${hook.file}); timeout ${hook.timeout} s; fail ${hook.fail}; policy ${hook.policy}${hook.source === 'workspace' ? `; consent ${hook.consent}` : ''}`;
}

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

/** `skate hooks list [--workspace DIR] [--json]`, `skate hooks trust|revoke [--workspace DIR]`. */
export const run = withSubcommands('hooks', consentSubcommands(HOOKS_CONSENT));
