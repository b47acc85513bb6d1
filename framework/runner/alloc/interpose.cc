// pmubench's allocator interposition: strong definitions of the malloc
// family and of every replaceable operator new and delete, which tally the
// calling thread's allocations (alloc_tally.h) and hand the work to the
// allocator that comes next in the symbol search order.
//
// Why definitions in the library and dlsym(RTLD_NEXT): a program that links
// pmubench gets these definitions ahead of libc's, in the static build (in
// the executable) as in the shared one (libraries are searched in link
// order, libc last), so every call counts, from the case's code, from
// libstdc++ and from libc itself (glibc's manual, "Replacing malloc": glibc
// calls malloc through the symbol so that a program can replace it). The
// real work goes to dlsym(RTLD_NEXT, "malloc"): glibc's malloc, or
// tcmalloc's or jemalloc's when the program links one of those shared
// libraries, so their programs count too and keep their allocator.
// glibc's old __malloc_hook is gone (removed in 2.34), and an LD_PRELOAD
// wrapper would need the user to start the program differently.
//
// operator new goes to the next allocator's malloc (aligned new, its
// memalign) itself, not through this file's malloc: each allocation is
// tallied once, with the size the operator was asked for and the operator's
// own caller as its site (alloc_sites.h), and a new takes one call fewer.
// The site is the entry point's return address (__builtin_return_address),
// read only on the out-of-line path of the tally.
//
// Under AddressSanitizer, ASan owns malloc and operator new: nothing here
// is defined, and alloc_probe.h says counting is unavailable.
#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>
#include <valgrind/valgrind.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "framework/runner/alloc/alloc_sites.h"
#include "framework/runner/alloc/alloc_tally.h"

namespace pmubench::internal {

constinit bool alloc_counting = false;
thread_local constinit AllocTally alloc_tally;

}  // namespace pmubench::internal

#if !defined(__SANITIZE_ADDRESS__)
namespace {

using pmubench::internal::alloc_tally;

struct NextAllocator {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*memalign)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  size_t (*usable_size)(void*);
};
constinit NextAllocator next{};
// The next allocator is glibc's, natively: a block's usable size is read
// from its chunk header instead of calling malloc_usable_size.
constinit bool glibc_chunks = false;

// dlsym may allocate while it resolves (its error state): such early
// requests get memory from this static block, which is never freed.
alignas(std::max_align_t) constinit char bootstrap[4096]{};
constinit size_t bootstrap_used = 0;
constinit bool resolving = false;

bool InBootstrap(const void* p) {
  return p >= bootstrap && p < bootstrap + sizeof(bootstrap);
}

