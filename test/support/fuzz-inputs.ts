import fc from 'fast-check';
import { transformer } from '../../shared/trpc.js';
import type { RawFrame } from './raw-websocket.js';

/**
 * The protocol fuzz suite's inputs (test/security/protocol-fuzz.test.ts):
 * fast-check arbitraries drawn from a fixed seed, in batches, so a run is the
 * same every time and a longer run by hand (SKATE_FUZZ_ITERATIONS,
 * SKATE_FUZZ_SECONDS, SKATE_FUZZ_SEED) goes on where a short one stopped.
 */
export const FUZZ_SEED = Number(process.env.SKATE_FUZZ_SEED ?? 20_261_125);

/** Inputs per target, and seconds at most: a few seconds in CI unless the environment asks for more. */
export function fuzzBudget(defaultRuns: number, defaultSeconds = 4): { runs: number; ms: number } {
  return {
    runs: Number(process.env.SKATE_FUZZ_ITERATIONS ?? defaultRuns),
    ms: Number(process.env.SKATE_FUZZ_SECONDS ?? defaultSeconds) * 1000,
  };
}

/** A fuzz test's own timeout: setup and checks, plus its budget two or three times over (two phases, slow checks). */
export function fuzzTimeoutMs(): number {
  return 120_000 + 3 * fuzzBudget(0).ms;
}

/** Draws inputs from `arbitrary` lazily, 50 at a time, each batch from its own seed: no huge array up front. */
export function* fuzzInputs<T>(arbitrary: fc.Arbitrary<T>, runs: number, seed = FUZZ_SEED): Generator<T> {
  for (let batch = 0; batch * 50 < runs; batch++) {
    const size = Math.min(50, runs - batch * 50);
    yield* fc.sample(arbitrary, { seed: seed + batch, numRuns: size });
  }
}

/** Text a frame may carry: any code points (lone surrogates too), control characters, long runs. */
const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom('', '\u0000', '\u001b]52;c;eA==\u0007', '\ud800', '\r\n', '../../..', '%00', '__proto__'),
);

/** A large frame, made only when it is sent (`materialize`). */
export interface HugeFrame {
  huge: number;
}

export function materialize(frame: string | HugeFrame): string {
  if (typeof frame === 'string') return frame;
  const head = '{"id":424242,"method":"query","params":{"path":"health","input":"';
  return `${head}${'a'.repeat(Math.max(0, frame.huge - head.length - 4))}"}}`;
}

const requestId = fc.oneof(
  fc.nat(),
  fc.string({ minLength: 1, maxLength: 140 }),
  fc.constantFrom(null, -1, 1.5, 2 ** 53, '', '1e3', true),
  fc.jsonValue({ maxDepth: 2 }),
);

const safeCommands = fc.constantFrom(
  'true',
  'echo hi',
  'ls -a',
  'exit 3',
  'kill -9 $$',
  'touch fuzz-made-this',
  'mkdir -p .git/hooks',
  'echo x > .skate/settings.json',
  'printf "\\033]52;c;eA==\\007"',
  'yes | head -c 200000',
  'sleep 0.2',
  'cat /proc/self/status',
);

const toolInput = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      path: fc.oneof(
        fc.constantFrom(
          '.',
          '..',
          '/',
          '/etc/shadow',
          '~/.ssh/id_rsa',
          '.skate',
          '/proc/self/environ',
          'x'.repeat(5000),
        ),
        anyText,
      ),
      content: anyText,
      command: fc.oneof(safeCommands, fc.string({ maxLength: 12 })),
      timeout_seconds: fc.constantFrom(1, 0.01, -1, 1e9),
      pattern: anyText,
      old_string: anyText,
      new_string: anyText,
      code: fc.constantFrom('1+1', 'throw new Error("x")', 'new Array(1e6).fill(0).length', '"\\u001b[2J"'),
      offset: fc.oneof(fc.integer(), fc.double()),
    },
    { requiredKeys: [] },
  ),
);

