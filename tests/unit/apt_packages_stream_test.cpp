// Packages indexes read piece by piece (apt::PackagesIndexParser, apt::decompress_index_stream): the
// packages, and the errors with their line numbers, are those of reading the whole text at once,
// wherever the pieces are cut; only the unfinished stanza is held between pieces.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "assemble/compression.hpp"
#include "util/byte_sink.hpp"
#include "util/error.hpp"

using rp::apt::Package;
using rp::apt::PackagesIndexParser;

namespace {

std::string stanza(const std::string& name, const std::string& extra = "") {
  return "Package: " + name + "\nVersion: 1.0-1\nArchitecture: amd64\n" + extra + "Depends: libc6 (>= 2.36),\n libfoo\n" +
         "Filename: pool/main/" + name + "_1.0-1_amd64.deb\nSize: 1234\nSHA256: " + std::string(64, 'a') +
         "\nDescription: the " + name + " package\n a long description\n .\n over lines\n";
}

std::vector<Package> parse_in_pieces(const std::string& text, size_t piece) {
  std::vector<Package> out;
  PackagesIndexParser parser("Packages", 2, [&](Package&& p) { out.push_back(std::move(p)); });
  for (size_t i = 0; i < text.size(); i += piece) parser.feed(std::string_view(text).substr(i, piece));
  parser.finish();
  return out;
}

std::string error_in_pieces(const std::string& text, size_t piece) {
  try {
    (void)parse_in_pieces(text, piece);
  } catch (const rp::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a Packages index fed in pieces gives the packages of the whole text, wherever it is cut") {
  // Blank lines between stanzas as repositories write them, several blank lines, CRLF line ends, and
  // no newline after the last stanza.
  std::string text = stanza("alpha") + "\n" + stanza("beta") + "\n\n\n" + stanza("gamma", "Multi-Arch: same\n") + "\r\n" +
                     stanza("delta");
  text.pop_back();
  const auto whole = rp::apt::parse_packages_index(text, "Packages", 2);
  REQUIRE(whole.size() == 4);
  for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, text.size()}) {
    CAPTURE(piece);
    const auto parts = parse_in_pieces(text, piece);
    REQUIRE(parts.size() == whole.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      CHECK(parts[i].name == whole[i].name);
      CHECK(parts[i].version.str() == whole[i].version.str());
      CHECK(parts[i].depends == "libc6 (>= 2.36), libfoo");
      CHECK(parts[i].filename == whole[i].filename);
      CHECK(parts[i].origin == 2);
    }
    CHECK(parts[2].multi_arch == rp::apt::MultiArch::kSame);
  }
}

TEST_CASE("an error in a Packages index fed in pieces names the line of the whole file") {
  // The fourth stanza (12 lines each, one blank line between) starts on line 40 and has no SHA256.
  std::string bad = stanza("delta");
  bad.replace(bad.find("SHA256: "), 8 + 64 + 1, "");
  const std::string text = stanza("alpha") + "\n" + stanza("beta") + "\n" + stanza("gamma") + "\n" + bad;
  const std::string whole = error_in_pieces(text, text.size());
  REQUIRE(whole.find("Packages:40: the stanza of 'delta' has no SHA256") != std::string::npos);
  for (size_t piece : {size_t{1}, size_t{5}, size_t{100}}) CHECK(error_in_pieces(text, piece) == whole);
  // A hostile Size further down, line numbers still counted across pieces.
  std::string huge = stanza("epsilon");
  huge.replace(huge.find("Size: 1234"), 10, "Size: 12x4");
  const std::string text2 = text.substr(0, text.size() - bad.size()) + huge;
  CHECK(error_in_pieces(text2, 3).find("Packages:46: Size '12x4' of epsilon is not a number") != std::string::npos);
}

TEST_CASE("a stanza longer than 64 MiB is refused without waiting for its end") {
  std::vector<Package> out;
  PackagesIndexParser parser("Packages", 0, [&](Package&& p) { out.push_back(std::move(p)); });
  parser.feed(stanza("alpha") + "\n");
  parser.feed("Package: big\nDescription: x\n");
  const std::string line(1 << 20, 'y');
  std::string error;
  try {
    for (int i = 0; i < 70; ++i) parser.feed(" " + line + "\n");
  } catch (const rp::Error& e) {
    error = e.what();
  }
  CHECK(error.find("Packages:14: a stanza longer than 64 MiB") != std::string::npos);
  CHECK(out.size() == 1);
}

TEST_CASE("decompress_index_stream hands the text on piece by piece and still refuses a mislabelled file") {
  std::string text;
  for (int i = 0; i < 400; ++i) text += stanza("p" + std::to_string(i)) + "\n";
  rp::StringSink sink;
  auto c = rp::make_compressor(rp::Compression::parse("gzip"), sink, 1);
  c->write(text.data(), text.size());
  c->finish();
  const std::string gz = sink.take();
  size_t pos = 0, reads = 0;
  std::function<size_t(char*, size_t)> read = [&](char* buffer, size_t size) {
    ++reads;
    size_t n = std::min<size_t>({size, gz.size() - pos, 1000});  // a slow source: short reads
    std::copy(gz.data() + pos, gz.data() + pos + n, buffer);
    pos += n;
    return n;
  };
  std::vector<Package> out;
  PackagesIndexParser parser("Packages.gz", 0, [&](Package&& p) { out.push_back(std::move(p)); });
  size_t pieces = 0;
  rp::apt::decompress_index_stream(read, "main/binary-amd64/Packages.gz", "Packages.gz", [&](std::string_view t) {
    ++pieces;
    parser.feed(t);
  });
  parser.finish();
  CHECK(out.size() == 400);
  CHECK(pieces > 1);
  CHECK(reads > 1);
  CHECK(pos == gz.size());
  pos = 0;
  const std::string plain = text;
  std::function<size_t(char*, size_t)> read_plain = [&](char* buffer, size_t size) {
    size_t n = std::min(size, plain.size() - pos);
    std::copy(plain.data() + pos, plain.data() + pos + n, buffer);
    pos += n;
    return n;
  };
  CHECK_THROWS_WITH_AS(rp::apt::decompress_index_stream(read_plain, "Packages.xz", "the index", [](std::string_view) {}),
                       doctest::Contains("not compressed as its name"), rp::Error);
}
