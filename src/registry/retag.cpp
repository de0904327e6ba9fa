#include "registry/retag.hpp"

#include "image/media_types.hpp"
#include "registry/auth.hpp"
#include "registry/errors.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

std::optional<FetchedManifest> find_manifest(Transport& transport, const std::string& repository,
                                             const std::string& identifier) {
  // HEAD first: a missing tag is the expected answer for an incomplete family, not an error.
  net::HttpRequest head;
  head.method = "HEAD";
  head.url = "/v2/" + repository + "/manifests/" + identifier;
  head.headers.emplace_back("Accept", std::string(media::kOciIndex) + ", " + media::kOciManifest + ", " +
                                          media::kDockerManifestList + ", " + media::kDockerManifest);
  net::HttpResponse r = transport.send(head, {repository_scope(repository, "pull")});
  if (r.status == 404) return std::nullopt;
  if (!r.ok()) throw registry_error(r, "looking up " + transport.registry() + "/" + repository + ":" + identifier, transport.registry());
  return fetch_manifest(transport, repository, identifier);
}

void put_tag(Transport& transport, const std::string& repository, const std::string& tag, const FetchedManifest& manifest) {
  net::HttpRequest req;
  req.method = "PUT";
  req.url = "/v2/" + repository + "/manifests/" + tag;
  req.headers.emplace_back("Content-Type", manifest.media_type);
  req.body = manifest.bytes;
  std::string what = "tagging " + manifest.digest + " as " + transport.registry() + "/" + repository + ":" + tag;
  net::HttpResponse r = transport.send(req, {repository_scope(repository, "pull,push")});
  if (r.status != 201 && r.status != 200 && r.status != 202) throw registry_error(r, what, transport.registry());
  if (auto d = r.header("docker-content-digest"); d && *d != manifest.digest)
    throw rp::Error(what + ": the registry stored it as " + *d, "the registry rewrote the manifest");
}

}  // namespace rp::registry
