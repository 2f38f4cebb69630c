// SPDX-License-Identifier: Apache-2.0
// libtilejit_runtime.so from plain C99: real kernel binaries (compiled at build time from the
// shared test kernels) loaded, queried and launched through the C ABI, with their outputs
// checked element by element; malformed binaries, bad launch arguments, checked-mode findings,
// cancellation, tracing, concurrent launches of one module and the disassembly.
//
//   runtime_c_test KERNELS_DIR   (holding vec_add.o, vec_add_racy.o, gemm.o)
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runtime/tilejit_runtime.h"

static int g_failures = 0;
static const char* g_dir = ".";

#define EXPECT(cond)                                                                            \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      fprintf(stderr, "%s:%d: EXPECT(%s) failed (last error: %s)\n", __FILE__, __LINE__, #cond, \
              tj_last_error());                                                                 \
      ++g_failures;                                                                             \
    }                                                                                           \
  } while (0)

// Stops the current test when a call the rest of it depends on fails.
#define REQUIRE_OK(call)                                                        \
  do {                                                                          \
    tj_status s_ = (call);                                                      \
    if (s_ != TJ_OK) {                                                          \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, \
              tj_status_name(s_), tj_last_error());                             \
      ++g_failures;                                                             \
      return;                                                                   \
    }                                                                           \
  } while (0)

// ---- Helpers ----------------------------------------------------------------------------------

typedef struct {
  unsigned char* data;
  size_t size;
} Bytes;

static Bytes ReadKernel(const char* name) {
  Bytes b = {NULL, 0};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    ++g_failures;
    return b;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.data = (unsigned char*)malloc(size > 0 ? (size_t)size : 1);
  b.size = fread(b.data, 1, (size_t)size, f);
  fclose(f);
  return b;
}

static tj_module* LoadKernel(const char* name) {
  Bytes b = ReadKernel(name);
  tj_module* m = NULL;
  if (b.data != NULL && tj_module_load(b.data, b.size, &m) != TJ_OK) {
    fprintf(stderr, "loading %s: %s\n", name, tj_last_error());
    ++g_failures;
  }
  free(b.data);  // the module keeps no pointer into the caller's bytes
  return m;
}

// Exact fp16 bits of a small integer (|v| <= 2048).
static uint16_t HalfFromInt(int v) {
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const unsigned m = (unsigned)(v < 0 ? -v : v);
  if (m == 0) return sign;
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;
  return (uint16_t)(sign | ((e + 15) << 10) | ((m << (10 - e)) & 0x3ff));
}

enum { kM = 128, kN = 256, kK = 128 };  // the shapes tests/runner/CMakeLists.txt compiles

typedef struct {
  float a[kM * kN], b[kM * kN], c[kM * kN];
  int64_t shape[2];
  tj_buffer buffers[3];
} VecAddData;

static void InitVecAdd(VecAddData* d, int seed) {
  for (int i = 0; i < kM * kN; ++i) {
    d->a[i] = (float)((i * 7 + seed) % 101) * 0.25f;
    d->b[i] = (float)((i * 13 + 3 * seed) % 37) - 18.0f;
    d->c[i] = -12345.0f;
  }
  d->shape[0] = kM;
  d->shape[1] = kN;
  float* data[3] = {d->a, d->b, d->c};
  for (int i = 0; i < 3; ++i) {
    d->buffers[i].data = data[i];
    d->buffers[i].shape = d->shape;
    d->buffers[i].rank = 2;
    d->buffers[i].dtype = TJ_DTYPE_FLOAT32;
  }
}

static int VecAddCorrect(const VecAddData* d) {
  for (int i = 0; i < kM * kN; ++i) {
    if (d->c[i] != d->a[i] + d->b[i]) return 0;
  }
  return 1;
}

static tj_launch_args Args(const tj_buffer* buffers, uint32_t count, int mode) {
  tj_launch_args args;
  tj_launch_args_init(&args);
  args.buffers = buffers;
  args.buffer_count = count;
  args.mode = mode;
  return args;
}

