// The translator's process. LLVMSPIRVLib 15 aborts on some modules that are sound word
// by word but not in meaning (Debian's build keeps its assertions) and calls exit() on
// others (an unsupported SPIR-V version); neither may end the caller's process or touch
// its state, so the translation runs in a child: forked once, with the translator
// already loaded, serving requests over a socket, and forked again after it dies.
#include "translator_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Present only in a sanitized caller (ASan, UBSan, libFuzzer): its death callback runs
// when the sanitizer ends the process (an allocation past the child's memory bound, say).
extern "C" void __sanitizer_set_death_callback(void (*Callback)(void)) __attribute__((weak));

namespace dglink::device_code {
namespace {

// The child's descriptors once it has set itself up.
constexpr int ChildChannel = 3;
// How much more memory than the caller had the translator's process may take.
constexpr unsigned long long MemoryHeadroom = 4ull << 30;

bool writeAll(int Fd, const void *Data, size_t Size) {
  const auto *Bytes = static_cast<const char *>(Data);
  while (Size > 0) {
    const ssize_t Written = send(Fd, Bytes, Size, MSG_NOSIGNAL);
    if (Written < 0 && errno == EINTR)
      continue;
    if (Written <= 0)
      return false;
    Bytes += Written;
    Size -= static_cast<size_t>(Written);
  }
  return true;
}

bool readAll(int Fd, void *Data, size_t Size) {
  auto *Bytes = static_cast<char *>(Data);
  while (Size > 0) {
    const ssize_t Got = read(Fd, Bytes, Size);
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      return false;
    Bytes += Got;
    Size -= static_cast<size_t>(Got);
  }
  return true;
}

// The child: requests {uint32 to; uint64 size; bytes} in, answers {uint8 ok; uint64 size;
// bitcode or reason} out, until the caller's end of the channel closes.
[[noreturn]] void serve(TranslateFunction Translate) {
  for (;;) {
    uint32_t To = 0;
    uint64_t Size = 0;
    if (!readAll(ChildChannel, &To, sizeof(To)) || !readAll(ChildChannel, &Size, sizeof(Size)))
      _exit(0);
    std::vector<uint8_t> Module(Size);
    if (!readAll(ChildChannel, Module.data(), Module.size()))
      _exit(0);
    std::vector<uint8_t> Made;
    std::string Error;
    const bool Ok = Translate(Module.data(), Module.size(), static_cast<int>(To), &Made, &Error);
    const uint8_t Status = Ok ? 1 : 0;
    const uint64_t Length = Ok ? Made.size() : Error.size();
    if (!writeAll(ChildChannel, &Status, 1) || !writeAll(ChildChannel, &Length, sizeof(Length)) ||
        !writeAll(ChildChannel, Ok ? static_cast<const void *>(Made.data()) : Error.data(), Length))
      _exit(0);
  }
}

// In the child, before serving: only its own descriptors stay open (the caller's files
// and sockets are not held by it), its stdout and stderr go to the error pipe, faults end
// it as the signal says (not in the caller's handlers: a crash reporter's, a sanitizer's,
// libFuzzer's), exit() from the translator ends it at once with its status (the caller's
// atexit handlers and static destructors do not run here), it ends with the caller, and
// its memory is bounded.
void becomeTranslator(int Channel, int Errors) {
  const int HighChannel = fcntl(Channel, F_DUPFD, 100);
  const int HighErrors = fcntl(Errors, F_DUPFD, 100);
  if (HighChannel < 0 || HighErrors < 0 || dup2(HighChannel, ChildChannel) < 0 ||
      dup2(HighErrors, STDOUT_FILENO) < 0 || dup2(HighErrors, STDERR_FILENO) < 0)
    _exit(127);
  close_range(ChildChannel + 1, ~0U, 0);
  for (int Signal : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGPIPE})
    signal(Signal, SIG_DFL);
  // A sanitizer's death callback is the caller's too: libFuzzer's writes the unit the
  // caller was running when this child was forked as a "crash-" file of the caller's.
  if (__sanitizer_set_death_callback != nullptr)
    __sanitizer_set_death_callback(nullptr);
  on_exit([](int Status, void *) { _exit(Status == 0 ? 1 : Status); }, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Memory: what the caller had plus MemoryHeadroom (a module whose words ask for more,
  // an array of 2^32 elements say, makes the translator fail there, not the host swap).
  if (FILE *Status = std::fopen("/proc/self/status", "r")) {
    char Line[256];
    unsigned long long DataKiB = 0;
    while (std::fgets(Line, sizeof(Line), Status) != nullptr)
      if (std::sscanf(Line, "VmData: %llu kB", &DataKiB) == 1)
        break;
    std::fclose(Status);
    if (DataKiB != 0) {
      const rlimit Limit{DataKiB * 1024 + MemoryHeadroom, DataKiB * 1024 + MemoryHeadroom};
      setrlimit(RLIMIT_DATA, &Limit);
    }
  }
}

} // namespace

std::chrono::seconds TranslatorProcess::timeLimit() {
  static const std::chrono::seconds Limit = [] {
    const char *Text = std::getenv("DGLINK_SPIRV_TRANSLATION_SECONDS");
    const long Seconds = Text != nullptr ? std::strtol(Text, nullptr, 10) : 0;
    return std::chrono::seconds(Seconds > 0 ? Seconds : 120);
  }();
  return Limit;
}

size_t TranslatorProcess::starts() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Starts;
}

bool TranslatorProcess::start(std::string &Why) {
  int Pair[2], ErrorPipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, Pair) != 0) {
    Why = std::string("cannot make a socket for the translator: ") + std::strerror(errno);
    return false;
  }
  if (pipe2(ErrorPipe, O_CLOEXEC) != 0) {
    Why = std::string("cannot make a pipe for the translator: ") + std::strerror(errno);
    close(Pair[0]);
    close(Pair[1]);
    return false;
  }
  const pid_t Made = fork();
  if (Made < 0) {
    Why = std::string("cannot start the translator's process: ") + std::strerror(errno);
    for (int Fd : {Pair[0], Pair[1], ErrorPipe[0], ErrorPipe[1]})
      close(Fd);
    return false;
  }
  if (Made == 0) {
    becomeTranslator(Pair[1], ErrorPipe[1]);
    serve(Translate);
  }
  close(Pair[1]);
  close(ErrorPipe[1]);
  fcntl(ErrorPipe[0], F_SETFL, O_NONBLOCK);
  Child = Made;
  Channel = Pair[0];
  Errors = ErrorPipe[0];
  ++Starts;
  return true;
}

