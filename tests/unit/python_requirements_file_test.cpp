// pip's requirements-file format: every construct rockpack reads, includes and their cycles,
// hash-checking mode, and the lines it refuses.
#include <doctest/doctest.h>

#include <cstdlib>

#include "python/requirements_file.hpp"
#include "python/requirements_lines.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using rp::python::logical_lines;
using rp::python::merge_into;
using rp::python::parse_requirements_file;
using rp::python::RequirementsFile;
using rp::test::TempDir;

namespace {
const std::string kHash1(64, '1');
const std::string kHash2 = std::string(62, 'a') + "BC";

std::string parse_error(const std::filesystem::path& file) {
  try {
    parse_requirements_file(file);
    return "";
  } catch (const rp::InputError& e) {
    return std::string(e.what()) + " (" + e.hint() + ")";
  }
}
}  // namespace

TEST_CASE("requirements lines: continuations, comments, blank lines and ${VAR}") {
  ::setenv("RP_TEST_VERSION", "2.4", 1);
  ::unsetenv("RP_TEST_UNSET");
  auto lines = logical_lines(
      "# a comment\n"
      "\n"
      "torch==${RP_TEST_VERSION} \\\n"
      "    --hash=sha256:abc\\\n"
      "def\n"
      "numpy  # why we need it\n"
      "https://h/x-1.0-py3-none-any.whl#sha256=00\n"
      "x \\\n"
      "# a comment ends the continuation\n"
      "lower==${rp_test_version} ${RP_TEST_UNSET}\r\n"
      "last \\");
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].number == 3);
  CHECK(lines[0].text == "torch==2.4     --hash=sha256:abcdef");
  CHECK(lines[1].number == 6);
  CHECK(lines[1].text == "numpy");
  CHECK(lines[2].text == "https://h/x-1.0-py3-none-any.whl#sha256=00");  // '#' glued to text is no comment
  CHECK(lines[3].number == 8);
  CHECK(lines[3].text == "x");
  CHECK(lines[4].text == "lower==${rp_test_version} ${RP_TEST_UNSET}");  // lowercase and unset names stay
  CHECK(lines[5].number == 11);
  CHECK(lines[5].text == "last");
}

TEST_CASE("requirements file: requirements, options, includes and constraints") {
  TempDir dir;
  ::setenv("RP_TEST_INDEX", "https://example.invalid/simple/", 1);
  dir.write("wheels/local_pkg-1.0-py3-none-any.whl", "zip");
  dir.write("sub/more.txt",
            "-c ../constraints.txt\n"
            "--find-links ./links\n"
            "six\n");
  dir.write("constraints.txt", "urllib3<3\n--extra-index-url=https://example.invalid/extra/\n");
  auto top = dir.write("requirements.txt",
                       "# top file\n"
                       "-i ${RP_TEST_INDEX}\n"
                       "--index-url=https://example.invalid/second/\n"
                       "--extra-index-url https://example.invalid/torch/\n"
                       "-f https://example.invalid/links.html\n"
                       "--pre\n"
                       "--no-index\n"
                       "--prefer-binary\n"
                       "--only-binary :all:\n"
                       "demo[cli]>=1.0 ; python_version >= \"3.8\"\n"
                       "flash-attn @ https://h/flash_attn-2.8.3%2Brocm62-cp311-cp311-linux_x86_64.whl\n"
                       "./wheels/local_pkg-1.0-py3-none-any.whl ; sys_platform == 'linux'\n"
                       "https://h/remote_pkg-2.0-py3-none-any.whl\n"
                       "-r sub/more.txt\n"
                       "marker-with-space; platform_release == 'a -b'\n");
  RequirementsFile f = parse_requirements_file(top);
  CHECK(f.index_url == "https://example.invalid/second/");  // the last one wins
  CHECK(f.extra_index_urls ==
        std::vector<std::string>{"https://example.invalid/torch/", "https://example.invalid/extra/"});
  CHECK(f.find_links == std::vector<std::string>{"https://example.invalid/links.html", (dir.path / "sub/links").string()});
  CHECK(f.pre);
  CHECK(f.no_index);
  REQUIRE(f.requirements.size() == 6);
  CHECK(f.requirements[0].requirement.to_string() == "demo[cli]>=1.0; python_version >= \"3.8\"");
  CHECK(f.requirements[0].where == top.string() + ":10");
  CHECK(f.requirements[1].requirement.name == "flash-attn");
  CHECK(f.requirements[1].requirement.url == "https://h/flash_attn-2.8.3%2Brocm62-cp311-cp311-linux_x86_64.whl");
  CHECK(f.requirements[2].requirement.name == "local_pkg");
  CHECK(f.requirements[2].requirement.url == "file://" + (dir.path / "wheels/local_pkg-1.0-py3-none-any.whl").string());
  CHECK(f.requirements[2].requirement.marker);
  CHECK(f.requirements[3].requirement.name == "remote_pkg");
  CHECK(f.requirements[4].requirement.name == "six");
  CHECK(f.requirements[4].where == (dir.path / "sub/more.txt").string() + ":3");
  CHECK(f.requirements[5].requirement.name == "marker-with-space");
  REQUIRE(f.constraints.size() == 1);
  CHECK(f.constraints[0].requirement.to_string() == "urllib3<3");
  CHECK(f.constraints[0].where == (dir.path / "constraints.txt").string() + ":1");
}

