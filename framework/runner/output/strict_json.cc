#include "framework/runner/output/strict_json.h"

#include <cctype>
#include <cstddef>

#include "absl/strings/str_format.h"

namespace pmubench {
namespace {

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)); }

bool IsNonFiniteWord(std::string_view word) {
  return word == "NaN" || word == "nan" || word == "Infinity" ||
         word == "inf" || word == "infinity" || word == "Inf";
}

// How many bytes of `text` (which starts with a byte >= 0x80) form one
// well-formed UTF-8 character (Unicode Table 3-7), or, as a negative number,
// the length of the maximal ill-formed subpart to replace by one U+FFFD.
int Utf8Length(std::string_view text) {
  const auto byte = [&text](size_t i) {
    return static_cast<unsigned char>(text[i]);
  };
  const unsigned char lead = byte(0);
  int length = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) lo = 0xA0;  // no overlong forms
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) lo = 0x90;  // no overlong forms
    if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return -1;  // a continuation byte, C0, C1 or F5..FF
  }
  for (int i = 1; i < length; ++i) {
    if (static_cast<size_t>(i) >= text.size()) return -i;
    const unsigned char b = byte(i);
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return -i;
  }
  return length;
}

// Appends the string token that starts at json[i] (after its opening
// quote) up to and including its closing quote, made strict; returns the
// index of the closing quote (or json.size()).
size_t AppendString(std::string_view json, size_t i, std::string& out) {
  while (i < json.size()) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c == '"') {
      out += '"';
      return i;
    }
    if (c == '\\' && i + 1 < json.size()) {
      out.append(json.substr(i, 2));  // the escape, a quote included
      i += 2;
    } else if (c < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (const int n = Utf8Length(json.substr(i)); n > 0) {
      out.append(json.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      i += -n;
    }
  }
  return i;
}

}  // namespace

std::string StrictJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      out += c;
      i = AppendString(json, i + 1, out);
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
