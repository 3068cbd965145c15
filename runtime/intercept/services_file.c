/* Services by name and by port, read from /etc/services itself.
 *
 * libc's getservbyname goes through NSS, which may ask nscd over a real
 * socket behind the simulation; the file is what NSS's "files" source
 * reads, plain and the same on every run, so the simulated getaddrinfo and
 * getservbyname/getservbyport read it directly (line by line: "name
 * port/proto alias... # comment").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "net/net.h"

#define SERVICES_PATH "/etc/services"

/* Reads the whole file into a NUL-terminated buffer (NULL when it cannot). */
static char *read_services(void) {
  int fd = REAL(open)(SERVICES_PATH, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf != NULL) {
    if (len + 1 == cap) {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    ssize_t n = REAL(read)(fd, buf + len, cap - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
  }
  REAL(close)(fd);
  if (buf != NULL) buf[len] = '\0';
  return buf;
}

/* The first line that matches: by name (or an alias) when name is not NULL,
 * else by port; proto NULL matches any protocol.  Fills the servent's
 * fields into the caller's storage; false when no line matches. */
bool detsim__service_find(const char *name, int port, const char *proto, struct detsim_service *out) {
  char *text = read_services();
  if (text == NULL) return false;
  bool found = false;
  char *save_line = NULL;
  for (char *line = strtok_r(text, "\n", &save_line); line != NULL && !found;
       line = strtok_r(NULL, "\n", &save_line)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *save = NULL;
    char *svc = strtok_r(line, " \t\r", &save);
    char *port_proto = svc ? strtok_r(NULL, " \t\r", &save) : NULL;
    if (port_proto == NULL) continue;
    char *slash = strchr(port_proto, '/');
    if (slash == NULL) continue;
    *slash = '\0';
    char *end;
    long p = strtol(port_proto, &end, 10);
    if (*port_proto == '\0' || *end != '\0' || p < 0 || p > 65535) continue;
    const char *line_proto = slash + 1;
    if (strlen(svc) >= DETSIM_SERVICE_NAME_MAX || strlen(line_proto) >= DETSIM_SERVICE_NAME_MAX) {
      net_limit("DETSIM_SERVICE_NAME_MAX", DETSIM_SERVICE_NAME_MAX, "a line of " SERVICES_PATH " names a service or protocol this long or longer; it never matches");
      continue;
    }
    if (proto != NULL && strcmp(proto, line_proto) != 0) continue;
    unsigned naliases = 0;
    char *aliases[DETSIM_SERVICE_ALIASES_MAX];
    bool match = name == NULL ? p == port : strcmp(svc, name) == 0;
    for (char *a = strtok_r(NULL, " \t\r", &save); a != NULL; a = strtok_r(NULL, " \t\r", &save)) {
      if (name != NULL && strcmp(a, name) == 0) match = true;
      if (naliases < DETSIM_SERVICE_ALIASES_MAX && strlen(a) < DETSIM_SERVICE_NAME_MAX) aliases[naliases++] = a;
      else if (match)
        net_limit("DETSIM_SERVICE_ALIASES_MAX", DETSIM_SERVICE_ALIASES_MAX, "a service of " SERVICES_PATH " has more (or longer) aliases than its servent lists");
    }
    if (!match) continue;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", svc);
    snprintf(out->proto, sizeof out->proto, "%s", line_proto);
    out->port = (int)p;
    for (unsigned i = 0; i < naliases; i++) snprintf(out->aliases[i], sizeof out->aliases[i], "%s", aliases[i]);
    out->naliases = naliases;
    found = true;
  }
  free(text);
  return found;
}
