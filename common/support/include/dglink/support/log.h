// The logger of dglink: spdlog, level from DGLINK_LOG_LEVEL (trace, debug, info,
// warn, error, off; default warn), written to stderr.
#pragma once

#include <dglink/support/api.h>

#include <spdlog/spdlog.h>

namespace dglink {
DGLINK_SUPPORT_API spdlog::logger &logger();
} // namespace dglink
