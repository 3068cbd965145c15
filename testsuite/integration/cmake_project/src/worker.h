#ifndef WORKER_H
#define WORKER_H
#ifdef __cplusplus
extern "C" {
#endif
/* Runs `threads` threads that each add `rounds` to a shared counter under a
 * mutex; returns the total. */
long worker_run(int threads, int rounds);
#ifdef __cplusplus
}
#endif
#endif
