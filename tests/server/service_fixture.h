// SPDX-License-Identifier: Apache-2.0
// ServiceTest: a CompileService over a FakeBackend (whose Lower can be held) and an in-memory
// store, with helpers to build requests and wait for the service to reach a state.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "runner/sim/sim_device.h"
#include "server/service.h"
#include "tests/server/fake_backend.h"

namespace tilejit::server::testing {

class ServiceTest : public ::testing::Test {
 protected:
  void Start(ServiceOptions options = {}) {
    auto backend = std::make_unique<FakeBackend>(&counters_);
    backend_ = backend.get();
    service_ = std::make_unique<CompileService>(options, std::move(backend),
                                                std::make_unique<MemoryKernelStore>(),
                                                runner::sim::SimDeviceFactory());
  }
  void TearDown() override {
    if (backend_) backend_->Release();
    service_.reset();
  }

  static frontend::FrontendRequest Request(std::string source) {
    frontend::FrontendRequest r;
    r.source = std::move(source);
    r.file_name = "kernel.py";
    r.entry = "kernel";
    r.args = {frontend::Value::Int(64)};
    return r;
  }

  Result<CompileReply> Compile(const frontend::FrontendRequest& r, CallContext ctx = {}) {
    return service_->Compile(r, CompileOptions{}, ctx);
  }

  // Waits (without a time limit: the test's own timeout bounds it) until `done` holds.
  template <typename Fn>
  static void WaitFor(Fn done) {
    while (!done()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  FakeBackend::Counters counters_;
  FakeBackend* backend_ = nullptr;
  std::unique_ptr<CompileService> service_;
};

}  // namespace tilejit::server::testing
