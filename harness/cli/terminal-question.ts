import { createInterface } from 'node:readline/promises';
import { inertStyledText } from '../terminal/inert-text.js';

/** Asks one question at the terminal; undefined when the person pressed Ctrl-C instead of answering. */
export type AskQuestion = (question: string) => Promise<string | undefined>;

/**
 * A question on stderr, answered on stdin. While readline reads a terminal it holds it in raw
 * mode, so Ctrl-C reaches it as a key rather than as SIGINT: it is turned into an answer of its
 * own (undefined) instead of closing readline under a pending question, which left the run
 * waiting for an answer that could no longer come. Only the question's own colours reach the
 * terminal as sequences (`inertStyledText`), whatever the text it quotes holds.
 */
export const askAtTerminal: AskQuestion = async (question) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const interrupted = new Promise<undefined>((resolve) => {
    rl.once('SIGINT', () => {
      process.stderr.write('\n');
      resolve(undefined);
    });
    rl.once('close', () => resolve(undefined));
  });
  try {
    return await Promise.race([rl.question(inertStyledText(question)), interrupted]);
  } catch {
    // Closed under the question (stdin ended): nobody is there to answer.
    return undefined;
  } finally {
    rl.close();
  }
};