// ---- Tests ------------------------------------------------------------------------------------

static void TestVersion(void) {
  EXPECT(tj_runtime_version() == TJ_RUNTIME_ABI_VERSION);
  EXPECT(strstr(tj_runtime_build(), "abi 1") != NULL);
  EXPECT(strcmp(tj_status_name(TJ_ERR_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
  EXPECT(strcmp(tj_status_name(999), "UNKNOWN") == 0);
  EXPECT(strcmp(tj_dtype_name(TJ_DTYPE_BFLOAT16), "bfloat16") == 0);
  EXPECT(tj_dtype_name(-1) == NULL && tj_dtype_name(12) == NULL);
}

static void TestVecAddQueriesMetadata(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  tj_module_info info;
  REQUIRE_OK(tj_module_get_info(m, &info));
  EXPECT(strcmp(info.kernel_name, "main") == 0);
  EXPECT(strcmp(info.target, "ascend910b2") == 0);
  EXPECT(strcmp(info.core_mix, "vector") == 0);
  EXPECT(info.block_count == 4);  // (128 / 64) x (256 / 128)
  EXPECT(info.param_count == 3 && info.buffer_count == 3);
  EXPECT(info.out_count == 1 && info.out_idx[0] == 2);
  EXPECT(info.workspace_count == 0);
  const char* roles[3] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    tj_param_info p;
    REQUIRE_OK(tj_module_get_param(m, i, &p));
    EXPECT(strcmp(p.name, roles[i]) == 0);
    EXPECT(p.dtype == TJ_DTYPE_FLOAT32 && strcmp(p.dtype_name, "float32") == 0);
    EXPECT(p.role == (i < 2 ? TJ_ROLE_INPUT : TJ_ROLE_OUTPUT));
    EXPECT(p.rank == 2 && p.shape[0] == kM && p.shape[1] == kN);
    EXPECT(p.bytes == (int64_t)kM * kN * 4);
  }
  tj_param_info p;
  EXPECT(tj_module_get_param(m, 3, &p) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(strstr(tj_last_error(), "outside [0, 3)") != NULL);
  EXPECT(tj_module_get_param(m, -1, &p) == TJ_ERR_INVALID_ARGUMENT);
  tj_module_unload(m);
}

static void TestVecAddComputesSum(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  static VecAddData d;
  InitVecAdd(&d, 1);
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_FAST);
  tj_report* r = NULL;
  REQUIRE_OK(tj_launch(m, &args, &r));
  EXPECT(VecAddCorrect(&d));
  tj_report_summary s;
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.ok == 1 && strcmp(s.message, "") == 0 && s.mode == TJ_MODE_FAST);
  EXPECT(s.kernel_cycles > 0 && s.launch_overhead_cycles > 0 && s.waves == 1);
  EXPECT(s.block_count == 4 && s.finding_count == 0 && s.instructions > 0);
  EXPECT(s.line_count == 0 && s.trace_bytes == 0);
  tj_block_info b;
  REQUIRE_OK(tj_report_get_block(r, 3, &b));
  EXPECT(b.block == 3 && b.span_cycles > 0 && b.span_cycles <= s.kernel_cycles);
  EXPECT(b.aic_busy_cycles == 0 && b.aiv_busy_cycles[0] > 0 && b.aiv_busy_cycles[1] > 0);
  EXPECT(b.pipe_count > 0);
  int saw_vector_pipe = 0;
  for (int i = 0; i < b.pipe_count; ++i) {
    tj_pipe_busy p;
    REQUIRE_OK(tj_report_get_pipe_busy(r, 3, i, &p));
    EXPECT(strncmp(p.core, "aiv", 3) == 0);
    if (strcmp(p.pipe, "v") == 0 && p.busy_cycles > 0) saw_vector_pipe = 1;
  }
  EXPECT(saw_vector_pipe);
  tj_pipe_busy p;
  EXPECT(tj_report_get_pipe_busy(r, 3, b.pipe_count, &p) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(tj_report_get_block(r, 4, &b) == TJ_ERR_INVALID_ARGUMENT);
  tj_finding f;
  EXPECT(tj_report_get_finding(r, 0, &f) == TJ_ERR_INVALID_ARGUMENT);
  tj_report_free(r);

  // The same module again, checked: no findings, the same sum.
  InitVecAdd(&d, 2);
  args.mode = TJ_MODE_CHECKED;
  REQUIRE_OK(tj_launch(m, &args, &r));
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.ok == 1 && s.finding_count == 0 && s.mode == TJ_MODE_CHECKED);
  EXPECT(VecAddCorrect(&d));
  tj_report_free(r);
  tj_module_unload(m);
}

static void TestGemmMatchesReference(void) {
  tj_module* m = LoadKernel("gemm.o");
  if (m == NULL) return;
  tj_module_info info;
  REQUIRE_OK(tj_module_get_info(m, &info));
  EXPECT(strcmp(info.core_mix, "cube") == 0 && info.vector_cores_per_block == 0);
  static uint16_t a[kM * kK], b[kK * kN];
  static float c[kM * kN];
  static int ai[kM * kK], bi[kK * kN];
  for (int i = 0; i < kM * kK; ++i) a[i] = HalfFromInt(ai[i] = (i * 5 + 1) % 7 - 3);
  for (int i = 0; i < kK * kN; ++i) b[i] = HalfFromInt(bi[i] = (i * 3 + 2) % 5 - 2);
  const int64_t sa[2] = {kM, kK}, sb[2] = {kK, kN}, sc[2] = {kM, kN};
  const tj_buffer buffers[3] = {
      {a, sa, 2, TJ_DTYPE_FLOAT16}, {b, sb, 2, TJ_DTYPE_FLOAT16}, {c, sc, 2, TJ_DTYPE_FLOAT32}};
  tj_launch_args args = Args(buffers, 3, TJ_MODE_CHECKED);
  tj_report* r = NULL;
  REQUIRE_OK(tj_launch(m, &args, &r));
  tj_report_summary s;
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.ok == 1);
  int wrong = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      int want = 0;  // small integers: the fp32 accumulation is exact in any order
      for (int k = 0; k < kK; ++k) want += ai[i * kK + k] * bi[k * kN + j];
      wrong += c[i * kN + j] != (float)want;
    }
  }
  EXPECT(wrong == 0);
  tj_block_info blk;
  REQUIRE_OK(tj_report_get_block(r, 0, &blk));
  EXPECT(blk.aic_busy_cycles > 0 && blk.aiv_busy_cycles[0] == 0);
  tj_report_free(r);
  tj_module_unload(m);
}

