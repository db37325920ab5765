import { readFile } from 'node:fs/promises';

export type ReadPlan = { ok: true; plan: string } | { ok: false; message: string };

/** Reads a plan to carry out; a missing or empty one comes back as a message saying what to do. */
export async function readPlan(file: string): Promise<ReadPlan> {
  let plan: string;
  try {
    plan = await readFile(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      ok: false,
      message: missing
        ? `no plan at ${file}: write one with \`skate plan "task"\`, or name one with --plan FILE`
        : `cannot read the plan ${file}: ${(error as Error).message}`,
    };
  }
  if (plan.trim() === '')
    return { ok: false, message: `the plan at ${file} is empty: write one with \`skate plan "task"\`` };
  return { ok: true, plan };
}
