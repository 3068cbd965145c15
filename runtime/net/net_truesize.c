/* What Linux charges a socket for one buffer (an skb's truesize), for the
 * buffers whose charge bounds a queue: a UDP datagram on the receiver
 * (sk_rmem_alloc against SO_RCVBUF), a unix datagram or stream piece on
 * its sender (sk_wmem_alloc against SO_SNDBUF).
 *
 * An skb costs its struct (256 bytes, aligned), its head (the linear part
 * plus skb_shared_info, 320 bytes, from kmalloc: a power of two from 512
 * up) and whole pages for what lives in page fragments.  UDP's small heads
 * (up to 256 bytes of headers and data) come from a cache of 576-byte
 * objects; a unix skb's head is memcg-accounted, so never from that cache.
 * The sizes are a 64-bit x86 kernel's (6.x, 4 KiB pages); the counts the
 * conformance tests print follow from them (docs/network.md).
 */
#include "net/net.h"

#define SKB_STRUCT 256u        /* SKB_DATA_ALIGN(sizeof(struct sk_buff)) */
#define SKB_SHINFO 320u        /* SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) */
#define SKB_SMALL_HEAD 576u    /* SKB_SMALL_HEAD_CACHE_SIZE */
#define PAGE 4096u
/* SKB_MAX_ALLOC: the largest linear datagram (SKB_MAX_ORDER(0, 2)). */
#define SKB_MAX_ALLOC (4u * PAGE - SKB_SHINFO)
/* SKB_MAX_HEAD(0): the largest linear part of a unix stream piece. */
#define SKB_MAX_HEAD0 (PAGE - SKB_SHINFO)
/* UNIX_SKB_FRAGS_SZ: the page fragments of one unix stream piece. */
#define UNIX_FRAGS (32768u)
/* MAX_SKB_FRAGS pages: a unix datagram's page fragments at most. */
#define UNIX_DGRAM_FRAGS_MAX (17u * PAGE)

static uint64_t align64(uint64_t n) { return (n + 63) & ~(uint64_t)63; }
static uint64_t page_align(uint64_t n) { return (n + PAGE - 1) & ~(uint64_t)(PAGE - 1); }

static uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 512;
  while (p < n) p *= 2;
  return p;
}

/* An skb with a head for `linear` bytes (kmalloc'd, or UDP's small-head
 * cache) and `paged` bytes in page fragments (whole pages). */
static uint64_t skb_truesize(uint64_t linear, uint64_t paged, bool small_cache) {
  uint64_t obj = align64(linear) + SKB_SHINFO;
  uint64_t head = small_cache && obj <= SKB_SMALL_HEAD ? SKB_SMALL_HEAD : pow2_at_least(obj);
  return SKB_STRUCT + head + page_align(paged);
}

uint64_t net_truesize_udp(uint64_t payload, bool v6) {
  /* __ip_append_data / __ip6_append_data: IP and UDP headers, the
   * device's reserved header (16 on lo and eth0) and 15 bytes of slack
   * (IPv6: a fragment header's 8); past SKB_MAX_ALLOC the payload goes to
   * page fragments charged by the byte (sk_page_frag). */
  uint64_t headers = v6 ? 40 + 8 + 16 + 8 : 20 + 8 + 16 + 15;
  if (payload + headers < SKB_MAX_ALLOC) return skb_truesize(payload + headers, 0, true);
  return skb_truesize(headers, 0, true) + payload;
}

uint64_t net_truesize_unix_dgram(uint64_t len) {
  /* unix_dgram_sendmsg: past SKB_MAX_ALLOC, the excess (at most
   * MAX_SKB_FRAGS pages) goes to page fragments. */
  uint64_t paged = 0;
  if (len > SKB_MAX_ALLOC) {
    paged = len - SKB_MAX_ALLOC;
    if (paged > UNIX_DGRAM_FRAGS_MAX) paged = UNIX_DGRAM_FRAGS_MAX;
    paged = page_align(paged);
  }
  return skb_truesize(len - paged, paged, false);
}

uint64_t net_unix_stream_piece_max(uint64_t sndbuf) {
  /* unix_stream_sendmsg: half the send buffer less 64 ("two messages in
   * the pipe"), at most one head and UNIX_SKB_FRAGS_SZ of pages. */
  uint64_t half = sndbuf / 2 > 64 ? sndbuf / 2 - 64 : 1;
  return half < SKB_MAX_HEAD0 + UNIX_FRAGS ? half : SKB_MAX_HEAD0 + UNIX_FRAGS;
}

uint64_t net_truesize_unix_stream(uint64_t size) {
  /* The piece's bytes past SKB_MAX_HEAD(0), page-aligned (but no more than
   * the piece), go to page fragments; the rest is the head. */
  uint64_t paged = size > SKB_MAX_HEAD0 ? page_align(size - SKB_MAX_HEAD0) : 0;
  if (paged > size) paged = size;
  return skb_truesize(size - paged, paged, false);
}