void* BootstrapAlloc(size_t size) {
  size =
      (size + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
  if (size > sizeof(bootstrap) - bootstrap_used) return nullptr;
  void* p = bootstrap + bootstrap_used;
  bootstrap_used += size;
  return p;
}

template <typename F>
void Resolve(F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Whether a Valgrind tool that replaces malloc runs this program
// (memcheck, helgrind, drd, massif, dhat): Valgrind preloads the tool's
// vgpreload_TOOL library, whose malloc owns the blocks, and no chunk
// header of glibc's sits below them. Callgrind and cachegrind preload only
// vgpreload_core and leave glibc's malloc in place.
bool ValgrindToolOwnsBlocks() {
  const char* preload = getenv("LD_PRELOAD");  // allocates nothing
  // Not readable yet (before libc's own start-up): take the safe answer.
  if (preload == nullptr) return true;
  for (const char* at = preload; at != nullptr;) {
    at = std::strstr(at, "vgpreload_");
    if (at == nullptr) break;
    at += sizeof("vgpreload_") - 1;
    if (std::strncmp(at, "core", 4) != 0) return true;
  }
  return false;
}

// Once, at the first allocation (the process is still single-threaded).
[[gnu::noinline, gnu::cold]] void ResolveNext() {
  resolving = true;
  NextAllocator n{};
  Resolve(n.malloc, "malloc");
  Resolve(n.free, "free");
  Resolve(n.calloc, "calloc");
  Resolve(n.realloc, "realloc");
  Resolve(n.memalign, "memalign");
  Resolve(n.posix_memalign, "posix_memalign");
  Resolve(n.aligned_alloc, "aligned_alloc");
  Resolve(n.valloc, "valloc");
  Resolve(n.pvalloc, "pvalloc");
  Resolve(n.usable_size, "malloc_usable_size");
  next = n;
  Dl_info where{};
  glibc_chunks = !(RUNNING_ON_VALGRIND && ValgrindToolOwnsBlocks()) &&
                 dladdr(reinterpret_cast<void*>(n.usable_size), &where) != 0 &&
                 where.dli_fname != nullptr &&
                 std::strstr(where.dli_fname, "libc.so.6") != nullptr;
  resolving = false;
}

// glibc's chunk header (malloc/malloc.c, "chunk details") holds the
// chunk's size in the word below the block, its low bits flags
// (PREV_INUSE = 1, IS_MMAPPED = 2, NON_MAIN_ARENA = 4); musable() there
// gives the size less the header's share: 8 bytes for a heap chunk, 16 for
// a mapped one (64-bit; SIZE_SZ in general). Read inline: a call to
// malloc_usable_size and its checks fewer per allocation and free.
constexpr size_t kIsMmapped = 2;
constexpr size_t kArenaFlags = 5;  // PREV_INUSE | NON_MAIN_ARENA
inline size_t ChunkHeader(const void* p) {
  return static_cast<const size_t*>(p)[-1];
}
inline int64_t HeapUsable(size_t header) {
  return static_cast<int64_t>((header & ~size_t{7}) - sizeof(size_t));
}
inline int64_t MappedUsable(size_t header) {
  return static_cast<int64_t>((header & ~size_t{7}) - 2 * sizeof(size_t));
}
inline int64_t ChunkUsable(size_t header) {
  return (header & kIsMmapped) == 0 ? HeapUsable(header) : MappedUsable(header);
}

// The chunk that fits a request of `size` bytes exactly in glibc's heap:
// malloc.c's request2size (the request and one size word, rounded to
// MALLOC_ALIGNMENT, at least MINSIZE).
constexpr size_t kStep = 2 * sizeof(size_t);      // MALLOC_ALIGNMENT
constexpr size_t kMinChunk = 4 * sizeof(size_t);  // MINSIZE
inline size_t ChunkOfRequest(size_t size) {
  const size_t chunk = (size + sizeof(size_t) + kStep - 1) & ~(kStep - 1);
  return chunk < kMinChunk ? kMinChunk : chunk;
}
inline int64_t HeapUsableOfRequest(size_t size) {
  return static_cast<int64_t>(ChunkOfRequest(size) - sizeof(size_t));
}

// Remembers inexact block `p` and its count; false when the table is full.
bool AddInexact(const void* p, int64_t live_bytes) {
  auto& t = alloc_tally;
  if (t.inexact_count == t.kInexactBlocks) return false;
  t.inexact[t.inexact_count++] = {p, live_bytes};
  t.frees_inline = false;
  return true;
}

// The count `p` was remembered with, forgotten; false if it was not. From
// the end: the block freed is most often the last one made.
bool TakeInexact(const void* p, int64_t* live_bytes) {
  auto& t = alloc_tally;
  for (int i = t.inexact_count - 1; i >= 0; --i) {
    if (t.inexact[i].block != p) continue;
    *live_bytes = t.inexact[i].live_bytes;
    t.inexact[i] = t.inexact[--t.inexact_count];
    if (t.inexact_count == 0) t.frees_inline = t.heap_chunks_inline;
    return true;
  }
  return false;
}

// A block counts as its request's exact fit in glibc's heap, whatever
// chunk it got: glibc hands out a whole free chunk when what would be
// left is smaller than a chunk (_int_malloc), trims an aligned block as
// the heap stands (_int_memalign), keeps a chunk a realloc shrank by less
// than a chunk, and maps a block on its own above its mmap threshold,
// which moves as the program frees large blocks (mallopt(3)) and which
// pmubench pins under callgrind. Each would make the peak follow what ran
// before, and differ between runs and modes. The count is remembered for
// the block's free.
[[gnu::noinline, gnu::cold]] int64_t RememberInexact(const void* p, size_t size,
                                                     size_t header) {
  const int64_t live_bytes = HeapUsableOfRequest(size);
  if ((header & ~kArenaFlags) == ChunkOfRequest(size)) return live_bytes;
  return AddInexact(p, live_bytes) ? live_bytes : ChunkUsable(header);
}

// The count an inexact block was remembered with, forgotten; its chunk's
// usable size if it was not remembered (made before counting began, past
// the table, or exact).
[[gnu::noinline, gnu::cold]] int64_t ForgetInexact(const void* p) {
  int64_t live_bytes = 0;
  if (TakeInexact(p, &live_bytes)) return live_bytes;
  return ChunkUsable(ChunkHeader(p));
}

// A block LiveBytesOfOld forgot that stays after all (a realloc that
// failed), remembered again if it counted for other than its chunk.
[[gnu::noinline, gnu::cold]] void KeepInexact(const void* p,
                                              int64_t live_bytes) {
  if (glibc_chunks && ChunkUsable(ChunkHeader(p)) != live_bytes) {
    AddInexact(p, live_bytes);
  }
}

// The live bytes a new block of `size` bytes counts for: its request's
// exact fit in glibc's heap (RememberInexact). Under a Valgrind tool that
// owns the blocks (ValgrindToolOwnsBlocks) and with another allocator,
// malloc_usable_size(3).
inline int64_t LiveBytesOfNew(void* p, size_t size) {
  if (glibc_chunks) [[likely]]
    return RememberInexact(p, size, ChunkHeader(p));
  return static_cast<int64_t>(next.usable_size(p));
}

// The live bytes a block about to be freed or resized counted for.
inline int64_t LiveBytesOfOld(void* p) {
  if (glibc_chunks) [[likely]] {
    if (alloc_tally.inexact_count != 0) return ForgetInexact(p);
    return ChunkUsable(ChunkHeader(p));
  }
  return static_cast<int64_t>(next.usable_size(p));
}

inline const NextAllocator& Next() {
  if (next.malloc == nullptr) [[unlikely]]
    ResolveNext();
  return next;
}

// The tally of a new block, every case: an inexact block, another
// allocator, the sites recorded (alloc_sites.h).
[[gnu::noinline, gnu::cold]] void* TallyAllocAnyWay(void* p, size_t size,
                                                    void* caller) {
  auto& t = alloc_tally;
  ++t.allocs;
  t.bytes += size;
  t.live += LiveBytesOfNew(p, size);
  if (t.live > t.peak) t.peak = t.live;
  if (t.record_sites) [[unlikely]] {
    pmubench::internal::RecordAllocSite(reinterpret_cast<uintptr_t>(caller),
                                        size, t.segment);
  }
  return p;
}

// An entry point's caller, its allocation's site. In a function always
// inlined into an entry point, that entry point's caller too (GCC reads
// the return address of the function it inlines into).
#define PMUBENCH_CALLER __builtin_return_address(0)

// The tally of what an allocator entry point returns. Outside a counted
// segment one thread-local test; inside, a heap chunk of glibc's that
// fits its request exactly is tallied inline (no call, so nothing saved or
// passed), the rest out of line. Always inline, the caller read only on the
// out-of-line path: no register holds it across the allocator's call.
[[gnu::always_inline]] inline void* Counted(void* p, size_t size) {
  auto& t = alloc_tally;
  if (!t.on) [[likely]]
    return p;
  if (p == nullptr) return p;  // a failed allocation returns nothing
  if (!t.heap_chunks_inline) [[unlikely]]
    return TallyAllocAnyWay(p, size, PMUBENCH_CALLER);
  // The exact fit of `size` (ChunkOfRequest) in fewer instructions: its
  // usable bytes hold the request with less than one 16-byte step to
  // spare, or it is the smallest chunk, which fits every request up to 24
  // bytes. IS_MMAPPED stays in `chunk`: a mapped block is never a fit.
  const size_t chunk = ChunkHeader(p) & ~kArenaFlags;
  const size_t usable = chunk - sizeof(size_t);
  if (usable - size >= kStep && chunk != kMinChunk) [[unlikely]]
    return TallyAllocAnyWay(p, size, PMUBENCH_CALLER);
  ++t.allocs;
  t.bytes += size;
  const int64_t live = t.live + static_cast<int64_t>(usable);
  t.live = live;
  if (live > t.peak) t.peak = live;
  return p;
}

// The live bytes of a freed block, every case (inexact blocks remembered,
// a mapped block, another allocator), then the free.
[[gnu::noinline, gnu::cold]] void TallyFreeAnyWay(void* p) {
  alloc_tally.live -= LiveBytesOfOld(p);
  Next().free(p);
}

// free(3), counting: inline in free and in every operator delete (no
// call between them), inline while no inexact block is remembered. While
// counting, `p` came from an allocator this file resolved: `next` is set.
[[gnu::always_inline]] inline void FreeCounted(void* p) {
  if (p == nullptr || InBootstrap(p)) return;
  auto& t = alloc_tally;
  if (!t.on) [[likely]]
    return Next().free(p);
  ++t.frees;
  if (t.frees_inline) [[likely]] {
    const size_t header = ChunkHeader(p);
    if ((header & kIsMmapped) == 0) [[likely]] {
      t.live -= HeapUsable(header);
      return next.free(p);
    }
  }
  TallyFreeAnyWay(p);
}

// The rest of operator new's loop (C++20 [new.delete.single]) after the
// allocator returned null: the new-handler and another try, then
// std::bad_alloc, or null for the nothrow forms (without throwing: the
// exception object would be an allocation of its own). Out of line and
// cold: inline, its loop made every new save six registers.
[[gnu::noinline, gnu::cold]] void* NewFailed(size_t n, size_t align,
                                             bool nothrow, void* caller) {
  for (;;) {
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    handler();
    void* p = align == 0 ? next.malloc(n) : next.memalign(align, n);
    if (p == nullptr) continue;
    return alloc_tally.on ? TallyAllocAnyWay(p, n, caller) : p;
  }
}

// operator new's first try, inline: one call to the next allocator, and
// the tally when counting.
[[gnu::always_inline]] inline void* PlainNew(size_t size, bool nothrow) {
  const size_t n = size == 0 ? 1 : size;
  void* p = Next().malloc(n);
  if (p == nullptr) [[unlikely]]
    return NewFailed(n, 0, nothrow, PMUBENCH_CALLER);
  return Counted(p, n);
}

[[gnu::always_inline]] inline void* AlignedNew(size_t size,
                                               std::align_val_t align,
                                               bool nothrow) {
  const size_t n = size == 0 ? 1 : size;
  const auto a = static_cast<size_t>(align);
  void* p = Next().memalign(a, n);
  if (p == nullptr) [[unlikely]]
    return NewFailed(n, a, nothrow, PMUBENCH_CALLER);
  return Counted(p, n);
}

}  // namespace

extern "C" {

// One test before the next allocator's call: `next` is unset only before
// the first allocation and while dlsym resolves it (the bootstrap block
// serves those requests).
void* malloc(size_t size) noexcept {
  if (next.malloc == nullptr) [[unlikely]] {
    if (resolving) return BootstrapAlloc(size);
    ResolveNext();
  }
  return Counted(next.malloc(size), size);
}

void free(void* p) noexcept { FreeCounted(p); }

void* calloc(size_t count, size_t size) noexcept {
  if (resolving) [[unlikely]] {
    // The block is zero and never reused.
    size_t bytes = 0;
    if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
    return BootstrapAlloc(bytes);
  }
  return Counted(Next().calloc(count, size), count * size);
}

// realloc(3): from null it allocates; to size 0 it frees; a block that
// moves is one allocation of `size` bytes and one free; a block resized in
// place is neither, and only its live bytes change.
void* realloc(void* p, size_t size) noexcept {
  if (p == nullptr) {
    if (resolving) [[unlikely]]
      return BootstrapAlloc(size);
    return Counted(Next().malloc(size), size);
  }
  if (InBootstrap(p)) {
    void* moved = malloc(size);
    if (moved != nullptr) {
      const size_t room = bootstrap + sizeof(bootstrap) - static_cast<char*>(p);
      std::memcpy(moved, p, size < room ? size : room);
    }
    return moved;
  }
  if (!alloc_tally.on) [[likely]]
    return Next().realloc(p, size);
  const int64_t before = LiveBytesOfOld(p);
  void* q = next.realloc(p, size);
  auto& t = alloc_tally;
  if (q == nullptr) {
    if (size == 0) {  // freed, nothing returned
      ++t.frees;
      t.live -= before;
    } else {  // failed: the block stays as it was
      KeepInexact(p, before);
    }
    return q;
  }
  if (q != p) {
    ++t.frees;
    t.live -= before;
    TallyAllocAnyWay(q, size, PMUBENCH_CALLER);
  } else {
    t.live += LiveBytesOfNew(q, size) - before;
    if (t.live > t.peak) t.peak = t.live;
  }
  return q;
}

void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

void* memalign(size_t align, size_t size) noexcept {
  return Counted(Next().memalign(align, size), size);
}

void* aligned_alloc(size_t align, size_t size) noexcept {
  return Counted(Next().aligned_alloc(align, size), size);
}

int posix_memalign(void** out, size_t align, size_t size) noexcept {
  const int error = Next().posix_memalign(out, align, size);
  if (error == 0) Counted(*out, size);
  return error;
}

void* valloc(size_t size) noexcept {
  return Counted(Next().valloc(size), size);
}

void* pvalloc(size_t size) noexcept {
  return Counted(Next().pvalloc(size), size);
}

}  // extern "C"

// Every replaceable form of C++20 [new.delete]: plain, array, nothrow,
// aligned, sized. The array forms are the plain ones.
void* operator new(size_t size) { return PlainNew(size, false); }
void* operator new[](size_t size) { return PlainNew(size, false); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return PlainNew(size, true);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return PlainNew(size, true);
}
void* operator new(size_t size, std::align_val_t align) {
  return AlignedNew(size, align, false);
}
void* operator new[](size_t size, std::align_val_t align) {
  return AlignedNew(size, align, false);
}
void* operator new(size_t size, std::align_val_t align,
                   const std::nothrow_t&) noexcept {
  return AlignedNew(size, align, true);
}
void* operator new[](size_t size, std::align_val_t align,
                     const std::nothrow_t&) noexcept {
  return AlignedNew(size, align, true);
}

void operator delete(void* p) noexcept { FreeCounted(p); }
void operator delete[](void* p) noexcept { FreeCounted(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept {
  FreeCounted(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  FreeCounted(p);
}
void operator delete(void* p, size_t) noexcept { FreeCounted(p); }
void operator delete[](void* p, size_t) noexcept { FreeCounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  FreeCounted(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  FreeCounted(p);
}
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  FreeCounted(p);
}
void operator delete[](void* p, std::align_val_t,
                       const std::nothrow_t&) noexcept {
  FreeCounted(p);
}
#endif  // !__SANITIZE_ADDRESS__

namespace pmubench::internal {

bool AllocHeapChunksInline() noexcept {
#if defined(__SANITIZE_ADDRESS__)
  return false;  // never counting: alloc_probe.h
#else
  return glibc_chunks;
#endif
}

}  // namespace pmubench::internal
