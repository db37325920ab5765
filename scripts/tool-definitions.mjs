// After tsc: writes every tool's definition (description, effect, input as JSON Schema from its
// zod input) to dist/executor/tool-definitions.json, so an executor lists its tools without
// loading them or zod (see executor/tools/index.ts). Whether js_eval can run is checked on the
// machine that runs it, so `unavailable` is left out here.
import { writeFile } from 'node:fs/promises';
import { toolDefinition } from '../dist/executor/tool-definition.js';
import { loadEveryTool, TOOL_DEFINITIONS_FILE } from '../dist/executor/tools/index.js';

const tools = await loadEveryTool();
const definitions = tools.map((tool) => {
  const { unavailable: _machineSpecific, ...definition } = toolDefinition(tool);
  return definition;
});
await Promise.all(tools.map(async (tool) => tool.dispose?.()));
await writeFile(`dist/${TOOL_DEFINITIONS_FILE}`, `${JSON.stringify(definitions, null, 2)}\n`);
