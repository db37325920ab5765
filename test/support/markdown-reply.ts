/**
 * A model-like Markdown reply for the terminal UI's tests and bench: headings,
 * paragraphs, lists (tight and loose), inline code, bold, fenced code, a table,
 * a quote. Every word is a numbered token (`w000042`), so a test can check that
 * each one reached the screen, in order. Deterministic for a given size.
 */
export function markdownReply(words: number): string {
  let n = 0;
  const word = (): string => `w${String(n++).padStart(6, '0')}`;
  const words_ = (count: number): string => Array.from({ length: count }, word).join(' ');
  const parts: string[] = [];
  for (let section = 0; n < words; section++) {
    switch (section % 7) {
      case 0:
        parts.push(`## ${words_(3)}`);
        break;
      case 1:
        parts.push(`${words_(12)} \`${word()}\` ${words_(10)} **${words_(2)}** ${words_(20)}.`);
        break;
      case 2:
        parts.push(Array.from({ length: 4 }, () => `- ${words_(6)}`).join('\n'));
        break;
      case 3:
        parts.push(
          [
            '```ts',
            `export function ${word()}(input: string): number {`,
            `  const ${word()} = input.length; // ${words_(3)}`,
            '',
            `  return ${word()} * 2;`,
            '}',
            '```',
          ].join('\n'),
        );
        break;
      case 4:
        parts.push(`1. ${words_(5)}\n\n2. ${words_(5)}\n\n   ${words_(4)}`);
        break;
      case 5:
        parts.push(`| ${word()} | ${word()} |\n|---|---|\n| ${word()} | ${word()} |`);
        break;
      case 6:
        parts.push(`> ${words_(8)}\n> ${words_(6)}`);
        break;
    }
  }
  return `${parts.join('\n\n')}\n`;
}

/** The reply cut into deltas of 1 to 9 characters, as a model streams it (through words, fences and lines). */
export function textDeltas(text: string, seed = 1): string[] {
  const deltas: string[] = [];
  let state = seed;
  for (let at = 0; at < text.length; ) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const size = 1 + (state % 9);
    deltas.push(text.slice(at, at + size));
    at += size;
  }
  return deltas;
}

/** The numbered word tokens in `text`, in order. */
export function wordTokens(text: string): string[] {
  return text.match(/w\d{6}/g) ?? [];
}
