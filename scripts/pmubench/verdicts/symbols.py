"""Function names as a table shows them: what they are, short.

- glibc picks one of several variants of memmove, memset, strlen ... at
  load time (an IFUNC, the GNU indirect function: see the glibc manual's
  "Tunables" for the hwcaps it reads); a profile names the variant that
  ran, "__memmove_avx_unaligned_erms". shown() says what it is:
  "memmove/memcpy (glibc, AVX unaligned)". memcpy, mempcpy and memmove
  share one implementation (sysdeps/x86_64/multiarch/
  memmove-vec-unaligned-erms.S), so the three are one name.
- Template arguments longer than _LONG_ARGS characters become "<…>":
  "Foo<std::basic_string<char, ...>>::bar()" is "Foo<…>::bar()". The full
  name stays in the JSON.
"""

from __future__ import annotations

import re

_LONG_ARGS = 16

_IFUNC = re.compile(
    r"^__(memmove|memcpy|mempcpy|memset|bzero|memcmp|memcmpeq|bcmp|memchr|"
    r"memrchr|rawmemchr|strlen|strnlen|strchr|strchrnul|strrchr|strcmp|"
    r"strncmp|strcasecmp|strcpy|stpcpy|strncpy|stpncpy|strcat|strncat|"
    r"strstr|strspn|strcspn|strpbrk|wcslen|wcsnlen|wmemset|wmemcmp|wmemchr|"
    r"wcschr|wcscmp)(_chk)?_([a-z0-9_]+)$")
_FAMILY = {"memmove": "memmove/memcpy", "memcpy": "memmove/memcpy",
           "mempcpy": "memmove/memcpy"}
# The variant's words, in glibc's own naming, as a reader knows them.
_WORDS = {"sse2": "SSE2", "ssse3": "SSSE3", "sse4_1": "SSE4.1", "sse4_2": "SSE4.2",
          "avx": "AVX", "avx2": "AVX2", "evex": "EVEX", "evex256": "EVEX",
          "avx512": "AVX-512", "avx512f": "AVX-512", "avx512bw": "AVX-512",
          "avx512vl": "AVX-512", "unaligned": "unaligned", "aligned": "aligned",
          "rtm": "RTM", "back": "backward", "nt": "non-temporal", "movbe": "MOVBE"}
# Words that name how, not which: left out of the short name.
_QUIET = {"erms", "no_vzeroupper", "vzeroupper", "fsrm", "ifunc"}


def ifunc(name: str) -> str | None:
    """'memmove/memcpy (glibc, AVX unaligned)' for a glibc IFUNC variant,
    None for any other name."""
    m = _IFUNC.match(name)
    if not m:
        return None
    parts, words = m.group(3).split("_"), []
    i = 0
    while i < len(parts):
        pair = "_".join(parts[i:i + 2])
        if pair in _WORDS or pair in _QUIET:
            word, i = pair, i + 2
        else:
            word, i = parts[i], i + 1
        if word in _QUIET:
            continue
        if word not in _WORDS:
            return None
        if _WORDS[word] not in words:
            words.append(_WORDS[word])
    family = _FAMILY.get(m.group(1), m.group(1))
    checked = ", checked" if m.group(2) else ""   # the _FORTIFY_SOURCE entry
    return f"{family} (glibc{checked}, {' '.join(words)})" if words else None


def _template_end(name: str, start: int) -> int:
    """The index of the '>' that closes the '<' at start, or -1."""
    depth = 0
    for i in range(start, len(name)):
        if name[i] == "<":
            depth += 1
        elif name[i] == ">" and name[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i
    return -1


def short(name: str) -> str:
    """name with each template argument list of more than _LONG_ARGS
    characters shown as '<…>' (an operator's '<' stays as it is)."""
    out, i = [], 0
    while i < len(name):
        ch = name[i]
        if ch == "<" and not re.search(r"operator\s*<*$", name[:i]):
            end = _template_end(name, i)
            if end < 0:
                return name
            inner = name[i + 1:end]
            out.append("<…>" if len(inner) > _LONG_ARGS else "<" + short(inner) + ">")
            i = end + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def shown(name: str) -> str:
    """The name a table shows: a glibc variant said for what it is, else
    the name with long template arguments shortened."""
    return ifunc(name) or short(name)
