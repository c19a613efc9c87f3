// Prints the figures of the codebase's shape that issue 20 and the design review track, for the tree it
// runs in, or for another checkout given as its argument (`node scripts/shape.mjs [directory]`: the same
// measure for an older commit; docs/development.md, "The codebase's shape, measured"):
// - imports that run back up between the rooms of a package's src (ESLint's voiceagent/no-room-cycles,
//   run with every other rule off, so it counts whatever the config says),
// - `as any` in sources, tests and benchmarks,
// - TypeScript lines over the formatter's 120 columns (the generated OpenAPI types left out, as lint does),
// - `sql<…>` type assertions in the packages' sources, the runner's modules holding a service and SQL that
//   still assert their rows' types, and classes built without validation,
// - `Effect.fn` uses in the packages' sources.
import { ESLint } from "eslint"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import rooms from "../eslint/rooms.js"

const root = path.resolve(process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url)))
// generated files, left out as lint leaves them out (the OpenAPI types; the time-zone table is one data line)
const GENERATED = new Set(["packages/client/src/schema.ts", "packages/domain/src/PhoneTimeZonesData.ts"])

const files = (dir, pattern) =>
  fs.existsSync(path.join(root, dir))
    ? fs.readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => pattern.test(f) && !f.split(path.sep).some((p) => p === "node_modules" || p === "dist"))
      .map((f) => path.join(dir, f))
    : []

const packages = fs.readdirSync(path.join(root, "packages")).sort()
const sources = packages.flatMap((p) => files(`packages/${p}/src`, /\.tsx?$/)).filter((f) => !GENERATED.has(f))
const tests = packages.flatMap((p) => files(`packages/${p}/test`, /\.tsx?$/))
const benches = files("bench", /\.ts$/).filter((f) => !f.startsWith("bench/results"))

const read = (f) => fs.readFileSync(path.join(root, f), "utf8")
/** The modules that read and write tables: their name says so, or they hold a service and SQL. */
const repositories = sources.filter((f) =>
  f.startsWith("packages/runner/src/") && !f.includes("/Testing/") && !f.includes("/Sql/") &&
  /Effect\.Service</.test(read(f)) && /\bsql`|\bsql<|SqlSchema|Rows\./.test(read(f))
)
/** `as any` after an expression (not the words in a comment) */
const ANY = /[\w)\]}"'`] as any\b/g
const count = (list, pattern) =>
  list.reduce((n, f) => n + (fs.readFileSync(path.join(root, f), "utf8").match(pattern) ?? []).length, 0)
const longLines = (list) =>
  list.reduce(
    (n, f) => n + fs.readFileSync(path.join(root, f), "utf8").split("\n").filter((l) => l.length > 120).length,
    0
  )

const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ["**/*.ts", "**/*.tsx"],
      languageOptions: { parser: (await import("typescript-eslint")).parser },
      plugins: { voiceagent: rooms },
      rules: { "voiceagent/no-room-cycles": "error" }
    }
  ]
})
const backUp = {}
for (const result of await eslint.lintFiles(sources.map((f) => path.join(root, f)))) {
  const name = path.relative(root, result.filePath).split(path.sep)[1]
  backUp[name] = (backUp[name] ?? 0) + result.messages.filter((m) => m.ruleId === "voiceagent/no-room-cycles").length
}

const rows = [
  ...packages.filter((p) => fs.existsSync(path.join(root, "packages", p, "src"))).map((
    p
  ) => [`imports running back up: ${p}`, backUp[p] ?? 0]),
  ["`as any`: packages' sources", count(sources, ANY)],
  ["`as any`: tests", count(tests, ANY)],
  ["`as any`: benchmarks", count(benches, ANY)],
  ["lines over 120 columns (.ts, .tsx)", longLines([...sources, ...tests, ...benches])],
  ["`sql<…>` type assertions in sources", count(sources, /\bsql<[^>]*>`/g)],
  [
    "runner modules with a service and SQL that assert row types (`sql<…>`)",
    `${repositories.filter((f) => /\bsql<[^>]*>`/.test(read(f))).length} of ${repositories.length}`
  ],
  [
    "classes built unvalidated (`fromDatabase`, `disableValidation`) in sources",
    count(sources, /\bfromDatabase\)|disableValidation: true/g)
  ],
  ["`Effect.fn(` in sources", count(sources, /\bEffect\.fn(Untraced)?\(/g)]
]
const width = Math.max(...rows.map(([name]) => name.length))
for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`)
