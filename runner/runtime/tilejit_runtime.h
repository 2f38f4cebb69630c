// SPDX-License-Identifier: Apache-2.0
// tilejit_runtime.h: the stable C ABI of libtilejit_runtime.so (DESIGN.md section 7), a small
// driver-style API over the runner and the simulated 910B-class NPU. The Python package loads
// it with ctypes to launch kernels in the calling process; C programs link it directly.
// Plain C99 (and C++): fixed-width types, no C++ in the interface.
//
// The model follows a GPU driver's module API:
//   tj_module_load     kernel binary bytes (the ELF of docs/binary_format.md) -> tj_module
//   tj_module_get_*    the kernel's metadata: name, target, block count, parameters
//   tj_launch          host buffers for its inputs and outputs -> a tj_report
//   tj_report_get_*    cycles, waves, per-block and per-pipe busy time, findings, trace,
//                      device output
//
// Errors. Every function that can fail returns a tj_status; TJ_OK is zero. On failure no
// out-parameter is written and the calling thread's tj_last_error() holds a message naming
// the function and the cause (for a bad launch argument: the buffer and parameter). Every
// tj_status-returning call sets the thread's message: "" on TJ_OK. The library never aborts
// and never lets a C++ exception out: a bug inside it is TJ_ERR_INTERNAL with its message.
//
// Ownership. Objects (tj_module, tj_report, tj_cancel) are created by the library and
// released by their *_unload / *_free call, exactly once. Strings and arrays that a query
// returns are owned by the object queried and stay valid until that object is released.
// The library keeps no pointer into caller memory after a call returns.
//
// Thread safety. Every function may be called from any thread. A tj_module may be queried and
// launched from several threads at once: each launch runs on a simulated device of its own
// (the module keeps idle devices for reuse), so concurrent launches neither block nor see
// each other. A tj_report is immutable and may be read from several threads. Releasing an
// object must not race with any other use of that object (the caller's responsibility, as for
// a driver's module unload). Reports and cancel tokens are independent of modules: a report
// stays valid after its module is unloaded.
//
// Versioning. tj_runtime_version() returns the ABI version this library implements, equal to
// TJ_RUNTIME_ABI_VERSION of the header it was built with; a caller compares it with its own
// header's value and refuses a mismatch (the Python binding does). The version is bumped by
// any change that could break a caller built against the previous header: a function removed
// or its signature changed, an output struct's layout changed, an enum value's meaning changed,
// a documented behaviour changed. Adding a function, an enum value, or a field at the end of
// tj_launch_args (guarded by its struct_size) does not bump it.
#pragma once

#include <stddef.h>
#include <stdint.h>

#if defined(TJ_BUILDING_RUNTIME)
#define TJ_API __attribute__((visibility("default")))
#else
#define TJ_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TJ_RUNTIME_ABI_VERSION 1

// ---------------------------------------------------------------------------------------------
// Library

// The ABI version of the loaded library (see Versioning above). Never fails.
TJ_API int tj_runtime_version(void);

// A human-readable build description: the tilejit version, the ABI version, the kernel binary
// format version it reads and the targets it runs, e.g. "tilejit 0.1.0; abi 1; kernel binary
// format 1; targets ascend910b2, ascend910b4". Static storage; never fails.
TJ_API const char* tj_runtime_build(void);

// ---------------------------------------------------------------------------------------------
// Status and errors

typedef enum tj_status {
  TJ_OK = 0,
  TJ_ERR_INVALID_ARGUMENT = 1,    // a bad argument, a malformed binary, a shape/dtype mismatch
  TJ_ERR_NOT_FOUND = 2,           // reserved for lookups by name; no v1 function returns it
  TJ_ERR_RESOURCE_EXHAUSTED = 3,  // out of host memory, or a launch above its GM byte limit
  TJ_ERR_CANCELLED = 4,           // the launch's cancel token was requested
  TJ_ERR_UNAVAILABLE = 5,         // the device cannot run the kernel now
  TJ_ERR_INTERNAL = 6,            // a bug in tilejit; the message says where
} tj_status;

