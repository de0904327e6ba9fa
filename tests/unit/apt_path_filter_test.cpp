// dpkg's path filters as a minimized base configures them (/etc/dpkg/dpkg.cfg.d/excludes): the last
// matching option decides, '*' crosses '/', excluded directories stay when an include reaches below.
#include <doctest/doctest.h>

#include "apt/path_filter.hpp"

using rp::apt::PathFilter;

TEST_CASE("apt/path filter: dpkg's path-exclude and path-include") {
  PathFilter f(PathFilter::parse_config(
      "# Drop all man pages\n"
      "path-exclude=/usr/share/man/*\n"
      "path-exclude /usr/share/doc/*\n"
      "  path-include=/usr/share/doc/*/copyright\n"
      "path-include=/usr/share/doc/*/changelog.Debian.*\n"
      "force-unsafe-io\n"
      "path-exclude=/usr/share/locale/*/LC_MESSAGES/*.mo\n"));
  REQUIRE(f.rules().size() == 5);
  CHECK(f.skip("/usr/share/man/man1/ls.1.gz", false));
  CHECK(f.skip("/usr/share/man/man1", true));
  CHECK(f.skip("/usr/share/doc/bash/README", false));
  CHECK_FALSE(f.skip("/usr/share/doc/bash/copyright", false));
  CHECK_FALSE(f.skip("/usr/share/doc/bash/changelog.Debian.gz", false));
  CHECK(f.skip("/usr/share/doc/bash/changelog.gz", false));
  // '*' matches '/' too (fnmatch without FNM_PATHNAME), as in dpkg.
  CHECK(f.skip("/usr/share/doc/bash/examples/x/y", false));
  // Excluded directories under an include pattern's fixed part stay, so copyright files have a home.
  CHECK_FALSE(f.skip("/usr/share/doc/bash", true));
  CHECK_FALSE(f.skip("/usr/share/doc", true));
  CHECK(f.skip("/usr/share/locale/de/LC_MESSAGES/bash.mo", false));
  CHECK_FALSE(f.skip("/usr/share/locale/locale.alias", false));
  CHECK_FALSE(f.skip("/usr/bin/bash", false));
  // A later exclude wins over an earlier include.
  PathFilter g(PathFilter::parse_config("path-include=/a/*\npath-exclude=/a/b*\n"));
  CHECK(g.skip("/a/b", false));
  CHECK_FALSE(g.skip("/a/c", false));
  CHECK(PathFilter().empty());
}
