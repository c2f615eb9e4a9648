#include <microhttpd.h>
#include <string.h>

/* Leaves a request's path and query as they came: the bridge's paths need no decoding, and a decoded %00 would
   cut the path short (`/%00` read as `/`). */
static inline size_t kiosk_mhd_keep_escaped(void *cls, struct MHD_Connection *connection, char *text)
{
    (void) cls;
    (void) connection;
    return strlen(text);
}

/* MHD_start_daemon is variadic, which Swift cannot call: this fixes the one set of options the kiosk
   bridge uses. One internal epoll thread serves every connection; a Server-Sent Events stream that has
   nothing to send is suspended, and resumed when an event arrives. The listening socket is the caller's.
   `accept` decides on each new connection by its address; `notify` hears each connection start and end. */
static inline struct MHD_Daemon *kiosk_mhd_start(int listen_fd, unsigned int connection_limit,
                                                 size_t connection_memory_limit, unsigned int idle_timeout_s,
                                                 MHD_AcceptPolicyCallback accept, MHD_AccessHandlerCallback handler,
                                                 MHD_RequestCompletedCallback completed,
                                                 MHD_NotifyConnectionCallback notify, void *context)
{
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME,
                            0, accept, context, handler, context,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_s,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_UNESCAPE_CALLBACK, kiosk_mhd_keep_escaped, NULL,
                            MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic too: the socket of a connection, or -1. A suspended event stream is
   not watched by libmicrohttpd, so the bridge looks at its socket itself to learn that the client left. */
static inline int kiosk_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The client's address of a connection, or NULL. */
static inline const struct sockaddr *kiosk_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
