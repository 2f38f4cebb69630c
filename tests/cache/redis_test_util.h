// SPDX-License-Identifier: Apache-2.0
// Helpers for the Redis tier tests: a real redis-server on a free loopback port, a raw hiredis
// connection for injecting and inspecting values as an outside agent would, a fake server that
// answers garbage, and a settable monotonic clock for the circuit breaker.
#pragma once

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_util.h"
#include "gtest/gtest.h"

namespace tilejit::cache::testing {

inline constexpr const char* kRedisServerPath = "/usr/bin/redis-server";

// A port that was free a moment ago on 127.0.0.1.
inline int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// Polls `done` every few milliseconds until it holds or `timeout_ms` passes.
inline bool WaitFor(const std::function<bool()>& done, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// One reply of RawRedis, flattened.
struct RawReply {
  int type = 0;  // REDIS_REPLY_*; 0 when the command failed on the connection
  std::string str;
  long long integer = 0;
};

// A plain hiredis connection, outside the code under test.
class RawRedis {
 public:
  explicit RawRedis(int port) {
    const timeval tv{1, 0};
    context_ = redisConnectWithTimeout("127.0.0.1", port, tv);
    if (context_ != nullptr) redisSetTimeout(context_, tv);
  }
  ~RawRedis() {
    if (context_ != nullptr) redisFree(context_);
  }
  RawRedis(const RawRedis&) = delete;
  RawRedis& operator=(const RawRedis&) = delete;

  bool ok() const { return context_ != nullptr && context_->err == 0; }

  RawReply Command(const std::vector<std::string>& args) {
    RawReply out;
    if (!ok()) return out;
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (reply == nullptr) return out;
    out.type = reply->type;
    if (reply->str != nullptr) out.str.assign(reply->str, reply->len);
    out.integer = reply->integer;
    freeReplyObject(reply);
    return out;
  }

 private:
  redisContext* context_ = nullptr;
};

// A redis-server child process with no persistence, bound to 127.0.0.1.
class RedisServerProcess {
 public:
  ~RedisServerProcess() { Stop(); }

  // Starts the server (on `port`, or a free port when 0) and waits until it answers PING.
  ::testing::AssertionResult Start(int port = 0) {
    if (::access(kRedisServerPath, X_OK) != 0) {
      return ::testing::AssertionFailure()
             << kRedisServerPath
             << " not found: the Redis tier tests need redis-server (deploy/install_deps.sh)";
    }
    port_ = port != 0 ? port : FreeLoopbackPort();
    const std::string port_text = std::to_string(port_);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl(kRedisServerPath, kRedisServerPath, "--port", port_text.c_str(), "--bind",
              "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir_.path().c_str(),
              "--logfile", (dir_.path() + "/redis.log").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid_ < 0) return ::testing::AssertionFailure() << "fork failed";
    const bool up = WaitFor(
        [this] { return Exited() || RawRedis(port_).Command({"PING"}).str == "PONG"; }, 10'000);
    if (!up || Exited()) {
      return ::testing::AssertionFailure() << "redis-server did not answer PING on port " << port_;
    }
    return ::testing::AssertionSuccess();
  }

  // Kills and reaps the server (resuming it first if paused).
  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  void Pause() { ::kill(pid_, SIGSTOP); }
  void Resume() { ::kill(pid_, SIGCONT); }

  int port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

 private:
  bool Exited() {
    if (pid_ <= 0) return true;
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    return false;
  }

  ScratchDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// A loopback server that accepts connections and answers whatever it is sent with `response`
// (once per read), or closes each connection at once when `response` is empty. With
// `stream_forever`, it writes `response` repeatedly until the client goes away.
class FakeRedisServer {
 public:
  explicit FakeRedisServer(std::string response, bool stream_forever = false)
      : response_(std::move(response)), stream_forever_(stream_forever) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(listen_fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeRedisServer() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }

 private:
  void Serve() {
    while (!stop_) {
      pollfd fd{listen_fd_, POLLIN, 0};
      if (::poll(&fd, 1, 20) <= 0) continue;
      const int conn = ::accept(listen_fd_, nullptr, nullptr);
      if (conn < 0) continue;
      ++connections_;
      const timeval send_timeout{0, 200'000};  // a client that stops reading cannot wedge us
      ::setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
      Answer(conn);
      ::close(conn);
    }
  }
  void Answer(int conn) {
    if (response_.empty()) return;  // close at once
    char buf[4096];
    while (!stop_) {
      pollfd fd{conn, POLLIN, 0};
      if (::poll(&fd, 1, 20) <= 0) continue;
      if (::recv(conn, buf, sizeof(buf), 0) <= 0) return;
      do {
        if (::send(conn, response_.data(), response_.size(), MSG_NOSIGNAL) < 0) return;
      } while (stream_forever_ && !stop_);
    }
  }

  std::string response_;
  bool stream_forever_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// A monotonic clock the test moves by hand (for the circuit breaker's cooldown).
class FakeSteadyClock {
 public:
  std::function<int64_t()> AsFunction() {
    return [this] { return now_.load(); };
  }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_{1'000'000};
};

}  // namespace tilejit::cache::testing
