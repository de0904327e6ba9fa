#pragma once
// Media types of the OCI image spec and of Docker's schema 2, which registries still serve.
namespace rp::media {

inline constexpr const char* kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr const char* kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr const char* kOciConfig = "application/vnd.oci.image.config.v1+json";
inline constexpr const char* kOciLayerTar = "application/vnd.oci.image.layer.v1.tar";
inline constexpr const char* kOciLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip";
inline constexpr const char* kOciLayerZstd = "application/vnd.oci.image.layer.v1.tar+zstd";

inline constexpr const char* kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr const char* kDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr const char* kDockerConfig = "application/vnd.docker.container.image.v1+json";
inline constexpr const char* kDockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip";
inline constexpr const char* kDockerForeignLayerGzip = "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip";

}  // namespace rp::media