TEST_CASE("requirements file: --hash pins, several per line, in continued lines") {
  TempDir dir;
  auto f = dir.write("req.txt",
                     "torch==2.4.0 \\\n"
                     "    --hash=sha256:" + kHash1 + " \\\n"
                     "    --hash sha256:" + kHash2 + "\n"
                     "numpy==1.26.4 --hash=SHA256:" + kHash1 + "\n");
  auto r = parse_requirements_file(f);
  REQUIRE(r.requirements.size() == 2);
  CHECK(r.requirements[0].hashes == std::vector<std::string>{kHash1, std::string(62, 'a') + "bc"});
  CHECK(r.requirements[1].hashes == std::vector<std::string>{kHash1});
  CHECK(r.requirements[1].where == f.string() + ":4");
}

TEST_CASE("requirements file: hash-checking mode names the lines without a hash") {
  TempDir dir;
  dir.write("inc.txt", "six==1.16.0\n");
  auto f = dir.write("req.txt", "torch==2.4.0 --hash=sha256:" + kHash1 + "\nnumpy==1.26.4\n-r inc.txt\n");
  std::string msg = parse_error(f);
  CHECK(msg.find("hash-checking mode: 2 requirements without --hash:") != std::string::npos);
  CHECK(msg.find(f.string() + ":2: numpy==1.26.4") != std::string::npos);
  CHECK(msg.find((dir.path / "inc.txt").string() + ":1: six==1.16.0") != std::string::npos);

  auto g = dir.write("req2.txt", "--require-hashes\nsix==1.16.0\n");
  CHECK(parse_error(g).find("hash-checking mode: 1 requirement without --hash") != std::string::npos);
}

TEST_CASE("requirements file: an include cycle is reported with its chain") {
  TempDir dir;
  dir.write("a.txt", "six\n-r b.txt\n");
  dir.write("b.txt", "-c a.txt\n");
  std::string msg = parse_error(dir.path / "a.txt");
  CHECK(msg.find((dir.path / "b.txt").string() + ":1: include cycle: a.txt -> b.txt -> a.txt") != std::string::npos);
}

TEST_CASE("requirements file: a file included twice (no cycle) is fine") {
  TempDir dir;
  dir.write("common.txt", "six\n");
  dir.write("x.txt", "-r common.txt\n");
  auto f = dir.write("top.txt", "-r common.txt\n-r x.txt\n");
  CHECK(parse_requirements_file(f).requirements.size() == 2);
}

