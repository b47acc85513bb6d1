// ScopedFd and PageMapping: each owns its resource once, moves hand it on,
// destruction releases it.
#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "framework/perf/counting/page_mapping.h"
#include "framework/perf/counting/scoped_fd.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(ScopedFdTest, ClosesOnceAndMovesOwnership) {
  int raw = -1;
  {
    ScopedFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    ScopedFd moved(std::move(fd));
    EXPECT_FALSE(fd.valid());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(moved.get(), raw);
    ScopedFd assigned;
    assigned = std::move(moved);
    EXPECT_EQ(assigned.get(), raw);
    EXPECT_TRUE(IsOpen(raw));
  }
  EXPECT_FALSE(IsOpen(raw));
}

TEST(PageMappingTest, FailedMapIsEmptyAndMovesLeaveTheSourceEmpty) {
  // /dev/null cannot be mmapped shared: the mapping is empty, not an error.
  ScopedFd null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  PageMapping none = PageMapping::Map(null.get());
  EXPECT_EQ(none.get(), nullptr);
  PageMapping other(std::move(none));
  EXPECT_EQ(other.get(), nullptr);
}

}  // namespace
}  // namespace pmubench::perf