std::string TranslatorProcess::reap(bool Kill) {
  if (Kill)
    kill(Child, SIGKILL);
  close(Channel);
  close(Errors);
  int Status = 0;
  pid_t Reaped;
  while ((Reaped = waitpid(Child, &Status, 0)) < 0 && errno == EINTR) {
  }
  Child = -1;
  Channel = Errors = -1;
  if (Reaped < 0)
    return "its process ended";
  if (WIFSIGNALED(Status))
    return "the translator (LLVMSPIRVLib) stopped on it with signal " +
           std::to_string(WTERMSIG(Status)) + " (" + strsignal(WTERMSIG(Status)) + ")";
  return "the translator (LLVMSPIRVLib) ended its process with status " +
         std::to_string(WIFEXITED(Status) ? WEXITSTATUS(Status) : -1) + " without an answer";
}

bool TranslatorProcess::translate(const void *Data, size_t Size, DeviceCode To,
                                  std::vector<uint8_t> &Out, std::string &Why) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Child < 0 && !start(Why))
    return false;
  // What an earlier request left on stderr is not this one's.
  char Chunk[65536];
  while (read(Errors, Chunk, sizeof(Chunk)) > 0) {
  }
  const uint32_t Target = static_cast<uint32_t>(To);
  const uint64_t Length = Size;
  if (!writeAll(Channel, &Target, sizeof(Target)) || !writeAll(Channel, &Length, sizeof(Length)) ||
      !writeAll(Channel, Data, Size)) {
    // It died since the last request (killed from outside): once more, afresh.
    reap(true);
    if (!start(Why))
      return false;
    if (!writeAll(Channel, &Target, sizeof(Target)) ||
        !writeAll(Channel, &Length, sizeof(Length)) || !writeAll(Channel, Data, Size)) {
      Why = reap(true);
      return false;
    }
  }
  // The answer, and the translator's complaints meanwhile, until the answer is whole,
  // the process ends or the time is up.
  const auto Deadline = std::chrono::steady_clock::now() + timeLimit();
  std::vector<uint8_t> Answer;
  std::string Complaints;
  bool Whole = false, Ended = false;
  pollfd Wait[2] = {{Channel, POLLIN, 0}, {Errors, POLLIN, 0}};
  while (!Whole && !Ended) {
    const auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
        Deadline - std::chrono::steady_clock::now());
    if (Left.count() <= 0)
      break;
    const int Ready = poll(Wait, 2, static_cast<int>(Left.count()));
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready <= 0)
      break;
    if (Wait[1].revents != 0) {
      const ssize_t Got = read(Errors, Chunk, sizeof(Chunk));
      if (Got > 0 && Complaints.size() < 4096)
        Complaints.append(Chunk, static_cast<size_t>(Got));
      if (Got == 0)
        Wait[1].fd = -1; // closed: poll skips it
    }
    if (Wait[0].revents != 0) {
      const ssize_t Got = read(Channel, Chunk, sizeof(Chunk));
      if (Got < 0 && errno == EINTR)
        continue;
      if (Got <= 0) {
        Ended = true;
        break;
      }
      Answer.insert(Answer.end(), Chunk, Chunk + Got);
      uint64_t Expected = 0;
      if (Answer.size() >= 9) {
        std::memcpy(&Expected, Answer.data() + 1, sizeof(Expected));
        Whole = Answer.size() - 9 >= Expected;
      }
    }
  }
  if (!Whole) {
    // It ended (or the time is up): what it said last, then how it ended.
    for (ssize_t Got; (Got = read(Errors, Chunk, sizeof(Chunk))) > 0;)
      if (Complaints.size() < 4096)
        Complaints.append(Chunk, static_cast<size_t>(Got));
    while (!Complaints.empty() && (Complaints.back() == '\n' || Complaints.back() == '\r'))
      Complaints.pop_back();
    Why = Ended ? reap(false)
                : reap(true).insert(0, "the translator did not finish within " +
                                           std::to_string(timeLimit().count()) + " seconds; ");
    if (!Complaints.empty())
      Why += ": " + Complaints;
    return false;
  }
  if (Answer[0] != 1) {
    Why.assign(Answer.begin() + 9, Answer.end());
    if (Why.empty())
      Why = "the translator refused it without a reason";
    return false;
  }
  Out.assign(Answer.begin() + 9, Answer.end());
  return true;
}

} // namespace dglink::device_code
