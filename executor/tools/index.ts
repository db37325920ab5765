import { readFileSync } from 'node:fs';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolDefinition } from '../../shared/tool.js';
import type { AnyTool } from '../define-tool.js';
import { distFile } from '../dist-file.js';
import { describeUnavailable, findIsolatedVm } from '../js-eval/isolated-vm-loader.js';
import type { LazyTool } from '../tool-registry.js';

/**
 * Every tool, by name, and how to load it. Modules load on a tool's first call (each is a chunk
 * of its own in the bundle); stateful tools (js_eval's worker) are made fresh per executor.
 */
const catalog = {
  read_file: () => import('./read-file.js').then((m) => m.readFileTool),
  list_dir: () => import('./list-dir.js').then((m) => m.listDirTool),
  glob: () => import('./glob.js').then((m) => m.globTool),
  grep: () => import('./grep.js').then((m) => m.grepTool),
  write_file: () => import('./write-file.js').then((m) => m.writeFileTool),
  edit_file: () => import('./edit-file.js').then((m) => m.editFileTool),
  shell: () => import('./shell.js').then((m) => m.shellTool),
  js_eval: () => import('./js-eval.js').then((m) => m.createJsEvalTool()),
  noop: () => import('./diagnostics/noop.js').then((m) => m.noopTool),
  emit_lines: () => import('./diagnostics/emit-lines.js').then((m) => m.emitLinesTool),
} satisfies Record<string, () => Promise<AnyTool>>;

export type ToolName = keyof typeof catalog;

/** Where the build writes every tool's definition (`scripts/tool-definitions.mjs`). */
export const TOOL_DEFINITIONS_FILE = 'executor/tool-definitions.json';

/** Every tool in the catalog, loaded: what the build generates definitions from, and tests check. */
export async function loadEveryTool(): Promise<AnyTool[]> {
  return Promise.all(Object.values(catalog).map((load) => load()));
}

/** The tool names an executor offers under a policy: write tools only where something is writable. */
export function toolNamesFor(policy: ResolvedPolicy, diagnostics: boolean): ToolName[] {
  const names: ToolName[] = ['read_file', 'list_dir', 'glob', 'grep'];
  if (policy.write.allow.length > 0) names.push('write_file', 'edit_file');
  names.push('shell', 'js_eval');
  if (diagnostics) names.push('noop', 'emit_lines');
  return names;
}

/**
 * The tools an executor offers under a policy, listed from the definitions the build generated
 * and loaded on first call. js_eval's availability depends on this machine, so it is checked
 * here (resolving isolated-vm's package, not loading it) rather than at build time.
 */
export function toolsFor(policy: ResolvedPolicy, diagnostics: boolean): LazyTool[] {
  const built = builtDefinitions();
  return toolNamesFor(policy, diagnostics).map((name) => {
    const generated = built.get(name);
    if (!generated) throw new Error(`${TOOL_DEFINITIONS_FILE} has no ${name}; run \`npm run build\``);
    const runtime = name === 'js_eval' ? findIsolatedVm() : undefined;
    const unavailable = runtime?.status === 'unavailable' ? describeUnavailable(runtime) : undefined;
    const definition: ToolDefinition = {
      name,
      description: generated.description,
      effect: generated.effect,
      streamsOutput: generated.streamsOutput ?? false,
      ...(unavailable && { unavailable }),
      inputSchema: generated.inputSchema,
    };
    return { definition, load: catalog[name] };
  });
}

function builtDefinitions(): Map<string, ToolDefinition> {
  const list = JSON.parse(readFileSync(distFile(TOOL_DEFINITIONS_FILE), 'utf8')) as ToolDefinition[];
  return new Map(list.map((definition) => [definition.name, definition]));
}
