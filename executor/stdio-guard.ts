/**
 * Imported first by the executor's entry. fd 0 and fd 1 are the channel to the
 * harness, opened once as sockets by main.ts. Node would open them a second
 * time on first use of `process.stdin`/`process.stdout` (libraries do touch
 * them), which fails (EEXIST from the event loop) or, worse, writes stray text
 * into the channel. So they are replaced: stdout goes to stderr, stdin is empty.
 */
import { Console } from 'node:console';
import { Readable } from 'node:stream';

const emptyStdin = Readable.from([]);
Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get: () => emptyStdin });
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
