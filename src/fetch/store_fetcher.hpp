#pragma once
// net::FileFetcher over the downloader: the file is downloaded into the content store (or found
// there by its sha256) and read where the store keeps it.
#include "fetch/downloader.hpp"
#include "net/file_fetcher.hpp"

namespace rp {

class StoreFileFetcher final : public net::FileFetcher {
 public:
  StoreFileFetcher(ContentStore& store, DownloadOptions options) : store_(store), options_(std::move(options)) {}
  fs::path fetch(const net::RemoteFile& file) override {
    DownloadResult got = download_all(store_, {{file.url, file.sha256, file.headers, file.what, std::nullopt}}, options_).front();
    return store_.blob_path(got.digest);
  }

 private:
  ContentStore& store_;
  DownloadOptions options_;
};

}  // namespace rp