/** superjson meta a client should never send: prototype keys, unknown types, cycles. */
const hostileSuperjson = fc.record({
  json: fc.jsonValue({ maxDepth: 3 }),
  meta: fc.record(
    {
      values: fc.oneof(
        fc.dictionary(
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom('__proto__', 'constructor.prototype', 'a.b', ''),
          ),
          fc.oneof(
            fc.constantFrom(
              ['map'],
              ['set'],
              ['Date'],
              ['bigint'],
              ['regexp'],
              ['undefined'],
              ['class', 'X'],
              ['symbol', 'x'],
              ['custom', 'y'],
              ['number'],
            ),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          { maxKeys: 4 },
        ),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      referentialEqualities: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
});

const callToolInput = fc.record({
  callId: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('', 'x'.repeat(200))),
  name: fc.constantFrom(
    'read_file',
    'list_dir',
    'glob',
    'grep',
    'shell',
    'write_file',
    'edit_file',
    'js_eval',
    'emit_lines',
    'spawn_agent',
    '',
    'x'.repeat(300),
  ),
  input: toolInput,
});

/** tRPC frames as the executor reads them: well-formed calls with bad inputs, and everything around them. */
export const trpcFrame: fc.Arbitrary<string | HugeFrame> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        id: requestId,
        jsonrpc: fc.constantFrom(undefined, '2.0', '1.0'),
        method: fc.oneof(
          fc.constantFrom('query', 'mutation', 'subscription', 'subscription.stop'),
          fc.string({ maxLength: 12 }),
        ),
        params: fc.oneof(
          fc.record({
            // Never `shutdown`: a well-formed one is the one legitimate way to end the executor.
            path: fc.oneof(
              fc.constantFrom(
                'listTools',
                'callTool',
                'toolOutput',
                'health',
                'nope',
                '__proto__',
                'constructor',
                '',
              ),
              fc.string({ maxLength: 300 }),
            ),
            input: fc.oneof(
              callToolInput.map((value) => transformer.serialize(value)),
              hostileSuperjson,
              fc.jsonValue({ maxDepth: 3 }),
              fc.constant(undefined),
            ),
          }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      })
      .map((frame) => JSON.stringify(frame)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: anyText },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 200_000 })
      .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '1e999999',
      '-0',
      '{"id":1}{"id":2}',
      '{"id":1,"method":"query"',
      'null',
      '"\\ud800"',
    ),
  },
);

/** A huge frame now and then (one in `every`), over or under `limit`. */
export function withHugeFrames(
  frames: fc.Arbitrary<string | HugeFrame>,
  limit: number,
  every = 8,
): fc.Arbitrary<string | HugeFrame> {
  return fc.oneof(
    { weight: every - 1, arbitrary: frames },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(0.5, 0.99, 1.01, 1.5)
        .map((share): HugeFrame => ({ huge: Math.round(limit * share) })),
    },
  );
}

/** A WebSocket frame payload: JSON, random bytes, invalid UTF-8, a close code and reason. */
const framePayload = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(
    Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  ),
  fc.tuple(fc.integer({ min: 0, max: 65_535 }), fc.string({ maxLength: 130 })).map(([code, reason]) => {
    const bytes = Buffer.alloc(2);
    bytes.writeUInt16BE(code);
    return Buffer.concat([bytes, Buffer.from(reason)]);
  }),
);

export const rawFrame: fc.Arbitrary<RawFrame> = fc
  .record({
    opcode: fc.oneof(fc.constantFrom(0, 1, 2, 8, 9, 10), fc.integer({ min: 0, max: 15 })),
    fin: fc.oneof(fc.constant(true), fc.boolean()),
    rsv: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 7 })),
    mask: fc.oneof(fc.constant(true), fc.boolean()),
    payload: framePayload,
    lie: fc.oneof(fc.constant(0), fc.integer({ min: -3, max: 3 }), fc.constantFrom(1 << 20, 2 ** 40)),
  })
  .map(({ lie, ...frame }) =>
    lie === 0 ? frame : { ...frame, declaredLength: Math.max(0, frame.payload.length + lie) },
  );

/** One connection to `executor serve` written by hand: its handshake headers, its frames, and how it ends. */
export interface RawSession {
  headers: Record<string, string>;
  frames: RawFrame[];
  end: 'close' | 'destroy' | 'half-close' | 'leave';
}

export function rawSession(token: string): fc.Arbitrary<RawSession> {
  return fc.record({
    headers: fc
      .record(
        {
          authorization: fc.oneof(
            { weight: 4, arbitrary: fc.constant(`Bearer ${token}`) },
            { weight: 1, arbitrary: fc.constantFrom(`Bearer ${token}x`, 'Bearer', `Basic ${token}`, '') },
          ),
          'sec-websocket-version': fc.constantFrom('13', '13', '13', '8', 'x'),
          'sec-websocket-protocol': fc.constantFrom('a', 'a, b', ''),
          'sec-websocket-extensions': fc.constantFrom('permessage-deflate', 'x-unknown'),
          'x-fuzz': fc
            .string({ maxLength: 200 })
            .map((text) => text.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '')),
        },
        { requiredKeys: [] },
      )
      .map((headers) => Object.fromEntries(Object.entries(headers))),
    frames: fc.array(rawFrame, { maxLength: 6 }),
    end: fc.constantFrom('close', 'destroy', 'half-close', 'leave'),
  });
}
