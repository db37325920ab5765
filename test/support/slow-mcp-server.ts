import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../harness/project-paths.js';

/** The slow MCP fixture (`test/fixtures/mcp/slow-server.mjs`): a `slow` tool that runs until cancelled. */
export const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

/** A slow server's settings entry, the file it logs its protocol events to, and the marker in its argv. */
export interface LoggingSlowServer {
  config: { command: string; args: string[]; env: Record<string, string>; policy: { write: string[] } };
  /** `<workspace>/log/events`: one line per event (`slow started`, `cancelled <id> …`, `slow finished`). */
  events: string;
  /** In the server's command line, to find its processes with `pidsWithMarker`. */
  marker: string;
}

/**
 * The slow server set up to log its events under the workspace (`log/`, writable by its policy alone)
 * and to carry a unique marker, as the cancellation tests of each frontend need it.
 */
export async function loggingSlowServer(workspace: string, markerPrefix: string): Promise<LoggingSlowServer> {
  await mkdir(path.join(workspace, 'log'));
  const events = path.join(workspace, 'log', 'events');
  const marker = `${markerPrefix}-${randomUUID()}`;
  return {
    config: {
      command: process.execPath,
      args: [SLOW_SERVER, marker],
      env: { MCP_EVENT_LOG: events },
      policy: { write: ['log'] },
    },
    events,
    marker,
  };
}

/** The non-empty lines of a log file; none yet when it does not exist. */
export async function logLines(file: string): Promise<string[]> {
  return existsSync(file) ? (await readFile(file, 'utf8')).trim().split('\n').filter(Boolean) : [];
}
