// The deb822 reader: dpkg's status and control files, Packages and Release files, apt .sources.
#include <doctest/doctest.h>

#include <string>

#include "util/deb822.hpp"
#include "util/error.hpp"

using rp::Deb822Options;
using rp::Deb822Reader;
using rp::parse_deb822;

TEST_CASE("deb822: stanzas, fields, continuation lines kept as written") {
  const std::string text =
      "Package: libc6\r\n"
      "Status: install ok installed\n"
      "Depends: libgcc-s1,\n"
      " libcrypt1   \n"
      "Description: GNU C Library\n"
      " Contains the standard libraries.\n"
      " .\n"
      " More.\n"
      "\n\n"
      "Package: zlib1g\n"
      "conffiles:\n"
      " /etc/x 0123\n";
  auto stanzas = parse_deb822(text, "status");
  REQUIRE(stanzas.size() == 2);
  CHECK(stanzas[0].value("Package") == "libc6");
  CHECK(stanzas[0].value("package") == "libc6");  // names compare case-insensitively
  CHECK(stanzas[0].value("Depends") == "libgcc-s1,\n libcrypt1");
  CHECK(stanzas[0].value("Description") == "GNU C Library\n Contains the standard libraries.\n .\n More.");
  CHECK(stanzas[0].line() == 1);
  CHECK(stanzas[1].line() == 11);
  CHECK_FALSE(stanzas[1].has("Status"));
  CHECK(stanzas[1].value("Conffiles") == "\n /etc/x 0123");
  // Written back, a stanza reads the same.
  CHECK(stanzas[1].str() == "Package: zlib1g\nconffiles:\n /etc/x 0123\n");
  auto again = parse_deb822(stanzas[0].str(), "again");
  REQUIRE(again.size() == 1);
  CHECK(again[0].str() == stanzas[0].str());
}

TEST_CASE("deb822: empty input, blank lines only, no final newline") {
  CHECK(parse_deb822("", "x").empty());
  CHECK(parse_deb822("\n \n\t\n", "x").empty());
  auto s = parse_deb822("A: 1", "x");
  REQUIRE(s.size() == 1);
  CHECK(s[0].value("A") == "1");
}

TEST_CASE("deb822: strict mode names the line of what is wrong") {
  auto message = [](const std::string& text) {
    try {
      parse_deb822(text, "Packages");
    } catch (const rp::Error& e) {
      CHECK(e.code() == rp::ExitCode::kFailure);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("A: 1\nnot a field\n") == "Packages:2: expected 'Field: value', found 'not a field'");
  CHECK(message(" starts with a continuation\n").find("Packages:1: a continuation line") == 0);
  CHECK(message("A: 1\nB: 2\na: 3\n") == "Packages:3: the field 'a' appears twice in one stanza");
  CHECK(message(": no name\n").find("Packages:1: expected") == 0);
  CHECK(message("A: 1\n\n# comment\n").find("Packages:3:") == 0);  // comments only where allowed
}

TEST_CASE("deb822: comments where the format allows them (apt .sources)") {
  Deb822Options options;
  options.comments = true;
  auto s = parse_deb822("# Debian\nTypes: deb\n# URIs: http://old\nURIs: http://new\n", "debian.sources", options);
  REQUIRE(s.size() == 1);
  CHECK(s[0].value("URIs") == "http://new");
}

TEST_CASE("deb822: lenient mode skips what it cannot read, as an image's own tools do") {
  Deb822Options options;
  options.strict = false;
  auto s = parse_deb822(" orphan\nPackage: a\ngarbage\nPackage: dup\nVersion: 1\n", "status", options);
  REQUIRE(s.size() == 1);
  CHECK(s[0].value("Package") == "a");
  CHECK(s[0].value("Version") == "1");
  // apk's installed database has the same shape, with repeated one-letter fields.
  auto apk = parse_deb822("P:musl\nV:1.2.4-r2\nR:a\nR:b\n", "installed", options);
  REQUIRE(apk.size() == 1);
  CHECK(apk[0].value("V") == "1.2.4-r2");
}

TEST_CASE("deb822: bounds hold for hostile input, even in lenient mode") {
  Deb822Options options;
  options.strict = false;
  options.max_stanzas = 3;
  std::string many;
  for (int i = 0; i < 5; ++i) many += "A: " + std::to_string(i) + "\n\n";
  CHECK_THROWS_WITH_AS(parse_deb822(many, "Packages", options), "Packages:7: more than 3 stanzas", rp::Error);
  options.max_stanzas = 100;
  options.max_fields_per_stanza = 2;
  CHECK_THROWS_AS(parse_deb822("A: 1\nB: 2\nC: 3\n", "Packages", options), rp::Error);
  // The reader hands out one stanza at a time.
  Deb822Reader reader("A: 1\n\nA: 2\n", "x");
  CHECK(reader.next()->value("A") == "1");
  CHECK(reader.next()->value("A") == "2");
  CHECK_FALSE(reader.next().has_value());
}
