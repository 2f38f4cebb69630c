// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_connection.h"

#include <hiredis/hiredis.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "cache/circuit_breaker.h"

namespace tilejit::cache {
namespace {

// hiredis (0.14) allocates an array reply's element vector as soon as it reads the count, so a
// hostile "*2000000000" would cost gigabytes. Every context's reader gets a copy of hiredis's
// reply functions whose createArray refuses large counts (the reader then fails the reply).
redisReplyObjectFunctions* g_hiredis_functions = nullptr;
redisReplyObjectFunctions g_bounded_functions;
std::once_flag g_bounded_once;

void* CreateBoundedArray(const redisReadTask* task, int elements) {
  if (elements < 0 || elements > kMaxRedisReplyElements) return nullptr;
  return g_hiredis_functions->createArray(task, elements);
}

void InstallBoundedReader(redisContext* context) {
  std::call_once(g_bounded_once, [context] {
    g_hiredis_functions = context->reader->fn;
    g_bounded_functions = *context->reader->fn;
    g_bounded_functions.createArray = CreateBoundedArray;
  });
  context->reader->fn = &g_bounded_functions;
}

// Blocks SIGPIPE in this thread while hiredis writes, and swallows one raised by the write:
// a library cannot rely on the process ignoring SIGPIPE, and a write to a Redis that just died
// would otherwise kill the daemon.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    const int saved_errno = errno;
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved_errno;
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

timeval ToTimeval(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }

bool IsTimeoutErrno(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == ETIMEDOUT; }

Result<RedisReply> ConvertReply(const redisReply* raw, std::string_view where) {
  RedisReply reply;
  switch (raw->type) {
    case REDIS_REPLY_NIL:
      return reply;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      reply.type = raw->type == REDIS_REPLY_STRING   ? RedisReply::Type::kString
                   : raw->type == REDIS_REPLY_STATUS ? RedisReply::Type::kStatus
                                                     : RedisReply::Type::kError;
      if (raw->len > 0) reply.str.assign(raw->str, raw->len);
      return reply;
    case REDIS_REPLY_INTEGER:
      reply.type = RedisReply::Type::kInteger;
      reply.integer = raw->integer;
      return reply;
    default:
      return Corruption(std::string(where) + " sent an unexpected array reply");
  }
}

}  // namespace

RedisConnection::RedisConnection(redisContext* context, RedisConnectionOptions options)
    : context_(context),
      where_("redis at " + options.endpoint.ToString()),
      options_(std::move(options)) {}

RedisConnection::~RedisConnection() {
  OPENSSL_cleanse(options_.password.data(), options_.password.size());
  redisFree(context_);
}

Result<std::unique_ptr<RedisConnection>> RedisConnection::Connect(
    const RedisConnectionOptions& options) {
  const std::string where = "redis at " + options.endpoint.ToString();
  redisContext* context = redisConnectWithTimeout(
      options.endpoint.host.c_str(), options.endpoint.port, ToTimeval(options.connect_timeout_ms));
  if (context == nullptr) return Unavailable("cannot allocate a connection to " + where);
  if (context->err != 0) {
    const int saved_errno = errno;
    std::string message = "cannot connect to " + where + ": " + context->errstr;
    redisFree(context);
    if (IsTimeoutErrno(saved_errno) || std::strstr(message.c_str(), "timed out") != nullptr) {
      return DeadlineExceeded(message + " (connect timeout " +
                              std::to_string(options.connect_timeout_ms) + " ms)");
    }
    return Unavailable(std::move(message));
  }
  // The socket timeouts are a backstop behind the poll() deadlines (see Send).
  redisSetTimeout(context, ToTimeval(options.command_timeout_ms));
  redisEnableKeepAlive(context);
  InstallBoundedReader(context);
  std::unique_ptr<RedisConnection> connection(new RedisConnection(context, options));
  TILEJIT_RETURN_IF_ERROR(connection->Handshake());
  return connection;
}

Status RedisConnection::Handshake() {
  std::vector<RedisCommand> commands;
  if (!options_.password.empty()) commands.push_back({"AUTH", options_.password});
  const std::string db = std::to_string(options_.endpoint.db);
  if (options_.endpoint.db != 0) commands.push_back({"SELECT", db});
  if (commands.empty()) return Status::Ok();
  Result<std::vector<RedisReply>> replies = Run(commands);
  OPENSSL_cleanse(options_.password.data(), options_.password.size());
  options_.password.clear();
  if (!replies.ok()) return replies.status();
  for (const RedisReply& reply : *replies) {
    if (reply.type != RedisReply::Type::kStatus) {
      broken_ = true;
      return Unavailable(
          where_ + " refused the connection setup (AUTH or SELECT): " + reply.str.substr(0, 200));
    }
  }
  return Status::Ok();
}

Result<std::vector<RedisReply>> RedisConnection::Run(const std::vector<RedisCommand>& commands) {
  if (broken_) return Unavailable("connection to " + where_ + " is broken");
  const int64_t deadline = SteadyNowMs() + options_.command_timeout_ms;
  Status sent = Send(commands, deadline);
  if (!sent.ok()) {
    broken_ = true;
    return sent;
  }
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    Result<RedisReply> reply = Receive(deadline);
    if (!reply.ok()) {
      broken_ = true;
      return reply.status();
    }
    replies.push_back(std::move(reply).value());
  }
  return replies;
}

