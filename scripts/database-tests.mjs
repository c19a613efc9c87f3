// Prints the test files that reach a database, one per line: those whose source, or a local module it
// imports (`./Name.js`, followed transitively), names one of the database's entry points. CI's PostgreSQL
// pass runs only these; every other test file (pure functions, codecs, fakes on loopback) already ran in
// the PGlite pass and would only repeat itself (docs/development.md, "The test suite").
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const DATABASE =
  /TestDatabase|TestKit|TestPlatform|TestRuntime|DATABASE_URL|PgliteClient|PostgresClient|Migrations|SqlClient|Cli\.js/
const LOCAL_IMPORT = /from "\.\/([A-Za-z0-9_]+)\.js"/g

const reaches = (file, seen = new Set()) => {
  if (seen.has(file) || !fs.existsSync(file)) return false
  seen.add(file)
  const source = fs.readFileSync(file, "utf8")
  if (DATABASE.test(source)) return true
  for (const [, name] of source.matchAll(LOCAL_IMPORT)) {
    if (reaches(path.join(path.dirname(file), `${name}.ts`), seen)) return true
  }
  return false
}

const files = fs.readdirSync(path.join(root, "packages"))
  .flatMap((name) => {
    const dir = path.join(root, "packages", name, "test")
    return fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((f) => f.endsWith(".test.ts")).map((f) => path.join(dir, f))
      : []
  })
  .filter((file) => reaches(file))
  .map((file) => path.relative(root, file))
  .sort()
process.stdout.write(files.join("\n") + "\n")