// "OK", "INVALID_ARGUMENT", ...; "UNKNOWN" for any other value. Static storage; never fails.
TJ_API const char* tj_status_name(int status);

// The message of the calling thread's last failed tj_status-returning call, "" if that call
// succeeded (or none was made). Owned by the library; valid until the thread's next
// tj_status-returning call. Never fails; never NULL.
TJ_API const char* tj_last_error(void);

// ---------------------------------------------------------------------------------------------
// Element types, parameter roles, launch modes

// Element types of tensor parameters. The names are the canonical names of the kernel
// metadata ("float16", ...). The numbering is this ABI's own (append only).
typedef enum tj_dtype {
  TJ_DTYPE_BOOL = 0,
  TJ_DTYPE_INT8 = 1,
  TJ_DTYPE_INT16 = 2,
  TJ_DTYPE_INT32 = 3,
  TJ_DTYPE_INT64 = 4,
  TJ_DTYPE_UINT8 = 5,
  TJ_DTYPE_UINT16 = 6,
  TJ_DTYPE_UINT32 = 7,
  TJ_DTYPE_UINT64 = 8,
  TJ_DTYPE_FLOAT16 = 9,
  TJ_DTYPE_BFLOAT16 = 10,
  TJ_DTYPE_FLOAT32 = 11,
} tj_dtype;

// The canonical name of a tj_dtype ("bool", "int8", ..., "bfloat16", "float32"), NULL for an
// unknown value. Static storage; never fails.
TJ_API const char* tj_dtype_name(int dtype);

// How the runner treats a parameter (TileLang's convention): the caller provides inputs and
// outputs; workspaces (declared by the kernel or made by the compiler) are the runtime's.
typedef enum tj_role {
  TJ_ROLE_INPUT = 0,
  TJ_ROLE_OUTPUT = 1,
  TJ_ROLE_WORKSPACE = 2,
} tj_role;

typedef enum tj_mode {
  TJ_MODE_FAST = 0,       // functional results and timing only
  TJ_MODE_CHECKED = 1,    // + race detector, flag misuse, poison, bounds, instruction budget
  TJ_MODE_PERTURBED = 2,  // checked, with data effects at completion and seeded latencies
} tj_mode;

// ---------------------------------------------------------------------------------------------
// Modules

typedef struct tj_module tj_module;

// Loads one kernel binary. `bytes` (caller-owned, read during the call only, never kept)
// holds `size` bytes; at most 256 MiB. Everything is validated before use (the ELF, the
// metadata, every instruction against the kernel's target); a malformed or foreign file is
// TJ_ERR_INVALID_ARGUMENT, never a crash. On TJ_OK *out is a new module, released with
// tj_module_unload.
// Errors: INVALID_ARGUMENT (NULL pointer, size 0 or too large, not a valid kernel binary, an
// unknown target), RESOURCE_EXHAUSTED (host memory).
TJ_API tj_status tj_module_load(const void* bytes, size_t size, tj_module** out);

// Releases a module and its idle devices. NULL is a no-op. Must not race with any other call
// on the same module; reports it produced stay valid. Always TJ_OK.
TJ_API tj_status tj_module_unload(tj_module* module);

// The kernel as a whole. Every pointer is owned by the module.
typedef struct tj_module_info {
  const char* kernel_name;
  const char* target;                // target description name, e.g. "ascend910b2"
  const char* compiler_fingerprint;  // may be ""
  const char* cache_key;             // may be ""
  const char* core_mix;              // "cube", "vector" or "mixed"
  int64_t block_count;               // logical blocks (the grid); 0 if it depends on symbols
  int32_t vector_cores_per_block;    // 0 for a cube-only kernel, else 1 or 2
  int32_t param_count;               // all parameters, in ABI order
  int32_t buffer_count;              // inputs + outputs: the buffers a launch passes
  int32_t out_count;
  const int32_t* out_idx;  // out_count parameter indices, in the caller's output order
  int32_t workspace_count;
  const int32_t* workspace_idx;  // workspace_count parameter indices
} tj_module_info;

