// One way to report errors: a pi_result plus a per-thread message that
// piPluginGetLastError returns, shared by the dispatch layer and every adapter.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/api.h>

#include <fmt/format.h>

#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

namespace dglink {

// Records Code and Message as this thread's last error and returns Code.
DGLINK_SUPPORT_API pi_result setLastError(pi_result Code, std::string Message);

// The message of this thread's last error (empty if none) and its code.
DGLINK_SUPPORT_API const std::string &lastErrorMessage();
DGLINK_SUPPORT_API pi_result lastErrorCode();

// The body of every piPluginGetLastError: the pointer stays valid until this
// thread's next error.
DGLINK_SUPPORT_API pi_result getLastError(char **Message);

// User input echoed in a message (a variable, kernel or symbol name), cut to its first
// MaxEchoedBytes bytes with the full length after it: a 10 MB name must not make a
// 10 MB message.
inline constexpr size_t MaxEchoedBytes = 256;
DGLINK_SUPPORT_API std::string clip(std::string_view Text);
inline std::string clip(const char *Text) {
  return Text == nullptr ? std::string("(null)") : clip(std::string_view(Text));
}

// The PI name of a result code ("PI_ERROR_INVALID_VALUE").
DGLINK_SUPPORT_API const char *resultName(pi_result Code);

// fmt's formatting, done inside libdglink_support: code that formats through these
// (every message, and the installed static library libdglink_bundle.a) needs fmt's
// headers to compile but not libfmt to link, so a program linking the installed
// dglink::bundle needs no fmt of its own.
DGLINK_SUPPORT_API std::string vformatText(fmt::string_view Format, fmt::format_args Arguments);

template <typename... Args>
std::string formatText(fmt::format_string<Args...> Format, Args &&...Arguments) {
  return vformatText(Format, fmt::make_format_args(Arguments...));
}

template <typename... Args>
pi_result fail(pi_result Code, fmt::format_string<Args...> Format, Args &&...Arguments) {
  return setLastError(Code, vformatText(Format, fmt::make_format_args(Arguments...)));
}

} // namespace dglink

// Return an error from the enclosing function when an argument is null.
#define DGLINK_CHECK_NOT_NULL(Arg, Code)                                                           \
  do {                                                                                             \
    if ((Arg) == nullptr)                                                                          \
      return ::dglink::fail(Code, "{}: argument '{}' is null", __func__, #Arg);                    \
  } while (0)

// Propagate a non-success pi_result.
#define DGLINK_TRY(Expr)                                                                           \
  do {                                                                                             \
    pi_result DglinkResult_ = (Expr);                                                              \
    if (DglinkResult_ != PI_SUCCESS)                                                               \
      return DglinkResult_;                                                                        \
  } while (0)

// The handlers of an entry point's function-try-block: no exception leaves the C ABI
// (a SYCL runtime or C caller would terminate); it becomes an error with a message.
//   pi_result piX(...) try { ... }
//   DGLINK_CATCH_ALL
#define DGLINK_CATCH_ALL                                                                           \
  catch (const std::bad_alloc &) {                                                                 \
    return ::dglink::fail(PI_ERROR_OUT_OF_HOST_MEMORY, "{}: out of host memory", __func__);        \
  }                                                                                                \
  catch (const std::exception &Exception) {                                                        \
    return ::dglink::fail(PI_ERROR_UNKNOWN, "{}: {}", __func__, Exception.what());                 \
  }                                                                                                \
  catch (...) {                                                                                    \
    return ::dglink::fail(PI_ERROR_UNKNOWN, "{}: unknown exception", __func__);                    \
  }
