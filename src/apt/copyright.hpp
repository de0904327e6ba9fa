#pragma once
// The license of a Debian package from its /usr/share/doc/<package>/copyright, when that file is
// machine-readable (DEP-5, https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/): the
// License field of the `Files: *` paragraph (its first line: the short names). Debian's short names
// are mapped to SPDX identifiers (GPL-2+ -> GPL-2.0-or-later, Expat -> MIT, BSD-3-clause ->
// BSD-3-Clause, ...; names already on the SPDX list are taken as they are), "and"/"or" and the
// comma (a lower-precedence "and") to SPDX's operators. A name with no SPDX counterpart
// (public-domain, "GPL-2+ with OpenSSL exception") leaves the expression empty and the field's first
// line in `text`. A copyright file that is not machine-readable gives nothing.
// The input is untrusted (it comes from a .deb): never throws.
#include <string_view>

#include "util/spdx_license.hpp"

namespace rp::apt {

DeclaredLicense dep5_license(std::string_view copyright);

// One Debian license short name as an SPDX identifier ("GPL-2+" -> "GPL-2.0-or-later"), or "".
std::string dep5_license_id(std::string_view short_name);

}  // namespace rp::apt
