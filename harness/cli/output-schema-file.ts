import { open } from 'node:fs/promises';
import { jsonSchemaContract, type ResultContract } from '../agents/result-contracts.js';
import { UsageError } from './usage-error.js';

/** Past this a schema file is refused: a schema is a few KiB, and the whole file goes to the model. */
const MAX_SCHEMA_BYTES = 256 * 1024;

/**
 * `--output-schema FILE`: a JSON Schema the run's answer must match. A file the user named on the
 * command line (not one Skate found on its own); read whole, bounded, parsed, and checked for a
 * schema Skate can validate with. Every problem is a usage error naming the file.
 */
export async function readOutputSchema(file: string): Promise<ResultContract> {
  let text: string;
  try {
    await using handle = await open(file, 'r');
    const { size } = await handle.stat();
    if (size > MAX_SCHEMA_BYTES) {
      throw new UsageError(`the output schema ${file} is ${size} bytes; at most ${MAX_SCHEMA_BYTES}`);
    }
    text = await handle.readFile('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the output schema ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the output schema ${file} is not JSON: ${(error as Error).message}`);
  }
  try {
    return jsonSchemaContract('--output-schema', raw);
  } catch (error) {
    throw new UsageError(`--output-schema ${file}: ${(error as Error).message}`);
  }
}
