// `dglink --version`: this build's version and source revision, and for every adapter
// the dispatch layer considers its library version, the PI version it speaks and the
// driver under it.
#pragma once

#include <string>

namespace dglink::tools {

// The text --version prints (it runs adapter discovery).
std::string versionText();

} // namespace dglink::tools
