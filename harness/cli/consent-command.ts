import { parseArgs } from 'node:util';
import { type ConsentStore, type ConsentSubject, createConsentStore } from '../consent/consent-store.js';
import { resolveWorkspace } from '../runtime/start-executor.js';
import { inertText, jsonFor } from '../terminal/inert-text.js';
import { type CommandMain, parsed, WORKSPACE_JSON } from './cli-flags.js';
import type { Subcommand } from './subcommands.js';
import { help } from './usage.js';
import { UsageError } from './usage-error.js';

/** What `trust` and `revoke` act on: one version of one file (or one entry of it), and how to say so. */
export interface ConsentTarget {
  subject: ConsentSubject;
  /** `the MCP server "fs" of FILE` */
  what: string;
  /** After `what` once consent is given: `may run`. */
  granted: string;
  /** After `what` once consent is taken back: `will not run without a new consent`. */
  revoked: string;
}

/** What a consent command found for a workspace. */
export interface ConsentItems<Listed> {
  /** What `list --json` prints, and `list` renders. */
  listed: Listed[];
  /** `list`'s text (made inert before it is written), the empty case included. */
  text(): string;
  /** The target of `trust|revoke NAME` (NAME undefined where the command takes none); a `UsageError` when there is none. */
  target(name: string | undefined): ConsentTarget;
}

/**
 * A command that lists what a workspace names as code (MCP servers, agent definitions, hooks) and
 * records or forgets the user's consent to it by file hash: `skate X list [--workspace DIR]
 * [--json]`, `skate X trust|revoke [NAME] [--workspace DIR]`. Nothing it lists is started.
 */
export interface ConsentCommand<Listed> {
  command: string;
  /** What `trust|revoke` name (`server`, `agent`); undefined when they take no name (a file's hooks as a whole). */
  item?: string;
  load(context: { workspace: string; consent: ConsentStore }): Promise<ConsentItems<Listed>>;
}

/** `list`, `trust` and `revoke` of a consent command, for its subcommand table. */
export function consentSubcommands<Listed>(
  spec: ConsentCommand<Listed>,
): Record<'list' | 'trust' | 'revoke', Subcommand> {
  const usage = spec.item ? 'NAME [--workspace DIR]' : '[--workspace DIR]';
  return {
    list: { usage: '[--workspace DIR] [--json]', load: async () => ({ run: consentList(spec) }) },
    trust: { usage, load: async () => ({ run: consentTrust(spec) }) },
    revoke: { usage, load: async () => ({ run: consentRevoke(spec) }) },
  };
}

/** `skate X list [--workspace DIR] [--json]`. */
export function consentList<Listed>(spec: ConsentCommand<Listed>): CommandMain {
  return async (args) => {
    const opened = await open(spec, args);
    if (opened === 'help') return help();
    if (opened.positionals.length > 0) throw new UsageError(`unexpected argument: ${opened.positionals[0]}`);
    const items = await opened.load();
    if (opened.json) process.stdout.write(`${jsonFor(process.stdout, items.listed, 2)}\n`);
    else process.stdout.write(inertText(items.text()));
    return 0;
  };
}

/** `skate X trust [NAME] [--workspace DIR]`: consent to the target as its file is now. */
export function consentTrust<Listed>(spec: ConsentCommand<Listed>): CommandMain {
  return changeConsent(spec, 'trust');
}

/** `skate X revoke [NAME] [--workspace DIR]`: forget every consent to the target's file. */
export function consentRevoke<Listed>(spec: ConsentCommand<Listed>): CommandMain {
  return changeConsent(spec, 'revoke');
}

function changeConsent<Listed>(spec: ConsentCommand<Listed>, sub: 'trust' | 'revoke'): CommandMain {
  return async (args) => {
    const opened = await open(spec, args);
    if (opened === 'help') return help();
    const [name, extra] = opened.positionals;
    if (spec.item) {
      if (!name || extra) throw new UsageError(`skate ${spec.command} ${sub} takes one ${spec.item} name`);
    } else if (name) throw new UsageError(`unexpected argument: ${name}`);
    const target = (await opened.load()).target(name);
    const { subject } = target;
    if (sub === 'trust') await opened.consent.grant(subject);
    else await opened.consent.revoke(subject.kind, subject.file);
    process.stderr.write(
      inertText(
        sub === 'trust'
          ? `skate: ${target.what} ${target.granted} (this version, sha256 ${subject.sha256.slice(0, 12)}…)\n`
          : `skate: ${target.what} ${target.revoked}\n`,
      ),
    );
    return 0;
  };
}

/** The flags every subcommand takes, the workspace resolved, and the items loaded on demand. */
async function open<Listed>(
  spec: ConsentCommand<Listed>,
  args: string[],
): Promise<
  | 'help'
  | {
      positionals: string[];
      json: boolean;
      consent: ConsentStore;
      load: () => Promise<ConsentItems<Listed>>;
    }
> {
  const { values, positionals } = parsed(() =>
    parseArgs({ args, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return 'help';
  const workspace = await resolveWorkspace(values.workspace);
  const consent = createConsentStore();
  return { positionals, json: values.json, consent, load: () => spec.load({ workspace, consent }) };
}