static void ExpectRejected(const void* bytes, size_t size, const char* what) {
  tj_module* m = (tj_module*)&g_failures;  // must stay untouched
  const tj_status s = tj_module_load(bytes, size, &m);
  if (s != TJ_ERR_INVALID_ARGUMENT || m != (tj_module*)&g_failures || tj_last_error()[0] == 0) {
    fprintf(stderr, "%s: status %s, message '%s'\n", what, tj_status_name(s), tj_last_error());
    ++g_failures;
  }
}

static void TestMalformedBinariesAreInvalidArguments(void) {
  Bytes good = ReadKernel("vec_add.o");
  if (good.data == NULL) return;
  ExpectRejected(good.data, 0, "empty");
  ExpectRejected(NULL, 16, "NULL bytes");
  ExpectRejected(good.data, 63, "ELF header only");
  ExpectRejected(good.data, good.size - 1, "truncated by one byte");
  ExpectRejected(good.data, good.size / 2, "half a binary");
  unsigned char junk[4096];
  for (size_t i = 0; i < sizeof junk; ++i) junk[i] = (unsigned char)(i * 131 + 7);
  ExpectRejected(junk, sizeof junk, "junk");
  memcpy(junk, good.data, 64);  // a valid ELF header over junk
  ExpectRejected(junk, sizeof junk, "ELF header over junk");
  // Every single-byte corruption of the header and of a stride through the file is rejected
  // or, if it lands in bytes the format does not check, loads a valid module; never a crash.
  unsigned char* copy = (unsigned char*)malloc(good.size);
  for (size_t pos = 0; pos < good.size; pos += pos < 64 ? 1 : 97) {
    memcpy(copy, good.data, good.size);
    copy[pos] ^= 0x5a;
    tj_module* m = NULL;
    const tj_status s = tj_module_load(copy, good.size, &m);
    EXPECT(s == TJ_OK || s == TJ_ERR_INVALID_ARGUMENT);
    if (s == TJ_OK) tj_module_unload(m);
  }
  free(copy);
  tj_module* m = NULL;
  EXPECT(tj_module_load(good.data, good.size, NULL) == TJ_ERR_INVALID_ARGUMENT);
  REQUIRE_OK(tj_module_load(good.data, good.size, &m));
  EXPECT(tj_last_error()[0] == 0);  // success clears the message
  tj_module_unload(m);
  free(good.data);
}

