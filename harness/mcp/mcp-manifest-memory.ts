import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ToolDefinition } from '../../shared/tool.js';
import { distPath } from '../project-paths.js';
import { skateCacheDir } from '../skate-cache-dir.js';
import { writeFileAtomically } from '../write-file-atomically.js';

const Remembered = z.object({ key: z.string(), tools: z.array(ToolDefinition) });

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
 * every sandbox), so that a run offers them without starting it. The key is a hash: the server's
 * `env` (tokens, often) is never written.
 */
export interface ManifestMemory {
  recall(): Promise<ToolDefinition[] | undefined>;
  remember(tools: ToolDefinition[]): void;
  forget(): Promise<void>;
}

export function manifestMemory(
  inputs: ManifestInputs,
  dir = path.join(skateCacheDir(), 'mcp-manifests'),
): ManifestMemory {
  const key = createHash('sha256').update(keyOf(inputs)).digest('hex');
  const file = path.join(dir, `${inputs.name}-${key.slice(0, 16)}.json`);
  return {
    async recall() {
      try {
        const saved = Remembered.safeParse(JSON.parse(await readFile(file, 'utf8')));
        return saved.success && saved.data.key === key ? saved.data.tools : undefined;
      } catch {
        return undefined;
      }
    },
    remember(tools) {
      // Unwritten (a read-only cache), the next run starts the server to list them, as the first did.
      writeFileAtomically(file, JSON.stringify({ key, tools }));
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
