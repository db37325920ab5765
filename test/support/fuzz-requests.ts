import fc from 'fast-check';

/**
 * HTTP requests to `skate serve` and JSON-RPC lines to `skate acp`, as
 * fast-check arbitraries for the protocol fuzz suite: mostly well-framed
 * requests with bad parts, and now and then bytes no client would send.
 */

const printable = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: 'binary-ascii', maxLength }).map((text) => text.replace(/[\r\n]/g, ''));

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom('', '\u0000', '\u001b]52;c;eA==\u0007', '../../..', '%00', '__proto__'),
);

/** Hostile workspaces: none of them may become a session's workspace, nor make a file appear. */
const hostileWorkspace = fc.oneof(
  fc.constantFrom(
    '..',
    '/',
    '/etc',
    '.skate',
    'sub/.skate/sessions',
    '.git',
    '.git/hooks',
    '.vscode',
    '~',
    '%2e%2e',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 30 }).map((name) => `missing-${name}`),
);

const createBody = fc.record(
  {
    workspace: hostileWorkspace,
    policy: fc.oneof(
      fc.constantFrom('readonly', 'full', 'execute', 'plan', 'Full', ''),
      fc.string({ maxLength: 70 }),
    ),
    network: fc.constantFrom('on', 'off', 'maybe'),
    approval: fc.constantFrom('auto', 'ask', 'deny-writes', 'never'),
    model: fc.oneof(fc.constantFrom('claude-sonnet-5-5', 'gpt-4', ''), anyText),
    resume: fc.oneof(fc.uuid(), anyText),
  },
  { requiredKeys: ['workspace'] },
);

const commandBody = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom(
        'interrupt',
        'approval_response',
        'ask_user_response',
        'loop_decision',
        'set_model',
        'set_network',
        'set_activity',
      ),
      anyText,
    ),
    requestId: anyText,
    decision: fc.constantFrom('approve', 'reject', 'continue', 'stop', 'maybe'),
    feedback: anyText,
    answers: fc.jsonValue({ maxDepth: 2 }),
    model: fc.constantFrom('claude-sonnet-5-5', 'nope'),
    network: fc.constantFrom('on', 'off'),
    activity: fc.constantFrom('plan', 'execute', 'sleep'),
    plan: anyText,
  },
  { requiredKeys: ['type'] },
);

const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: createBody.map((value) => JSON.stringify(value)) },
  {
    weight: 2,
    arbitrary: fc.record({ text: anyText }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  },
  { weight: 3, arbitrary: commandBody.map((value) => JSON.stringify(value)) },
  {
    weight: 2,
    arbitrary: fc.record({ atEventId: anyText }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? '') },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }).map((depth) => '['.repeat(depth)) },
);

export interface HttpContext {
  token: string;
  sessionId: string;
  port: number;
}

