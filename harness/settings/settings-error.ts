/** A settings file that cannot be used: which file, which key, what is wrong. Printed as one line, exit 2. */
export class SettingsError extends Error {
  readonly file: string;
  /** The key (a dotted path for nested ones); undefined when the whole file is at fault. */
  readonly key: string | undefined;
  readonly problem: string;

  constructor(file: string, key: string | undefined, problem: string) {
    super(`${file}${key ? `: ${key}` : ''}: ${problem}`);
    this.name = 'SettingsError';
    this.file = file;
    this.key = key;
    this.problem = problem;
  }
}
