/**
 * Where a sandbox finds its way out under a network allowlist, and its CA bundle (issue #21):
 * the harness binds a directory of its own here, read-only, holding the proxy's unix socket, the
 * relay's hand-off socket and a copy of the host's CA bundle; the executor passes each connection
 * to `127.0.0.1:SANDBOX_PROXY_PORT` out through the hand-off socket (else joins it to the proxy's).
 */
export const SANDBOX_NET_DIR = '/run/skate-net';
export const PROXY_SOCKET_NAME = 'proxy.sock';
export const HANDOFF_SOCKET_NAME = 'handoff.sock';
export const CA_BUNDLE_NAME = 'ca-certificates.crt';
export const SANDBOX_PROXY_SOCKET = `${SANDBOX_NET_DIR}/${PROXY_SOCKET_NAME}`;
export const SANDBOX_HANDOFF_SOCKET = `${SANDBOX_NET_DIR}/${HANDOFF_SOCKET_NAME}`;
export const SANDBOX_CA_BUNDLE = `${SANDBOX_NET_DIR}/${CA_BUNDLE_NAME}`;
/** The sandbox's own loopback (it has its own network namespace): nothing of the host's. */
export const SANDBOX_PROXY_PORT = 3128;
export const SANDBOX_PROXY_URL = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