static void ExpectLaunchError(tj_module* m, const tj_launch_args* args, tj_status want,
                              const char* text) {
  tj_report* r = (tj_report*)&g_failures;  // must stay untouched
  const tj_status s = tj_launch(m, args, &r);
  if (s != want || strstr(tj_last_error(), text) == NULL || r != (tj_report*)&g_failures) {
    fprintf(stderr, "launch: status %s (want %s), message '%s' (want '%s')\n", tj_status_name(s),
            tj_status_name(want), tj_last_error(), text);
    ++g_failures;
  }
}

static void TestBadLaunchArgumentsAreNamed(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  static VecAddData d;
  InitVecAdd(&d, 3);
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_FAST);

  const int64_t wrong_shape[2] = {kM, kN / 2};
  d.buffers[1].shape = wrong_shape;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT,
                    "buffer 1 (parameter 'B', input): shape (128, 128), kernel expects (128, 256)");
  EXPECT(d.c[0] == -12345.0f);  // no output written on an error
  d.buffers[1].shape = d.shape;
  d.buffers[2].rank = 1;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "parameter 'C', output): shape (128)");
  d.buffers[2].rank = 99;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "rank 99 is outside 0..16");
  d.buffers[2].rank = 2;
  d.buffers[0].dtype = TJ_DTYPE_FLOAT16;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "dtype float16, kernel expects float32");
  d.buffers[0].dtype = 77;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "dtype 77 is not a tj_dtype");
  d.buffers[0].dtype = TJ_DTYPE_FLOAT32;
  d.buffers[0].data = NULL;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "buffer 0 (parameter 'A', input): data");
  d.buffers[0].data = d.a;

  args.buffer_count = 2;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "takes 3 buffers (inputs and outputs), 2");
  args.buffer_count = 3;
  args.mode = 7;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "mode 7 is not a tj_mode");
  args.mode = TJ_MODE_FAST;
  args.host_threads = 100000;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "host_threads 100000");
  args.host_threads = 0;
  args.max_findings = 0;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "max_findings 0");
  args.max_findings = 64;
  args.instr_budget = 0;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "instr_budget");
  args.instr_budget = 1000000;
  args.struct_size = 8;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "struct_size 8");
  args.struct_size = sizeof args;
  args.gm_byte_limit = 1000;
  ExpectLaunchError(m, &args, TJ_ERR_RESOURCE_EXHAUSTED, "above gm_byte_limit 1000");
  args.gm_byte_limit = (uint64_t)1 << 30;
  ExpectLaunchError(NULL, &args, TJ_ERR_INVALID_ARGUMENT, "module is NULL");
  ExpectLaunchError(m, NULL, TJ_ERR_INVALID_ARGUMENT, "args is NULL");
  EXPECT(d.c[0] == -12345.0f);

  tj_report* r = NULL;  // everything restored: the launch works
  REQUIRE_OK(tj_launch(m, &args, &r));
  EXPECT(VecAddCorrect(&d));
  tj_report_free(r);
  tj_module_unload(m);
}

