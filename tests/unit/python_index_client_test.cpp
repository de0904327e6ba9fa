// The index client and PackageFinder against tests/tools/index_server.py on loopback: HTML and
// JSON pages, PEP 658 metadata files or range requests, servers without Range, credentials, index
// strategies, yanking, Requires-Python, hash pins, find-links and direct references.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <cstring>
#include <random>
#include <thread>

#include "net/http.hpp"
#include "net/url.hpp"
#include "python/index_client.hpp"
#include "python/package_finder.hpp"
#include "fetch/store_fetcher.hpp"
#include "store/content_store.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using namespace rp::python;
using rp::test::build_zip;
using rp::test::TempDir;
using rp::test::ZipSpec;

namespace {

// Writes a wheel `filename` whose METADATA names `name` `version` with `requires` lines; `payload`
// bytes (stored, incompressible when random) come first, like the binaries of a real wheel.
std::filesystem::path write_wheel(const std::filesystem::path& dir, const std::string& filename, const std::string& name,
                                  const std::string& version, const std::vector<std::string>& requires_dist = {},
                                  const std::string& payload = "x = 1\n") {
  std::string dist = filename.substr(0, filename.find('-')) + "-" + version + ".dist-info";
  std::string metadata = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  for (const auto& r : requires_dist) metadata += "Requires-Dist: " + r + "\n";
  std::string zip = build_zip({{"pkg/data.bin", payload, false},
                               {dist + "/METADATA", metadata},
                               {dist + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
                               {dist + "/RECORD", ""}});
  auto path = dir / filename;
  rp::write_file_atomic(path, zip);
  return path;
}

std::string python3() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"})
    if (std::filesystem::exists(std::string(dir) + "/python3")) return std::string(dir) + "/python3";
  if (std::system("command -v python3 >/dev/null 2>&1") == 0) return "python3";
  return {};
}

// tests/tools/index_server.py on a free loopback port, stopped when the object goes away.
class IndexServer {
 public:
  IndexServer(const std::filesystem::path& directory, std::vector<std::string> options = {}) {
    port_file_ = dir_.path / "port";
    std::vector<std::string> args{python3(), std::string(ROCKPACK_SOURCE_DIR) + "/tests/tools/index_server.py",
                                  directory.string(), "--port-file", port_file_.string()};
    args.insert(args.end(), options.begin(), options.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !std::filesystem::exists(port_file_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(port_file_);
    in >> port_;
    if (port_ <= 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    REQUIRE_MESSAGE(port_ > 0, "index_server.py did not start");
  }
  ~IndexServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::string url(const std::string& path = "/simple/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  nlohmann::json stats() const {
    rp::net::HttpRequest request;
    request.url = url("/__stats");
    return nlohmann::json::parse(rp::net::perform(request).body);
  }
  uint64_t bytes_sent(const std::string& path) const {
    auto s = stats();
    return s["bytes"].contains(path) ? s["bytes"][path].get<uint64_t>() : 0;
  }
  uint64_t requests(const std::string& path) const {
    auto s = stats();
    return s["requests"].contains(path) ? s["requests"][path].get<uint64_t>() : 0;
  }

 private:
  TempDir dir_;
  std::filesystem::path port_file_;
  pid_t pid_ = -1;
  int port_ = 0;
};

bool have_python() {
  if (python3().empty()) {
    MESSAGE("skipped: needs python3 for tests/tools/index_server.py");
    return false;
  }
  return true;
}

TagPolicy target() { return TagPolicy::for_target("3.11", "2.35", "x86_64"); }

FinderOptions fast_options() {
  FinderOptions options;
  options.client.retry = {4, std::chrono::milliseconds(20), std::chrono::milliseconds(100), std::chrono::seconds(1)};
  options.remote.retry = options.client.retry;
  return options;
}

std::vector<std::string> version_strings(std::vector<rp::python::Version> versions) {
  std::sort(versions.begin(), versions.end());
  std::vector<std::string> out;
  for (const auto& v : versions) out.push_back(v.to_string());
  return out;
}

std::string random_bytes(size_t n) {
  std::mt19937_64 rng(42);
  std::string out(n, '\0');
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

std::string file_hex(const std::filesystem::path& p) { return rp::sha256_hex(rp::read_file(p)); }

struct EnvVar {
  std::string name;
  EnvVar(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
  ~EnvVar() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("python/index: netrc, userinfo and package globs") {
  std::string netrc = "machine other.example login a password b\n"
                      "macdef init\ncd /\n\n"
                      "machine Index.Example.ORG\n  login alice\n  password s3cret\n"
                      "default login anon password none\n";
  auto c = netrc_lookup(netrc, "index.example.org");
  REQUIRE(c);
  CHECK(c->username == "alice");
  CHECK(c->password == "s3cret");
  CHECK(netrc_lookup(netrc, "elsewhere")->username == "anon");
  CHECK(!netrc_lookup("machine x login y password z", "elsewhere"));

  CHECK(rp::net::redact_credentials("https://u:p%40x@host:8080/simple/?q=1") == "https://host:8080/simple/?q=1");
  CHECK(url_host("https://u:p@Host.Example:8080/simple/") == "host.example");
  CHECK(matches_package_globs({"torch*", "Rocm_SDK-*"}, "rocm-sdk-core"));
  CHECK(matches_package_globs({"torch*"}, "torchvision"));
  CHECK(!matches_package_globs({"torch*"}, "numpy"));
  CHECK(distribution_project("Flash_Attn-2.8.3+rocm62-cp311-cp311-linux_x86_64.whl") == "flash-attn");
  CHECK(distribution_project("zope.interface-5.0.tar.gz") == "zope-interface");
  CHECK(distribution_project("README.txt").empty());
}

TEST_CASE("python/index: HTML and JSON pages, with PEP 658 metadata files") {
  if (!have_python()) return;
  TempDir wheels;
  auto demo = write_wheel(wheels.path, "demo-1.0-py3-none-any.whl", "demo", "1.0", {"six>=1.0", "extra-dep; extra == 'x'"});
  write_wheel(wheels.path, "demo-1.1-py3-none-any.whl", "demo", "1.1");
  write_wheel(wheels.path, "six-1.16.0-py2.py3-none-any.whl", "six", "1.16.0");
  for (std::string format : {"html", "json"}) {
    CAPTURE(format);
    IndexServer server(wheels.path, {"--format", format});
    auto options = fast_options();
    options.indexes = {{server.url(), false, "", "", {}}};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("Demo")) == std::vector<std::string>{"1.0", "1.1"});
    auto deps = finder.dependencies("demo", {rp::python::Version::parse("1.0"), ""});
    REQUIRE(deps.size() == 2);
    CHECK(deps[0].to_string() == "six>=1.0");
    CHECK(server.requests("/files/demo-1.0-py3-none-any.whl.metadata") == 1);
    CHECK(server.requests("/files/demo-1.0-py3-none-any.whl") == 0);
    CHECK(finder.stats().metadata_requests == 1);
    CHECK(finder.stats().page_requests == 1);

    auto a = finder.artifact("demo", {rp::python::Version::parse("1.0"), ""});
    CHECK(a.name == "demo");
    CHECK(a.filename == "demo-1.0-py3-none-any.whl");
    CHECK(a.url == server.url("/files/demo-1.0-py3-none-any.whl"));
    CHECK(a.sha256 == file_hex(demo));
    CHECK(a.index == server.url());
    CHECK(finder.versions("no-such-project").empty());
  }
}

TEST_CASE("python/index: without metadata files a 50 MB wheel costs under 1 MB of range requests") {
  if (!have_python()) return;
  TempDir wheels;
  write_wheel(wheels.path, "big-1.0-cp311-cp311-manylinux_2_17_x86_64.whl", "big", "1.0", {"six"},
              random_bytes(50u << 20));
  IndexServer server(wheels.path, {"--no-metadata"});
  auto options = fast_options();
  options.indexes = {{server.url(), false, "", "", {}}};
  PackageFinder finder(options, target(), "3.11.2");
  REQUIRE(version_strings(finder.versions("big")) == std::vector<std::string>{"1.0"});
  auto deps = finder.dependencies("big", {rp::python::Version::parse("1.0"), ""});
  REQUIRE(deps.size() == 1);
  CHECK(deps[0].name == "six");
  uint64_t sent = server.bytes_sent("/files/big-1.0-cp311-cp311-manylinux_2_17_x86_64.whl");
  MESSAGE("range requests read " << sent << " bytes of a " << (50u << 20) << "-byte wheel");
  CHECK(sent > 0);
  CHECK(sent < (1u << 20));
  CHECK(finder.stats().metadata_bytes < (1u << 20));
  CHECK(finder.stats().metadata_requests >= 1);

  // METADATA at the front of the wheel: the member is a separate range request.
  std::string zip = build_zip({{"front-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: front\nVersion: 1.0\n"
                                                                "Requires-Dist: a\nRequires-Dist: b\n"},
                               {"front/big.bin", random_bytes(20u << 20), false}});
  rp::write_file_atomic(wheels.path / "front-1.0-py3-none-any.whl", zip);
  REQUIRE(version_strings(finder.versions("front")) == std::vector<std::string>{"1.0"});
  CHECK(finder.dependencies("front", {rp::python::Version::parse("1.0"), ""}).size() == 2);
  CHECK(server.requests("/files/front-1.0-py3-none-any.whl") == 2);
  CHECK(server.bytes_sent("/files/front-1.0-py3-none-any.whl") < (1u << 20));
}

TEST_CASE("python/index: a server that ignores Range") {
  if (!have_python()) return;
  TempDir wheels;
  write_wheel(wheels.path, "small-1.0-py3-none-any.whl", "small", "1.0", {"six"});
  write_wheel(wheels.path, "large-1.0-py3-none-any.whl", "large", "1.0", {}, random_bytes(32u << 20));
  IndexServer server(wheels.path, {"--no-metadata", "--no-range"});
  auto options = fast_options();
  options.indexes = {{server.url(), false, "", "", {}}};
  options.remote.max_full_download = 1u << 20;
  PackageFinder finder(options, target(), "3.11.2");
  finder.versions("small");
  CHECK(finder.dependencies("small", {rp::python::Version::parse("1.0"), ""}).size() == 1);  // small: downloaded whole
  finder.versions("large");
  CHECK_THROWS_WITH_AS(finder.dependencies("large", {rp::python::Version::parse("1.0"), ""}),
                       doctest::Contains("ignores HTTP Range"), rp::Error);
  // Cut off early, not downloaded.
  MESSAGE("sent before the cut: " << server.bytes_sent("/files/large-1.0-py3-none-any.whl"));
  CHECK(server.bytes_sent("/files/large-1.0-py3-none-any.whl") < (16u << 20));

  // Issue 15 (9): with a store (as in a build) the wheel, of any size, is downloaded whole into the
  // store (where the install step finds it by its sha256) and its metadata read there, as pip and uv do.
  TempDir store_dir;
  rp::ContentStore store(store_dir.path);
  options.records = &store;
  options.fetcher = std::make_shared<rp::StoreFileFetcher>(store, rp::DownloadOptions{});
  PackageFinder with_store(options, target(), "3.11.2");
  with_store.versions("large");
  CHECK(with_store.dependencies("large", {rp::python::Version::parse("1.0"), ""}).empty());
  CHECK(store.contains(rp::sha256_digest(rp::read_file(wheels.path / "large-1.0-py3-none-any.whl"))));
}

TEST_CASE("python/index: first-index, unsafe-best-match and packages pinned to an index") {
  if (!have_python()) return;
  TempDir a_dir, b_dir;
  write_wheel(a_dir.path, "demo-1.0-py3-none-any.whl", "demo", "1.0");
  write_wheel(b_dir.path, "demo-2.0-py3-none-any.whl", "demo", "2.0");
  write_wheel(b_dir.path, "only_b-1.0-py3-none-any.whl", "only-b", "1.0");
  IndexServer a(a_dir.path), b(b_dir.path);
  auto options = fast_options();
  options.indexes = {{a.url(), false, "", "", {}}, {b.url(), false, "", "", {}}};
  {
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0"});
    CHECK(version_strings(finder.versions("only-b")) == std::vector<std::string>{"1.0"});  // 404 on a -> b
    CHECK(finder.artifact("only-b", {rp::python::Version::parse("1.0"), ""}).index == b.url());
  }
  {
    options.strategy = IndexStrategy::kUnsafeBestMatch;
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0", "2.0"});
    CHECK(finder.artifact("demo", {rp::python::Version::parse("2.0"), ""}).index == b.url());
    options.strategy = IndexStrategy::kFirstIndex;
  }
  {
    options.indexes[1].packages = {"dem*"};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"2.0"});
    // An index with a packages list serves nothing else.
    CHECK(finder.versions("only-b").empty());
  }
}

TEST_CASE("python/index: yanked files, Requires-Python and the explanation when nothing fits") {
  if (!have_python()) return;
  TempDir wheels;
  write_wheel(wheels.path, "demo-1.0-py3-none-any.whl", "demo", "1.0");
  write_wheel(wheels.path, "demo-2.0-py3-none-any.whl", "demo", "2.0");
  write_wheel(wheels.path, "demo-3.0-py3-none-any.whl", "demo", "3.0");
  write_wheel(wheels.path, "bad-1.0-cp39-cp39-win_amd64.whl", "bad", "1.0");
  rp::write_file_atomic(wheels.path / "bad-2.0.tar.gz", "not really");
  write_wheel(wheels.path, "bad-3.0-py3-none-any.whl", "bad", "3.0");
  for (std::string format : {"html", "json"}) {
    CAPTURE(format);
    IndexServer server(wheels.path, {"--format", format, "--yank", "demo-2.0-py3-none-any.whl:broken build",
                                     "--requires-python", "demo-3.0-py3-none-any.whl=>=3.12",
                                     "--yank", "bad-3.0-py3-none-any.whl"});
    auto options = fast_options();
    options.indexes = {{server.url(), false, "", "", {}}};
    {
      PackageFinder finder(options, target(), "3.11.2");
      CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0"});
      try {
        finder.versions("bad");
        FAIL("expected an InputError");
      } catch (const rp::InputError& e) {
        std::string m = e.what();
        CHECK(m.find("'bad'") != std::string::npos);
        CHECK(m.find("bad-1.0-cp39-cp39-win_amd64.whl") != std::string::npos);
        CHECK(m.find("incompatible tags cp39-cp39-win_amd64") != std::string::npos);
        CHECK(m.find("cp311-cp311-manylinux_2_35_x86_64") != std::string::npos);
        CHECK(m.find("bad-2.0.tar.gz") != std::string::npos);
        CHECK(m.find("not a wheel") != std::string::npos);
        CHECK(m.find("yanked") != std::string::npos);
      }
    }
    {
      PackageFinder finder(options, target(), "3.11.2");
      finder.allow_yanked("demo", rp::python::Version::parse("2.0.0"));  // equal as versions
      CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0", "2.0"});
      CHECK(finder.artifact("demo", {rp::python::Version::parse("2.0"), ""}).yanked);
    }
    {
      PackageFinder finder(options, target(), "3.12.1");
      CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0", "3.0"});
    }
  }
}

TEST_CASE("python/index: basic auth from environment variables, netrc and the URL") {
  if (!have_python()) return;
  TempDir wheels, home;
  write_wheel(wheels.path, "demo-1.0-py3-none-any.whl", "demo", "1.0", {"six"});
  IndexServer server(wheels.path, {"--basic-auth", "alice:s3cr3t-pw", "--no-metadata"});
  auto options = fast_options();

  SUBCASE("none: 401 with a hint, and no secret in the message") {
    options.indexes = {{server.url(), false, "", "", {}}};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK_THROWS_WITH_AS(finder.versions("demo"), doctest::Contains("HTTP 401"), rp::Error);
  }
  SUBCASE("environment variables") {
    EnvVar user("RP_TEST_INDEX_USER", "alice"), pass("RP_TEST_INDEX_PASS", "s3cr3t-pw");
    options.indexes = {{server.url(), false, "RP_TEST_INDEX_USER", "RP_TEST_INDEX_PASS", {}}};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0"});
    CHECK(finder.dependencies("demo", {rp::python::Version::parse("1.0"), ""}).size() == 1);  // range requests with auth
    auto a = finder.artifact("demo", {rp::python::Version::parse("1.0"), ""});
    CHECK(finder.auth_headers_for(a.url).size() == 1);
    CHECK(finder.auth_headers_for("http://127.0.0.2:1/files/x.whl").empty());
  }
  SUBCASE("an unset variable is an input error naming it") {
    options.indexes = {{server.url(), false, "RP_TEST_UNSET_USER", "RP_TEST_UNSET_PASS", {}}};
    CHECK_THROWS_WITH_AS(PackageFinder(options, target(), "3.11.2"), doctest::Contains("RP_TEST_UNSET_USER"),
                         rp::InputError);
  }
  SUBCASE("netrc") {
    auto netrc = home.write("netrc", "machine 127.0.0.1 login alice password s3cr3t-pw\n");
    EnvVar env("NETRC", netrc.string());
    options.indexes = {{server.url(), true, "", "", {}}};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0"});
  }
  SUBCASE("userinfo in the URL never shows") {
    std::string url = server.url();
    url.insert(7, "alice:s3cr3t-pw@");
    options.indexes = {{url, false, "", "", {}}};
    PackageFinder finder(options, target(), "3.11.2");
    CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.0"});
    auto a = finder.artifact("demo", {rp::python::Version::parse("1.0"), ""});
    CHECK(a.url.find("s3cr3t") == std::string::npos);
    CHECK(a.index.find("s3cr3t") == std::string::npos);
    // A wrong password: the error names the index without the secret.
    std::string wrong = server.url();
    wrong.insert(7, "alice:wrong-secret@");
    options.indexes = {{wrong, false, "", "", {}}};
    PackageFinder bad(options, target(), "3.11.2");
    try {
      bad.versions("demo");
      FAIL("expected an error");
    } catch (const rp::Error& e) {
      CHECK(std::string(e.what()).find("wrong-secret") == std::string::npos);
      CHECK(std::string(e.what()).find("401") != std::string::npos);
    }
  }
}

TEST_CASE("python/index: local versions with %2B, unknown projects, retries") {
  if (!have_python()) return;
  TempDir wheels;
  write_wheel(wheels.path, "flash_attn-2.8.3+rocm62torch2.5-cp311-cp311-linux_x86_64.whl", "flash-attn",
              "2.8.3+rocm62torch2.5", {"torch"});
  IndexServer server(wheels.path, {"--fail-first", "2", "--no-metadata"});
  auto options = fast_options();
  options.indexes = {{server.url(), false, "", "", {}}};
  PackageFinder finder(options, target(), "3.11.2");
  CHECK(version_strings(finder.versions("flash-attn")) == std::vector<std::string>{"2.8.3+rocm62torch2.5"});
  auto deps = finder.dependencies("flash-attn", {rp::python::Version::parse("2.8.3+rocm62torch2.5"), ""});
  REQUIRE(deps.size() == 1);
  auto a = finder.artifact("flash_attn", {rp::python::Version::parse("2.8.3+rocm62torch2.5"), ""});
  CHECK(a.filename == "flash_attn-2.8.3+rocm62torch2.5-cp311-cp311-linux_x86_64.whl");
  CHECK(a.url.find("%2B") != std::string::npos);
  CHECK(finder.versions("unknown-project").empty());
}

TEST_CASE("python/index: find-links, direct references and hash pins") {
  if (!have_python()) return;
  TempDir local, remote;
  auto local_wheel = write_wheel(local.path, "demo-1.5-py3-none-any.whl", "demo", "1.5", {"six"});
  auto remote_wheel = write_wheel(remote.path, "direct-1.0-py3-none-any.whl", "direct", "1.0", {"a", "b"});
  write_wheel(remote.path, "flat-2.0-py3-none-any.whl", "flat", "2.0");
  IndexServer server(remote.path, {"--flat"});
  auto options = fast_options();
  options.find_links = {local.path.string(), server.url("/flat/")};

  PackageFinder finder(options, target(), "3.11.2");
  CHECK(version_strings(finder.versions("demo")) == std::vector<std::string>{"1.5"});
  CHECK(finder.dependencies("demo", {rp::python::Version::parse("1.5"), ""}).size() == 1);
  auto a = finder.artifact("demo", {rp::python::Version::parse("1.5"), ""});
  CHECK(a.sha256 == file_hex(local_wheel));
  CHECK(a.index == "find-links:" + local.path.string());
  CHECK(version_strings(finder.versions("flat")) == std::vector<std::string>{"2.0"});
  CHECK(finder.artifact("flat", {rp::python::Version::parse("2.0"), ""}).index == "find-links:" + server.url("/flat/"));

  std::string url = server.url("/files/direct-1.0-py3-none-any.whl") + "#sha256=" + file_hex(remote_wheel);
  CHECK(finder.url_version("direct", url).to_string() == "1.0");
  CHECK(finder.dependencies("direct", {rp::python::Version::parse("1.0"), url}).size() == 2);
  auto d = finder.artifact("direct", {rp::python::Version::parse("1.0"), url});
  CHECK(d.sha256 == file_hex(remote_wheel));
  CHECK(d.index == "direct");
  CHECK(d.url == server.url("/files/direct-1.0-py3-none-any.whl"));

  // A direct URL without a hash: an error unless pinned.
  std::string bare = server.url("/files/direct-1.0-py3-none-any.whl");
  finder.url_version("direct", bare);
  CHECK_THROWS_WITH_AS(finder.artifact("direct", {rp::python::Version::parse("1.0"), bare}), doctest::Contains("no sha256"),
                       rp::InputError);
  finder.pin_hashes("direct", {"sha256:" + file_hex(remote_wheel)});
  CHECK(finder.artifact("direct", {rp::python::Version::parse("1.0"), bare}).sha256 == file_hex(remote_wheel));

  // A local path as a direct reference.
  CHECK(finder.url_version("demo", local_wheel.string()).to_string() == "1.5");
  CHECK(finder.artifact("demo", {rp::python::Version::parse("1.5"), local_wheel.string()}).sha256 == file_hex(local_wheel));

  // Hash pins that do not match reject the file, with the reason.
  PackageFinder pinned(options, target(), "3.11.2");
  pinned.pin_hashes("demo", {std::string(64, 'a')});
  CHECK_THROWS_WITH_AS(pinned.versions("demo"),
                       doctest::Contains("does not match the pinned aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
                       rp::InputError);
  CHECK_THROWS_AS(pinned.pin_hashes("demo", {"md5:abc"}), rp::InputError);
}

TEST_CASE("python/index: metadata is cached in the content store by wheel sha256") {
  if (!have_python()) return;
  TempDir wheels, store_dir;
  write_wheel(wheels.path, "demo-1.0-py3-none-any.whl", "demo", "1.0", {"six"});
  IndexServer server(wheels.path, {"--no-metadata"});
  rp::ContentStore store(store_dir.path);
  auto options = fast_options();
  options.indexes = {{server.url(), false, "", "", {}}};
  options.records = &store;
  options.fetcher = std::make_shared<rp::StoreFileFetcher>(store, rp::DownloadOptions{});
  for (int round = 0; round < 2; ++round) {
    PackageFinder finder(options, target(), "3.11.2");
    finder.versions("demo");
    CHECK(finder.dependencies("demo", {rp::python::Version::parse("1.0"), ""}).size() == 1);
    CHECK(finder.stats().metadata_requests == (round == 0 ? 1u : 0u));
  }
}

TEST_CASE("python/index: Requires-Python in METADATA is checked when the index does not publish it") {
  if (!have_python()) return;
  TempDir wheels;
  std::string dist = "newpy-1.0.dist-info";
  rp::write_file_atomic(wheels.path / "newpy-1.0-py3-none-any.whl",
                        build_zip({{"newpy/__init__.py", "", false},
                                   {dist + "/METADATA",
                                    "Metadata-Version: 2.1\nName: newpy\nVersion: 1.0\nRequires-Python: >=3.12\n"},
                                   {dist + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
                                   {dist + "/RECORD", ""}}));
  IndexServer server(wheels.path);
  auto options = fast_options();
  options.indexes = {{server.url(), false, "", "", {}}};
  PackageFinder old_python(options, target(), "3.11.2");
  CHECK(version_strings(old_python.versions("newpy")) == std::vector<std::string>{"1.0"});  // the index does not say
  CHECK_THROWS_WITH_AS(old_python.dependencies("newpy", {rp::python::Version::parse("1.0"), ""}),
                       doctest::Contains("Requires-Python >=3.12, the target has Python 3.11.2"), rp::InputError);
  PackageFinder new_python(options, target(), "3.12.1");
  CHECK(new_python.dependencies("newpy", {rp::python::Version::parse("1.0"), ""}).empty());
}
