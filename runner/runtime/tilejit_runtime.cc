// SPDX-License-Identifier: Apache-2.0
// The C entry points. Each one is a thin shell around C++ code: Boundary() runs the body,
// turns its Status into a tj_status plus the thread's last-error message, and catches every
// exception (bad_alloc as RESOURCE_EXHAUSTED, anything else as INTERNAL), so that nothing
// C++ crosses into the caller. Out-parameters are written only after the body has succeeded.
#include "runner/runtime/tilejit_runtime.h"

#include <exception>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "compiler/target/kernel_metadata.h"
#include "compiler/target/npu_target.h"
#include "runner/runtime/abi_types.h"
#include "runner/runtime/launch.h"
#include "runner/runtime/module.h"
#include "runner/runtime/report.h"

struct tj_module {
  std::unique_ptr<tilejit::runner::runtime::Module> impl;
};

namespace {

namespace rt = tilejit::runner::runtime;
using tilejit::InvalidArgument;
using tilejit::Status;

// The calling thread's last error. Setting it can itself fail (no memory); the fallback is a
// static message, so tj_last_error never returns a dangling or NULL pointer.
thread_local std::string t_error;
thread_local const char* t_error_fallback = nullptr;

void SetError(const char* function, std::string_view message) noexcept {
  try {
    t_error_fallback = nullptr;
    t_error.assign(function).append(": ").append(message);
  } catch (...) {
    t_error_fallback = "out of memory while reporting an error";
  }
}

void ClearError() noexcept {
  t_error.clear();  // never allocates
  t_error_fallback = nullptr;
}

template <typename Body>
tj_status Boundary(const char* function, Body&& body) noexcept {
  try {
    const Status s = body();
    if (s.ok()) {
      ClearError();
      return TJ_OK;
    }
    SetError(function, s.message());
    return rt::ToTjStatus(s.code());
  } catch (const std::bad_alloc&) {
    SetError(function, "out of host memory");
    return TJ_ERR_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    SetError(function, std::string("internal error: ") + e.what());
    return TJ_ERR_INTERNAL;
  } catch (...) {
    SetError(function, "internal error: unknown exception");
    return TJ_ERR_INTERNAL;
  }
}

// "tilejit 0.1.0; abi 1; kernel binary format 1; targets ascend910b2, ascend910b4".
std::string BuildDescription() {
  std::string s = "tilejit " TILEJIT_RUNTIME_VERSION "; abi " +
                  std::to_string(TJ_RUNTIME_ABI_VERSION) + "; kernel binary format " +
                  std::to_string(tilejit::target::kKernelBinaryFormatVersion) + "; targets";
  const char* sep = " ";
  for (std::string_view name : tilejit::target::TargetNames()) {
    s.append(sep).append(name);
    sep = ", ";
  }
  return s;
}

Status NullArgument(const char* name) { return InvalidArgument(std::string(name) + " is NULL"); }

}  // namespace

extern "C" {

TJ_API int tj_runtime_version(void) { return TJ_RUNTIME_ABI_VERSION; }

TJ_API const char* tj_runtime_build(void) {
  try {
    static const std::string* build = new std::string(BuildDescription());
    return build->c_str();
  } catch (...) {
    return "tilejit " TILEJIT_RUNTIME_VERSION;
  }
}

TJ_API const char* tj_status_name(int status) { return rt::TjStatusCName(status); }

TJ_API const char* tj_last_error(void) {
  return t_error_fallback != nullptr ? t_error_fallback : t_error.c_str();
}

TJ_API const char* tj_dtype_name(int dtype) {
  const auto t = rt::FromTjDtype(dtype);
  return t ? rt::InternName(tilejit::target::ElementTypeName(*t)) : nullptr;
}

TJ_API tj_status tj_module_load(const void* bytes, size_t size, tj_module** out) {
  return Boundary(__func__, [&]() -> Status {
    if (bytes == nullptr) return NullArgument("bytes");
    if (out == nullptr) return NullArgument("out");
    if (size == 0) return InvalidArgument("size is 0: not a kernel binary");
    TILEJIT_ASSIGN_OR_RETURN(
        std::unique_ptr<rt::Module> module,
        rt::Module::Load(std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), size)));
    *out = new tj_module{std::move(module)};
    return Status::Ok();
  });
}

TJ_API tj_status tj_module_unload(tj_module* module) {
  return Boundary(__func__, [&]() -> Status {
    delete module;
    return Status::Ok();
  });
}

TJ_API tj_status tj_module_get_info(const tj_module* module, tj_module_info* out) {
  return Boundary(__func__, [&]() -> Status {
    if (module == nullptr) return NullArgument("module");
    if (out == nullptr) return NullArgument("out");
    *out = module->impl->info();
    return Status::Ok();
  });
}

