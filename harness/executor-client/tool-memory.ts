import { statSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { ToolDefinition } from '../../shared/tool.js';
import { distPath } from '../project-paths.js';
import { skateCacheDir } from '../skate-cache-dir.js';
import { writeFileAtomically } from '../write-file-atomically.js';

/** Lists kept; the oldest go first (one per workspace and policy in use). */
const KEPT = 32;

const Remembered = z.object({ key: z.string(), tools: z.array(ToolDefinition) });

/** What decides an executor's tool list: its policy and diagnostics flag, on this build and Node. */
export interface ToolListInputs {
  policy: ResolvedPolicy;
  diagnosticTools: boolean;
}

/**
 * An executor's tool list as one listed it last time under the same inputs, kept in the user's
 * cache so that the next start can ask the model before its executor has booted (its tools are a
 * pure function of these inputs, the build and this Node). `recall` is undefined when nothing
 * fits; a list that no longer fits is replaced by `remember` once the executor has answered.
 */
export interface ToolMemory {
  recall(): Promise<ToolDefinition[] | undefined>;
  /** Keeps the executor's own list when it differs from the one recalled; a failure only costs the saving. */
  remember(tools: ToolDefinition[]): Promise<void>;
}

export function toolMemory(inputs: ToolListInputs, dir = path.join(skateCacheDir(), 'tools')): ToolMemory {
  const key = keyOf(inputs);
  const file = path.join(dir, `${hash(key)}.json`);
  let recalled: string | undefined;
  return {
    async recall() {
      try {
        const saved = Remembered.safeParse(JSON.parse(await readFile(file, 'utf8')));
        if (!saved.success || saved.data.key !== key) return undefined;
        recalled = JSON.stringify(saved.data.tools);
        return saved.data.tools;
      } catch {
        return undefined;
      }
    },
    async remember(tools) {
      if (JSON.stringify(tools) === recalled) return;
      // Unwritten (a read-only cache), the next start waits for its executor, as without one.
      if (writeFileAtomically(file, JSON.stringify({ key, tools }))) await prune(dir).catch(() => undefined);
    },
  };
}

/**
 * The build's tool definitions file stands for the build (every build rewrites it); the policy
 * stands with its workspace written `${workspace}`, as in its file, so that one list serves a
 * policy in every workspace (tools list nothing of their workspace).
 */
function keyOf(inputs: ToolListInputs): string {
  let build: string;
  try {
    const { size, mtimeMs, ino } = statSync(distPath('executor', 'tool-definitions.json'));
    build = `${size}:${mtimeMs}:${ino}`;
  } catch {
    build = 'none';
  }
  const workspace = JSON.stringify(inputs.policy.workspace).slice(1, -1);
  const policy = JSON.stringify(inputs.policy).replaceAll(workspace, '${workspace}');
  return JSON.stringify([1, process.version, process.arch, build, inputs.diagnosticTools, policy]);
}

/** FNV-1a, 64 bits as two halves: a file name, not a guard (the file keeps the whole key). */
function hash(text: string): string {
  let low = 0x811c9dc5;
  let high = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code ^ (low >>> 7), 0x01000193) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

async function prune(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  if (names.length <= KEPT) return;
  const aged = await Promise.all(
    names.map(async (name) => ({ name, mtimeMs: (await stat(path.join(dir, name))).mtimeMs })),
  );
  aged.sort((a, b) => a.mtimeMs - b.mtimeMs);
  await Promise.all(
    aged.slice(0, aged.length - KEPT).map(({ name }) => rm(path.join(dir, name), { force: true })),
  );
}
