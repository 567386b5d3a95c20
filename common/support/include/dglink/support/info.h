// Answers for the *GetInfo entry points, with the size checks OpenCL defines.
#pragma once

#include <dglink/support/error.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace dglink {

// Copies Size bytes at Data into the caller's buffer, or reports the size needed.
inline pi_result returnInfoBytes(const void *Data, size_t Size, size_t ParamValueSize,
                                 void *ParamValue, size_t *ParamValueSizeRet) {
  if (ParamValue != nullptr) {
    if (ParamValueSize < Size)
      return fail(PI_ERROR_INVALID_VALUE,
                  "info query: buffer of {} bytes is too small, {} bytes needed", ParamValueSize,
                  Size);
    if (Size != 0)
      std::memcpy(ParamValue, Data, Size);
  }
  if (ParamValueSizeRet != nullptr)
    *ParamValueSizeRet = Size;
  return PI_SUCCESS;
}

template <typename T>
pi_result returnInfo(const T &Value, size_t ParamValueSize, void *ParamValue,
                     size_t *ParamValueSizeRet) {
  static_assert(std::is_trivially_copyable_v<T>, "info values are plain data");
  return returnInfoBytes(&Value, sizeof(T), ParamValueSize, ParamValue, ParamValueSizeRet);
}

inline pi_result returnInfoString(const std::string &Value, size_t ParamValueSize, void *ParamValue,
                                  size_t *ParamValueSizeRet) {
  return returnInfoBytes(Value.c_str(), Value.size() + 1, ParamValueSize, ParamValue,
                         ParamValueSizeRet);
}

template <typename T>
pi_result returnInfoArray(const std::vector<T> &Values, size_t ParamValueSize, void *ParamValue,
                          size_t *ParamValueSizeRet) {
  return returnInfoBytes(Values.data(), Values.size() * sizeof(T), ParamValueSize, ParamValue,
                         ParamValueSizeRet);
}

} // namespace dglink
