#include "framework/runner/strict_json.h"

#include <cctype>

namespace pmubench {
namespace {

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)); }

bool IsNonFiniteWord(std::string_view word) {
  return word == "NaN" || word == "nan" || word == "Infinity" ||
         word == "inf" || word == "infinity" || word == "Inf";
}

}  // namespace

std::string NullForNonFinite(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) {
        out += json[++i];  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    const bool signed_word =
        (c == '-' || c == '+') && i + 1 < json.size() && IsLetter(json[i + 1]);
    if (!signed_word && !IsLetter(c)) {
      out += c;
      continue;
    }
    size_t end = signed_word ? i + 1 : i;
    while (end < json.size() && IsLetter(json[end])) ++end;
    const std::string_view word =
        json.substr(signed_word ? i + 1 : i, end - (signed_word ? i + 1 : i));
    out += IsNonFiniteWord(word) ? "null" : json.substr(i, end - i);
    i = end - 1;
  }
  return out;
}

}  // namespace pmubench
