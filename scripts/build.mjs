// Compiles the server's packages (domain, runner, http, server) to JavaScript for production: each
// `packages/<name>/src/**/*.ts` to `packages/<name>/dist/**/*.js`, one file for one file, at the same depth,
// so the paths the code finds beside itself (sql/, fixtures/, the dashboard's bundle) resolve alike.
// A process started with `--conditions=voiceagent-compiled` loads dist/ through the packages' exports;
// without it (tsx, vitest, tsc) they resolve to src/. Types are checked by `tsc -b`, not here.
// Why esbuild and not tsc's emit: docs/deployment.md, "Compiled JavaScript".
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const PACKAGES = ["domain", "runner", "http", "server"]

const sources = (dir) =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))

const started = performance.now()
let files = 0
for (const name of PACKAGES) {
  const src = path.join(root, "packages", name, "src")
  const dist = path.join(root, "packages", name, "dist")
  fs.rmSync(dist, { recursive: true, force: true })
  const entryPoints = sources(src)
  files += entryPoints.length
  await esbuild.build({
    entryPoints,
    outbase: src,
    outdir: dist,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    logLevel: "warning"
  })
}
console.log(
  `compiled ${files} files of ${PACKAGES.join(", ")} into packages/*/dist in ${
    Math.round(performance.now() - started)
  } ms`
)