// Errors: INVALID_ARGUMENT (NULL pointer).
TJ_API tj_status tj_module_get_info(const tj_module* module, tj_module_info* out);

// One parameter. Every pointer is owned by the module.
typedef struct tj_param_info {
  const char* name;        // canonical name hint ("A", "p0"), unique within the kernel
  const char* dtype_name;  // canonical element type name, as tj_dtype_name(dtype)
  int32_t dtype;           // tj_dtype
  int32_t role;            // tj_role
  int32_t rank;
  int32_t compiler_workspace;  // 1: a workspace the compiler added (sized per logical block)
  // rank extents; 0 in a dim that is not static (a T.symbolic dim, bound at launch from the
  // buffers' shapes, or a compiler workspace's block-count dim)
  const int64_t* shape;
  int64_t bytes;  // size of the tensor; -1 if it has a dim that is not static
} tj_param_info;

// `index` in [0, param_count). Errors: INVALID_ARGUMENT (NULL pointer, index out of range).
TJ_API tj_status tj_module_get_param(const tj_module* module, int32_t index, tj_param_info* out);

// The disassembly of the kernel as `tilejit disasm` lists it: per core program ("aic:",
// "aiv:"), one instruction per line ("  <index>:\t<mnemonic> field=value, ..."), preceded by
// "  ; line-table stmt <N>" (or "  ; (no statement)") whenever the instruction's canonical IR
// statement changes; a caller holding the request's source map names the user's lines with
// it, as for findings. *text points at *size bytes plus a terminating NUL, owned by the module
// (made on the first call; later calls return the same text). Thread-safe.
// Errors: INVALID_ARGUMENT (NULL pointer), RESOURCE_EXHAUSTED (host memory).
TJ_API tj_status tj_module_disassemble(const tj_module* module, const char** text, size_t* size);

// ---------------------------------------------------------------------------------------------
// Cancellation

typedef struct tj_cancel tj_cancel;

// A cancel token: once requested it stays requested, and every launch that carries it stops
// (between instructions, every few thousand scheduling steps) and returns TJ_ERR_CANCELLED.
// Errors: INVALID_ARGUMENT (NULL out), RESOURCE_EXHAUSTED.
TJ_API tj_status tj_cancel_create(tj_cancel** out);
// Requests cancellation. Safe to call from any thread while launches use the token.
// Errors: INVALID_ARGUMENT (NULL).
TJ_API tj_status tj_cancel_request(tj_cancel* cancel);
// Releases the token. NULL is a no-op. No launch may still use it. Always TJ_OK.
TJ_API tj_status tj_cancel_free(tj_cancel* cancel);

// ---------------------------------------------------------------------------------------------
// Launch

// A host tensor: C-contiguous row-major bytes. All memory is the caller's.
typedef struct tj_buffer {
  void* data;            // inputs are read, outputs are written; NULL only if it has 0 bytes
  const int64_t* shape;  // rank extents; may be NULL when rank is 0
  int32_t rank;          // 0 .. 16
  int32_t dtype;         // tj_dtype; a bfloat16 parameter also accepts TJ_DTYPE_UINT16
} tj_buffer;

