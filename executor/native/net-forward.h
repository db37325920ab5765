/*
 *   skate-confine --net-forward SOCKET HANDOFF PORT[=HOST:PORT]...
 *
 * The sandbox's ways to the harness's allowlist proxy (issue #21), run by the executor inside the
 * sandbox under a network allowlist. Listens on the sandbox's own 127.0.0.1:PORT for each PORT.
 * A connection to the proxy port (a bare PORT, where clients speak HTTP proxying themselves) is
 * passed whole to the harness's relay through its hand-off socket HANDOFF (socket-handoff.h) and
 * let go of: the proxy reads the client's socket itself, and the relay joins it to the upstream,
 * so the bytes cross no process in the sandbox. When the relay cannot take it (no hand-off
 * socket, or a full one), and for a loopback service the list names by port (PORT=HOST:PORT,
 * for a client that knows nothing of proxies: after a CONNECT to HOST:PORT answered 200), the
 * connection is joined to the proxy's unix socket SOCKET in the kernel (splice-joint.h). It
 * decides nothing: every check is the proxy's. It dies with its parent.
 */
#ifndef SKATE_NET_FORWARD_H
#define SKATE_NET_FORWARD_H

int net_forward_main(int argc, char **argv);

#endif