Status RedisConnection::Send(const std::vector<RedisCommand>& commands, int64_t deadline_ms) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const RedisCommand& command : commands) {
    argv.clear();
    lengths.clear();
    for (std::string_view arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(),
                               lengths.data()) != REDIS_OK) {
      return Unavailable("cannot queue a command for " + where_ + ": " + context_->errstr);
    }
  }
  SigpipeGuard guard;
  int done = 0;
  while (done == 0) {
    TILEJIT_RETURN_IF_ERROR(WaitReady(POLLOUT, deadline_ms));
    if (redisBufferWrite(context_, &done) != REDIS_OK) return IoFailure("write to", errno);
  }
  return Status::Ok();
}

Result<RedisReply> RedisConnection::Receive(int64_t deadline_ms) {
  while (true) {
    void* raw = nullptr;
    if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) {
      return Corruption(where_ + " sent a malformed or oversized reply (" + context_->errstr + ")");
    }
    if (raw != nullptr) {
      Result<RedisReply> reply = ConvertReply(static_cast<redisReply*>(raw), where_);
      freeReplyObject(raw);
      return reply;
    }
    // Checked before reading more, so a reply announcing a huge length cannot grow the buffer
    // past the cap.
    if (context_->reader->len > options_.max_reply_bytes) {
      return Corruption(where_ + " sent a reply larger than " +
                        std::to_string(options_.max_reply_bytes) + " bytes");
    }
    TILEJIT_RETURN_IF_ERROR(WaitReady(POLLIN, deadline_ms));
    if (redisBufferRead(context_) != REDIS_OK) return IoFailure("read from", errno);
  }
}

Status RedisConnection::WaitReady(short events, int64_t deadline_ms) {
  while (true) {
    const int64_t remaining = deadline_ms - SteadyNowMs();
    if (remaining <= 0) break;
    pollfd fd{context_->fd, events, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(remaining));
    if (ready > 0) return Status::Ok();  // readable/writable, or an error the I/O will report
    if (ready < 0 && errno != EINTR) return IoFailure("poll on", errno);
  }
  return DeadlineExceeded(where_ + " did not answer within " +
                          std::to_string(options_.command_timeout_ms) + " ms");
}

Status RedisConnection::IoFailure(std::string_view what, int saved_errno) {
  std::string message = "cannot " + std::string(what) + " " + where_ + ": " +
                        (context_->err != 0 ? context_->errstr : std::strerror(saved_errno));
  if (context_->err == REDIS_ERR_IO && IsTimeoutErrno(saved_errno)) {
    return DeadlineExceeded(std::move(message));
  }
  return Unavailable(std::move(message));
}

}  // namespace tilejit::cache
