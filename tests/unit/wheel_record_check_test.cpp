// The RECORD hash check made while wheel members stream into the layer (python/record_check.hpp):
// a member whose bytes do not match the sha256 RECORD lists is a warning, once per wheel, naming the
// wheel and the member; with strict_record (`build --strict`) writing the layer fails; members that
// pip lets go without a hash (.pyc, RECORD's signatures) are no reason for any warning.
#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>

#include "python/wheel_installer.hpp"
#include "python/wheel_record.hpp"
#include "store/content_store.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using rp::python::install_wheel;
using rp::python::InstallOptions;
using rp::python::InstallScheme;
using rp::test::TempDir;
using rp::test::TestWheel;

namespace {

const InstallScheme kRecordVenv = InstallScheme::venv("/opt/venv", 3, 11);
const std::string kRecordSite = "opt/venv/lib/python3.11/site-packages";

// The warnings logged while it lives (the default logger's output, captured).
class CapturedWarnings {
 public:
  CapturedWarnings() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l: %v");
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::warn);
    spdlog::set_default_logger(logger);
  }
  ~CapturedWarnings() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }
  size_t count(const std::string& needle) const {
    size_t n = 0;
    std::string t = text();
    for (size_t at = t.find(needle); at != std::string::npos; at = t.find(needle, at + 1)) ++n;
    return n;
  }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

TestWheel wheel_with_bad_rows() {
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}, {"demo_pkg/util.py", "UTIL = 2\n"},
             {"demo_pkg/data.txt", "fine\n"}};
  // Two members whose RECORD rows are wrong: one hash, one size.
  w.record_overrides["demo_pkg/__init__.py"] = rp::python::record_hash("something else") + ",10";
  w.record_overrides["demo_pkg/util.py"] = rp::python::record_hash("UTIL = 2\n") + ",999";
  return w;
}

}  // namespace

TEST_CASE("wheel/record check warns once per wheel when a member does not match its RECORD row") {
  TempDir dir;
  TestWheel w = wheel_with_bad_rows();
  auto installed = install_wheel(w.write(dir), kRecordVenv);
  CapturedWarnings warnings;
  // The layer is written, with the bytes the wheel holds: a warning is no failure.
  auto tar = rp::test::read_layer(installed.entries);
  CHECK(tar.at(kRecordSite + "/demo_pkg/__init__.py").data == "VALUE = 1\n");
  CHECK(tar.at(kRecordSite + "/demo_pkg/util.py").data == "UTIL = 2\n");
  INFO(warnings.text());
  CHECK(warnings.count("does not match its RECORD row") == 1);
  CHECK(warnings.count(w.filename()) == 1);
  CHECK(warnings.text().find("'demo_pkg/") != std::string::npos);
  CHECK(warnings.text().find("--strict") != std::string::npos);
  // Writing the layer again (a second output) does not repeat it either.
  (void)rp::test::read_layer(installed.entries);
  CHECK(warnings.count("does not match its RECORD row") == 1);
}

TEST_CASE("wheel/record check with strict_record fails the layer write, naming wheel and member") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}};
  w.record_overrides["demo_pkg/__init__.py"] = rp::python::record_hash("something else") + ",10";
  InstallOptions strict;
  strict.strict_record = true;
  auto installed = install_wheel(w.write(dir), kRecordVenv, strict);  // planning reads no member
  std::string error = "(no error)";
  try {
    (void)rp::test::read_layer(installed.entries);
  } catch (const rp::Error& e) {
    error = e.what();
  }
  CHECK(error.find(w.filename()) != std::string::npos);
  CHECK(error.find("'demo_pkg/__init__.py' does not match its RECORD row") != std::string::npos);
  CHECK(error.find(rp::python::record_hash("VALUE = 1\n")) != std::string::npos);  // what the bytes hash to
}

TEST_CASE("wheel/record check is silent for a correct wheel, strict or not") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}, {"demo_pkg/big.bin", std::string(3 << 20, 'x')}};
  InstallOptions strict;
  strict.strict_record = true;
  CapturedWarnings warnings;
  for (const auto& options : {InstallOptions{}, strict}) {
    auto installed = install_wheel(w.write(dir), kRecordVenv, options);
    CHECK(installed.warnings.empty());
    auto tar = rp::test::read_layer(installed.entries);
    CHECK(tar.at(kRecordSite + "/demo_pkg/big.bin").data.size() == (3u << 20));
  }
  CHECK(warnings.text().empty());
}

