import type { ResolvedPolicy } from '../../shared/policy.js';
import type { AnyTool } from '../define-tool.js';
import { emitLinesTool } from './diagnostics/emit-lines.js';
import { noopTool } from './diagnostics/noop.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';

/** The tools an executor offers under a policy: write tools only where something is writable. */
export function toolsFor(policy: ResolvedPolicy, diagnostics: boolean): AnyTool[] {
  const tools: AnyTool[] = [readFileTool];
  if (policy.write.allow.length > 0) tools.push(writeFileTool);
  if (diagnostics) tools.push(noopTool, emitLinesTool);
  return tools;
}
