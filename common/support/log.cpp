// The dglink logger, configured once from DGLINK_LOG_LEVEL.
#include <dglink/support/log.h>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

namespace dglink {

spdlog::logger &logger() {
  static spdlog::logger *Instance = [] {
    auto Sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto *Logger = new spdlog::logger("dglink", std::move(Sink));
    spdlog::level::level_enum Level = spdlog::level::warn;
    if (const char *Env = std::getenv("DGLINK_LOG_LEVEL"))
      Level = spdlog::level::from_str(Env); // unknown names mean "off"
    Logger->set_level(Level);
    Logger->set_pattern("[dglink %l] %v");
    return Logger; // never destroyed: adapters may log while the process exits
  }();
  return *Instance;
}

} // namespace dglink
