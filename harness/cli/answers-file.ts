import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { UsageError } from './usage-error.js';

/** `--answers FILE`: one array of answers per ask_user call, in the order the calls come. */
export const AnswersFile = z.array(z.array(z.string()));

/** Reads and validates an answers file; a missing or malformed one is a usage error saying which. */
export async function readAnswersFile(file: string): Promise<string[][]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the answers file ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the answers file ${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = AnswersFile.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(
      `the answers file ${file} must be an array of answer arrays, e.g. [["yes"], ["option B", "free text"]]:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}
