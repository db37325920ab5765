import { createHash } from 'node:crypto';
import { readdir, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type * as z from 'zod';
import { AgentDefinition, AgentFrontMatter, type AgentScope } from '../../shared/agent-definition.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { CLAUDE_CODE_NAMES } from '../engine/tool-rules.js';
import { SettingsError } from '../settings/settings-error.js';
import {
  readUserFile,
  readWorkspaceFile,
  type WorkspaceFile,
} from '../workspace-files/read-workspace-file.js';
import { parseFrontMatter } from './parse-front-matter.js';

const AGENT_FILE_BOUNDS = { maxBytes: 64 * 1024, overflow: 'refuse' } as const;
/** More files than this in one folder are not read: a planted folder must not slow every start. */
const MAX_FILES = 64;
/** Claude Code keys Skate has no use for: dropped from `.claude/agents` files, which are read as they are. */
const CLAUDE_ONLY_KEYS = new Set(['color', 'permissionMode', 'skills', 'hooks', 'mcpServers', 'memory']);

export interface LoadAgentDefinitionsOptions {
  /** The workspace's real path. */
  workspace: string;
  home?: string | undefined;
  /** The run's policy: a workspace's agent file is read only as its agents could read it. */
  policy: () => Promise<ResolvedPolicy>;
  note(line: string): void;
}

interface Folder {
  dir: string;
  scope: AgentScope;
  dialect: 'skate' | 'claude';
}

/**
 * The agent definitions a run offers, by name: the workspace's `.skate/agents/*.md`, then its
 * `.claude/agents/*.md`, then the user's `~/.skate/agents/*.md` (the first of a name wins; the
 * others are noted). Workspace files are read through `readWorkspaceFile` (no link out of the
 * workspace, nothing the policy denies); a file that does not parse is a `SettingsError` naming
 * the file and key.
 */
export async function loadAgentDefinitions(options: LoadAgentDefinitionsOptions): Promise<AgentDefinition[]> {
  const home = options.home ?? homedir();
  const folders: Folder[] = [
    { dir: path.join(options.workspace, '.skate', 'agents'), scope: 'workspace', dialect: 'skate' },
    { dir: path.join(options.workspace, '.claude', 'agents'), scope: 'workspace', dialect: 'claude' },
    { dir: path.join(home, '.skate', 'agents'), scope: 'user', dialect: 'skate' },
  ];
  const found = new Map<string, AgentDefinition>();
  for (const folder of folders) {
    // A workspace that is the home directory has one folder under two names: read it once, as the user's.
    if (folder.scope === 'workspace' && path.join(home, '.skate', 'agents') === folder.dir) continue;
    if (folder.scope === 'workspace' && !(await reachedWithoutLinks(folder.dir, options.note))) continue;
    for (const name of await markdownFiles(folder.dir, options.note)) {
      const file = path.join(folder.dir, name);
      const read =
        folder.scope === 'user'
          ? await readUserFile(file, AGENT_FILE_BOUNDS)
          : await readWorkspaceFile(file, {
              ...AGENT_FILE_BOUNDS,
              policy: options.policy,
              within: options.workspace,
            });
      if (read.status === 'missing') continue;
      if (read.status === 'refused') {
        options.note(`agent file ${file} ${read.message}`);
        continue;
      }
      const definition = parseAgentFile(file, read, folder);
      const earlier = found.get(definition.name);
      if (earlier) {
        options.note(`agent "${definition.name}" of ${file} is hidden by ${earlier.file}`);
        continue;
      }
      found.set(definition.name, definition);
    }
  }
  return [...found.values()];
}

/**
 * A workspace's agent folder is protected from sandboxes by its name (`.claude/agents`, `.skate`):
 * one reached through a link (`sub/.claude -> notes`) is a folder the sandbox may write under
 * another name, so it is not read. Absent is fine (nothing to read).
 */
async function reachedWithoutLinks(dir: string, note: (line: string) => void): Promise<boolean> {
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined || real === dir) return true;
  note(`agent folder ${dir} is reached through a link (to ${real}); its files are not read`);
  return false;
}

async function markdownFiles(dir: string, note: (line: string) => void): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => entry.name.endsWith('.md') && (entry.isFile() || entry.isSymbolicLink()))
    .map((entry) => entry.name)
    .sort();
  if (names.length > MAX_FILES)
    note(`${dir} holds ${names.length} agent files; only the first ${MAX_FILES} are read`);
  return names.slice(0, MAX_FILES);
}

/** One file's definition, or a `SettingsError` naming the file and the key at fault. */
export function parseAgentFile(
  file: string,
  read: Extract<WorkspaceFile, { status: 'read' }>,
  folder: Pick<Folder, 'scope' | 'dialect'>,
): AgentDefinition {
  const text = read.data.toString('utf8');
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) throw new SettingsError(file, parsed.key, parsed.message);
  const fields: Record<string, unknown> = { ...parsed.fields };
  if (folder.dialect === 'claude') {
    for (const key of Object.keys(fields)) if (CLAUDE_ONLY_KEYS.has(key)) delete fields[key];
    if (fields.model === 'inherit') delete fields.model;
  }
  // Claude Code writes `tools: Read, Grep`: a comma-separated string is a list, and its names are Skate's.
  for (const key of ['tools', 'write_paths'] as const) {
    if (typeof fields[key] === 'string')
      fields[key] = (fields[key] as string)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  }
  if (Array.isArray(fields.tools))
    fields.tools = (fields.tools as string[]).map((name) => CLAUDE_CODE_NAMES[name] ?? name);
  const front = AgentFrontMatter.safeParse(fields);
  if (!front.success) {
    const issue = front.error.issues[0] as z.core.$ZodIssue;
    const key =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((name) => [...issue.path, name].join('.')).join(', ')
        : issue.path.join('.') || undefined;
    throw new SettingsError(
      file,
      key,
      issue.code === 'unrecognized_keys' ? 'is not a key of an agent file' : issue.message,
    );
  }
  if (parsed.body === '')
    throw new SettingsError(file, undefined, 'has no body: the body is the agent’s system prompt');
  return AgentDefinition.parse({
    ...front.data,
    prompt: parsed.body,
    scope: folder.scope,
    file: read.real,
    sha256: createHash('sha256').update(read.data).digest('hex'),
  });
}

/** Tools with which an agent can change files or run code. */
const WRITING_TOOLS = new Set(['write_file', 'edit_file', 'shell', 'js_eval', 'spawn_agent']);

/**
 * What a definition asks beyond reading, one phrase each: writes (it may write somewhere and
 * has a tool that writes) and the network. Empty for a read-only definition.
 */
export function widerThanReadOnly(definition: AgentDefinition): string[] {
  const wants: string[] = [];
  const writes = definition.write_paths === undefined || definition.write_paths.length > 0;
  const writingTool =
    definition.tools === undefined || definition.tools.some((tool) => WRITING_TOOLS.has(tool));
  if (writes && writingTool)
    wants.push(
      definition.write_paths ? `writes to ${definition.write_paths.join(', ')}` : 'writes wherever you may',
    );
  if (definition.network === 'on') wants.push('the network');
  return wants;
}