TEST_CASE("requirements file: refused lines say where and why") {
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"six\n-e ./src\n", "req.txt:2: editable requirements ('-e') are not supported (rockpack does not build source distributions"},
      {"--editable=git+https://h/x.git\n", "req.txt:1: editable requirements ('--editable')"},
      {"--no-binary :all:\n", "req.txt:1: '--no-binary' asks for a source build (rockpack does not build source"},
      {"six --config-settings=x=y\n", "req.txt:1: '--config-settings' asks for a source build"},
      {"./src/project\n", "req.txt:1: './src/project' is not a wheel (rockpack does not build source distributions"},
      {"demo-1.0.tar.gz\n", "req.txt:1: 'demo-1.0.tar.gz' is not a wheel"},
      {"https://h/demo-1.0.tar.gz\n", "req.txt:1: 'demo-1.0.tar.gz' is not a wheel file name"},
      {"git+https://h/demo.git#egg=demo\n", "req.txt:1: 'git+https://h/demo.git#egg=demo' is not a wheel URL"},
      {"demo @ https://h/demo-1.0.zip\n", "req.txt:1: 'demo-1.0.zip' is not a wheel file name"},
      {"./missing-1.0-py3-none-any.whl\n", "req.txt:1: wheel './missing-1.0-py3-none-any.whl' does not exist"},
      {"--index-ur https://h/\n", "req.txt:1: unknown option '--index-ur' (did you mean '--index-url'?)"},
      {"--frobnicate\n", "req.txt:1: unknown option '--frobnicate' (options rockpack reads:"},
      {"six --hash=md5:0123\n", "req.txt:1: unsupported hash algorithm 'md5' (only sha256 is accepted"},
      {"six --hash=sha512:0123\n", "unsupported hash algorithm 'sha512'"},
      {"six --hash=sha256:0123\n", "req.txt:1: '0123' is not a sha256 (64 hex digits)"},
      {"six --index-url https://h/\n", "req.txt:1: '--index-url' cannot follow a requirement"},
      {"--hash=sha256:" + kHash1 + "\n", "req.txt:1: --hash must follow a requirement on the same line"},
      {"-i\n", "req.txt:1: option '-i' needs a value"},
      {"--pre=yes\n", "req.txt:1: option '--pre' takes no value"},
      {"--trusted-host h\n", "'--trusted-host' is not supported"},
      {"\n\ndemo[cli>=1\n", "req.txt:3: invalid requirement: "},
      {"-r missing.txt\n", "req.txt:1: requirements file " },
      {"-c 'unterminated\n", "req.txt:1: unterminated quote"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    auto f = dir.write("req.txt", c.text);
    std::string msg = parse_error(f);
    INFO("file:\n" << c.text << "\nmessage: " << msg);
    CHECK(msg.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("requirements file: a missing file is an input error") {
  TempDir dir;
  CHECK(parse_error(dir.path / "none.txt").find("requirements file " + (dir.path / "none.txt").string() +
                                                " does not exist") != std::string::npos);
}

TEST_CASE("requirements file: merge_into appends lists, replaces the index, ors the flags") {
  RequirementsFile a;
  a.index_url = "https://a/";
  a.extra_index_urls = {"https://x/"};
  a.requirements.push_back({rp::python::Requirement::parse("six"), "a:1", {}});
  RequirementsFile b;
  b.pre = true;
  b.extra_index_urls = {"https://y/"};
  b.requirements.push_back({rp::python::Requirement::parse("numpy"), "b:1", {}});
  b.constraints.push_back({rp::python::Requirement::parse("urllib3<3"), "b:2", {}});
  merge_into(a, b);
  CHECK(a.index_url == "https://a/");
  CHECK(a.pre);
  CHECK(!a.no_index);
  CHECK(a.extra_index_urls == std::vector<std::string>{"https://x/", "https://y/"});
  REQUIRE(a.requirements.size() == 2);
  CHECK(a.requirements[1].where == "b:1");
  CHECK(a.constraints.size() == 1);
  RequirementsFile c;
  c.index_url = "https://c/";
  c.no_index = true;
  merge_into(a, c);
  CHECK(a.index_url == "https://c/");
  CHECK(a.no_index);
}