typedef struct tj_launch_args {
  // sizeof(tj_launch_args) as the caller compiled it (tj_launch_args_init sets it). Fields
  // appended in later versions take their defaults when the caller's struct ends before them.
  uint32_t struct_size;
  // One buffer per input and output parameter, in parameter order (workspaces skipped):
  // exactly tj_module_info.buffer_count. Each must match its parameter's dtype and shape.
  uint32_t buffer_count;
  const tj_buffer* buffers;
  int32_t mode;             // tj_mode (default TJ_MODE_CHECKED)
  int32_t host_threads;     // host threads for the blocks: 0 = hardware concurrency (<= 8),
                            // else 1 .. 256 (default 0)
  uint64_t seed;            // TJ_MODE_PERTURBED's latency seed (default 1)
  uint64_t instr_budget;    // instructions per core of a block, >= 1; exceeding it is a finding
                            // in checked modes (default 50 000 000)
  int32_t trace;            // 1: collect a Chrome trace and per-line cycles (default 0)
  int32_t max_findings;     // findings kept in the report, 1 .. 65536 (default 64); the rest
                            // are counted as suppressed
  const tj_cancel* cancel;  // optional (default NULL); must outlive the launch
  // Upper bound on the device memory the launch allocates (inputs, outputs and workspaces),
  // checked before allocating; above it the launch is RESOURCE_EXHAUSTED (default 16 GiB).
  uint64_t gm_byte_limit;
  // 1: after a successful launch, also copy every input parameter's device memory back into
  // its caller buffer, for kernels that update their arguments in place (TileLang's
  // convention for a kernel without out_idx); 0: inputs are only read (default 0).
  // Appended after the first version: callers whose struct ends before it get the default.
  int32_t write_back_inputs;
} tj_launch_args;

// Fills *args with the defaults above and struct_size = sizeof(tj_launch_args); the caller then
// sets buffers and whatever else it wants. Errors: INVALID_ARGUMENT (NULL).
TJ_API tj_status tj_launch_args_init(tj_launch_args* args);

typedef struct tj_report tj_report;

// Runs the kernel once, synchronously, on a simulated device of its own: copies the inputs to
// device memory, allocates the outputs (their bytes start never-written, so checked modes flag
// a read before the kernel writes them) and the workspaces, runs every block, and copies each
// output (with write_back_inputs, each input too) into its caller buffer. On TJ_OK *report is
// a new report (tj_report_free), whether or not the kernel has findings: findings of the
// kernel itself (races, bounds, deadlock, budget, ...) are in the report, not an error status.
// On any other status *report is untouched and no output buffer has been written (after
// TJ_ERR_INTERNAL: their contents are unspecified).
// Output buffers' contents on entry are ignored; an input and an output may share memory.
// A kernel with symbolic dims takes each symbol's value from the buffers' shapes (inputs and
// outputs, which must all agree); its outputs' shapes follow from the bound symbols.
// Errors: INVALID_ARGUMENT (NULL pointer, a bad field, buffer count, or a buffer whose dtype or
// shape differs from its parameter's: the message names buffer and parameter, or for a
// symbolic dim the symbol and both buffers' parameters, e.g. "symbol M is 64 from A (dim 0)
// but 65 from C (dim 0)"), CANCELLED,
// RESOURCE_EXHAUSTED (gm_byte_limit, host memory), INTERNAL.
TJ_API tj_status tj_launch(tj_module* module, const tj_launch_args* args, tj_report** report);

// ---------------------------------------------------------------------------------------------
// Reports

// The launch as a whole. Every pointer is owned by the report.
typedef struct tj_report_summary {
  int32_t ok;                       // 1: no finding
  int32_t mode;                     // the tj_mode it ran in
  const char* message;              // "" if ok, else "<n> finding(s); first: <message>"
  uint64_t kernel_cycles;           // waves, each its longest block or its HBM floor
  uint64_t launch_overhead_cycles;  // reported separately, not part of kernel_cycles
  int64_t waves;
  int64_t block_count;           // entries of tj_report_get_block
  int64_t finding_count;         // entries of tj_report_get_finding (at most max_findings)
  uint64_t findings_suppressed;  // findings beyond max_findings
  int64_t line_count;            // entries of tj_report_get_line (0 unless traced)
  uint64_t instructions;         // executed, summed over blocks
  uint64_t trace_bytes;          // size of the Chrome trace JSON (0 unless traced)
} tj_report_summary;