TEST_CASE("wheel/record check follows pip for rows without a hash (.pyc, RECORD signatures)") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"},
             {"demo_pkg/__pycache__/__init__.cpython-311.pyc", "compiled"},
             {w.dist_info() + "/RECORD.jws", "{}"}};
  w.record_overrides["demo_pkg/__pycache__/__init__.cpython-311.pyc"] = ",";
  w.record_overrides[w.dist_info() + "/RECORD.jws"] = ",";
  CapturedWarnings warnings;
  InstallOptions strict;
  strict.strict_record = true;
  auto installed = install_wheel(w.write(dir), kRecordVenv, strict);
  CHECK(installed.warnings.empty());
  auto tar = rp::test::read_layer(installed.entries);
  CHECK(tar.at(kRecordSite + "/demo_pkg/__pycache__/__init__.cpython-311.pyc").data == "compiled");
  CHECK(warnings.text().empty());
  // The installed RECORD still hashes every file (pip's own RECORD does too).
  bool pyc_hashed = false;
  for (const auto& row : rp::python::parse_record(tar.at(kRecordSite + "/" + w.dist_info() + "/RECORD").data))
    if (row.path == "demo_pkg/__pycache__/__init__.cpython-311.pyc") pyc_hashed = row.hash == rp::python::record_hash("compiled");
  CHECK(pyc_hashed);

  // A .py without a hash is still worth a warning (the wheel spec requires one).
  TestWheel nohash;
  nohash.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}};
  nohash.record_overrides["demo_pkg/__init__.py"] = ",";
  auto plain = install_wheel(nohash.write(dir), kRecordVenv);
  REQUIRE(plain.warnings.size() == 1);
  CHECK(plain.warnings[0].find("'demo_pkg/__init__.py' is not listed with a hash in RECORD") != std::string::npos);
}

// A member copied into the store (rocm-sdk-devel's tarball) is checked against the digest the blob
// writer computes anyway: the check must still catch a wrong row, and in strict mode keep nothing.
TEST_CASE("wheel/record check of a member copied into a store blob uses the blob's digest") {
  TempDir dir;
  TestWheel w;
  const std::string good = std::string(300 << 10, 'g') + "end";
  w.files = {{"demo_pkg/good.bin", good}, {"demo_pkg/bad.bin", "actual bytes"}};
  w.record_overrides["demo_pkg/bad.bin"] = rp::python::record_hash("other bytes") + ",12";
  auto member = [](const rp::python::InstalledWheel& installed, const std::string& name) {
    for (const auto& e : installed.entries)
      if (e.path == kRecordSite + "/demo_pkg/" + name) return e.content;
    FAIL("no entry for " << name);
    return std::shared_ptr<const rp::ContentSource>{};
  };
  rp::ContentStore store(dir.path / "store");

  CapturedWarnings warnings;
  auto installed = install_wheel(w.write(dir), kRecordVenv);
  auto writer = store.begin_blob();
  member(installed, "good.bin")->write_to(*writer);
  CHECK(writer->commit() == rp::sha256_digest(good));
  auto bad_writer = store.begin_blob();
  member(installed, "bad.bin")->write_to(*bad_writer);
  CHECK(bad_writer->commit() == rp::sha256_digest("actual bytes"));  // the bytes the wheel holds
  INFO(warnings.text());
  CHECK(warnings.count("does not match its RECORD row") == 1);
  CHECK(warnings.text().find("'demo_pkg/bad.bin'") != std::string::npos);

  InstallOptions strict;
  strict.strict_record = true;
  auto checked = install_wheel(w.write(dir), kRecordVenv, strict);
  std::string error = "(no error)";
  {
    auto strict_writer = store.begin_blob();
    try {
      member(checked, "bad.bin")->write_to(*strict_writer);
    } catch (const rp::Error& e) {
      error = e.what();
    }
  }
  CHECK(error.find("'demo_pkg/bad.bin' does not match its RECORD row") != std::string::npos);
  CHECK(error.find(rp::python::record_hash("actual bytes")) != std::string::npos);
  // Only the two blobs committed above: the refused one left neither a blob nor a temp file.
  size_t blobs = 0, temps = 0;
  for (const auto& f : rp::fs::recursive_directory_iterator(dir.path / "store"))
    if (f.is_regular_file()) {
      if (f.path().parent_path().filename() == "sha256") ++blobs;
      if (f.path().filename().string().find(".tmp-") != std::string::npos) ++temps;
    }
  CHECK(blobs == 2);
  CHECK(temps == 0);
}