TJ_API tj_status tj_module_get_param(const tj_module* module, int32_t index, tj_param_info* out) {
  return Boundary(__func__, [&]() -> Status {
    if (module == nullptr) return NullArgument("module");
    if (out == nullptr) return NullArgument("out");
    const auto& params = module->impl->params();
    if (index < 0 || static_cast<size_t>(index) >= params.size()) {
      return InvalidArgument("parameter index " + std::to_string(index) + " is outside [0, " +
                             std::to_string(params.size()) + ")");
    }
    *out = params[index];
    return Status::Ok();
  });
}

TJ_API tj_status tj_module_disassemble(const tj_module* module, const char** text, size_t* size) {
  return Boundary(__func__, [&]() -> Status {
    if (module == nullptr) return NullArgument("module");
    if (text == nullptr) return NullArgument("text");
    if (size == nullptr) return NullArgument("size");
    const std::string& listing = module->impl->Disassembly();
    *text = listing.c_str();
    *size = listing.size();
    return Status::Ok();
  });
}

TJ_API tj_status tj_cancel_create(tj_cancel** out) {
  return Boundary(__func__, [&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = new tj_cancel;
    return Status::Ok();
  });
}

TJ_API tj_status tj_cancel_request(tj_cancel* cancel) {
  return Boundary(__func__, [&]() -> Status {
    if (cancel == nullptr) return NullArgument("cancel");
    cancel->requested.store(true, std::memory_order_relaxed);
    return Status::Ok();
  });
}

TJ_API tj_status tj_cancel_free(tj_cancel* cancel) {
  return Boundary(__func__, [&]() -> Status {
    delete cancel;
    return Status::Ok();
  });
}

TJ_API tj_status tj_launch_args_init(tj_launch_args* args) {
  return Boundary(__func__, [&]() -> Status {
    if (args == nullptr) return NullArgument("args");
    *args = rt::DefaultLaunchArgs();
    return Status::Ok();
  });
}

TJ_API tj_status tj_launch(tj_module* module, const tj_launch_args* args, tj_report** report) {
  return Boundary(__func__, [&]() -> Status {
    if (module == nullptr) return NullArgument("module");
    if (args == nullptr) return NullArgument("args");
    if (report == nullptr) return NullArgument("report");
    TILEJIT_ASSIGN_OR_RETURN(rt::LaunchPlan plan, rt::PlanLaunch(*module->impl, *args));
    TILEJIT_ASSIGN_OR_RETURN(
        tilejit::runner::LaunchReport r,
        module->impl->Launch(plan.shapes, plan.host, plan.options, plan.write_back_inputs));
    *report = rt::MakeReport(std::move(r), plan.options.mode).release();
    return Status::Ok();
  });
}

TJ_API tj_status tj_report_get_summary(const tj_report* report, tj_report_summary* out) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (out == nullptr) return NullArgument("out");
    *out = report->summary;
    return Status::Ok();
  });
}

TJ_API tj_status tj_report_get_block(const tj_report* report, int64_t block_index,
                                     tj_block_info* out) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (out == nullptr) return NullArgument("out");
    return rt::GetBlock(*report, block_index, out);
  });
}

TJ_API tj_status tj_report_get_pipe_busy(const tj_report* report, int64_t block_index,
                                         int32_t pipe_index, tj_pipe_busy* out) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (out == nullptr) return NullArgument("out");
    return rt::GetPipeBusy(*report, block_index, pipe_index, out);
  });
}

TJ_API tj_status tj_report_get_finding(const tj_report* report, int64_t index, tj_finding* out) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (out == nullptr) return NullArgument("out");
    return rt::GetFinding(*report, index, out);
  });
}

TJ_API tj_status tj_report_get_line(const tj_report* report, int64_t index, tj_line_cycles* out) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (out == nullptr) return NullArgument("out");
    return rt::GetLine(*report, index, out);
  });
}

TJ_API tj_status tj_report_get_trace(const tj_report* report, const char** json, size_t* size) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (json == nullptr) return NullArgument("json");
    if (size == nullptr) return NullArgument("size");
    *json = report->report.trace_json.c_str();
    *size = report->report.trace_json.size();
    return Status::Ok();
  });
}

TJ_API tj_status tj_report_get_device_output(const tj_report* report, const char** text,
                                             size_t* size) {
  return Boundary(__func__, [&]() -> Status {
    if (report == nullptr) return NullArgument("report");
    if (text == nullptr) return NullArgument("text");
    if (size == nullptr) return NullArgument("size");
    *text = report->report.device_output.c_str();
    *size = report->report.device_output.size();
    return Status::Ok();
  });
}

TJ_API tj_status tj_report_free(tj_report* report) {
  return Boundary(__func__, [&]() -> Status {
    delete report;
    return Status::Ok();
  });
}

}  // extern "C"
