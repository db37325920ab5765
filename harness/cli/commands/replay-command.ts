import { open } from 'node:fs/promises';
import {
  type RecordedModelResponse,
  type RecordedToolCall,
  type RecordHeader,
  RecordLine,
} from '../../../shared/run-record.js';
import { createRunReplay } from '../../replay/run-replay.js';
import { inertText } from '../../terminal/inert-text.js';
import type { CommandMain } from '../cli-flags.js';
import { note } from '../note.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';
import { runAgent } from './agent-command.js';

/** A record is data the user names; a run's worth of responses and results stays well under this. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/**
 * `skate replay FILE [--execute-tools] [agent flags]`: the run `--record FILE` wrote, again, with
 * its command line (flags given here come after it and win: `--workspace`, `--output-format`), no
 * model (each request gets the next recorded response) and, unless `--execute-tools`, no tool run
 * (each call gets its recorded lines and result). With `--execute-tools` the tools run in the
 * sandbox and each result is compared with the record. Exits 1 when the run went otherwise than
 * recorded (a tool result differs, a call or a response is missing or left over), else as the run.
 */
export const run: CommandMain = async (args) => {
  const [file, ...rest] = args;
  if (file === '--help' || file === '-h') return help();
  if (file === undefined || file.startsWith('-'))
    throw new UsageError('give the record: skate replay FILE [--execute-tools] [agent flags]');
  const execute = rest.includes('--execute-tools');
  const extra = rest.filter((arg) => arg !== '--execute-tools');
  const { header, responses, calls } = await readRecord(file);
  const replay = createRunReplay(responses, calls, { execute });
  const report = (): boolean => {
    const differences = replay.differences();
    const unused = replay.unused();
    for (const difference of differences) {
      note(
        `replay: ${inertText(difference.name)} ${inertText(JSON.stringify(difference.input))}: ${inertText(difference.why)}`,
      );
    }
    if (unused.responses > 0 || unused.calls > 0) {
      note(
        `replay: the run ended before using all of the record (${unused.responses} model responses, ${unused.calls} tool calls left)`,
      );
    }
    const same = differences.length === 0 && unused.responses === 0 && unused.calls === 0;
    note(
      same
        ? `replay: the run went as recorded (${responses.length} model responses, ${calls.length} tool calls${execute ? ', tools run again' : ''})`
        : 'replay: the run went otherwise than recorded',
    );
    return same;
  };
  return runAgent([...header.args, ...extra], { replay, report });
};

async function readRecord(
  file: string,
): Promise<{ header: RecordHeader; responses: RecordedModelResponse[]; calls: RecordedToolCall[] }> {
  let text: string;
  try {
    await using handle = await open(file, 'r');
    const { size } = await handle.stat();
    if (size > MAX_RECORD_BYTES)
      throw new UsageError(`${file}: a record of ${size} bytes is more than a run writes`);
    text = await handle.readFile('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the record ${file}: ${(error as Error).message}`);
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parsed = lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${file}:${index + 1}: not JSON: not a record written by skate -p --record`);
    }
    const result = RecordLine.safeParse(value);
    if (!result.success)
      throw new UsageError(
        `${file}:${index + 1}: not a record line (${result.error.issues[0]?.message ?? 'invalid'})`,
      );
    return result.data;
  });
  const [first, ...others] = parsed;
  if (first?.type !== 'skate_record')
    throw new UsageError(
      `${file}: no skate_record header on its first line: not written by skate -p --record`,
    );
  return {
    header: first,
    responses: others.filter((line): line is RecordedModelResponse => line.type === 'model_response'),
    calls: others.filter((line): line is RecordedToolCall => line.type === 'tool_call'),
  };
}
