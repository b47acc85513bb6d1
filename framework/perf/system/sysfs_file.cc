#include "framework/perf/system/sysfs_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"

namespace pmubench::perf {

std::optional<std::string> ReadTrimmedFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string text = content.str();
  absl::StripAsciiWhitespace(&text);
  return text;
}

}  // namespace pmubench::perf
