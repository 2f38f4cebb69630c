// SPDX-License-Identifier: Apache-2.0
#include "tests/server/fake_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "compiler/target/binary.h"

namespace tilejit::server::testing {

// One device: its own GM and kernel; every call is logged in the owner's record.
class FakeDevices::Device final : public runner::Device {
 public:
  explicit Device(std::shared_ptr<FakeDevices> owner) : owner_(std::move(owner)) {
    Update([](Record& r) { ++r.devices_made; });
  }
  ~Device() override {
    Update([](Record& r) { ++r.devices_destroyed; });
    owner_->cv_.notify_all();
  }

  Result<runner::Tensor> Allocate(target::ElementType dtype, std::vector<int64_t> shape,
                                  std::string name, bool initialized) override {
    Log("Allocate " + name);
    uint64_t bytes = static_cast<uint64_t>(target::ElementTypeBytes(dtype));
    for (int64_t d : shape) bytes *= static_cast<uint64_t>(d);
    const uint64_t addr = next_addr_;
    next_addr_ += bytes + kAddressGap;
    Update([&](Record& r) { r.addresses[name] = addr; });
    gm_[addr] = std::vector<uint8_t>(bytes, 0);
    if (!initialized) outputs_.push_back(addr);
    return runner::Tensor{addr, dtype, std::move(shape), bytes, std::move(name)};
  }

  Status Free(const runner::Tensor& t) override {
    Log("Free " + t.name);
    return gm_.erase(t.addr) == 1 ? Status::Ok() : InvalidArgument("Free: unknown tensor");
  }

  Status CopyToDevice(const runner::Tensor& t, std::span<const uint8_t> bytes) override {
    Log("CopyToDevice " + t.name);
    Update([&](Record& r) { r.copied_in[t.name].assign(bytes.begin(), bytes.end()); });
    TILEJIT_ASSIGN_OR_RETURN(std::vector<uint8_t> * gm, Gm(t, bytes.size()));
    gm->assign(bytes.begin(), bytes.end());
    return Status::Ok();
  }

  Status CopyFromDevice(const runner::Tensor& t, std::span<uint8_t> bytes) override {
    Log("CopyFromDevice " + t.name);
    TILEJIT_ASSIGN_OR_RETURN(std::vector<uint8_t> * gm, Gm(t, bytes.size()));
    std::copy(gm->begin(), gm->end(), bytes.begin());
    return Status::Ok();
  }

  Result<runner::KernelId> LoadImage(runner::KernelImage) override {
    return Internal("the service loads binaries, not images");
  }

  Result<runner::KernelId> LoadBinary(std::span<const uint8_t> bytes) override {
    Log("LoadBinary");
    Update([&](Record& r) { r.binary.assign(bytes.begin(), bytes.end()); });
    TILEJIT_RETURN_IF_ERROR(owner_->script_.load_status);
    TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary bin, target::ReadKernelBinary(bytes));
    image_.metadata = std::move(bin.metadata);
    return kKernelId;
  }

  const runner::KernelImage* GetKernel(runner::KernelId id) const override {
    return id == kKernelId ? &image_ : nullptr;
  }

  Result<runner::LaunchReport> Launch(runner::KernelId id, std::span<const uint64_t> args,
                                      const runner::LaunchOptions& options) override;

 private:
  static constexpr runner::KernelId kKernelId = 7;
  static constexpr uint64_t kAddressGap = 4096;  // tensors never touch: a wrong address shows

  template <typename Fn>
  void Update(Fn fn) {
    std::lock_guard<std::mutex> lock(owner_->mu_);
    fn(owner_->record_);
  }
  void Log(std::string call) {
    Update([&](Record& r) { r.calls.push_back(std::move(call)); });
  }
  Result<std::vector<uint8_t>*> Gm(const runner::Tensor& t, size_t size) {
    auto it = gm_.find(t.addr);
    if (it == gm_.end() || it->second.size() != size) {
      return InvalidArgument("no tensor of " + std::to_string(size) + " bytes at that address");
    }
    return &it->second;
  }
  Status WaitForCancel(const std::atomic<bool>* cancel);

  std::shared_ptr<FakeDevices> owner_;
  std::map<uint64_t, std::vector<uint8_t>> gm_;
  std::vector<uint64_t> outputs_;  // addresses of tensors allocated never-written
  uint64_t next_addr_ = 0x10000;
  runner::KernelImage image_;
};

Result<runner::LaunchReport> FakeDevices::Device::Launch(runner::KernelId id,
                                                         std::span<const uint64_t> args,
                                                         const runner::LaunchOptions& options) {
  Log("Launch");
  Update([&](Record& r) {
    r.args.assign(args.begin(), args.end());
    r.options = options;
    r.options.cancel = nullptr;
    r.had_cancel_flag = options.cancel != nullptr;
  });
  const Script& script = owner_->script_;
  if (id != kKernelId) return NotFound("no kernel with id " + std::to_string(id));
  if (script.launch_throws) throw std::runtime_error("the fake device fell over");
  if (script.launch_until_cancelled) return WaitForCancel(options.cancel);
  TILEJIT_RETURN_IF_ERROR(script.launch_status);
  for (uint64_t addr : outputs_) std::fill(gm_[addr].begin(), gm_[addr].end(), script.output_byte);
  return script.report;
}

Status FakeDevices::Device::WaitForCancel(const std::atomic<bool>* cancel) {
  if (cancel == nullptr) return Internal("launch_until_cancelled without a cancel flag");
  while (!cancel->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Update([](Record& r) { r.saw_cancel = true; });
  return Cancelled("the fake device stopped: cancelled");
}

runner::DeviceFactory FakeDevices::Factory() {
  std::shared_ptr<FakeDevices> self = shared_from_this();
  return [self]() -> Result<std::unique_ptr<runner::Device>> {
    TILEJIT_RETURN_IF_ERROR(self->script_.make_status);
    if (self->script_.make_null) return std::unique_ptr<runner::Device>();
    return std::unique_ptr<runner::Device>(std::make_unique<Device>(self));
  };
}

FakeDevices::Record FakeDevices::record() const {
  std::lock_guard<std::mutex> lock(mu_);
  return record_;
}

bool FakeDevices::WaitForDestroyed(int n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return record_.devices_destroyed >= n; });
}

}  // namespace tilejit::server::testing