static void TestCheckedModeReportsRaces(void) {
  tj_module* m = LoadKernel("vec_add_racy.o");
  if (m == NULL) return;
  static VecAddData d;
  InitVecAdd(&d, 4);
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_FAST);
  tj_report* r = NULL;
  tj_report_summary s;
  REQUIRE_OK(tj_launch(m, &args, &r));  // fast mode has no race detector
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.ok == 1);
  tj_report_free(r);

  args.mode = TJ_MODE_CHECKED;
  args.max_findings = 3;
  REQUIRE_OK(tj_launch(m, &args, &r));  // findings are a report, not an error
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.ok == 0 && s.finding_count == 3 && s.findings_suppressed > 0);
  EXPECT(strstr(s.message, "finding(s); first: ") != NULL);
  int races = 0;
  for (int64_t i = 0; i < s.finding_count; ++i) {
    tj_finding f;
    REQUIRE_OK(tj_report_get_finding(r, i, &f));
    races += strcmp(f.kind, "race") == 0;
    EXPECT(f.block >= 0 && f.block < 4 && strlen(f.message) > 0);
  }
  EXPECT(races > 0);
  tj_report_free(r);
  tj_module_unload(m);
}

static void TestTraceAndLineCycles(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  static VecAddData d;
  InitVecAdd(&d, 5);
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_FAST);
  args.trace = 1;
  args.host_threads = 1;
  tj_report* r = NULL;
  REQUIRE_OK(tj_launch(m, &args, &r));
  tj_report_summary s;
  REQUIRE_OK(tj_report_get_summary(r, &s));
  EXPECT(s.trace_bytes > 0 && s.line_count > 0);
  const char* json = NULL;
  size_t size = 0;
  REQUIRE_OK(tj_report_get_trace(r, &json, &size));
  EXPECT(size == s.trace_bytes && strlen(json) == size);
  EXPECT(strstr(json, "traceEvents") != NULL);
  uint64_t cycles = 0;
  for (int64_t i = 0; i < s.line_count; ++i) {
    tj_line_cycles l;
    REQUIRE_OK(tj_report_get_line(r, i, &l));
    cycles += l.cycles;
  }
  EXPECT(cycles > 0);
  tj_report_free(r);
  args.trace = 2;
  ExpectLaunchError(m, &args, TJ_ERR_INVALID_ARGUMENT, "trace must be 0 or 1");
  tj_module_unload(m);
}

static void TestCancelledLaunch(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  static VecAddData d;
  InitVecAdd(&d, 6);
  tj_cancel* cancel = NULL;
  REQUIRE_OK(tj_cancel_create(&cancel));
  REQUIRE_OK(tj_cancel_request(cancel));
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_FAST);
  args.cancel = cancel;
  ExpectLaunchError(m, &args, TJ_ERR_CANCELLED, "cancelled");
  EXPECT(d.c[0] == -12345.0f);
  tj_cancel_free(cancel);
  args.cancel = NULL;  // the module still launches afterwards
  tj_report* r = NULL;
  REQUIRE_OK(tj_launch(m, &args, &r));
  EXPECT(VecAddCorrect(&d));
  tj_report_free(r);
  tj_module_unload(m);
}

enum { kThreads = 4, kLaunchesPerThread = 5 };

typedef struct {
  tj_module* module;
  int seed;
  int ok;
} ThreadJob;

static void* LaunchRepeatedly(void* arg) {
  ThreadJob* job = (ThreadJob*)arg;
  VecAddData* d = (VecAddData*)malloc(sizeof(VecAddData));
  job->ok = 1;
  for (int i = 0; i < kLaunchesPerThread; ++i) {
    InitVecAdd(d, job->seed * 100 + i);
    tj_launch_args args = Args(d->buffers, 3, i % 2 ? TJ_MODE_CHECKED : TJ_MODE_FAST);
    args.host_threads = 1;
    tj_report* r = NULL;
    if (tj_launch(job->module, &args, &r) != TJ_OK || !VecAddCorrect(d)) job->ok = 0;
    tj_report_free(r);
  }
  free(d);
  return NULL;
}

