// Licenses for the SBOM: SPDX expressions recognized (util/spdx_license), a wheel's declared license
// from its METADATA (python/license), a .deb's from its DEP-5 copyright file (apt/copyright).
#include <doctest/doctest.h>

#include "apt/copyright.hpp"
#include "python/email_headers.hpp"
#include "python/license.hpp"
#include "util/spdx_license.hpp"

using rp::spdx_expression;

TEST_CASE("spdx_expression: list identifiers, operators, WITH, parentheses, and nothing else") {
  CHECK(spdx_expression("MIT") == "MIT");
  CHECK(spdx_expression("mit") == "MIT");
  CHECK(spdx_expression("apache-2.0 or  MIT") == "Apache-2.0 OR MIT");
  CHECK(spdx_expression("(MIT OR Apache-2.0) AND BSD-3-Clause") == "(MIT OR Apache-2.0) AND BSD-3-Clause");
  CHECK(spdx_expression("GPL-2.0-or-later WITH Classpath-exception-2.0") == "GPL-2.0-or-later WITH Classpath-exception-2.0");
  CHECK(spdx_expression("LGPL-2.1+") == "LGPL-2.1+");
  CHECK_FALSE(spdx_expression("").has_value());
  CHECK_FALSE(spdx_expression("BSD").has_value());
  CHECK_FALSE(spdx_expression("MIT License").has_value());
  CHECK_FALSE(spdx_expression("MIT OR").has_value());
  CHECK_FALSE(spdx_expression("(MIT").has_value());
  CHECK_FALSE(spdx_expression("MIT)").has_value());
  CHECK_FALSE(spdx_expression("LicenseRef-custom").has_value());
  CHECK_FALSE(spdx_expression("MIT\nOR BSD-3-Clause").has_value());
  CHECK_FALSE(spdx_expression("MIT WITH").has_value());
  std::string deep(200, '(');  // (appended, not operator+: GCC 12 warns falsely of -Warray-bounds there)
  deep += "MIT";
  deep.append(200, ')');
  CHECK_FALSE(spdx_expression(deep).has_value());
}

TEST_CASE("wheel METADATA: License-Expression, else an SPDX License, else one classifier") {
  using rp::python::declared_license;
  using rp::python::EmailHeaders;
  auto lic = [](const char* text) { return declared_license(EmailHeaders::parse(text)); };
  CHECK(lic("Name: a\nLicense-Expression: mit OR Apache-2.0\nLicense: BSD\n\n").expression == "MIT OR Apache-2.0");
  CHECK(lic("Name: a\nLicense: Apache-2.0\n\n").expression == "Apache-2.0");
  auto r = lic("Name: a\nLicense: BSD\nClassifier: License :: OSI Approved :: MIT License\n\n");
  CHECK(r.expression == "MIT");
  CHECK(r.text == "BSD");
  r = lic("Name: a\nLicense: Copyright (c) someone, all rights reserved\n\n");
  CHECK(r.expression.empty());
  CHECK(r.text == "Copyright (c) someone, all rights reserved");
  r = lic("Name: a\nClassifier: License :: OSI Approved :: BSD License\n\n");
  CHECK(r.expression.empty());
  CHECK(r.text.empty());
  r = lic("Name: a\nClassifier: License :: OSI Approved :: MIT License\nClassifier: License :: OSI Approved :: Apache Software License\n\n");
  CHECK(r.expression.empty());
  CHECK(r.text == "classifiers: Apache-2.0, MIT");
  CHECK(lic("Name: a\nLicense: UNKNOWN\n\n").text.empty());
  CHECK(lic("Name: a\n\n").expression.empty());
}

TEST_CASE("DEP-5 copyright: the Files: * paragraph's License, Debian names mapped to SPDX") {
  using rp::apt::dep5_license;
  const char* dep5 =
      "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
      "Upstream-Name: x\n\n"
      "Files: debian/*\nCopyright: 2020 Someone\nLicense: GPL-2+\n\n"
      "Files: *\nCopyright: 2019 Upstream\nLicense: GPL-2+ or Artistic, and BSD-3-clause\n"
      " This program is free software...\n\n"
      "License: GPL-2+\n This program ...\n";
  auto r = dep5_license(dep5);
  CHECK(r.expression == "(GPL-2.0-or-later OR Artistic-1.0-Perl) AND (BSD-3-Clause)");
  CHECK(dep5_license("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                     "Files: *\nCopyright: x\nLicense: Expat\n")
            .expression == "MIT");
  CHECK(dep5_license("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                     "Files: *\nCopyright: x\nLicense: LGPL-2.1\n")
            .expression == "LGPL-2.1-only");
  r = dep5_license("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                   "Files: *\nCopyright: x\nLicense: public-domain\n");
  CHECK(r.expression.empty());
  CHECK(r.text == "public-domain");
  r = dep5_license("This is the Debian prepackaged version of foo.\nCopyright: 1999 Someone\n\nLicense: GPL\n");
  CHECK(r.expression.empty());
  CHECK(r.text.empty());
  CHECK(dep5_license("").expression.empty());
  CHECK(dep5_license("Format: copyright-format/1.0\n\nFiles: *\nLicense: GPL-2+ or\n").expression.empty());
}
