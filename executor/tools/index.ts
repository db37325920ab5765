import type { ResolvedPolicy } from '../../shared/policy.js';
import type { AnyTool } from '../define-tool.js';
import { emitLinesTool } from './diagnostics/emit-lines.js';
import { noopTool } from './diagnostics/noop.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { createJsEvalTool } from './js-eval.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { shellTool } from './shell.js';
import { writeFileTool } from './write-file.js';

/**
 * The tools an executor offers under a policy: write tools only where something
 * is writable. Stateful tools (js_eval's worker) are made fresh per executor.
 */
export function toolsFor(policy: ResolvedPolicy, diagnostics: boolean): AnyTool[] {
  const tools: AnyTool[] = [readFileTool, listDirTool, globTool, grepTool];
  if (policy.write.allow.length > 0) tools.push(writeFileTool, editFileTool);
  tools.push(shellTool, createJsEvalTool());
  if (diagnostics) tools.push(noopTool, emitLinesTool);
  return tools;
}