static void TestConcurrentLaunchesOfOneModule(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  pthread_t threads[kThreads];
  ThreadJob jobs[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    jobs[t].module = m;
    jobs[t].seed = t + 1;
    EXPECT(pthread_create(&threads[t], NULL, LaunchRepeatedly, &jobs[t]) == 0);
  }
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    EXPECT(jobs[t].ok);
  }
  tj_module_unload(m);
}

// write_back_inputs copies the inputs' device memory back too: the kernel leaves A and B as
// they were, so they come back bit for bit; a value other than 0 or 1 is refused.
static void TestWriteBackInputsCopiesInputsBack(void) {
  tj_module* m = LoadKernel("vec_add.o");
  if (m == NULL) return;
  static VecAddData d;
  static float a0[kM * kN];
  InitVecAdd(&d, 3);
  memcpy(a0, d.a, sizeof a0);
  tj_launch_args args = Args(d.buffers, 3, TJ_MODE_CHECKED);
  args.write_back_inputs = 1;
  tj_report* r = NULL;
  REQUIRE_OK(tj_launch(m, &args, &r));
  EXPECT(VecAddCorrect(&d));
  EXPECT(memcmp(a0, d.a, sizeof a0) == 0);
  tj_report_free(r);
  args.write_back_inputs = 2;
  EXPECT(tj_launch(m, &args, &r) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(strstr(tj_last_error(), "write_back_inputs 2 is not 0 or 1") != NULL);
  tj_module_unload(m);
}

static void TestDisassemblyListsEveryInstructionWithItsStatement(void) {
  tj_module* m = LoadKernel("gemm.o");
  if (m == NULL) return;
  const char* text = NULL;
  size_t size = 0;
  REQUIRE_OK(tj_module_disassemble(m, &text, &size));
  EXPECT(text != NULL && size == strlen(text) && size > 0);
  EXPECT(strncmp(text, "aic:\n  ; ", 9) == 0);  // a cube kernel: the AIC program first
  EXPECT(strstr(text, "line-table stmt ") != NULL);
  EXPECT(strstr(text, "mmad ") != NULL);
  EXPECT(strstr(text, "\n  0:\t") != NULL);
  const char* again = NULL;
  size_t again_size = 0;
  REQUIRE_OK(tj_module_disassemble(m, &again, &again_size));
  EXPECT(again == text && again_size == size);  // made once, owned by the module
  EXPECT(tj_module_disassemble(NULL, &text, &size) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(tj_module_disassemble(m, NULL, &size) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tj_last_error(), "tj_module_disassemble: text is NULL") == 0);
  tj_module_unload(m);
}

static void TestNullObjects(void) {
  EXPECT(tj_module_unload(NULL) == TJ_OK);
  EXPECT(tj_report_free(NULL) == TJ_OK);
  EXPECT(tj_cancel_free(NULL) == TJ_OK);
  EXPECT(tj_cancel_request(NULL) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(tj_launch_args_init(NULL) == TJ_ERR_INVALID_ARGUMENT);
  tj_module_info info;
  EXPECT(tj_module_get_info(NULL, &info) == TJ_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tj_last_error(), "tj_module_get_info: module is NULL") == 0);
  tj_report_summary s;
  EXPECT(tj_report_get_summary(NULL, &s) == TJ_ERR_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: runtime_c_test KERNELS_DIR\n");
    return 2;
  }
  g_dir = argv[1];
  TestVersion();
  TestVecAddQueriesMetadata();
  TestVecAddComputesSum();
  TestGemmMatchesReference();
  TestMalformedBinariesAreInvalidArguments();
  TestBadLaunchArgumentsAreNamed();
  TestCheckedModeReportsRaces();
  TestTraceAndLineCycles();
  TestCancelledLaunch();
  TestConcurrentLaunchesOfOneModule();
  TestDisassemblyListsEveryInstructionWithItsStatement();
  TestWriteBackInputsCopiesInputsBack();
  TestNullObjects();
  if (g_failures > 0) {
    fprintf(stderr, "%d failure(s)\n", g_failures);
    return 1;
  }
  printf("runtime_c_test: all passed\n");
  return 0;
}
