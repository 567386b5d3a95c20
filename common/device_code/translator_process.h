// The process the LLVM side runs in (translator_process.cpp): forked once from the
// caller's process with the translator loaded, it translates one module at a time, and
// is started again after it dies.
#pragma once

#include "llvm/translator.h"

#include <dglink/support/device_code.h>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace dglink::device_code {

class TranslatorProcess {
public:
  // A translation that does not end within this long is abandoned (the process killed):
  // DGLINK_SPIRV_TRANSLATION_SECONDS, default 120.
  static std::chrono::seconds timeLimit();

  explicit TranslatorProcess(TranslateFunction TheTranslate) : Translate(TheTranslate) {}
  TranslatorProcess(const TranslatorProcess &) = delete;
  TranslatorProcess &operator=(const TranslatorProcess &) = delete;

  // Out = the translation of the module into To, or false with Why: the translator's
  // refusal, or how its process ended (a signal, exit(), the time limit) with what it
  // wrote to stderr. Thread-safe: one request at a time.
  bool translate(const void *Data, size_t Size, DeviceCode To, std::vector<uint8_t> &Out,
                 std::string &Why);

  // How many times the process was started (for tests).
  size_t starts() const;

private:
  bool start(std::string &Why);
  // Reaps the process (killed first unless it has ended) and says how it ended.
  std::string reap(bool Kill);

  const TranslateFunction Translate;
  mutable std::mutex Mutex; // guards everything below
  pid_t Child = -1;
  int Channel = -1; // requests out, answers in (a socket: no SIGPIPE here if it died)
  int Errors = -1;  // its stderr
  size_t Starts = 0;
};

} // namespace dglink::device_code
