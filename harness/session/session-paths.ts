import path from 'node:path';

/** Where a workspace keeps its session logs. */
export function sessionsDir(workspace: string): string {
  return path.join(path.resolve(workspace), '.skate', 'sessions');
}

/** The log file of one session. */
export function sessionFile(workspace: string, id: string): string {
  return path.join(sessionsDir(workspace), `${id}.jsonl`);
}
