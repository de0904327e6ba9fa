#pragma once
// A remote file an ecosystem module must read whole (TheRock's rocm sdist, a wheel on an index that
// serves neither byte ranges nor PEP 658 metadata): the module names it, and whoever runs it fetches
// it and hands back a local file. The plan's fetcher downloads into the content store, checked
// against the sha256 (fetch/store_fetcher.hpp), so python and therock never see the store.
#include <string>

#include "net/http.hpp"
#include "util/fs.hpp"

namespace rp::net {

struct RemoteFile {
  std::string url;     // http(s)://… or file://…; credentials travel in `headers`, never here
  std::string sha256;  // expected, lowercase hex; empty: not verified (the recipe opted out)
  Headers headers;     // e.g. Authorization for a private index; never logged
  std::string what;    // for messages: "the rocm sdist rocm-7.10.0.tar.gz (https://…)"
};

class FileFetcher {
 public:
  virtual ~FileFetcher() = default;
  // A local file holding exactly the remote file's bytes, valid for the rest of the build. Throws
  // rp::Error naming `what` when the download fails or its sha256 is not the expected one.
  virtual fs::path fetch(const RemoteFile& file) = 0;
};

}  // namespace rp::net
