/*
 *   skate-confine --splice-channel IDLE_MS CONNECT_MS [HANDOFF]   (started by Node with an 'ipc' channel)
 *
 * The harness's relay for admitted proxy connections (issue #21). The allowlist proxy (Node)
 * checks a connection (CONNECT host, TLS server name, ...) and resolves its host; then it sends
 * the client's socket here over Node's IPC channel (`subprocess.send(message, socket)`, the fd in
 * SCM_RIGHTS) with the IP address and port it checked, and this process connects there itself
 * (within the connect timeout), writes what is owed (the CONNECT's `200`, the bytes Node had
 * already read for the upstream) and joins the two sockets in the kernel (splice-joint.h), so the
 * bytes of a tunnel never cross the harness's event loop and its setup costs one message. A
 * failed connect answers 502 or just closes, as the message says. The channel speaks Node's own
 * framing (one JSON object a line; a handle is acknowledged with NODE_HANDLE_ACK). When a tunnel
 * ends, `{"skate":"closed","id":N}` goes back. Ends (and every tunnel with it) when the channel
 * closes or the parent dies. The upstream socket never leaves this process.
 *
 * With HANDOFF (a path), it also listens there for the sandbox's forwarder (socket-handoff.h):
 * each connection the forwarder accepted on the proxy port comes as a descriptor, is checked (a
 * connected TCP socket, one a message; anything else is closed), waits in a bounded queue, and
 * goes on to Node over the channel as a handle (`{"skate":"client"}`, one unacknowledged at a
 * time), so the proxy reads the client's own socket and, once it admits a tunnel, hands that
 * socket back here: the tunnel's bytes cross this process alone. At start it says
 * `{"skate":"ready","handoff":1}` (0 when the socket could not be made).
 */
#ifndef SKATE_SPLICE_CHANNEL_H
#define SKATE_SPLICE_CHANNEL_H

int splice_channel_main(int argc, char **argv);

#endif
