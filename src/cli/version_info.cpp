#include "cli/version_info.hpp"

#include <archive.h>
#include <curl/curl.h>
#include <libdeflate.h>
#include <zstd.h>

#include <nlohmann/json.hpp>
#include <spdlog/version.h>

#include "rockpack_build_info.hpp"
#include "util/cpus.hpp"

namespace rp::cli {

std::string version_line() {
  std::string commit = ROCKPACK_GIT_DESCRIBE;
  return std::string("rockpack ") + ROCKPACK_VERSION + (commit.empty() ? "" : " (" + commit + ")");
}

std::string version_text() {
  const curl_version_info_data* curl = curl_version_info(CURLVERSION_NOW);
  std::string out = version_line() + "\n";
  out += std::string("commit:      ") + (*ROCKPACK_GIT_DESCRIBE ? ROCKPACK_GIT_DESCRIBE : "unknown (not built from git)") + "\n";
  out += std::string("build type:  ") + ROCKPACK_BUILD_TYPE + "\n";
#if defined(__clang__)
  out += "compiler:    clang " __clang_version__ "\n";
#elif defined(__GNUC__)
  out += "compiler:    GCC " __VERSION__ "\n";
#endif
  out += "features:    gzip (libdeflate " LIBDEFLATE_VERSION_STRING "), zstd " + std::string(ZSTD_versionString()) + ", " +
         archive_version_string() + ", libcurl " + curl->version + (curl->ssl_version ? std::string(" (") + curl->ssl_version + ")" : "") +
         ", nlohmann_json " + std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
         ", spdlog " + std::to_string(SPDLOG_VER_MAJOR) + "." + std::to_string(SPDLOG_VER_MINOR) + "\n";
  out += "transports:  oci:, oci-archive:, docker-archive:, registry (OCI distribution API)\n";
  out += "workers:     " + cpu_budget().describe();
  return out;
}

}  // namespace rp::cli
