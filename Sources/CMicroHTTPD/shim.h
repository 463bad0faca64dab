#ifndef SEARCHLIGHT_CMICROHTTPD_SHIM_H
#define SEARCHLIGHT_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call; these wrap
// the calls Searchlight makes with fixed arguments.
// https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dinit

// Starts a daemon on `address` (an IPv4 or IPv6 socket address, port included; its port 0
// picks a free one) that serves each connection on its own thread, with a connection
// timeout, a connection limit, and `completed` called when each request ends.
static inline struct MHD_Daemon *searchlight_mhd_start(
    unsigned int flags, const struct sockaddr *address, unsigned int timeoutSeconds,
    unsigned int connectionLimit, size_t memoryLimit,
    MHD_AccessHandlerCallback handler, void *handlerContext,
    MHD_RequestCompletedCallback completed, void *completedContext) {
  uint16_t port = 0;
  if (address->sa_family == AF_INET) port = ntohs(((const struct sockaddr_in *)address)->sin_port);
  else if (address->sa_family == AF_INET6) port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
  return MHD_start_daemon(
      flags, port, NULL, NULL, handler, handlerContext,
      MHD_OPTION_SOCK_ADDR, address,
      MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
      MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
      MHD_OPTION_END);
}

// The port the daemon listens on (the one the system picked when asked for port 0).
static inline uint16_t searchlight_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? info->port : 0;
}

// MHD_CONTENT_READER_END_OF_STREAM is a cast macro Swift does not import.
static inline ssize_t searchlight_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t searchlight_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t searchlight_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
#endif
