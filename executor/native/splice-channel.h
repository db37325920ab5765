/*
 *   skate-confine --splice-channel      (started by Node with an 'ipc' stdio channel)
 *
 * The harness's relay for admitted proxy connections (issue #21). The allowlist proxy (Node)
 * checks a connection (CONNECT host, TLS server name, ...) and connects upstream; then it sends
 * both sockets here over Node's IPC channel (`subprocess.send(message, socket)`, the fd in
 * SCM_RIGHTS) and this process joins them in the kernel (splice-joint.h), so the bytes of a
 * tunnel never cross the harness's event loop. The channel speaks Node's own framing (one JSON
 * object a line; a handle is acknowledged with NODE_HANDLE_ACK); each message names a tunnel id
 * and side, and the bytes Node had already read from that socket's peer, to write into it first.
 * When a tunnel ends, `{"skate":"closed","id":N}` goes back. Ends (and every tunnel with it) when
 * the channel closes or the parent dies.
 */
#ifndef SKATE_SPLICE_CHANNEL_H
#define SKATE_SPLICE_CHANNEL_H

int splice_channel_main(int argc, char **argv);

#endif
