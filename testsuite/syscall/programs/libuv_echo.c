/* libuv, the system's shared library (it makes raw system calls by number:
 * it closes every descriptor with syscall(SYS_close), draws uv_random with
 * SYS_getrandom and stats with SYS_statx), under the
 * simulation: a TCP echo, a 2 s timer on virtual time, uv_random, a work item
 * on its thread pool, a synchronous fs stat.  The same stdout natively and
 * simulated; every line is printed at the end, so no order is left to timing. */
#include <uv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uv_loop_t *loop;
static uv_tcp_t server, client_sock, accepted;
static uv_connect_t conn_req;
static uv_write_t wreq, ereq;
static char echoed[64];
static size_t echoed_len;
static int timer_fired, connect_status = -1, work_status = -1;

static void alloc_cb(uv_handle_t *h, size_t s, uv_buf_t *b) { (void)h; b->base = malloc(s); b->len = s; }
static void on_close(uv_handle_t *h) { (void)h; }

static void server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  if (n > 0) {
    uv_buf_t out = uv_buf_init(b->base, (unsigned)n);
    uv_write(&ereq, s, &out, 1, NULL);
    return;
  }
  free(b->base);
  if (n < 0) uv_close((uv_handle_t *)s, on_close);
}

static void client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  if (n > 0) { memcpy(echoed + echoed_len, b->base, (size_t)n); echoed_len += (size_t)n; }
  free(b->base);
  if (echoed_len >= 5) {
    uv_close((uv_handle_t *)s, on_close);
    uv_close((uv_handle_t *)&server, on_close);
  }
}

static void on_conn(uv_stream_t *srv, int status) {
  if (status) return;
  uv_tcp_init(loop, &accepted);
  uv_accept(srv, (uv_stream_t *)&accepted);
  uv_read_start((uv_stream_t *)&accepted, alloc_cb, server_read);
}

static void on_connect(uv_connect_t *r, int status) {
  connect_status = status;
  uv_buf_t b = uv_buf_init("hello", 5);
  uv_write(&wreq, r->handle, &b, 1, NULL);
  uv_read_start(r->handle, alloc_cb, client_read);
}

static void on_timer(uv_timer_t *t) { timer_fired++; uv_close((uv_handle_t *)t, on_close); }
static void work(uv_work_t *w) { *(int *)w->data = 42; }
static void after_work(uv_work_t *w, int st) { (void)w; work_status = st; }

int main(void) {
  loop = uv_default_loop();
  struct sockaddr_in a;
  uv_ip4_addr("127.0.0.1", 0, &a);
  uv_tcp_init(loop, &server);
  int bound = uv_tcp_bind(&server, (struct sockaddr *)&a, 0);
  int listening = uv_listen((uv_stream_t *)&server, 8, on_conn);
  int len = sizeof a;
  uv_tcp_getsockname(&server, (struct sockaddr *)&a, &len);
  uv_tcp_init(loop, &client_sock);
  uv_tcp_connect(&conn_req, &client_sock, (struct sockaddr *)&a, on_connect);
  uv_timer_t t;
  uv_timer_init(loop, &t);
  uv_timer_start(&t, on_timer, 2000, 0);
  unsigned char rnd[16];
  int random = uv_random(NULL, NULL, rnd, sizeof rnd, 0, NULL);
  int result = 0;
  uv_work_t w = {.data = &result};
  uv_queue_work(loop, &w, work, after_work);
  uint64_t t0 = uv_now(loop);
  uv_run(loop, UV_RUN_DEFAULT);
  printf("bind=%d listen=%d random=%d connect=%d\n", bound, listening, random, connect_status);
  printf("work=%d status=%d\n", result, work_status);
  printf("echoed=%.*s timer_fired=%d waited_2s=%d\n", (int)echoed_len, echoed, timer_fired, uv_now(loop) - t0 >= 2000);
  uv_fs_t fs;
  printf("fs_stat=%d\n", uv_fs_stat(NULL, &fs, "/", NULL));
  uv_fs_req_cleanup(&fs);
  uv_loop_close(loop);
  return 0;
}
