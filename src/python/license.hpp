#pragma once
// The license a distribution's core metadata declares, as an SPDX expression where one can be told:
// License-Expression (PEP 639) when it is a valid SPDX expression, else a License field that is one
// (a one-line identifier such as "MIT" or "Apache-2.0"), else the "License :: ..." classifiers of the
// common licenses mapped to SPDX identifiers (when they name exactly one: several license
// classifiers do not say whether all apply or any one). Otherwise `text` keeps what the metadata
// says (License-Expression, a one-line License, or the classifiers' identifiers) for a comment.
#include "python/email_headers.hpp"
#include <string>
#include <string_view>

#include "util/spdx_license.hpp"

namespace rp::python {

DeclaredLicense declared_license(const EmailHeaders& metadata);

// The SPDX identifier of a "License :: ..." classifier, or "" for one without a clear counterpart
// ("License :: OSI Approved :: BSD License" names no BSD variant).
std::string classifier_license(std::string_view classifier);

}  // namespace rp::python
