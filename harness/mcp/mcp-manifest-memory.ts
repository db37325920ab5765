import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ToolDefinition } from '../../shared/tool.js';
import { distPath } from '../project-paths.js';
import { skateCacheDir } from '../skate-cache-dir.js';
import { writeFileAtomically } from '../write-file-atomically.js';

/** A server's last start that failed (or timed out) before it listed tools: why, and when (ISO 8601). */
export const McpStartFailure = z.object({ reason: z.string(), at: z.string() });
export type McpStartFailure = z.infer<typeof McpStartFailure>;

/** What one fingerprint's file holds: the tools of its last start, or that start's failure. */
const Remembered = z.union([
  z.object({ key: z.string(), tools: z.array(ToolDefinition) }),
  z.object({ key: z.string(), failed: McpStartFailure }),
]);

/** What decides a server's manifest: its name, command line, environment and policy, on this build. */
export interface ManifestInputs {
  name: string;
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  policy: unknown;
}

/**
 * A server's tools as it listed them at its last start, kept in the user's cache (read-only in
 * every sandbox), so that a run offers them without starting it; or, when that start failed, why
 * and when, so that the next run does not wait for it again (it retries in the background). One
 * file per server and fingerprint: a changed configuration finds neither. The key is a hash: the
 * server's `env` (tokens, often) is never written.
 */
export interface ManifestMemory {
  recall(): Promise<ToolDefinition[] | undefined>;
  remember(tools: ToolDefinition[]): void;
  /** The failure of its last start, when that is what is remembered. */
  recallFailure(): Promise<McpStartFailure | undefined>;
  /** Its start failed: remembered in place of any manifest of the same fingerprint (a manifest is only replaced by a failure here). */
  rememberFailure(reason: string, at?: Date): void;
  /** Forgets a remembered failure (a manifest stays): the next run waits for its start again. */
  forgetFailure(): Promise<void>;
  forget(): Promise<void>;
}

export function manifestMemory(
  inputs: ManifestInputs,
  dir = path.join(skateCacheDir(), 'mcp-manifests'),
): ManifestMemory {
  const key = createHash('sha256').update(keyOf(inputs)).digest('hex');
  const file = path.join(dir, `${inputs.name}-${key.slice(0, 16)}.json`);
  const saved = async (): Promise<z.infer<typeof Remembered> | undefined> => {
    try {
      const parsed = Remembered.safeParse(JSON.parse(await readFile(file, 'utf8')));
      return parsed.success && parsed.data.key === key ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    async recall() {
      const entry = await saved();
      return entry && 'tools' in entry ? entry.tools : undefined;
    },
    remember(tools) {
      // Unwritten (a read-only cache), the next run starts the server to list them, as the first did.
      writeFileAtomically(file, JSON.stringify({ key, tools }));
    },
    async recallFailure() {
      const entry = await saved();
      return entry && 'failed' in entry ? entry.failed : undefined;
    },
    rememberFailure(reason, at = new Date()) {
      writeFileAtomically(file, JSON.stringify({ key, failed: { reason, at: at.toISOString() } }));
    },
    async forgetFailure() {
      if (await this.recallFailure()) await rm(file, { force: true });
    },
    async forget() {
      await rm(file, { force: true });
    },
  };
}

/** The build stands for Skate's version (every build rewrites its tool definitions). */
function keyOf(inputs: ManifestInputs): string {
  let build: string;
  try {
    const { size, mtimeMs, ino } = statSync(distPath('executor', 'tool-definitions.json'));
    build = `${size}:${mtimeMs}:${ino}`;
  } catch {
    build = 'none';
  }
  return JSON.stringify([1, build, inputs.name, inputs.command, inputs.args, inputs.env, inputs.policy]);
}