// Errors: INVALID_ARGUMENT (NULL pointer).
TJ_API tj_status tj_report_get_summary(const tj_report* report, tj_report_summary* out);

// One logical block.
typedef struct tj_block_info {
  int64_t block;
  uint64_t span_cycles;      // first start to last completion
  uint64_t roofline_cycles;  // largest summed occupancy over the block's pipes
  uint64_t instructions;
  // Busy time (union of non-scalar pipe occupancy) of the AIC and of each AIV (aiv0, aiv1;
  // 0 for an absent one); cube/vector overlap: the time both the AIC and an AIV are busy.
  uint64_t aic_busy_cycles;
  uint64_t aiv_busy_cycles[2];
  uint64_t aiv_any_busy_cycles;
  uint64_t cube_vector_overlap_cycles;
  int32_t pipe_count;  // entries of tj_report_get_pipe_busy for this block
  int32_t reserved;    // 0
} tj_block_info;

// `block_index` in [0, block_count). Errors: INVALID_ARGUMENT (NULL, out of range).
TJ_API tj_status tj_report_get_block(const tj_report* report, int64_t block_index,
                                     tj_block_info* out);

// Busy cycles (summed occupancy) of one pipe of one core of a block.
typedef struct tj_pipe_busy {
  const char* core;  // "aic", "aiv0", "aiv1"
  const char* pipe;  // "s", "v", "m", "mte1", "mte2", "mte3", "fix"
  uint64_t busy_cycles;
} tj_pipe_busy;

// `pipe_index` in [0, pipe_count of the block). Errors: INVALID_ARGUMENT (NULL, out of range).
TJ_API tj_status tj_report_get_pipe_busy(const tj_report* report, int64_t block_index,
                                         int32_t pipe_index, tj_pipe_busy* out);

// One problem the device found in the kernel.
typedef struct tj_finding {
  const char* kind;     // "race", "flag misuse", "uninitialised read", "out of bounds",
                        // "misaligned", "illegal path", "deadlock", "instruction budget", "fault"
  int64_t block;        // the logical block it happened in
  const char* message;  // complete report: instructions, pipes, cores, line-table statements
} tj_finding;

// `index` in [0, finding_count). Errors: INVALID_ARGUMENT (NULL, out of range).
TJ_API tj_status tj_report_get_finding(const tj_report* report, int64_t index, tj_finding* out);

// Cycles of one line-table entry (an IR statement id of the kernel's line table).
typedef struct tj_line_cycles {
  uint32_t stmt;
  uint32_t reserved;  // 0
  uint64_t cycles;    // summed occupancy of its instructions
  uint64_t count;     // instructions executed
} tj_line_cycles;

// `index` in [0, line_count). Errors: INVALID_ARGUMENT (NULL, out of range).
TJ_API tj_status tj_report_get_line(const tj_report* report, int64_t index, tj_line_cycles* out);

// The Chrome trace JSON (one lane per core and pipe): *json points at trace_bytes bytes plus
// a terminating NUL, owned by the report; "" when the launch was not traced.
// Errors: INVALID_ARGUMENT (NULL pointer).
TJ_API tj_status tj_report_get_trace(const tj_report* report, const char** json, size_t* size);

// What T.printf / T.dump_tensor printed: *text points at *size bytes plus a terminating NUL,
// owned by the report; "" when the kernel printed nothing. Lines come block after block, core
// after core (aic, aiv0, aiv1), each core's in program order, each prefixed "[block B core] ".
// Errors: INVALID_ARGUMENT (NULL pointer).
TJ_API tj_status tj_report_get_device_output(const tj_report* report, const char** text,
                                             size_t* size);

// Releases a report. NULL is a no-op. Always TJ_OK.
TJ_API tj_status tj_report_free(tj_report* report);

#ifdef __cplusplus
}  // extern "C"
#endif
