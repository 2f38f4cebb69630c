// SPDX-License-Identifier: Apache-2.0
// FakeDevices: a runner::DeviceFactory for service tests whose devices follow a script and
// record every call, so a test sees exactly what a launch through CompileService handed the
// device (the binary, the input bytes, the arguments, the launch options) and controls what
// comes back (a report, output bytes, a failure at any step, a launch that runs until it is
// cancelled).
//
// GM is a map from address to bytes; LoadBinary decodes the kernel binary's metadata (RunKernel
// needs it) but runs no code: Launch fills every output tensor with `output_byte` and returns
// the scripted report.
//
// Ownership: make one with std::make_shared; the factory shares it (a launch thread may
// outlive its call), and each device it makes is owned by the launch that asked.
// Threading: thread-safe; the record may be read while launches run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "runner/device.h"

namespace tilejit::server::testing {

class FakeDevices : public std::enable_shared_from_this<FakeDevices> {
 public:
  // What the factory and its devices answer.
  struct Script {
    Status make_status;                   // not OK: the factory fails with it
    bool make_null = false;               // the factory breaks its contract: OK, but null
    Status load_status;                   // not OK: LoadBinary fails with it
    Status launch_status;                 // not OK: Launch fails with it (a device error)
    bool launch_throws = false;           // Launch throws std::runtime_error
    bool launch_until_cancelled = false;  // Launch waits for LaunchOptions::cancel
    runner::LaunchReport report;          // Launch's report otherwise
    uint8_t output_byte = 0x5a;           // what Launch writes into every output tensor
  };

  // What the devices saw. `calls` names each call and its tensor, in call order:
  // "LoadBinary", "Allocate x", "CopyToDevice x", "Launch", "CopyFromDevice z", "Free x".
  struct Record {
    int devices_made = 0;
    int devices_destroyed = 0;
    std::vector<std::string> calls;
    std::vector<uint8_t> binary;                            // the last LoadBinary's bytes
    std::map<std::string, uint64_t> addresses;              // tensor name -> GM address
    std::map<std::string, std::vector<uint8_t>> copied_in;  // tensor name -> bytes
    std::vector<uint64_t> args;                             // the last Launch's
    runner::LaunchOptions options;  // the last Launch's, with `cancel` set to null
    bool had_cancel_flag = false;   // whether that Launch was given a cancel flag
    bool saw_cancel = false;        // a launch_until_cancelled Launch saw the flag raised
  };

  explicit FakeDevices(Script script) : script_(std::move(script)) {}

  // The factory to give CompileService; it keeps this object alive.
  runner::DeviceFactory Factory();

  Record record() const;
  // Waits up to `timeout` for `devices_destroyed` to reach `n` (a launch whose caller gave up
  // ends later); false if it did not.
  bool WaitForDestroyed(int n, std::chrono::milliseconds timeout) const;

 private:
  class Device;

  const Script script_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  Record record_;
};

}  // namespace tilejit::server::testing
