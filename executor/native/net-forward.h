/*
 *   skate-confine --net-forward SOCKET PORT[=HOST:PORT]...
 *
 * The sandbox's ways to the harness's allowlist proxy (issue #21), run by the executor inside the
 * sandbox under a network allowlist. Listens on the sandbox's own 127.0.0.1:PORT for each PORT
 * and joins each connection to the proxy's unix socket SOCKET in the kernel (splice-joint.h): as
 * it is (the proxy port, where clients speak HTTP proxying themselves), or after a CONNECT to
 * HOST:PORT answered 200 (a loopback service the list names by port, for a client that knows
 * nothing of proxies). It decides nothing: every check is the proxy's. It dies with its parent.
 */
#ifndef SKATE_NET_FORWARD_H
#define SKATE_NET_FORWARD_H

int net_forward_main(int argc, char **argv);

#endif
