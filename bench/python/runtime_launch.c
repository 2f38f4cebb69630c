// SPDX-License-Identifier: Apache-2.0
// runtime_launch_bench: the C baseline of the Python call-overhead benchmark (issue 13,
// acceptance 5). Loads one kernel binary through libtilejit_runtime.so and launches it N
// times on the same buffers, timing each tj_launch + tj_report_free pair: what a C program
// pays per call, so that the Python path's cost over it is its own overhead.
//
//   runtime_launch_bench KERNEL.o [--n=N] [--warmup=W] [--mode=fast|checked|perturbed]
//                        [--threads=T]
//
// The tiny kernel of the comparison: a one-block vector add (16 x 64 float32),
//   tilejit compile tests/testdata/kernels/elementwise_add_expert.py --entry vec_add
//       --arg 16 --arg 64 --arg 16 --arg 64 -o tiny.o   (one command)
//   runtime_launch_bench tiny.o --n=20000
//
// Buffers: one per input and output parameter, of the parameter's size; inputs are
// zero-filled (valid in every element type), so a Python comparison passes zeros too.
// Prints one line of key=value fields: kernel, blocks, n, mode, mean_us, p50_us, p10_us,
// p90_us, min_us (per call, wall clock). Exit status 0, or 1 on any error.
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner/runtime/tilejit_runtime.h"

enum { kMaxCalls = 10000000, kMaxBuffers = 4096 };

typedef struct {
  const char* path;
  long n;
  long warmup;
  int mode;
  int threads;
} Options;

static int Fail(const char* what, tj_status s) {
  fprintf(stderr, "runtime_launch_bench: %s: %s: %s\n", what, tj_status_name(s), tj_last_error());
  return 1;
}

static int ParseMode(const char* name) {
  if (strcmp(name, "fast") == 0) return TJ_MODE_FAST;
  if (strcmp(name, "checked") == 0) return TJ_MODE_CHECKED;
  if (strcmp(name, "perturbed") == 0) return TJ_MODE_PERTURBED;
  return -1;
}

static int ParseOptions(int argc, char** argv, Options* o) {
  o->path = NULL;
  o->n = 10000;
  o->warmup = 100;
  o->mode = TJ_MODE_FAST;
  o->threads = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strncmp(a, "--n=", 4) == 0) {
      o->n = strtol(a + 4, NULL, 10);
    } else if (strncmp(a, "--warmup=", 9) == 0) {
      o->warmup = strtol(a + 9, NULL, 10);
    } else if (strncmp(a, "--mode=", 7) == 0) {
      o->mode = ParseMode(a + 7);
    } else if (strncmp(a, "--threads=", 10) == 0) {
      o->threads = (int)strtol(a + 10, NULL, 10);
    } else if (a[0] != '-' && o->path == NULL) {
      o->path = a;
    } else {
      return 0;
    }
  }
  return o->path != NULL && o->n >= 1 && o->n <= kMaxCalls && o->warmup >= 0 &&
         o->warmup <= kMaxCalls && o->mode >= 0 && o->threads >= 0 && o->threads <= 256;
}

static unsigned char* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* data = n > 0 ? (unsigned char*)malloc((size_t)n) : NULL;
  *size = data != NULL ? fread(data, 1, (size_t)n, f) : 0;
  fclose(f);
  return data;
}

static double NowUs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int CompareDoubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// One zero-filled buffer per input and output parameter, in parameter order.
static tj_status MakeBuffers(const tj_module* m, tj_buffer* buffers, int32_t* count) {
  tj_module_info info;
  tj_status s = tj_module_get_info(m, &info);
  *count = 0;
  if (s == TJ_OK && info.buffer_count > kMaxBuffers) return TJ_ERR_RESOURCE_EXHAUSTED;
  for (int32_t i = 0; s == TJ_OK && i < info.param_count; ++i) {
    tj_param_info p;
    s = tj_module_get_param(m, i, &p);
    if (s != TJ_OK || p.role == TJ_ROLE_WORKSPACE) continue;
    tj_buffer* b = &buffers[(*count)++];
    b->data = calloc(p.bytes > 0 ? (size_t)p.bytes : 1, 1);
    b->shape = p.shape;  // owned by the module, which outlives the launches
    b->rank = p.rank;
    b->dtype = p.dtype;
  }
  return s;
}

static int Run(const Options* o, tj_module* m, const char* kernel, int64_t blocks) {
  static tj_buffer buffers[kMaxBuffers];
  int32_t count = 0;
  tj_status s = MakeBuffers(m, buffers, &count);
  if (s != TJ_OK) return Fail("parameters", s);
  tj_launch_args args;
  tj_launch_args_init(&args);
  args.buffers = buffers;
  args.buffer_count = (uint32_t)count;
  args.mode = o->mode;
  args.host_threads = o->threads;
  double* us = (double*)malloc((size_t)o->n * sizeof(double));
  double total = 0;
  for (long i = -o->warmup; i < o->n; ++i) {
    tj_report* r = NULL;
    const double t0 = NowUs();
    s = tj_launch(m, &args, &r);
    tj_report_free(r);
    const double dt = NowUs() - t0;
    if (s != TJ_OK) return Fail("tj_launch", s);
    if (i >= 0) total += us[i] = dt;
  }
  qsort(us, (size_t)o->n, sizeof(double), CompareDoubles);
  printf(
      "kernel=%s blocks=%lld n=%ld mode=%s mean_us=%.2f p50_us=%.2f p10_us=%.2f "
      "p90_us=%.2f min_us=%.2f\n",
      kernel, (long long)blocks, o->n,
      o->mode == TJ_MODE_FAST      ? "fast"
      : o->mode == TJ_MODE_CHECKED ? "checked"
                                   : "perturbed",
      total / (double)o->n, us[o->n / 2], us[o->n / 10], us[o->n * 9 / 10], us[0]);
  free(us);
  for (int32_t i = 0; i < count; ++i) free(buffers[i].data);
  return 0;
}

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    fprintf(stderr,
            "usage: runtime_launch_bench KERNEL.o [--n=N] [--warmup=W] "
            "[--mode=fast|checked|perturbed] [--threads=T]\n");
    return 2;
  }
  size_t size = 0;
  unsigned char* bytes = ReadFile(o.path, &size);
  if (bytes == NULL) {
    fprintf(stderr, "runtime_launch_bench: cannot read %s\n", o.path);
    return 1;
  }
  tj_module* m = NULL;
  tj_status s = tj_module_load(bytes, size, &m);
  free(bytes);
  if (s != TJ_OK) return Fail("tj_module_load", s);
  tj_module_info info;
  s = tj_module_get_info(m, &info);
  if (s != TJ_OK) return Fail("tj_module_get_info", s);
  const int rc = Run(&o, m, info.kernel_name, info.block_count);
  tj_module_unload(m);
  return rc;
}
