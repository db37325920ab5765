import { constants } from 'node:fs';
import { open, realpath, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConsentFile, type ConsentGrant, type ConsentKind } from '../../shared/consent.js';
import { OpenedDir } from '../opened-dir.js';
import { readUserFile } from '../workspace-files/read-workspace-file.js';

const CONSENT_BOUNDS = { maxBytes: 1024 * 1024, overflow: 'refuse' } as const;

/** What consent is asked for: one version of one file. */
export interface ConsentSubject {
  kind: ConsentKind;
  file: string;
  sha256: string;
}

/**
 * The user's consents to code a workspace names (hooks now; MCP servers and agent definitions
 * later), in `~/.skate/consent.json`: outside every sandbox (`~/.skate` is read-only in all of
 * them), keyed by the file's content, so an edit to the file, by a person or by a command an
 * agent ran, needs a new yes.
 */
export interface ConsentStore {
  has(subject: ConsentSubject): Promise<boolean>;
  grant(subject: ConsentSubject): Promise<void>;
  /** Forgets every consent to `file` (any version). */
  revoke(kind: ConsentKind, file: string): Promise<void>;
}

export function consentFile(home: string = homedir()): string {
  return path.join(home, '.skate', 'consent.json');
}

export function createConsentStore(home: string = homedir()): ConsentStore {
  const file = consentFile(home);
  const load = async (): Promise<ConsentGrant[]> => {
    const read = await readUserFile(file, CONSENT_BOUNDS);
    if (read.status !== 'read') return [];
    try {
      const parsed = ConsentFile.safeParse(JSON.parse(read.data.toString('utf8')));
      return parsed.success ? parsed.data.grants : [];
    } catch {
      // A damaged file consents to nothing: asking again is the safe side.
      return [];
    }
  };
  const same = (grant: ConsentGrant, subject: ConsentSubject): boolean =>
    grant.kind === subject.kind && grant.file === subject.file && grant.sha256 === subject.sha256;
  return {
    async has(subject) {
      return (await load()).some((grant) => same(grant, subject));
    },
    async grant(subject) {
      // One version per file: consenting to the new one forgets the old.
      const grants = (await load()).filter(
        (grant) => !(grant.kind === subject.kind && grant.file === subject.file),
      );
      grants.push({ ...subject, grantedAt: new Date().toISOString() });
      await save(home, { version: 1, grants });
    },
    async revoke(kind, target) {
      const grants = await load();
      await save(home, { version: 1, grants: grants.filter((g) => !(g.kind === kind && g.file === target)) });
    },
  };
}

/** Written whole (a temporary file, then a rename) from the opened `~/.skate`, never through a link. */
async function save(home: string, content: ConsentFile): Promise<void> {
  await using root = await OpenedDir.open(await realpath(home));
  const { dir } = await root.dir('.skate', { create: true });
  await using skate = dir;
  const temporary = `consent.json.${process.pid}.tmp`;
  const handle = await open(
    skate.at(temporary),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  try {
    await rename(skate.at(temporary), skate.at('consent.json'));
  } catch (error) {
    await rm(skate.at(temporary), { force: true });
    throw error;
  }
}