/** One raw HTTP/1.x request to `skate serve` as latin1 text, written on a connection of its own. */
export function httpRequest(context: HttpContext): fc.Arbitrary<string> {
  const { token, sessionId, port } = context;
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.constant(sessionId) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: printable(40).map((text) => encodeURIComponent(text)) },
    { weight: 1, arbitrary: fc.constantFrom('%ZZ', '..', '%2F', 'a'.repeat(10_000), '') },
  );
  const path = fc.oneof(
    fc.constantFrom(
      '/openapi.json',
      '/v1/sessions',
      '/',
      '*',
      '//v1//sessions',
      '/v1/sessions/../../etc/passwd',
    ),
    fc
      .tuple(id, fc.constantFrom('', '/prompt', '/events', '/commands', '/fork', '/transcript', '/nope'))
      .map(([session, route]) => `/v1/sessions/${session}${route}`),
  );
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.nat(), anyText).map((after) => `?after=${encodeURIComponent(String(after))}`),
    },
  );
  const header = (name: string, values: fc.Arbitrary<string | undefined>) =>
    values.map((value) => (value === undefined ? [] : [`${name}: ${value}`]));
  const headers = fc.tuple(
    header(
      'Host',
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(`127.0.0.1:${port}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('localhost', 'rebind.example', '', 'a'.repeat(300), undefined),
        },
      ),
    ),
    header(
      'Authorization',
      fc.oneof(
        { weight: 7, arbitrary: fc.constant(`Bearer ${token}`) },
        { weight: 2, arbitrary: fc.constantFrom(undefined, `Bearer ${token}x`, 'Bearer', `bearer ${token}`) },
      ),
    ),
    header(
      'Content-Type',
      fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/json; charset=utf-16',
        undefined,
      ),
    ),
    header(
      'Accept',
      fc.constantFrom(undefined, undefined, 'application/json', 'text/event-stream', 'image/png', '*/*'),
    ),
    header(
      'Last-Event-ID',
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.oneof(fc.nat().map(String), printable(30)) },
      ),
    ),
    header('Origin', fc.constantFrom(undefined, undefined, undefined, 'https://evil.example', 'null')),
    fc.oneof(
      { weight: 6, arbitrary: fc.constant([] as string[]) },
      {
        weight: 2,
        arbitrary: fc
          .array(fc.tuple(printable(20), printable(60)), { maxLength: 8 })
          .map((pairs) => pairs.map(([name, value]) => `${name.replace(/[:\s]/g, '') || 'X'}: ${value}`)),
      },
      { weight: 1, arbitrary: fc.constant(Array.from({ length: 100 }, (_, i) => `X-Many-${i}: ${i}`)) },
      { weight: 1, arbitrary: fc.constant([`X-Huge: ${'h'.repeat(20_000)}`]) },
    ),
  );
  const framing = fc.constantFrom(
    'exact',
    'exact',
    'exact',
    'exact',
    'missing',
    'short',
    'long',
    'negative',
    'garbage',
    'twice',
    'chunked',
    'bad-chunk',
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'POST', 'DELETE') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'CONNECT', 'PRI'),
        },
        { weight: 1, arbitrary: printable(10).map((text) => text.replace(/\s/g, '') || 'X') },
      ),
      path,
      query,
      version: fc.constantFrom(
        'HTTP/1.1',
        'HTTP/1.1',
        'HTTP/1.1',
        'HTTP/1.0',
        'HTTP/2.0',
        'HTTP/9.9',
        'HTTX',
      ),
      headers,
      body,
      framing,
    })
    .map(({ method, path: target, query: search, version, headers: groups, body: text, framing: frame }) => {
      const lines = [`${method} ${target}${search} ${version}`, ...groups.flat()];
      const bytes = Buffer.byteLength(text, 'latin1');
      switch (frame) {
        case 'exact':
          lines.push(`Content-Length: ${bytes}`);
          break;
        case 'short':
          lines.push(`Content-Length: ${Math.max(0, bytes - 5)}`);
          break;
        case 'long':
          lines.push(`Content-Length: ${bytes + 100}`);
          break;
        case 'negative':
          lines.push('Content-Length: -1');
          break;
        case 'garbage':
          lines.push('Content-Length: 12abc');
          break;
        case 'twice':
          lines.push(`Content-Length: ${bytes}`, `Content-Length: ${bytes + 1}`);
          break;
        case 'chunked':
          lines.push('Transfer-Encoding: chunked');
          return `${lines.join('\r\n')}\r\n\r\n${bytes.toString(16)}\r\n${text}\r\n0\r\n\r\n`;
        case 'bad-chunk':
          lines.push('Transfer-Encoding: chunked', `Content-Length: ${bytes}`);
          return `${lines.join('\r\n')}\r\n\r\nzz\r\n${text}\r\nffffffffffffffff\r\n`;
      }
      return `${lines.join('\r\n')}\r\n\r\n${text}`;
    });
}

/** Placeholders an ACP line's generator leaves for the test to fill in: a real session id, the fuzz workspace. */
export const SESSION = '$SESSION';
export const CWD = '$CWD';

const ACP_METHODS = [
  'initialize',
  'authenticate',
  'session/new',
  'session/load',
  'session/resume',
  'session/list',
  'session/delete',
  'session/close',
  'session/fork',
  'session/prompt',
  'session/cancel',
  'session/set_mode',
  'session/set_config_option',
  'session/set_title',
  'fs/read_text_file',
  'session/request_permission',
];

const sessionId = fc.oneof(
  { weight: 4, arbitrary: fc.constant(SESSION) },
  { weight: 1, arbitrary: fc.oneof(fc.uuid(), anyText) },
);

const cwd = fc.oneof(
  { weight: 4, arbitrary: fc.constant(CWD) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '/',
      '/tmp/..',
      'relative',
      '/nonexistent',
      `${CWD}/..`,
      `${CWD}/.skate`,
      '',
      'x'.repeat(5000),
    ),
  },
);

const contentBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text: anyText }),
  fc.record({
    type: fc.constant('image'),
    data: printable(100),
    mimeType: fc.constantFrom('image/png', 'text/html', ''),
  }),
  fc.record({
    type: fc.constant('resource_link'),
    uri: fc.constantFrom('file:///etc/shadow', 'file:///root/.ssh/id_rsa', 'https://x'),
    name: anyText,
  }),
  fc.record({
    type: fc.constant('resource'),
    resource: fc.record({ uri: fc.constantFrom('file:///etc/passwd', 'x:'), text: anyText }),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);

const params = fc.record(
  {
    sessionId,
    cwd,
    mcpServers: fc.oneof(fc.constant([]), fc.jsonValue({ maxDepth: 2 })),
    prompt: fc.oneof(fc.array(contentBlock, { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
    modeId: fc.constantFrom('execute', 'plan', 'sleep'),
    configId: fc.constantFrom('model', 'mode', 'nope'),
    value: fc.constantFrom('plan', 'execute', 'claude-sonnet-5-5', 'nope'),
    cursor: anyText,
    protocolVersion: fc.oneof(fc.constant(1), fc.integer(), anyText),
    clientCapabilities: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);

const id = fc.oneof(
  fc.nat(),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(null, 1.5, -1),
  fc.jsonValue({ maxDepth: 1 }),
);

const request = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
    id,
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...ACP_METHODS) },
      { weight: 1, arbitrary: anyText },
    ),
    params: fc.oneof(
      { weight: 5, arbitrary: params },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
  },
  { requiredKeys: ['method'] },
);

const response = fc.record({
  jsonrpc: fc.constant('2.0'),
  id,
  result: fc.jsonValue({ maxDepth: 2 }),
});

/** One line to `skate acp`'s stdin: a request, a notification, a response to nothing, a batch, or garbage. */
export const acpLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: request.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: response.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.array(request, { maxLength: 4 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: anyText.map((text) => text.replace(/\n/g, ' ')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"jsonrpc":"2.0","id":1,"method":"session/new"',
      'null',
      '[]',
      '1e999999',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 100_000 })
      .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  },
);
